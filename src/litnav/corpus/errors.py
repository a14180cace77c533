"""Errors raised by the corpus layer."""

from __future__ import annotations


class CorpusError(RuntimeError):
    """A corpus directory is missing, not a corpus, damaged, or used wrongly; the message names the path."""


class CorpusLockedError(CorpusError):
    """Another writer holds the corpus's single-writer lock (``DIR/.lock``)."""


class ModelMismatchError(CorpusError):
    """The corpus's vectors were made by another embedding model (name, dimension or weights hash).

    Vectors of two models are never mixed: rebuild into a new directory, or re-embed in place.
    """
