"""Retry policy for HTTP engines: which failures are transient, and how long to wait.

Transient: connection errors and timeouts, HTTP 408, 409, 429 and 5xx (the set the OpenAI
client itself retries). The wait honours ``Retry-After`` / ``retry-after-ms`` when the server
sends it, else grows exponentially with jitter from ``backoff_initial_s``; every wait is capped
at ``backoff_max_s`` so a call's total time stays bounded.
"""

from __future__ import annotations

import email.utils
import time
import openai
from tenacity import RetryCallState, wait_exponential_jitter

from litnav.core.settings import EndpointSettings

RETRY_STATUS = frozenset({408, 409, 429})


def is_transient(exc: BaseException) -> bool:
    """True for failures worth retrying (see module docstring)."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUS or exc.status_code >= 500
    return False


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the server asked to wait (``retry-after-ms``, or ``Retry-After`` as seconds or an
    HTTP date), or None when absent or unparsable."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000, 0.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(float(raw), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


class BackoffWait:
    """A tenacity ``wait`` callable: Retry-After when given, else exponential jitter
    (``initial * 2**(n-1) + U(0, initial)``), both capped at ``backoff_max_s``."""

    def __init__(self, endpoint: EndpointSettings) -> None:
        self.cap = endpoint.backoff_max_s
        self._exp = wait_exponential_jitter(
            multiplier=endpoint.backoff_initial_s, max=endpoint.backoff_max_s, jitter=endpoint.backoff_initial_s
        )

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = retry_after_s(exc) if exc is not None else None
        wait = asked if asked is not None else self._exp(state)
        return min(wait, self.cap)
