"""The operator library: importing this package registers every operator in ``REGISTRY``."""

from litnav.librarians.operators import citation, evidence_ops, filter, fusion, graph, retrieval, text  # noqa: F401
from litnav.librarians.operators.base import (
    REGISTRY,
    OperatorParams,
    OperatorSpec,
    RunContext,
    WorkflowError,
)

__all__ = ["REGISTRY", "OperatorParams", "OperatorSpec", "RunContext", "WorkflowError"]
