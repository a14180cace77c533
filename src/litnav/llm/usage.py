"""Token pricing and the thread-safe per-query ``UsageMeter``."""

from __future__ import annotations

import threading

from litnav.core.records import Usage
from litnav.core.settings import EndpointSettings


def price(endpoint: EndpointSettings, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> float:
    """Cost in USD of one call: uncached prompt tokens, cached prompt tokens and completion
    tokens, each times the endpoint's price per million tokens.

    ``cached_tokens`` is the part of ``prompt_tokens`` the provider served from its prompt cache
    (OpenAI ``usage.prompt_tokens_details.cached_tokens``).
    """
    uncached = max(prompt_tokens - cached_tokens, 0)
    return (
        uncached * endpoint.price_prompt_per_mtok
        + cached_tokens * endpoint.price_cached_per_mtok
        + completion_tokens * endpoint.price_completion_per_mtok
    ) / 1_000_000


def call_usage(endpoint: EndpointSettings, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0) -> Usage:
    """``Usage`` of one billed call (``calls=1``), priced with ``price``."""
    return Usage(
        calls=1,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        cached_tokens=cached_tokens,
        cost_usd=price(endpoint, prompt_tokens, completion_tokens, cached_tokens),
    )


CACHE_HIT = Usage(cache_hits=1)
"""Usage of a reply served from litnav's on-disk cache: no call, no tokens, no cost."""


class UsageMeter:
    """Sums ``Usage`` per role for one query; safe to share across threads.

    ``calls`` counts requests billed by an engine (retried attempts that failed are not
    billed; repair re-asks are); a reply from litnav's response cache adds ``cache_hits=1``
    and nothing else.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_role: dict[str, Usage] = {}

    def record(self, role: str, usage: Usage) -> None:
        """Add ``usage`` to ``role``'s running total."""
        with self._lock:
            self._by_role[role] = self._by_role.get(role, Usage()).add(usage)

    def by_role(self) -> dict[str, Usage]:
        """A snapshot ``{role: Usage}`` (for ``Session.usage``)."""
        with self._lock:
            return dict(self._by_role)

    def total(self) -> Usage:
        """The sum over all roles (the whole query)."""
        total = Usage()
        for u in self.by_role().values():
            total = total.add(u)
        return total
