"""corpus layer of litnav: one directory holding the three-tier store and its indexes.

See CONTRACT.md for the API the other packages use. Heavy libraries (torch, faiss, bm25s) load
only when a method needs them.
"""

from corpus.encoder import Encoder
from corpus.errors import CorpusError, CorpusLockedError, ModelMismatchError
from corpus.reader import Corpus
from corpus.settings import CorpusSettings
from corpus.writer import CorpusWriter

__all__ = ["Corpus", "CorpusError", "CorpusLockedError", "CorpusSettings", "CorpusWriter", "Encoder",
           "ModelMismatchError"]
