"""ingest layer of litnav: readers for S2ORC-family dumps and generic JSONL, and ``build``,
which writes them into a corpus through ``corpus.CorpusWriter``."""

from litnav.ingest.build import BuildReport, ReadStats, build, read_file
from litnav.ingest.readers import FORMATS, FormatError, detect_format

__all__ = ["BuildReport", "ReadStats", "build", "read_file", "FORMATS", "FormatError", "detect_format"]
