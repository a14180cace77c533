"""Evidence features of one (checkpoint, paper) pair, the input of the student.

All features are in [0, 1] (cosines may be slightly negative) and computed with numpy and the
stemmer only. Checkpoint terms = stemmed content words of ``text`` plus ``terms``; phrases =
``terms`` (or ``key_phrases(text)`` when the checkpoint has none).

========================  =========================================================================
name                      meaning
========================  =========================================================================
sim_max                   max cosine(checkpoint, evidence chunk) over the evidence (0 if none)
sim_mean                  mean cosine over the evidence (0 if none)
sim_x_cov                 sim_max * term_cov_evidence (interaction)
term_cov_evidence         fraction of checkpoint terms present in the evidence chunks
term_cov_best             fraction of checkpoint terms present in the best (max-cosine) chunk
term_cov_doc              fraction present in title + abstract + evidence
phrase_frac               fraction of the checkpoint phrases found contiguously (stemmed) in
                          title + abstract + evidence
title_cov                 fraction of checkpoint terms present in the title
title_sim                 cosine(checkpoint vector, title vector) when both are known, else
                          missing (NaN; the student imputes its training mean)
front_section             1 if the best chunk is in the title/abstract/introduction, else 0
doc_sim                   cosine(checkpoint, title + abstract vector) — the dense retriever's view
                          of the whole paper; when unknown approximated by title_sim, else sim_max
bm25_rel                  BM25 score of the paper's title + abstract for the checkpoint's key
                          phrases over the best score in the corpus (IDF-weighted term evidence);
                          when unknown (no corpus at hand) approximated by term_cov_doc
========================  =========================================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from litnav.core.records import Checkpoint
from litnav.core.text import paradigm_variants, stem_set, stems
from litnav.scorer.text import key_phrases, phrase_in, phrase_key, stem_string

FEATURE_NAMES: tuple[str, ...] = (
    "sim_max", "sim_mean", "sim_x_cov", "term_cov_evidence", "term_cov_best", "term_cov_doc",
    "phrase_frac", "title_cov", "title_sim", "front_section", "bm25_rel", "doc_sim",
)

_FRONT = ("abstract", "title", "intro", "introduction")


@dataclass
class EvidenceItem:
    """An evidence chunk as the features see it."""

    text: str
    similarity: float
    section: str = "Abstract"


@dataclass
class FeatureInput:
    """What the features of one (checkpoint, paper) pair are computed from."""

    text: str
    terms: list[str]
    title: str
    abstract: str | None
    evidence: list[EvidenceItem]
    title_sim: float | None = None
    bm25_rel: float | None = None
    doc_sim: float | None = None
    _cache: dict = field(default_factory=dict, repr=False)


def is_front_section(section: str) -> bool:
    """True for title, abstract and introduction sections (case-insensitive prefix match)."""
    s = section.strip().lower().lstrip("0123456789. ")
    return s.startswith(_FRONT)


def checkpoint_terms(text: str, terms: list[str]) -> tuple[frozenset[str], list[str]]:
    """(stemmed term set, phrase keys for ``phrase_in``) of a checkpoint.

    With key phrases (``terms``) the term set is theirs alone: the statement around them
    ("The paper studies ...") carries no topical words to look for in the evidence."""
    term_set = stem_set(" ".join(terms)) if terms else stem_set(text)
    phrases = list(terms) if terms else key_phrases(text)
    return term_set, [k for k in (phrase_key(p) for p in phrases) if k]


def alternatives(checkpoint: Checkpoint) -> list[tuple[str, list[str]]]:
    """``(text, terms)`` of each way to satisfy ``checkpoint``: one per term of an ``any_of``
    checkpoint ("The paper studies NMT or speech translation": a paper on either satisfies it),
    else the checkpoint's own text and terms; for an exclusion, also each other name of a
    learning paradigm it excludes (``core.text.paradigm_variants``: "imitation approach" for
    "imitation learning"). Feed each to :func:`checkpoint_terms`."""
    if checkpoint.any_of and len(checkpoint.terms) > 1:
        ways = [(t, [t]) for t in checkpoint.terms]
    else:
        ways = [(checkpoint.text, list(checkpoint.terms))]
    if checkpoint.kind == "exclusion":
        have = {t.lower() for t in checkpoint.terms}
        ways += [(v, [v]) for v in dict.fromkeys(v for t in checkpoint.terms for v in paradigm_variants(t))
                 if v.lower() not in have]
    return ways


def _cov(terms: frozenset[str], have: set[str] | frozenset[str]) -> float:
    return len(terms & have) / len(terms) if terms else 0.0


def features(item: FeatureInput, stem_cache: dict[str, list[str]] | None = None) -> np.ndarray:
    """The feature vector (``FEATURE_NAMES`` order, float64) of one pair.

    ``stem_cache`` maps a text to its ``stems()``, shared across pairs of a batch so each paper's
    title, abstract and chunks are stemmed once."""
    cache = stem_cache if stem_cache is not None else {}

    def st(text: str) -> list[str]:
        got = cache.get(text)
        if got is None:
            got = cache[text] = stems(text)
        return got

    terms, phrases = checkpoint_terms(item.text, item.terms)
    ev = item.evidence
    sims = np.array([e.similarity for e in ev], dtype=np.float64)
    ev_stems = [st(e.text) for e in ev]
    ev_set: set[str] = set().union(*ev_stems) if ev_stems else set()
    best = int(np.argmax(sims)) if len(ev) else -1
    title_stems = st(item.title)
    abs_stems = st(item.abstract) if item.abstract else []
    doc_set = ev_set | set(title_stems) | set(abs_stems)
    doc_str = stem_string([title_stems, abs_stems, *ev_stems])
    sim_max = float(sims.max()) if len(ev) else 0.0
    cov_ev = _cov(terms, ev_set)
    title_sim = item.title_sim if item.title_sim is not None and math.isfinite(item.title_sim) else math.nan
    return np.array([
        sim_max,
        float(sims.mean()) if len(ev) else 0.0,
        sim_max * cov_ev,
        cov_ev,
        _cov(terms, set(ev_stems[best])) if best >= 0 else 0.0,
        _cov(terms, doc_set),
        (sum(phrase_in(p, doc_str) for p in phrases) / len(phrases)) if phrases else 0.0,
        _cov(terms, set(title_stems)),
        title_sim,
        1.0 if best >= 0 and is_front_section(ev[best].section) else 0.0,
        item.bm25_rel if item.bm25_rel is not None and math.isfinite(item.bm25_rel) else _cov(terms, doc_set),
        item.doc_sim if item.doc_sim is not None and math.isfinite(item.doc_sim)
        else (title_sim if math.isfinite(title_sim) else sim_max),
    ], dtype=np.float64)


def feature_matrix(items: list[FeatureInput]) -> np.ndarray:
    """Stack ``features`` of many pairs into ``[n, len(FEATURE_NAMES)]`` (shared stem cache)."""
    cache: dict[str, list[str]] = {}
    if not items:
        return np.zeros((0, len(FEATURE_NAMES)))
    return np.vstack([features(it, cache) for it in items])
