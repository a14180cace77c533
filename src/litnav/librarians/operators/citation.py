"""Citation-network expansion from seed papers, in the cited and/or citing direction."""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

from pydantic import Field

from litnav.core.records import FoundBy
from litnav.core.settings import MAX_CITATION_HITS
from litnav.librarians.operators.base import OperatorParams, RunContext, WorkflowError, missing_channels, operator
from litnav.librarians.pool import Pool


class CitationExpandParams(OperatorParams):
    """Seeds are the top ``seeds`` papers of the input pool plus ``seed_ids``.

    ``direction``: ``cited`` follows a seed's references, ``citing`` the papers that cite it.
    Neighbours are scored by the number of seed links (each weighted 1/depth) plus, when
    ``query`` is given, their cosine similarity to it; the best ``k`` are kept.
    """

    direction: Literal["cited", "citing", "both"] = "both"
    depth: int = Field(1, ge=1, le=3)
    k: int = Field(30, ge=1, le=MAX_CITATION_HITS)
    seeds: int = Field(5, ge=0, le=500, description="Top papers of the input used as seeds.")
    seed_ids: list[str] = Field(default_factory=list, description="Explicit seed corpus_ids.")
    query: str | None = Field(None, description="Ranks neighbours by similarity to this text too.")


NO_EDGES_NOTE = "nothing to follow: this corpus holds no citation edges"
"""The note of a citation expansion over a corpus without citation edges (a searcher's results
say so: ``session.render.result_notes``)."""


def _edgeless(corpus) -> bool:
    """True when ``corpus`` holds no citation edge (``stats()["citations"]`` 0); False for corpus
    doubles without ``stats``."""
    stats = getattr(corpus, "stats", None)
    return callable(stats) and stats().get("citations") == 0


def _neighbours(corpus, cid: str, direction: str) -> list[str]:
    out: list[str] = []
    if direction in ("cited", "both"):
        out += [c.cited_id for c in corpus.references(cid)]
    if direction in ("citing", "both"):
        out += [c.citing_id for c in corpus.citations(cid)]
    return out


@operator("citation_expand", CitationExpandParams, output="pool", channel="citation",
          input_type="pool", min_inputs=0, max_inputs=1)
def citation_expand(params: CitationExpandParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Papers linked by citations to the seed papers (not the seeds themselves)."""
    seeds = list(dict.fromkeys((inputs[0].ids[: params.seeds] if inputs else []) + params.seed_ids))
    if not seeds:
        raise WorkflowError(node_id, "no seeds: give an input pool or seed_ids", "seed_ids")
    strength: dict[str, float] = defaultdict(float)
    via: dict[str, str] = {}
    frontier, seen = seeds, set(seeds)
    for level in range(1, params.depth + 1):
        nxt: list[str] = []
        for cid in frontier:
            for nb in _neighbours(ctx.corpus, cid, params.direction):
                if nb in set(seeds):
                    continue
                strength[nb] += 1.0 / level
                via.setdefault(nb, cid)
                if nb not in seen:
                    seen.add(nb)
                    nxt.append(nb)
        frontier = nxt
    if not strength:
        if _edgeless(ctx.corpus):
            ctx.note(node_id, NO_EDGES_NOTE)
        return Pool()
    ids = list(strength)
    missing = missing_channels(ctx.corpus).get("semantic")
    if params.query and missing:
        ctx.note(node_id, f"query similarity skipped (citation strength only): {missing}")
    if params.query and not missing:
        sims = {h.corpus_id: h.score for h in
                ctx.corpus.semantic_search(ctx.query_vector(params.query), len(ids), ids=set(ids))}
        scored = {cid: strength[cid] + sims.get(cid, 0.0) for cid in ids}
    else:
        scored = dict(strength)
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[: params.k]
    found = {
        cid: [FoundBy(channel="citation", round=ctx.round, node_id=node_id, score=s, rank=r)]
        for r, (cid, s) in enumerate(ranked, 1)
    }
    return Pool(ranked, found)
