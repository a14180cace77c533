"""The shared HTTP layer of every provider: httpx with a timeout, bounded retries with
backoff on transient statuses and transport errors (``core.retry``: 408/409/429/5xx, honouring
``Retry-After`` up to the cap), a polite minimum interval between requests per provider, and the
on-disk cache."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from litnav.core.retry import is_retryable_status, retrying

from .cache import ResponseCache


class ProviderError(RuntimeError):
    """A provider request failed for good (after retries) or returned a body that cannot be
    parsed. ``provider`` and ``url`` name where; the message says why."""

    def __init__(self, provider: str, url: str, message: str):
        super().__init__(f"{provider}: {url}: {message}")
        self.provider = provider
        self.url = url
        self.detail = message


class _Retryable(Exception):
    def __init__(self, response: httpx.Response):
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


def _is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, (_Retryable, httpx.TransportError))


class RateLimiter:
    """Minimum interval between request starts, shared by every client of one provider name."""

    _locks: dict[str, threading.Lock] = {}
    _last: dict[str, float] = {}
    _guard = threading.Lock()

    def __init__(self, name: str, min_interval_s: float):
        self.name = name
        self.min_interval_s = min_interval_s
        with self._guard:
            self._locks.setdefault(name, threading.Lock())

    def wait(self) -> None:
        """Block until ``min_interval_s`` has passed since this provider's previous request."""
        with self._locks[self.name]:
            now = time.monotonic()
            due = self._last.get(self.name, 0.0) + self.min_interval_s
            if due > now:
                time.sleep(due - now)
            self._last[self.name] = time.monotonic()


class HttpClient:
    """GET-with-JSON/text for one provider.

    ``max_retries`` extra attempts after the first, waiting as ``core.retry.BackoffWait``
    (exponential with jitter from ``backoff_initial_s``, or the server's ``Retry-After``, both
    capped at ``backoff_max_s``).
    ``requests_made`` counts network requests (cache hits excluded).
    """

    def __init__(
        self,
        provider: str,
        *,
        timeout_s: float,
        max_retries: int,
        backoff_initial_s: float,
        backoff_max_s: float,
        min_interval_s: float,
        cache: ResponseCache | None,
        headers: dict[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ):
        self.provider = provider
        self.max_retries = max_retries
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        self.limiter = RateLimiter(provider, min_interval_s)
        self.cache = cache
        self.requests_made = 0
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s), headers={"User-Agent": "litnav (web verification)", **(headers or {})},
            follow_redirects=True, transport=transport,
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def _fetch(self, url: str, params: dict[str, Any] | None) -> httpx.Response:
        self.limiter.wait()
        self.requests_made += 1
        resp = self._client.get(url, params=params)
        if is_retryable_status(resp.status_code):
            raise _Retryable(resp)
        return resp

    def get(self, url: str, params: dict[str, Any] | None, parse: Callable[[httpx.Response], Any]) -> Any:
        """GET ``url`` and return ``parse(response)`` (which must be JSON-serialisable, it is
        what the cache stores). Raises ``ProviderError`` on a non-2xx status after retries, on
        timeouts and connection errors after retries, and when ``parse`` fails."""
        key = ResponseCache.key(url, params)
        if self.cache is not None:
            hit = self.cache.get(self.provider, key)
            if hit is not None:
                return hit
        shown = str(httpx.URL(url, params=params))
        retry = retrying(_is_retryable, max_retries=self.max_retries, initial_s=self.backoff_initial_s,
                         max_s=self.backoff_max_s)
        try:
            resp = retry(self._fetch, url, params)
        except _Retryable as exc:
            raise ProviderError(self.provider, shown, f"{exc} after {self.max_retries + 1} attempts") from exc
        except httpx.TimeoutException as exc:
            raise ProviderError(self.provider, shown, f"timed out after {self.max_retries + 1} attempts") from exc
        except httpx.HTTPError as exc:
            raise ProviderError(self.provider, shown, f"{type(exc).__name__}: {exc}") from exc
        if resp.status_code == 404:
            raise ProviderError(self.provider, shown, "HTTP 404 not found")
        if resp.status_code >= 400:
            raise ProviderError(self.provider, shown, f"HTTP {resp.status_code}: {resp.text[:200]}")
        try:
            body = parse(resp)
        except Exception as exc:  # any parse failure of a foreign body is the provider's fault
            raise ProviderError(self.provider, shown, f"malformed response body ({type(exc).__name__}: {exc})") from exc
        if self.cache is not None:
            self.cache.put(self.provider, key, shown, body)
        return body
