"""Turn 1 of a search session: the workflow of all its rounds, which a refinement continues from.

A search runs several rounds, each with the nodes it added; :func:`rounds_workflow` makes them one
workflow whose fusion sums the rounds' fused lists as the search loop did, and :func:`first_turn`
records it with the session's final checklist and results (``Session.turns[0]``). Kept apart from
``navigator.refine`` so that the search side (``navigator.search``) can record a first turn
without importing the refinement that imports it.
"""

from __future__ import annotations

from litnav.core.records import Node, Round, Session, Turn, Workflow
from litnav.librarians import WorkflowError, validate_workflow
from litnav.navigator.planner import TAIL_OPS


def first_turn(session: Session) -> Turn:
    """Turn 1 of ``session``: its final checklist, the workflow of all its rounds
    (:func:`rounds_workflow`), all its rounds and results."""
    last = session.rounds[-1] if session.rounds else None
    if last is None:
        raise ValueError("the session has no rounds to continue from")
    return Turn(index=1, checklist=last.checklist, workflow=rounds_workflow(session.rounds),
                rounds=[r.index for r in session.rounds],
                rerun=list(dict.fromkeys(run.node_id for r in session.rounds for run in r.operator_runs)),
                results=list(session.results))


def _head(workflow: Workflow) -> str | None:
    """The node feeding the evidence step (the end of the retrieval side), or None."""
    ev = next((n for n in workflow.nodes if n.op == "locate_evidence"), None)
    return ev.inputs[0] if ev is not None and len(ev.inputs) == 1 else None


def rounds_workflow(rounds: list[Round]) -> Workflow:
    """One workflow for every round of a search: a later round's workflow holds only what that
    round added (expansion queries, citation seeds), and the loop fuses the rounds' lists
    cumulatively, so a refinement built on the last round alone would lose the round-1
    whole-intent searches. Here each round's retrieval side (its nodes before the evidence step;
    a later round's ids get a ``_r{index}`` suffix where they collide) feeds one union that sums
    the rounds' fused scores (``fuse_rounds``, method ``sum``: the loop's cumulative fused list,
    so a refinement that changes nothing ranks as the search did), followed by the last
    round's evidence, scoring and ranking. Node keys do not depend on ids, so every retrieval node
    is reused from the operator records. One round, or a round whose evidence step has not one
    input: the last round's workflow unchanged."""
    if not rounds:
        raise ValueError("no rounds")
    for r in rounds:  # a hand-edited round (an input naming no node) is named, never a KeyError
        try:
            validate_workflow(r.workflow)
        except WorkflowError as exc:
            raise ValueError(f"the session's round {r.index} workflow is damaged: {exc}") from None
    last = rounds[-1].workflow
    if len(rounds) == 1 or any(_head(r.workflow) is None for r in rounds):
        return last
    nodes: list[Node] = []
    heads: list[str] = []
    used: set[str] = set()
    for r in rounds:
        rename = {n.id: (n.id if n.id not in used else f"{n.id}_r{r.index}")
                  for n in r.workflow.nodes if n.op not in TAIL_OPS}
        for n in r.workflow.nodes:
            if n.op in TAIL_OPS:
                continue
            nodes.append(n.model_copy(deep=True, update={"id": rename[n.id], "inputs": [rename[i] for i in n.inputs]}))
        used |= set(rename.values())
        heads.append(rename[_head(r.workflow)])
    k = next((n.params.get("k") for n in last.nodes if n.op == "union" and n.params.get("k")), None)
    taken = used | {n.id for r in rounds for n in r.workflow.nodes}  # the tail's ids too
    fuse_id = next(f"fuse_rounds{n or ''}" for n in range(len(taken) + 1) if f"fuse_rounds{n or ''}" not in taken)
    fuse = Node(id=fuse_id, op="union", inputs=heads,
                params={"method": "sum", "weights": [1.0] * len(heads), **({"k": k} if k else {})},
                note="the candidates of every round of the search: their fused scores summed, as the search loop does")
    tail = [n.model_copy(deep=True) for n in last.nodes if n.op in TAIL_OPS]
    for n in tail:
        if n.op == "locate_evidence":
            n.inputs = [fuse.id]
    workflow = Workflow(nodes=nodes + [fuse] + tail, output=last.output)
    validate_workflow(workflow)
    return workflow


def ensure_turns(session: Session) -> Session:
    """``session`` with ``turns`` holding at least turn 1 (sessions written before turns existed)."""
    if not session.turns:
        session.turns = [first_turn(session)]
    return session
