"""The librarian swarm: executes a workflow, running independent branches concurrently.

Nodes run in waves: every node whose inputs are ready runs in the same wave, one librarian
(thread) per node; each run is recorded with its parameters, inputs, outputs and time.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from litnav.core.records import OperatorRun, Workflow
from litnav.librarians.operators import REGISTRY, RunContext
from litnav.librarians.operators.citation import CitationExpandParams
from litnav.librarians.operators.retrieval import SearchParams
from litnav.librarians.pool import EvidencePool, Pool, ScoredPool
from litnav.librarians.workflow import validate_workflow


def _outputs(value: Any) -> list[tuple[str, float]]:
    if isinstance(value, Pool):
        return list(value.hits)
    if isinstance(value, EvidencePool):
        return list(value.pool.hits)
    if isinstance(value, ScoredPool):
        return [(s.corpus_id, s.final_score) for s in value.scored]
    return []


def run_workflow(
    workflow: Workflow,
    ctx: RunContext,
    *,
    only: set[str] | None = None,
    results: dict[str, Any] | None = None,
    max_workers: int = 4,
) -> tuple[dict[str, Any], list[OperatorRun]]:
    """Execute the nodes of ``workflow`` (all, or those in ``only`` whose inputs are available).

    ``results`` holds values of nodes already run (they are not run again). Returns the updated
    ``results`` and one ``OperatorRun`` per node run now. Raises ``WorkflowError`` for an invalid
    workflow (before running anything) or from an operator.
    """
    order, params = validate_workflow(workflow)
    results = dict(results or {})
    todo = [n for n in order if n not in results and (only is None or n in only)]
    nodes = {n.id: n for n in workflow.nodes}
    runs: list[OperatorRun] = []

    def run_one(node_id: str) -> tuple[str, Any, OperatorRun]:
        node = nodes[node_id]
        spec = REGISTRY[node.op]
        t0 = time.perf_counter()
        value = spec.run(params[node_id], [results[i] for i in node.inputs], ctx, node_id)
        seconds = time.perf_counter() - t0
        record = OperatorRun(
            node_id=node_id, op=node.op, params=params[node_id].model_dump(mode="json"),
            inputs=list(node.inputs), outputs=_outputs(value), seconds=round(seconds, 6),
            note=ctx.notes.get(node_id),
        )
        return node_id, value, record

    with ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="librarian") as pool:
        while todo:
            wave = [n for n in todo if all(i in results for i in nodes[n].inputs)]
            if not wave:
                missing = {i for n in todo for i in nodes[n].inputs if i not in results}
                raise RuntimeError(f"nodes {todo} wait on inputs that were not run: {sorted(missing)}")
            ctx.encode_queries([
                params[n].query for n in wave
                if isinstance(params[n], (SearchParams, CitationExpandParams)) and params[n].query
            ])
            for node_id, value, record in pool.map(run_one, wave):
                results[node_id] = value
                runs.append(record)
            todo = [n for n in todo if n not in results]
    return results, runs
