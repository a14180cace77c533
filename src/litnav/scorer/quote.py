"""Picking the verbatim quote of a judgement inside the best evidence chunk.

The best chunk is the evidence with the highest cosine similarity (ties: the earlier one). Its
sentences (``core.text.sentence_spans``) are ranked by checkpoint-term coverage plus half the
fraction of checkpoint phrases they contain; ties go to the earlier sentence. The quote is that
sentence exactly as it appears in ``Evidence.text``; its full-text offsets are
``Evidence.char_start + offset within the chunk``.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from litnav.core.records import Evidence
from litnav.core.text import sentence_spans
from litnav.scorer.text import phrase_in, stem_offsets, stem_string


@dataclass(frozen=True)
class Quote:
    """A verbatim span of one evidence chunk. ``text == evidence.text[chunk_start:chunk_end]``;
    ``start``/``end`` are the same span as offsets into the paper's full text."""

    evidence: Evidence
    text: str
    chunk_start: int
    chunk_end: int

    @property
    def start(self) -> int:
        return self.evidence.char_start + self.chunk_start

    @property
    def end(self) -> int:
        return self.evidence.char_start + self.chunk_end


def best_span(text: str, terms: frozenset[str], phrases: list[str], spans: list[tuple[int, int]]) -> tuple[int, int]:
    """The span of ``spans`` (into ``text``) that best covers the checkpoint terms and phrase keys
    (``checkpoint_terms``); ties go to the earlier span."""
    if len(spans) == 1:
        return spans[0]
    st, starts = stem_offsets(text)
    best, best_score = spans[0], -1.0
    for s, e in spans:
        sent = st[bisect_left(starts, s):bisect_left(starts, e)]
        cov = len(terms.intersection(sent)) / len(terms) if terms else 0.0
        hay = stem_string([sent])
        ph = sum(phrase_in(p, hay) for p in phrases) / len(phrases) if phrases else 0.0
        score = cov + 0.5 * ph
        if score > best_score:
            best, best_score = (s, e), score
    return best


def pick_quote(evidence: list[Evidence], terms: frozenset[str], phrases: list[str]) -> Quote | None:
    """The quote for a judgement, or None when there is no evidence (or only blank chunks)."""

    usable = [e for e in evidence if e.text.strip()]
    if not usable:
        return None
    ev = max(usable, key=lambda e: e.similarity)  # max keeps the first of equal maxima
    s, e = best_span(ev.text, terms, phrases, sentence_spans(ev.text))
    return Quote(evidence=ev, text=ev.text[s:e], chunk_start=s, chunk_end=e)
