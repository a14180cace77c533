"""The provider interface and the shared construction from ``WebSettings``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

import httpx

from litnav.core.cache import cache_root
from litnav.core.settings import WebSettings

from ..cache import ResponseCache
from ..http import HttpClient, ProviderError
from ..records import ExternalRecord


def default_cache_dir() -> Path:
    """``~/.cache/litnav/web`` (``$XDG_CACHE_HOME`` honoured)."""
    return cache_root("web")


class Provider(ABC):
    """An external scholarly search service.

    Subclasses set ``name`` and ``default_base_url`` and implement ``search``. The base URL is
    ``settings.base_urls[name]`` when given (tests point it at a local server).
    """

    name: ClassVar[str]
    default_base_url: ClassVar[str]

    def __init__(self, settings: WebSettings, transport: httpx.BaseTransport | None = None):
        self.settings = settings
        self.base_url = settings.base_urls.get(self.name, self.default_base_url).rstrip("/")
        cache = None
        if settings.cache:
            ttl = settings.cache_ttl_days * 86400 if settings.cache_ttl_days is not None else None
            cache = ResponseCache(settings.cache_dir or default_cache_dir(), ttl_s=ttl)
        self.http = HttpClient(
            self.name,
            timeout_s=settings.timeout_s,
            max_retries=settings.max_retries,
            backoff_initial_s=settings.backoff_initial_s,
            backoff_max_s=settings.backoff_max_s,
            min_interval_s=1.0 / settings.rate_limit_per_s,
            cache=cache,
            headers=self.headers(),
            transport=transport,
        )

    def headers(self) -> dict[str, str]:
        """Extra request headers (e.g. an API key)."""
        return {}

    @abstractmethod
    def search(self, query: str, limit: int = 10) -> list[ExternalRecord]:
        """Up to ``limit`` records for a free-text query, in the provider's relevance order.
        Raises ``ProviderError`` naming the provider and URL on failure."""

    def close(self) -> None:
        """Release the HTTP connection pool."""
        self.http.close()

    def __enter__(self) -> Provider:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _get(self, path: str, params: dict[str, Any] | None, parse) -> Any:
        return self.http.get(f"{self.base_url}{path}", params, parse)

    def _records(self, url_path: str, rows: list[dict]) -> list[ExternalRecord]:
        try:
            return [ExternalRecord.model_validate(r) for r in rows]
        except Exception as exc:  # a corrupt cache entry or an unexpected shape
            raise ProviderError(self.name, f"{self.base_url}{url_path}", f"bad record: {exc}") from exc


def int_or_none(v: Any) -> int | None:
    """``int(v)`` or None for missing/unparseable values."""
    try:
        return int(v) if v is not None and v != "" else None
    except (TypeError, ValueError):
        return None
