"""Citation-graph neighbourhoods beyond direct links: co-citation and bibliographic coupling.

Used by the ``sibling`` anchor direction: papers that are cited together with the anchor
(co-citation, Small 1973) or that cite the same papers as the anchor (bibliographic coupling,
Kessler 1963) are its siblings even when neither cites the other.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Literal

from pydantic import Field

from litnav.core.records import FoundBy
from litnav.core.settings import MAX_CITATION_HITS
from litnav.librarians.operators.base import OperatorParams, RunContext, WorkflowError, operator
from litnav.librarians.pool import Pool


class GraphNeighbourParams(OperatorParams):
    """Seeds are the top ``seeds`` papers of the input pool plus ``seed_ids``.

    ``mode``: ``cocitation`` scores a paper by how many papers cite it together with a seed;
    ``coupling`` by how many references it shares with a seed; ``both`` sums the two. Each
    count is normalised by ``sqrt(deg(seed) * deg(paper))`` (cosine over the shared-neighbour
    sets, Salton's measure), so hubs do not dominate; the best ``k`` are kept.
    """

    mode: Literal["cocitation", "coupling", "both"] = "both"
    k: int = Field(50, ge=1, le=MAX_CITATION_HITS)
    seeds: int = Field(0, ge=0, le=100, description="Top papers of the input used as seeds.")
    seed_ids: list[str] = Field(default_factory=list, description="Explicit seed corpus_ids.")
    min_shared: int = Field(1, ge=1, description="Shared neighbours a paper needs to be kept.")


def _shared(corpus, seed: str, mode: str) -> tuple[dict[str, int], dict[str, int], int]:
    """(shared counts, neighbour degrees, seed degree) for one seed and one mode."""
    if mode == "cocitation":  # seed <- citer -> other
        hubs = [c.citing_id for c in corpus.citations(seed)]
        around = lambda h: [c.cited_id for c in corpus.references(h)]  # noqa: E731
        degree = lambda p: len(corpus.citations(p))  # noqa: E731
    else:  # coupling: seed -> ref <- other
        hubs = [c.cited_id for c in corpus.references(seed)]
        around = lambda h: [c.citing_id for c in corpus.citations(h)]  # noqa: E731
        degree = lambda p: len(corpus.references(p))  # noqa: E731
    counts: dict[str, int] = defaultdict(int)
    for hub in set(hubs):
        for other in set(around(hub)):
            if other != seed:
                counts[other] += 1
    return counts, {p: degree(p) for p in counts}, len(set(hubs))


@operator("graph_neighbours", GraphNeighbourParams, output="pool", channel="citation",
          input_type="pool", min_inputs=0, max_inputs=1)
def graph_neighbours(params: GraphNeighbourParams, inputs: list, ctx: RunContext, node_id: str) -> Pool:
    """Co-cited and bibliographically coupled papers of the seeds (not the seeds themselves)."""
    seeds = list(dict.fromkeys((inputs[0].ids[: params.seeds] if inputs else []) + params.seed_ids))
    if not seeds:
        raise WorkflowError(node_id, "no seeds: give an input pool with seeds > 0, or seed_ids", "seed_ids")
    modes = ("cocitation", "coupling") if params.mode == "both" else (params.mode,)
    score: dict[str, float] = defaultdict(float)
    shared: dict[str, int] = defaultdict(int)
    for seed in seeds:
        for mode in modes:
            counts, degrees, seed_degree = _shared(ctx.corpus, seed, mode)
            for cid, n in counts.items():
                if cid in seeds:
                    continue
                shared[cid] += n
                score[cid] += n / math.sqrt(max(1, seed_degree) * max(1, degrees[cid]))
    ranked = sorted(((c, s) for c, s in score.items() if shared[c] >= params.min_shared),
                    key=lambda kv: (-kv[1], kv[0]))[: params.k]
    found = {cid: [FoundBy(channel="citation", round=ctx.round, node_id=node_id, score=s, rank=r)]
             for r, (cid, s) in enumerate(ranked, 1)}
    return Pool(ranked, found)
