"""Whether a workflow written outside the rule planner (an LLM plan, a user's edited file, an
anchor template) is fit to run for a checklist over a corpus.

``librarians.validate_workflow`` checks the graph alone (operators, parameters, typed edges, no
cycle). A search round also needs: one ``locate_evidence`` -> ``score`` -> ``rerank`` tail with the
rerank node as output (a second ``score`` node would count round 1's fused scores twice); every
node on a path to that output (a node that feeds nothing still runs, and its result is thrown
away); checkpoint ids that name this checklist's checkpoints; exact filters (``filter`` and a
search's ``within``) only on hard metadata checkpoints (weight 1: a preference, or a constraint
relaxed because no paper of the corpus satisfies it, filters nothing); and seed ids that are papers
of the corpus. (A slip in an anchor template's placeholder is ``navigator.anchor``'s to find: after
filling, braces may be the anchor's own TeX, "$AP^{box}$".)
"""

from __future__ import annotations

from litnav.core.records import Checklist, Workflow
from litnav.librarians import WorkflowError, validate_workflow
from litnav.navigator.planner import TAIL_OPS


def _reaching(workflow: Workflow) -> set[str]:
    """The ids of the nodes on a path to the workflow's output (the output included)."""
    inputs = {n.id: n.inputs for n in workflow.nodes}
    seen, todo = set(), [workflow.output]
    while todo:
        node_id = todo.pop()
        if node_id not in seen:
            seen.add(node_id)
            todo.extend(inputs.get(node_id, []))
    return seen


def check_workflow(workflow: Workflow, checklist: Checklist, corpus) -> list[str]:
    """Every problem of ``workflow`` for a search round over ``corpus`` with ``checklist`` (see the
    module docstring), each naming its node and field; ``[]`` when it is fit to run.
    ``validate_workflow``'s first error stands alone (the rest assumes a valid graph)."""
    try:
        validate_workflow(workflow)
    except WorkflowError as exc:
        return [f"invalid workflow: {exc}"]
    problems: list[str] = []
    by_op: dict[str, list] = {}
    for n in workflow.nodes:
        by_op.setdefault(n.op, []).append(n)
    for op in TAIL_OPS:
        if len(by_op.get(op, [])) != 1:
            problems.append(f"invalid workflow: needs exactly one {op} node, found {len(by_op.get(op, []))}")
    if by_op.get("rerank") and workflow.output != by_op["rerank"][0].id:
        problems.append(f"invalid workflow: output must be the rerank node {by_op['rerank'][0].id!r}")
    reaching = _reaching(workflow)
    for n in workflow.nodes:
        if n.id not in reaching:
            problems.append(f"node {n.id!r}: no path from it to the output {workflow.output!r}, so its result "
                            "would be thrown away; remove it or list it among a later node's inputs")
    ids = {c.id for c in checklist.checkpoints}
    meta = {c.id: c for c in checklist.checkpoints if c.kind == "metadata" and c.predicate is not None}
    for n in workflow.nodes:
        cp = n.params.get("checkpoint_id")
        if cp is not None and cp not in ids:
            problems.append(f"node {n.id!r}, field 'params.checkpoint_id': {cp!r} is not a checkpoint id "
                            f"(this checklist has {', '.join(sorted(ids))})")
        for field in ("checkpoint_ids", "within"):
            named = n.params.get(field) or []
            if bad := [c for c in named if c not in meta]:
                problems.append(f"node {n.id!r}, field 'params.{field}': {bad} are not metadata checkpoint ids of "
                                f"this checklist (it has {', '.join(sorted(meta)) or 'none'})")
            if soft := [c for c in named if c in meta and meta[c].weight < 1.0]:
                problems.append(f"node {n.id!r}, field 'params.{field}': {soft} "
                                f"{'is a preference' if len(soft) == 1 else 'are preferences'} (weight < 1: "
                                f"{'; '.join(meta[c].text for c in soft)}), which "
                                f"{'filters' if len(soft) == 1 else 'filter'} nothing; leave "
                                f"{'it' if len(soft) == 1 else 'them'} out")
        seeds = n.params.get("seed_ids") or []
        if missing := sorted(set(seeds) - set(corpus.papers(seeds))) if seeds else []:
            problems.append(f"node {n.id!r}, field 'params.seed_ids': {missing} are not papers of the corpus")
    return problems
