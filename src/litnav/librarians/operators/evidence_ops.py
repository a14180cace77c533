"""The locate_evidence, score and rerank operators.

``score`` and ``rerank`` are declared here (types and parameters) but run functions supplied by
the caller through ``RunContext.score_fn``/``rerank_fn``, which keeps imports pointing downward.
"""

from __future__ import annotations

from pydantic import Field

from litnav.librarians.evidence import evidence_query, locatable, locate_evidence
from litnav.librarians.operators.base import OperatorParams, RunContext, WorkflowError, operator
from litnav.librarians.pool import EvidencePool, Pool, ScoredPool


class LocateEvidenceParams(OperatorParams):
    """``k`` chunks per (paper, checkpoint); ``limit`` caps the papers examined and judged (the
    first ``limit`` of the pool; the scorer judges at most ``librarians.pool_size``); the whole pool
    is passed on, so candidates below keep their place."""

    k: int = Field(2, ge=1, le=20)
    limit: int | None = Field(None, ge=1)


@operator("locate_evidence", LocateEvidenceParams, output="evidence", channel="evidence",
          input_type="pool", min_inputs=1, max_inputs=1)
def locate(params: LocateEvidenceParams, inputs: list[Pool], ctx: RunContext, node_id: str) -> EvidencePool:
    """Top-k evidence chunks per candidate (the first ``limit``) and content/exclusion checkpoint, by cosine."""
    pool = inputs[0]
    ids = pool.ids[: params.limit] if params.limit else pool.ids
    cps = locatable(ctx.checklist.checkpoints)
    ctx.encode_queries([evidence_query(c) for c in cps])
    ev = locate_evidence(ctx.corpus, ids, cps, ctx.query_vectors, params.k)
    return EvidencePool(pool, ev, k=params.k, limit=params.limit)


class ScoreParams(OperatorParams):
    """Scoring takes no parameters; the scorer is chosen by settings."""


@operator("score", ScoreParams, output="scored", channel="scorer", input_type="evidence",
          min_inputs=1, max_inputs=1)
def score(params: ScoreParams, inputs: list[EvidencePool], ctx: RunContext, node_id: str) -> ScoredPool:
    """Judge every (paper, checkpoint) and compute each paper's probability and final score."""
    if ctx.score_fn is None:
        raise WorkflowError(node_id, "no scorer was supplied to the run context")
    return ctx.score_fn(inputs[0], ctx)


class RerankParams(OperatorParams):
    """``top_k`` results kept; ``diversity`` is the MMR trade-off (0 = score order)."""

    top_k: int | None = Field(None, ge=1)
    diversity: float | None = Field(None, ge=0, le=1)


@operator("rerank", RerankParams, output="scored", channel="reranker", input_type="scored",
          min_inputs=1, max_inputs=1)
def rerank(params: RerankParams, inputs: list[ScoredPool], ctx: RunContext, node_id: str) -> ScoredPool:
    """Final listwise ordering of the scored candidates."""
    if ctx.rerank_fn is None:
        raise WorkflowError(node_id, "no reranker was supplied to the run context")
    return ctx.rerank_fn(inputs[0], params, ctx)
