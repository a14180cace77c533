"""The no-LLM planner: a checklist becomes a retrieval workflow (an operator DAG).

Round 1 runs direct retrieval only: dense and BM25 retrieval of the whole intent and of each
content checkpoint, fused by reciprocal rank fusion, filtered exactly by the metadata
checkpoints, then evidence location, scoring and reranking. Citation expansion and query
expansion are added by reflection from verified seeds (see ``navigator.reflect``).
"""

from __future__ import annotations

from litnav.core.records import CONTENT_KINDS, Checklist, Node, Workflow
from litnav.core.settings import Settings

TAIL_OPS = ("locate_evidence", "score", "rerank")


def content_terms(checklist: Checklist) -> list[str]:
    """Key phrases of the content checkpoints, in checklist order, deduplicated."""
    terms: list[str] = []
    for c in checklist.checkpoints:
        if c.kind in CONTENT_KINDS:
            terms += c.terms or [c.text]
    return list(dict.fromkeys(t for t in terms if t.strip()))


def content_query(checklist: Checklist) -> str:
    """The intent's content as one query: the raw intent when it has no metadata or exclusion
    constraint (it is then all content), else the content checkpoints' key phrases."""
    constrained = any(c.kind in ("metadata", "exclusion") for c in checklist.checkpoints)
    terms = content_terms(checklist)
    if not constrained or not terms:
        return checklist.intent.strip()
    return " ".join(terms)


def retrieval_nodes(checklist: Checklist, settings: Settings) -> list[Node]:
    """Round-1 retrieval nodes: whole-intent and per-checkpoint dense and BM25 searches."""
    lib = settings.librarians
    query = content_query(checklist)
    nodes = [
        Node(id="semantic_intent", op="semantic_search", params={"query": query, "k": lib.semantic_k},
             note="dense retrieval of the whole intent"),
        Node(id="lexical_intent", op="lexical_search", params={"query": query, "k": lib.lexical_k},
             note="BM25 retrieval of the whole intent"),
    ]
    content = [c for c in checklist.checkpoints if c.kind in CONTENT_KINDS]
    if len(content) > 1:
        for c in content:
            q = " ".join(c.terms) if c.terms else c.text
            nodes.append(Node(id=f"semantic_{c.id}", op="semantic_search",
                              params={"query": q, "k": max(10, lib.semantic_k // 2), "checkpoint_id": c.id},
                              note=f"dense retrieval for checkpoint {c.id}"))
            nodes.append(Node(id=f"lexical_{c.id}", op="lexical_search",
                              params={"query": q, "k": max(10, lib.lexical_k // 2), "checkpoint_id": c.id},
                              note=f"BM25 retrieval for checkpoint {c.id}"))
    return nodes


def assemble(retrieval: list[Node], checklist: Checklist, settings: Settings, top_k: int) -> Workflow:
    """Wire retrieval nodes into fuse -> metadata filter -> evidence -> score -> rerank.

    Whole-intent branches weigh 1.0 in the fusion, per-checkpoint and expansion branches 0.5.
    """
    lib = settings.librarians
    weights = [1.0 if n.id.endswith("_intent") else 0.5 for n in retrieval]
    has_meta = any(c.kind == "metadata" for c in checklist.checkpoints)
    nodes = list(retrieval)
    nodes.append(Node(id="fuse", op="union", inputs=[n.id for n in retrieval],
                      params={"method": "rrf", "k": lib.rrf_k, "weights": weights,
                              **({} if has_meta else {"limit": lib.pool_size})},
                      note="reciprocal rank fusion of every channel"))
    last = "fuse"
    if has_meta:
        nodes.append(Node(id="filter", op="filter", inputs=["fuse"], params={"limit": lib.pool_size},
                          note="exact metadata constraints"))
        last = "filter"
    nodes += [
        Node(id="evidence", op="locate_evidence", inputs=[last], params={"k": lib.evidence_k},
             note="top evidence chunks per paper and checkpoint"),
        Node(id="score", op="score", inputs=["evidence"], note="checkpoint judgements and final score"),
        Node(id="rank", op="rerank", inputs=["score"], params={"top_k": top_k}, note="final ordering"),
    ]
    return Workflow(nodes=nodes, output="rank")


def plan_workflow(checklist: Checklist, settings: Settings, top_k: int | None = None) -> Workflow:
    """The round-1 workflow for ``checklist`` (see module docstring)."""
    return assemble(retrieval_nodes(checklist, settings), checklist, settings,
                    top_k or settings.navigator.top_k)
