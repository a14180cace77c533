"""Listwise ordering of scored candidates: final score, deterministic tie-breaks, optional
diversity by maximal marginal relevance."""

from __future__ import annotations

import numpy as np

from litnav.core.records import ScoredPaper


def order_key(paper: ScoredPaper, retrieval_rank: dict[str, int]) -> tuple:
    """Sort key: final score, then probability, then the number of checkpoints scored >= 4,
    then the fused retrieval rank, then corpus_id (all descending quality)."""
    satisfied = sum(1 for j in paper.judgements if j.score >= 4)
    return (-round(paper.final_score, 9), -round(paper.probability, 9), -satisfied,
            retrieval_rank.get(paper.corpus_id, 1 << 30), paper.corpus_id)


def rank_scored(
    scored: list[ScoredPaper],
    retrieval_rank: dict[str, int] | None = None,
    *,
    top_k: int | None = None,
    diversity: float = 0.0,
    vectors: dict[str, np.ndarray] | None = None,
    relevance: dict[str, float] | None = None,
) -> list[ScoredPaper]:
    """Order ``scored`` best first and keep ``top_k``.

    With ``diversity`` = λ > 0 and paper ``vectors`` (L2-normalised, shape ``[dim]``), greedy MMR:
    pick ``argmax (1-λ)·rel(d) − λ·max_{s∈S} cos(d, s)`` (Carbonell & Goldstein, SIGIR 1998),
    ``rel`` = ``relevance[corpus_id]`` when given (e.g. a rank-based score of an earlier
    ordering, whose order is then kept at λ = 0), else the final score.
    """
    if relevance is not None:
        ranked = sorted(scored, key=lambda p: (-relevance.get(p.corpus_id, 0.0), p.corpus_id))
    else:
        ranked = sorted(scored, key=lambda p: order_key(p, retrieval_rank or {}))
    if diversity <= 0 or not vectors or len(ranked) < 2:
        return ranked[:top_k] if top_k else ranked
    limit = top_k or len(ranked)
    chosen: list[ScoredPaper] = []
    rest = list(ranked)
    while rest and len(chosen) < limit:
        best, best_val = None, -np.inf
        for p in rest:
            v = vectors.get(p.corpus_id)
            sim = max((float(v @ vectors[c.corpus_id]) for c in chosen
                       if v is not None and c.corpus_id in vectors), default=0.0)
            rel = relevance.get(p.corpus_id, 0.0) if relevance is not None else p.final_score
            val = (1 - diversity) * rel - diversity * sim
            if val > best_val:
                best, best_val = p, val
        chosen.append(best)
        rest.remove(best)
    return chosen
