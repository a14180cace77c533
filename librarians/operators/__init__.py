"""The operator library: importing this package registers every operator in ``REGISTRY``."""

from librarians.operators import citation, evidence_ops, filter, fusion, retrieval  # noqa: F401
from librarians.operators.base import (
    REGISTRY,
    OperatorParams,
    OperatorSpec,
    RunContext,
    WorkflowError,
)

__all__ = ["REGISTRY", "OperatorParams", "OperatorSpec", "RunContext", "WorkflowError"]
