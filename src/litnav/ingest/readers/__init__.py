"""Readers: one module per input format. Each turns a file's records into a stream of
``corpus.records.Document`` / ``Citation`` / ``Reject`` (and ``Skipped`` for rows that are
valid but carry nothing to store, e.g. a citation whose cited paper has no corpus id).

``detect_format(record)`` names the format from the keys of a file's first record.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from litnav.corpus.records import Citation, Document, Reject


@dataclass(frozen=True)
class Skipped:
    """A valid row that yields nothing to store; ``reason`` is counted in the build report."""

    reason: str


Item = Union[Document, Citation, Reject, Skipped]

if TYPE_CHECKING:
    from litnav.ingest.join import ContentStore


@dataclass
class ReadContext:
    """What a reader needs beyond the file: the content store of the build (joins) and the
    generic field mapping (``target -> source field``)."""

    content: ContentStore | None = None
    mapping: dict[str, str] = field(default_factory=dict)
    mapped: Counter = field(default_factory=Counter)
    """Generic JSONL: records in which each target of ``mapping`` found a value in its source field
    (a ``--map abstract=absract`` typo then shows as 0)."""

FORMATS: dict[str, str] = {
    "s2orc-metadata": "S2ORC 2020 release metadata_*.jsonl (joined with pdf_parses by paper_id)",
    "s2orc-pdf-parse": "S2ORC 2020 release pdf_parses_*.jsonl / per-paper 20200705 JSON (no title: needs metadata)",
    "s2orc-json": "per-paper S2ORC JSON: aclsum, doc2json pdf/ (GROBID), 20190928, 20210101",
    "s2-papers": "Semantic Scholar Datasets API 'papers'",
    "s2-abstracts": "Semantic Scholar Datasets API 'abstracts' (merged into papers by corpus id)",
    "s2-citations": "Semantic Scholar Datasets API 'citations'",
    "s2-s2orc": "Semantic Scholar Datasets API 's2orc' (full text with annotations)",
    "jsonl": "generic JSONL of papers with a field mapping (--map target=source)",
    "unarxive": "unarXive JSONL",
}
"""Format name -> description (the values accepted by ``--format``)."""

CONTENT_FORMATS = ("s2orc-pdf-parse", "s2-abstracts", "s2-s2orc")
"""Formats whose records are joined into the documents of a metadata-bearing format."""

PRIMARY_FOR = {"s2orc-metadata": ("s2orc-pdf-parse",), "s2-papers": ("s2-abstracts", "s2-s2orc")}
"""Metadata-bearing format -> the content formats merged into its documents."""


class FormatError(ValueError):
    """A file's format is unknown or unsupported; the message names the file and its keys."""


def detect_format(record: Any) -> str | None:
    """The format of a record from its keys, or None when litnav does not ingest it.

    Datasets API records are told apart by their lower-case keys (``citingcorpusid``,
    ``content``, ``openaccessinfo``, ``title``); S2ORC records by ``paper_id`` plus the
    metadata flags or the parse objects; unarXive by ``_source_hash``/``discipline``; any other
    object with a title is a generic paper.
    """
    if not isinstance(record, dict):
        return None
    keys = set(record)
    if "citingcorpusid" in keys:
        return "s2-citations"
    if "corpusid" in keys:
        if "content" in keys:
            return "s2-s2orc"
        if "title" in keys:
            return "s2-papers"
        if "abstract" in keys and "openaccessinfo" in keys:
            return "s2-abstracts"
        return None  # tldrs, embeddings, paper-ids: nothing litnav stores
    if "_source_hash" in keys or ("discipline" in keys and "metadata" in keys):
        return "unarxive"
    if "paper_id" in keys:
        if keys & {"has_pdf_parse", "s2_url", "mag_field_of_study", "outbound_citations"}:
            return "s2orc-metadata"
        if keys & {"pdf_parse", "grobid_parse", "latex_parse", "metadata", "title"}:
            return "s2orc-json"
        if "body_text" in keys or "bib_entries" in keys:
            return "s2orc-pdf-parse"
    if "title" in keys:
        return "jsonl"
    return None
