"""Exclusions that also catch the corpus's other words of their term's family.

"excluding Twitter data" is violated by a paper "able to classify tweets", but "tweets" is
neither an inflection nor a spelling of "Twitter", so the exclusion's phrase match missed it. Here
each one-word term of an exclusion gains the words of the corpus vocabulary (the phrase table's
document frequencies, ``corpus.phrases``) that begin with the same two letters and whose vectors
from the corpus's own encoder lie at cosine :data:`MIN_COSINE` or more from the term's: its
lexical family ("tweet", "tweets"; "LSTMs"; "GANs"), not words of a related topic ("social
media", 0.74 from "Twitter"; "China", 0.68 from "Chinese"). The threshold was read off a dozen
pairs of the ACL corpus with the bundled encoder: family 0.79-0.92, related words 0.48-0.77.
"""

from __future__ import annotations

import re

import numpy as np

from litnav.core.records import Checklist, Checkpoint
from litnav.core.text import spelling_variants

MIN_COSINE = 0.78
"""Least cosine between a term and a word of its family (see the module docstring)."""
COMMON_FRACTION = 0.05
COMMON_RATIO = 3.0
"""A family word in more than :data:`COMMON_FRACTION` of the corpus's documents and more than
:data:`COMMON_RATIO` times as many as the term is left out: "modelling" (1.3 % of the ACL 2016-2022
papers) is not excluded with "model" (44 %) and "models" (40 %), which nearly every paper uses in
another sense; "Twitter" (2.9 %) keeps "tweets" (3.3 %)."""
MAX_CANDIDATES = 400
"""At most this many vocabulary words (the most frequent first) are embedded per term."""

_WORD = re.compile(r"[a-z][a-z0-9'-]{2,}")


def family(term: str, table, encode) -> list[str]:
    """The corpus words of ``term``'s family, most similar first: words of ``table.df`` (a
    ``corpus.phrases.PhraseTable``) that share the term's first two letters, other than the term
    itself, at cosine >= :data:`MIN_COSINE` under ``encode`` (texts -> unit vectors ``[n, d]``),
    and not far more common than the term (:data:`COMMON_FRACTION`) unless it is another spelling
    (``core.text.spelling_variants``) or number of it. Empty for a term of several words or of fewer than three letters. Kept per (table, term):
    every refinement turn of a search asks again."""
    t = term.lower()
    if not _WORD.fullmatch(t):
        return []
    held = _FAMILIES.get((id(table), term))
    if held is not None and held[0] is table:
        return list(held[1])
    if len(_FAMILIES) >= 1024:
        _FAMILIES.clear()
    found = _family(term, t, table, encode)
    _FAMILIES[(id(table), term)] = (table, found)
    return list(found)


_FAMILIES: dict[tuple[int, str], tuple[object, list[str]]] = {}


def _family(term: str, t: str, table, encode) -> list[str]:
    cands = sorted((w for w in table.df if w[:2] == t[:2] and w != t and _WORD.fullmatch(w)),
                   key=lambda w: -table.df[w])[:MAX_CANDIDATES]
    if not cands:
        return []
    vecs = np.asarray(encode([term, *cands]), dtype=np.float32)
    sims = vecs[1:] @ vecs[0]
    order = np.argsort(-sims, kind="stable")
    most = max(COMMON_FRACTION, COMMON_RATIO * table.doc_fraction(t))
    spelt = set(spelling_variants(t))  # "modeling" for "modelling", however common

    def same_word(w: str) -> bool:  # its other spelling or number ("prediction" for "predictions")
        return w in spelt or re.sub(r"(?:es|s)$", "", w) == re.sub(r"(?:es|s)$", "", t)

    return [cands[i] for i in order
            if sims[i] >= MIN_COSINE and (table.doc_fraction(cands[i]) <= most or same_word(cands[i]))]


def with_word_family(checklist: Checklist, corpus, table) -> Checklist:
    """``checklist`` with each exclusion's one-word terms joined by their corpus family
    (:func:`family`, the corpus's encoder) as alternatives (``any_of``: a paper about any of
    them violates it). Unchanged without a phrase table or an exclusion."""
    if table is None or not any(c.kind == "exclusion" for c in checklist.checkpoints):
        return checklist
    return checklist.model_copy(update={"checkpoints": [widened(c, corpus, table) for c in checklist.checkpoints]})


def widened(checkpoint: Checkpoint, corpus, table) -> Checkpoint:
    """An exclusion ``checkpoint`` with its one-word terms' corpus families added as alternatives
    (:func:`family` with ``corpus.encode``); any other checkpoint, or one without a phrase table
    or a corpus encoder, as it is."""
    if checkpoint.kind != "exclusion" or table is None or not hasattr(corpus, "encode"):
        return checkpoint
    have = {t.lower() for t in checkpoint.terms}
    extra = [w for t in checkpoint.terms for w in family(t, table, corpus.encode) if w not in have]
    if not extra:
        return checkpoint
    return checkpoint.model_copy(update={"terms": list(dict.fromkeys([*checkpoint.terms, *extra])), "any_of": True})
