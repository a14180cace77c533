"""Retry with backoff for every network call (LLM endpoints, web providers), on tenacity.

Transient failures: HTTP 408, 409, 429 and 5xx (:func:`is_retryable_status`; the set the OpenAI
client itself retries) and connection errors / timeouts (classified by the caller). The wait
(:class:`BackoffWait`) honours the server's ``retry-after-ms`` / ``Retry-After`` (seconds or an
HTTP date) when the failure carries a response, else grows exponentially with jitter from
``initial_s`` (``initial_s * 2**(n-1) + U(0, initial_s)``); every wait is capped at ``max_s`` so
a call's total time stays bounded.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from typing import Any

from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

RETRY_STATUS = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    """True for HTTP statuses worth retrying: 408, 409, 429 and every 5xx."""
    return status in RETRY_STATUS or status >= 500


def retry_after_s(headers: Any) -> float | None:
    """Seconds a server asked to wait (``retry-after-ms``, or ``Retry-After`` as seconds or an
    HTTP date) from a case-insensitive header mapping; None when absent or unparsable."""
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
    """A tenacity ``wait``: the server's Retry-After when the failed attempt's exception carries
    a ``response`` with one, else exponential jitter; both capped at ``max_s`` seconds."""

    def __init__(self, initial_s: float, max_s: float) -> None:
        self.cap = max_s
        self._exp = wait_exponential_jitter(multiplier=initial_s, max=max_s, jitter=initial_s)

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        response = getattr(exc, "response", None)
        asked = retry_after_s(getattr(response, "headers", None))
        wait = asked if asked is not None else self._exp(state)
        return min(wait, self.cap)


def retrying(transient: Callable[[BaseException], bool], *, max_retries: int, initial_s: float, max_s: float,
             sleep: Callable[[float], None] = time.sleep) -> Retrying:
    """A tenacity ``Retrying`` that retries exceptions for which ``transient`` is true up to
    ``max_retries`` extra attempts with :class:`BackoffWait`, then re-raises the last one."""
    return Retrying(stop=stop_after_attempt(max_retries + 1), wait=BackoffWait(initial_s, max_s),
                    retry=retry_if_exception(transient), sleep=sleep, reraise=True)
