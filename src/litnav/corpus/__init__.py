"""corpus layer of litnav: one directory holding the three-tier store and its indexes.

See CONTRACT.md for the API the other packages use. Heavy libraries (torch, faiss, bm25s) load
only when a method needs them.
"""

from litnav.core.settings import CorpusSettings
from litnav.corpus.encoder import Encoder
from litnav.corpus.errors import (
    CorpusBusyError,
    CorpusError,
    CorpusLockedError,
    DenseUnavailableError,
    ModelMismatchError,
)
from litnav.corpus.reader import Corpus
from litnav.corpus.writer import CorpusWriter

__all__ = ["Corpus", "CorpusBusyError", "CorpusError", "CorpusLockedError", "CorpusSettings", "CorpusWriter",
           "DenseUnavailableError", "Encoder", "ModelMismatchError"]
