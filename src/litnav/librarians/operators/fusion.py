"""Merging candidate pools: reciprocal rank fusion (or max score), with provenance kept."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from litnav.librarians.operators.base import OperatorParams, RunContext, WorkflowError, operator
from litnav.librarians.pool import Pool


def reciprocal_rank_fusion(
    rankings: list[list[str]], k: int = 60, weights: list[float] | None = None
) -> list[tuple[str, float]]:
    """Fuse ranked id lists (best first): ``score(d) = sum_i w_i / (k + rank_i(d))``, 1-based ranks.

    Source: Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and
    individual Rank Learning Methods", SIGIR 2009 (k = 60 there). Only ranks matter, so channels
    with incomparable scores (BM25, cosine) fuse without calibration. A repeated id within one
    ranking counts at its best rank; ties keep the order of first appearance, so the output is
    deterministic. Returns ``(id, score)`` best first. Raises ``ValueError`` when ``k < 1`` or
    the weights do not match the rankings.
    """
    if k < 1:
        raise ValueError(f"RRF constant k must be >= 1, got {k}")
    weights = weights or [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    scores: dict[str, float] = {}
    for ranking, w in zip(rankings, weights):
        seen: set[str] = set()
        for rank, cid in enumerate(ranking, 1):
            if cid in seen:
                continue
            seen.add(cid)
            scores[cid] = scores.get(cid, 0.0) + w / (k + rank)
    order = {cid: i for i, cid in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


class UnionParams(OperatorParams):
    """How to merge: ``rrf`` (reciprocal rank fusion with constant ``k``), ``max`` score, or
    ``sum`` of the inputs' scores (weighted; for inputs that are already fused lists, e.g. the
    rounds of one search, whose RRF scores add up as the search loop adds them)."""

    method: Literal["rrf", "max", "sum"] = "rrf"
    k: int = Field(60, ge=1, description="RRF constant.")
    weights: list[Annotated[float, Field(ge=0, allow_inf_nan=False)]] | None = Field(
        None, description="One finite weight >= 0 per input, in input order.")
    limit: int | None = Field(None, ge=1, description="Keep only the best `limit` candidates.")


@operator("union", UnionParams, output="pool", channel="fusion", input_type="pool",
          min_inputs=1, max_inputs=64)
def union(params: UnionParams, inputs: list[Pool], ctx: RunContext, node_id: str) -> Pool:
    """Union of the input pools, deduplicated, ordered by the fused score."""
    if params.weights is not None and len(params.weights) != len(inputs):
        raise WorkflowError(node_id, f"{len(params.weights)} weights for {len(inputs)} inputs", "weights")
    if params.method == "rrf":
        hits = reciprocal_rank_fusion([p.ids for p in inputs], params.k, params.weights)
    elif params.method == "sum":
        total: dict[str, float] = {}
        for p, w in zip(inputs, params.weights or [1.0] * len(inputs)):
            for cid, s in p.hits:
                total[cid] = total.get(cid, 0.0) + w * s
        first = {cid: i for i, cid in enumerate(total)}  # ties keep the order of first appearance
        hits = sorted(total.items(), key=lambda kv: (-kv[1], first[kv[0]]))
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
