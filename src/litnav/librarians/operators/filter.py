"""Exact metadata filtering of a pool by the checklist's metadata checkpoints."""

from __future__ import annotations

import re

from pydantic import Field

from litnav.corpus.predicates import evaluate
from litnav.librarians.operators.base import OperatorParams, RunContext, WorkflowError, operator
from litnav.librarians.pool import Pool


class FilterParams(OperatorParams):
    """Which metadata checkpoints to enforce (empty = every hard one of the checklist: weight 1; a
    preference filters nothing), whether papers lacking the field are kept, and how many survivors
    to pass on."""

    checkpoint_ids: list[str] = Field(default_factory=list)
    keep_unknown: bool = Field(False, description="Keep papers whose metadata lacks the field.")
    limit: int | None = Field(None, ge=1)


DROPPED_NOTE = re.compile(r"^dropped (?P<dropped>\d+) of (?P<seen>\d+) by ")
"""What a ``filter`` run's note says it dropped ("dropped 19 of 20 by ['m1']"), for the outputs
that explain a short result list."""


def dropped_counts(note: str | None) -> tuple[int, int] | None:
    """``(dropped, seen)`` from a ``filter`` run's note (:data:`DROPPED_NOTE`), else None."""
    m = DROPPED_NOTE.match(note or "")
    return (int(m.group("dropped")), int(m.group("seen"))) if m else None


@operator("filter", FilterParams, output="pool", channel="filter", input_type="pool",
          min_inputs=1, max_inputs=1)
def metadata_filter(params: FilterParams, inputs: list[Pool], ctx: RunContext, node_id: str) -> Pool:
    """Keep the papers that satisfy every selected metadata predicate, in input order."""
    checkpoints = [c for c in ctx.checklist.checkpoints if c.kind == "metadata" and c.predicate]
    if not params.checkpoint_ids:
        checkpoints = [c for c in checkpoints if c.weight >= 1.0]
    else:
        known = {c.id for c in checkpoints}
        missing = [i for i in params.checkpoint_ids if i not in known]
        if missing:
            raise WorkflowError(node_id, f"no metadata checkpoint(s) {missing} in the checklist", "checkpoint_ids")
        checkpoints = [c for c in checkpoints if c.id in params.checkpoint_ids]
    pool = inputs[0]
    papers = ctx.corpus.papers(pool.ids)
    kept: list[tuple[str, float]] = []
    dropped = 0
    for cid, score in pool.hits:
        paper = papers.get(cid)
        ok = paper is not None
        for c in checkpoints if ok else []:
            holds, _ = evaluate(c.predicate, paper)
            if holds is False or (holds is None and not params.keep_unknown):
                ok = False
                break
        if ok:
            kept.append((cid, score))
        else:
            dropped += 1
    if checkpoints:
        ctx.note(node_id, f"dropped {dropped} of {len(pool.hits)} by {[c.id for c in checkpoints]}")  # read by dropped_counts
    return Pool(kept, {cid: pool.found_by.get(cid, []) for cid, _ in kept}).truncated(params.limit or len(kept))
