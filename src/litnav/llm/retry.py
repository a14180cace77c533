"""Which LLM endpoint failures are transient; the waits come from ``core.retry``.

Transient: connection errors and timeouts, and HTTP statuses ``core.retry.is_retryable_status``
accepts (408, 409, 429, 5xx: the set the OpenAI client itself retries).
"""

from __future__ import annotations

import openai

from litnav.core.retry import is_retryable_status


def is_transient(exc: BaseException) -> bool:
    """True for failures worth retrying (see module docstring)."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return is_retryable_status(exc.status_code)
    return False
