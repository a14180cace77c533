"""Direct retrieval operators: semantic (dense, cosine over FAISS) and lexical (BM25)."""

from __future__ import annotations

from pydantic import Field

from litnav.core.records import FoundBy
from litnav.librarians.operators.base import OperatorParams, RunContext, missing_channels, operator
from litnav.librarians.pool import Pool


class SearchParams(OperatorParams):
    """A query and how many hits to keep."""

    query: str = Field(min_length=1, description="Query text.")
    k: int = Field(100, ge=1, le=10_000, description="Hits to return.")
    checkpoint_id: str | None = Field(None, description="The checkpoint this query targets, if any.")
    within: list[str] = Field(
        default_factory=list, description="Metadata checkpoint ids: search only the papers that satisfy them "
        "(an exact filter before ranking; the whole corpus when the corpus cannot bound that set).")


def _restriction(params: SearchParams, ctx: RunContext, node_id: str) -> dict[str, set[str]]:
    """``{"ids": ...}`` for the corpus search when ``params.within`` bounds it, else ``{}``."""
    if not params.within:
        return {}
    ids = ctx.within(params.within, node_id)
    ctx.note(node_id, f"searched within the {len(ids)} papers satisfying {params.within}" if ids is not None
             else f"searched the whole corpus ({params.within} match too many papers to search within)")
    return {} if ids is None else {"ids": ids}


def _pool(hits, channel: str, ctx: RunContext, node_id: str) -> Pool:
    pairs = [(h.corpus_id, float(h.score)) for h in hits]
    found = {
        cid: [FoundBy(channel=channel, round=ctx.round, node_id=node_id, score=score, rank=rank)]
        for rank, (cid, score) in enumerate(pairs, 1)
    }
    return Pool(pairs, found)


@operator("semantic_search", SearchParams, output="pool", channel="semantic")
def semantic_search(params: SearchParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Top-k papers by cosine similarity of the query to title + abstract embeddings (skipped,
    with a note, while the corpus has no abstract vectors yet: build stage ``lexical``)."""
    missing = missing_channels(ctx.corpus).get("semantic")
    if missing:
        ctx.note(node_id, f"semantic channel skipped: {missing}")
        return Pool()
    hits = ctx.corpus.semantic_search(ctx.query_vector(params.query), params.k, **_restriction(params, ctx, node_id))
    return _pool(hits, "semantic", ctx, node_id)


class FeedbackSearchParams(SearchParams):
    """A query, seed papers judged relevant, and how much the seeds move the query."""

    seed_ids: list[str] = Field(min_length=1, description="Corpus ids of the feedback papers.")
    beta: float = Field(1.0, ge=0, le=10, allow_inf_nan=False,
                        description="Weight of the seeds' mean vector against the query vector's 1.")


@operator("feedback_search", FeedbackSearchParams, output="pool", channel="semantic")
def feedback_search(params: FeedbackSearchParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Dense pseudo-relevance feedback: top-k papers (seeds included: the ranks of every round's
    pools add up in the loop's fusion) by cosine to
    ``q + beta * mean(seed abstract vectors)``, renormalised (Rocchio, 1971, on dense vectors as in
    Li et al., "Pseudo relevance feedback with deep language models and dense retrievers", 2021).
    Seeds without a stored vector are ignored; with none (or no abstract vectors) the node returns
    nothing, with a note."""
    import numpy as np

    missing = missing_channels(ctx.corpus).get("semantic")
    if missing:
        ctx.note(node_id, f"feedback search skipped: {missing}")
        return Pool()
    found, vecs = ctx.corpus.abstract_vectors(params.seed_ids)
    if not found:
        ctx.note(node_id, f"feedback search skipped: none of the seeds {params.seed_ids[:5]} is a corpus paper "
                          "with an abstract vector")
        return Pool()
    vec = ctx.query_vector(params.query) + params.beta * vecs.mean(axis=0)
    vec = (vec / max(float(np.linalg.norm(vec)), 1e-12)).astype(np.float32)
    hits = ctx.corpus.semantic_search(vec, params.k, **_restriction(params, ctx, node_id))
    return _pool(hits, "semantic", ctx, node_id)


@operator("lexical_search", SearchParams, output="pool", channel="lexical")
def lexical_search(params: SearchParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Top-k papers by BM25 over title + abstract."""
    hits = ctx.corpus.lexical_search(params.query, params.k, **_restriction(params, ctx, node_id))
    return _pool(hits, "lexical", ctx, node_id)


class WebSearchParams(OperatorParams):
    """A query for the external providers and how many hits to ask each for."""

    query: str = Field(min_length=1)
    limit: int = Field(20, ge=1, le=100)


@operator("web_search", WebSearchParams, output="pool", channel="web")
def web_search(params: WebSearchParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """External scholarly search; only hits verified against corpus records are kept."""
    if ctx.web_fn is None:
        ctx.note(node_id, "web channel skipped: no web search function configured")
        return Pool()
    outcome = ctx.web_fn(params.query, ctx.corpus, ctx.settings, params.limit)
    if outcome.skipped_reason:
        ctx.note(node_id, f"web channel skipped: {outcome.skipped_reason}")
    hits: list[tuple[str, float]] = []
    found: dict[str, list[FoundBy]] = {}
    for rank, hit in enumerate(outcome.hits, 1):
        if hit.corpus_id in found:
            continue
        hits.append((hit.corpus_id, float(hit.confidence)))  # verified mapping confidence
        found[hit.corpus_id] = [
            FoundBy(channel="web", round=ctx.round, node_id=node_id, score=float(hit.confidence),
                    rank=rank, provider=hit.provider)
        ]
    remarks = []
    if outcome.unverified:
        remarks.append(f"{len(outcome.unverified)} external hits not verified against the corpus (dropped)")
    remarks += [f"provider error: {e}" for e in getattr(outcome, "errors", [])]
    if remarks:
        ctx.note(node_id, "; ".join(remarks))
    return Pool(hits, found)
