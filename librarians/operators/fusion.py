"""Merging candidate pools: reciprocal rank fusion (or max score), with provenance kept."""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

from pydantic import Field

from librarians.operators.base import OperatorParams, RunContext, WorkflowError, operator
from librarians.pool import Pool


def reciprocal_rank_fusion(
    rankings: list[list[str]], k: int = 60, weights: list[float] | None = None
) -> list[tuple[str, float]]:
    """Fuse ranked lists: ``score(d) = sum_i w_i / (k + rank_i(d))`` with 1-based ranks.

    Source: Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and
    individual Rank Learning Methods", SIGIR 2009 (k = 60 there). Returns ``(id, score)``
    best first; ties break by id so the order is deterministic.
    """
    weights = weights or [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    scores: dict[str, float] = defaultdict(float)
    for ranking, w in zip(rankings, weights):
        for rank, cid in enumerate(ranking, 1):
            scores[cid] += w / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))


class UnionParams(OperatorParams):
    """How to merge: ``rrf`` (reciprocal rank fusion with constant ``k``) or ``max`` score."""

    method: Literal["rrf", "max"] = "rrf"
    k: int = Field(60, ge=1, description="RRF constant.")
    weights: list[float] | None = Field(None, description="One weight per input, in input order.")
    limit: int | None = Field(None, ge=1, description="Keep only the best `limit` candidates.")


@operator("union", UnionParams, output="pool", channel="fusion", input_type="pool",
          min_inputs=1, max_inputs=64)
def union(params: UnionParams, inputs: list[Pool], ctx: RunContext, node_id: str) -> Pool:
    """Union of the input pools, deduplicated, ordered by the fused score."""
    if params.weights is not None and len(params.weights) != len(inputs):
        raise WorkflowError(node_id, f"{len(params.weights)} weights for {len(inputs)} inputs", "weights")
    if params.method == "rrf":
        hits = reciprocal_rank_fusion([p.ids for p in inputs], params.k, params.weights)
    else:
        best: dict[str, float] = {}
        for p, w in zip(inputs, params.weights or [1.0] * len(inputs)):
            for cid, s in p.hits:
                best[cid] = max(best.get(cid, float("-inf")), w * s)
        hits = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))
    if params.limit:
        hits = hits[: params.limit]
    found: dict[str, list] = {}
    for p in inputs:
        for cid, fb in p.found_by.items():
            found.setdefault(cid, []).extend(fb)
    return Pool(hits, {cid: found.get(cid, []) for cid, _ in hits})
