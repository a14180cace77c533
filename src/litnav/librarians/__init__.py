"""Librarians: the operator library and the swarm that executes a workflow over the corpus."""

from litnav.librarians.operators import REGISTRY, RunContext, WorkflowError
from litnav.librarians.pool import EvidencePool, Pool, ScoredPool
from litnav.librarians.swarm import run_workflow
from litnav.librarians.workflow import load_workflow, require_ranked_output, validate_workflow

__all__ = [
    "REGISTRY", "RunContext", "WorkflowError", "Pool", "EvidencePool", "ScoredPool",
    "run_workflow", "validate_workflow", "load_workflow", "require_ranked_output",
]
