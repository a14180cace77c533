"""Errors raised by the corpus layer."""

from __future__ import annotations


class CorpusError(RuntimeError):
    """A corpus directory is missing, not a corpus, damaged, or used wrongly; the message names the path."""


class CorpusLockedError(CorpusError):
    """Another writer holds the corpus's single-writer lock (``DIR/.lock``)."""


class CorpusBusyError(CorpusError):
    """Another process has the corpus database open in a way that excludes this open: a build
    writing it (readers wait), or readers while a build wants to write (the build waits)."""


class DenseUnavailableError(CorpusError):
    """The corpus is searchable with BM25 but has no abstract vectors: not built yet (build stage
    ``lexical``: a build is embedding them, or was interrupted while it did), or not at all (built
    with ``corpus.abstract_embeddings=false``). ``Corpus.missing_channels`` says which."""


class ModelMismatchError(CorpusError):
    """The corpus's vectors were made by another embedding model (name, dimension or weights hash).

    Vectors of two models are never mixed: rebuild into a new directory, or re-embed in place.
    """


def mismatch_message(directory, stored: dict, current: dict) -> str:
    """Explanation for :class:`ModelMismatchError`, with the ways out."""
    return (
        f"corpus {directory} was embedded with model {stored.get('name')} (dim {stored.get('dim')}, "
        f"weights {str(stored.get('weights_hash'))[:12]}, {stored.get('backend', 'torch')} "
        f"{stored.get('precision', 'fp32')}), but the encoder is {current['name']} (dim {current['dim']}, "
        f"weights {current['weights_hash'][:12]}, {current.get('backend', 'torch')} "
        f"{current.get('precision', 'fp32')}). Vectors of different models or backends "
        f"are never mixed: rebuild into a new directory (`litnav build ... --corpus NEW_DIR`) or re-embed "
        f"this one in place with the corpus's stored settings (`litnav reindex --corpus {directory}`, or "
        f"`litnav build ... --reembed`; CorpusWriter.finalize(reembed=True)).")
