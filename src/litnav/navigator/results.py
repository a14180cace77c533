"""Turning the final ranking into results: every field re-read from the corpus."""

from __future__ import annotations

from litnav.core.records import FoundBy, Result, ScoredPaper


class ProvenanceError(RuntimeError):
    """A ranked id is not a record of the corpus (never returned as a result)."""


def build_results(corpus, ranked: list[ScoredPaper], found_by: dict[str, list[FoundBy]], top_k: int) -> list[Result]:
    """The first ``top_k`` of ``ranked`` as ``Result`` records whose title, year, venue and authors
    come from a fresh corpus read. Ids the corpus does not hold are dropped, never printed."""
    head = ranked[:top_k]
    papers = corpus.papers([p.corpus_id for p in head])
    results: list[Result] = []
    for sp in head:
        paper = papers.get(sp.corpus_id)
        if paper is None:
            continue
        results.append(Result(
            rank=len(results) + 1, corpus_id=paper.corpus_id, title=paper.title, year=paper.year,
            venue=paper.venue or paper.venue_raw, authors=[a.name for a in paper.authors],
            final_score=round(sp.final_score, 6), probability=round(sp.probability, 6),
            checkpoints=sp.judgements, found_by=found_by.get(sp.corpus_id, []),
        ))
    return results
