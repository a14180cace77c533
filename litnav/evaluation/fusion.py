"""Reciprocal rank fusion (RRF), the ``hybrid`` baseline's way of merging rankings.

Cormack, Clarke and Büttcher (2009), "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR: a document's fused score is

    RRF(d) = sum over rankings r containing d of  1 / (k + rank_r(d)),   rank 1-based, k = 60.

Only ranks matter, so channels with incomparable scores (BM25, cosine) fuse without calibration.
"""

from __future__ import annotations

from collections.abc import Sequence


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], k: int = 60) -> list[tuple[str, float]]:
    """Fuse ranked id lists (best first) into ``[(id, rrf_score)]``, best first.

    Ties in fused score keep the order of first appearance (earlier ranking, higher rank first),
    so the output is deterministic. A repeated id within one ranking counts at its best rank.
    Raises ``ValueError`` when ``k < 1``.
    """
    if k < 1:
        raise ValueError(f"RRF constant k must be >= 1, got {k}")
    scores: dict[str, float] = {}
    for ranking in rankings:
        seen: set[str] = set()
        for rank, doc in enumerate(ranking, 1):
            if doc in seen:
                continue
            seen.add(doc)
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
    order = {doc: i for i, doc in enumerate(scores)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
