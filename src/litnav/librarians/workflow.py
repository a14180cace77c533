"""Validation of a workflow against the operator library: known operators, valid parameters,
existing and type-correct edges, and no cycles."""

from __future__ import annotations

import json
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from pydantic import ValidationError

from litnav.core.records import Workflow
from litnav.librarians.operators import REGISTRY, OperatorParams, WorkflowError


def validate_workflow(workflow: Workflow) -> tuple[list[str], dict[str, OperatorParams]]:
    """Check ``workflow``; return its nodes in topological order and their parsed parameters.

    Raises ``WorkflowError`` naming the node and field of the first problem found.
    """
    ids = [n.id for n in workflow.nodes]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise WorkflowError(dupes[0], "duplicate node id", "id")
    if workflow.output not in ids:
        raise WorkflowError(None, f"output {workflow.output!r} is not a node id", "output")
    params: dict[str, OperatorParams] = {}
    by_id = {n.id: n for n in workflow.nodes}
    for node in workflow.nodes:
        spec = REGISTRY.get(node.op)
        if spec is None:
            raise WorkflowError(node.id, f"unknown operator {node.op!r}; known: {sorted(REGISTRY)}", "op")
        try:
            params[node.id] = spec.params.model_validate(node.params)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = "params." + ".".join(str(p) for p in err["loc"]) if err["loc"] else "params"
            raise WorkflowError(node.id, err["msg"], field) from None
        if not spec.min_inputs <= len(node.inputs) <= spec.max_inputs:
            raise WorkflowError(
                node.id, f"{node.op} takes {spec.min_inputs}..{spec.max_inputs} inputs, got {len(node.inputs)}",
                "inputs")
        for up in node.inputs:
            if up not in by_id:
                raise WorkflowError(node.id, f"input {up!r} is not a node id", "inputs")
            produced = REGISTRY[by_id[up].op].output if by_id[up].op in REGISTRY else None
            if produced != spec.input_type:
                raise WorkflowError(
                    node.id, f"input {up!r} produces {produced!r} but {node.op} needs {spec.input_type!r}",
                    "inputs")
    try:
        order = list(TopologicalSorter({n.id: n.inputs for n in workflow.nodes}).static_order())
    except CycleError as exc:
        raise WorkflowError(exc.args[1][0], f"cycle {' -> '.join(exc.args[1])}", "inputs") from None
    return order, params


def require_ranked_output(workflow: Workflow) -> None:
    """Raise ``WorkflowError`` unless the workflow's ``output`` is a ranked list (the scored output
    of ``score`` or ``rerank``), as a search round needs: a workflow cut after its fusion validates
    as a graph but gives a round no ranking ("no candidate was found" though it found 200)."""
    node = next((n for n in workflow.nodes if n.id == workflow.output), None)
    spec = REGISTRY.get(node.op) if node is not None else None
    if spec is not None and spec.output != "scored":  # a pool is candidates, not a round's ranking
        raise WorkflowError(None, f"output {workflow.output!r} ({node.op}) produces {spec.output!r}; a search "
                                  "round's ranked list is the scored output of score or rerank (keep locate_evidence "
                                  "-> score -> rerank; for retrieval order alone set scorer.enabled=false)", "output")


PLAN_KEYS = ("intent", "checkpoints")
"""Keys a workflow file may hold beside ``nodes`` and ``output``: the intent it was planned for and
its checkpoints (id -> text), which ``litnav plan --out`` writes so the file says what its
checkpoint ids name."""


def load_workflow(path: str | Path) -> Workflow:
    """Read and validate a workflow JSON file for a search (its output a ranked list:
    :func:`require_ranked_output`); errors name the file and the node/field."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise WorkflowError(None, f"{path}: {exc}") from None
    except (ValueError, RecursionError) as exc:  # an integer of thousands of digits, deep nesting
        raise WorkflowError(None, f"{path}: not a usable workflow file "
                                  f"({str(exc).splitlines()[0] or 'JSON nested too deeply'})") from None
    if isinstance(data, dict) and "workflow" in data and "nodes" not in data:
        data = data["workflow"]
    if isinstance(data, dict):  # `litnav plan --out` records the intent and checkpoints its ids name
        data = {k: v for k, v in data.items() if k not in PLAN_KEYS}
    try:
        workflow = Workflow.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise WorkflowError(None, f"{path}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    try:
        validate_workflow(workflow)
        require_ranked_output(workflow)
    except WorkflowError as exc:
        raise WorkflowError(exc.node_id, f"{exc.message} (in {path})", exc.field) from None
    return workflow
