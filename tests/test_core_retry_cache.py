"""core.retry and core.cache: one backoff policy and one on-disk cache for LLM and web calls
(the web client used to retry only 429/5xx and read Retry-After as seconds only)."""

import email.utils
import time

import httpx
import pytest

from litnav.core.cache import DiskCache, stable_key
from litnav.core.retry import is_retryable_status, retry_after_s, retrying
from litnav.web.http import HttpClient, ProviderError


def test_transient_statuses_are_the_same_for_every_caller():
    assert all(is_retryable_status(s) for s in (408, 409, 429, 500, 503))
    assert not any(is_retryable_status(s) for s in (400, 401, 403, 404))


def test_retry_after_reads_seconds_milliseconds_and_http_dates():
    assert retry_after_s(httpx.Headers({"Retry-After": "3"})) == 3.0
    assert retry_after_s(httpx.Headers({"retry-after-ms": "250"})) == 0.25
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= retry_after_s(httpx.Headers({"Retry-After": later})) <= 31
    assert retry_after_s(httpx.Headers({"Retry-After": "soon"})) is None
    assert retry_after_s(None) is None


def test_waits_are_capped_and_the_last_error_is_raised():
    sleeps: list[float] = []
    calls = []

    def flaky():
        calls.append(1)
        raise ConnectionError("down")

    with pytest.raises(ConnectionError):
        retrying(lambda e: isinstance(e, ConnectionError), max_retries=3, initial_s=0.01, max_s=0.02,
                 sleep=sleeps.append)(flaky)
    assert len(calls) == 4 and len(sleeps) == 3 and all(0 < s <= 0.02 for s in sleeps)


def _client(handler, **kw) -> HttpClient:
    return HttpClient("test", timeout_s=1.0, max_retries=kw.pop("max_retries", 2), backoff_initial_s=0.001,
                      backoff_max_s=0.01, min_interval_s=0.0, cache=kw.pop("cache", None),
                      transport=httpx.MockTransport(handler))


def test_web_client_retries_a_408_like_the_llm_client():
    replies = iter([httpx.Response(408), httpx.Response(200, json={"ok": 1})])
    client = _client(lambda request: next(replies))
    assert client.get("https://example.org/x", None, lambda r: r.json()) == {"ok": 1}
    assert client.requests_made == 2


def test_web_client_gives_up_with_a_provider_error():
    client = _client(lambda request: httpx.Response(503), max_retries=1)
    with pytest.raises(ProviderError, match="503 after 2 attempts"):
        client.get("https://example.org/x", None, lambda r: r.json())


def test_disk_cache_round_trip_expiry_and_corruption(tmp_path):
    cache = DiskCache(tmp_path)
    key = stable_key({"b": 1, "a": [1, 2]})
    assert key == stable_key({"a": [1, 2], "b": 1})
    assert cache.get(key) is None
    cache.put(key, {"text": "é"})
    assert cache.get(key) == {"text": "é"}
    assert DiskCache(tmp_path, ttl_s=-1).get(key) is None  # older than the TTL: a miss
    cache.path(key).write_text("{half")
    assert cache.get(key) is None
    cache.put(key, [1])
    assert cache.get(key) == [1]
