"""The one error type of the LLM layer."""

from __future__ import annotations


class LLMError(RuntimeError):
    """An LLM call failed for good: the endpoint kept failing after bounded retries, a reply
    stayed invalid after the repair attempts, or an engine could not be built (missing extra,
    bad model path). The message names the role, the engine/model and the cause; the original
    exception, when there is one, is chained as ``__cause__``.
    """

    def __init__(self, message: str, *, role: str | None = None, model: str | None = None) -> None:
        prefix = ", ".join(p for p in (f"role={role}" if role else "", f"model={model}" if model else "") if p)
        super().__init__(f"LLM {prefix}: {message}" if prefix else f"LLM: {message}")
        self.role = role
        self.model = model
        self.cause = message
        """The message without the role and model prefix (for a caller that adds its own)."""
