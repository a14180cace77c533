"""Direct retrieval operators: semantic (dense, cosine over FAISS) and lexical (BM25), of a query
or of example papers (query by example), and web search verified against the corpus."""

from __future__ import annotations

from pydantic import Field

from litnav.core.records import FoundBy
from litnav.core.settings import MAX_HITS
from litnav.core.text import stem_set
from litnav.librarians.operators.base import OperatorParams, RunContext, missing_channels, operator, partial_channels
from litnav.librarians.pool import Pool


class SearchParams(OperatorParams):
    """A query and how many hits to keep."""

    query: str = Field(min_length=1, pattern=r"\S", description="Query text (not only whitespace).")
    k: int = Field(100, ge=1, le=MAX_HITS, description="Hits to return.")
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
    partial = partial_channels(ctx.corpus).get("semantic")
    if partial:
        ctx.note(node_id, f"semantic channel partial: {partial}")
    hits = ctx.corpus.semantic_search(ctx.query_vector(params.query), params.k, **_restriction(params, ctx, node_id))
    return _pool(hits, "semantic", ctx, node_id)


class FeedbackSearchParams(SearchParams):
    """A query, seed papers judged relevant, and how much the seeds move the query."""

    seed_ids: list[str] = Field(min_length=1, description="Corpus ids of the feedback papers.")
    beta: float = Field(1.0, ge=0, le=10, allow_inf_nan=False,
                        description="Weight of the seeds' mean vector against the query vector's 1.")


def _mean_vector(ids: list[str], ctx: RunContext, node_id: str, what: str):
    """The mean stored title + abstract vector (float32 ``[dim]``) of the papers ``ids`` that have
    one, or None, with a note saying why ``what`` is skipped: no abstract vectors in the corpus
    (build stage ``lexical``) or none of ``ids`` has one."""
    missing = missing_channels(ctx.corpus).get("semantic")
    if missing:
        ctx.note(node_id, f"{what} skipped: {missing}")
        return None
    found, vecs = ctx.corpus.abstract_vectors(ids)
    if not found:
        ctx.note(node_id, f"{what} skipped: none of the seeds {ids[:5]} is a corpus paper with an abstract vector")
        return None
    return vecs.mean(axis=0)


def _unit(vec):
    """``vec`` scaled to unit L2 norm (a zero vector stays zero), float32."""
    import numpy as np

    return (vec / max(float(np.linalg.norm(vec)), 1e-12)).astype(np.float32)


@operator("feedback_search", FeedbackSearchParams, output="pool", channel="semantic")
def feedback_search(params: FeedbackSearchParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Dense pseudo-relevance feedback: top-k papers (seeds included: the ranks of every round's
    pools add up in the loop's fusion) by cosine to
    ``q + beta * mean(seed abstract vectors)``, renormalised (Rocchio, 1971, on dense vectors as in
    Li et al., "Pseudo relevance feedback with deep language models and dense retrievers", 2021).
    Seeds without a stored vector are ignored; with none (or no abstract vectors) the node returns
    nothing, with a note."""
    mean = _mean_vector(params.seed_ids, ctx, node_id, "feedback search")
    if mean is None:
        return Pool()
    vec = _unit(ctx.query_vector(params.query) + params.beta * mean)
    hits = ctx.corpus.semantic_search(vec, params.k, **_restriction(params, ctx, node_id))
    return _pool(hits, "semantic", ctx, node_id)


@operator("lexical_search", SearchParams, output="pool", channel="lexical")
def lexical_search(params: SearchParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Top-k papers by BM25 over title + abstract."""
    hits = ctx.corpus.lexical_search(params.query, params.k, **_restriction(params, ctx, node_id))
    return _pool(hits, "lexical", ctx, node_id)


EXAMPLE_OPS = ("example_lexical", "example_semantic")
"""The query-by-example operators (below); their hits are found by channel ``example``."""


class ExampleSearchParams(OperatorParams):
    """Example papers (query by example), how many hits to keep, and when the intent is the example."""

    seed_ids: list[str] = Field(min_length=1, description="Corpus ids of the example papers.")
    k: int = Field(100, ge=1, le=MAX_HITS, description="Hits to return (the examples themselves among them).")
    max_quoted: float = Field(
        0.85, gt=0, le=1, allow_inf_nan=False, description="Skip the search when the intent holds this share of the examples' distinct "
        "content terms (title + abstract): a pasted whole abstract is the example already, searched by the intent's "
        "own nodes. On the citations-self dev queries a facet (a third of an abstract) holds 0.13-0.80 of its "
        "source's terms (median 0.39), a title + abstract 1.0.")


def _example_text(params: ExampleSearchParams, ctx: RunContext, node_id: str) -> str | None:
    """The examples' titles and abstracts as one text, or None (with a note) when no example is a
    corpus paper with text or the intent already holds ``params.max_quoted`` of its terms."""
    papers, abstracts = ctx.corpus.papers(params.seed_ids), ctx.corpus.abstracts(params.seed_ids)
    text = " ".join(f"{papers[c].title or ''} {abstracts.get(c, '')}" for c in params.seed_ids if c in papers).strip()
    if not text:
        ctx.note(node_id, f"example search skipped: none of {params.seed_ids[:5]} is a corpus paper with text")
        return None
    terms = stem_set(text)
    share = len(stem_set(ctx.checklist.intent) & terms) / max(1, len(terms))
    if share >= params.max_quoted:
        ctx.note(node_id, f"example search skipped: the intent holds {share:.0%} of the example's title and abstract "
                          f"terms (max_quoted {params.max_quoted:g}), so the searches of the intent run it already")
        return None
    return text


@operator("example_semantic", ExampleSearchParams, output="pool", channel="example")
def example_semantic(params: ExampleSearchParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Query by example, dense: top-k papers by cosine to the mean stored title + abstract vector
    of the example papers (the examples rank first; drop them downstream). Examples without a
    stored vector are ignored; with none (or no abstract vectors), or when the intent is the
    example already (:func:`_example_text`), the node returns nothing, with a note."""
    if "semantic" not in missing_channels(ctx.corpus) and _example_text(params, ctx, node_id) is None:
        return Pool()
    mean = _mean_vector(params.seed_ids, ctx, node_id, "example search")
    return Pool() if mean is None else _pool(ctx.corpus.semantic_search(_unit(mean), params.k), "example", ctx,
                                             node_id)


@operator("example_lexical", ExampleSearchParams, output="pool", channel="example")
def example_lexical(params: ExampleSearchParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Query by example, BM25: top-k papers by BM25 of the example papers' titles and abstracts
    as one query (the examples rank first; drop them downstream). With no corpus paper among
    them, or when the intent is the example already (:func:`_example_text`), the node returns
    nothing, with a note."""
    text = _example_text(params, ctx, node_id)
    return Pool() if text is None else _pool(ctx.corpus.lexical_search(text, params.k), "example", ctx, node_id)


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
