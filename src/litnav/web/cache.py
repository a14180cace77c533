"""Web provider responses in the shared on-disk cache (``core.cache.DiskCache``), one cache
folder per provider; an entry keeps the request URL and time beside the decoded body."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from litnav.core.cache import DiskCache, stable_key


class ResponseCache:
    """Decoded response bodies under ``root/<provider>/``; ``ttl_s`` (seconds) expires entries
    by file age, None keeps them forever. A corrupt entry is a miss and is overwritten."""

    def __init__(self, root: str | Path, ttl_s: float | None = None):
        self.root = Path(root).expanduser()
        self.ttl_s = ttl_s

    @staticmethod
    def key(url: str, params: dict[str, Any] | None) -> str:
        """A stable key for a GET request: ``stable_key`` of the URL and the sorted parameters."""
        return stable_key([url, sorted((params or {}).items())])

    def _cache(self, provider: str) -> DiskCache:
        return DiskCache(self.root / provider, ttl_s=self.ttl_s)

    def get(self, provider: str, key: str) -> Any | None:
        """The cached body or None (missing, expired or unreadable)."""
        entry = self._cache(provider).get(key)
        return entry.get("body") if isinstance(entry, dict) else None

    def put(self, provider: str, key: str, url: str, body: Any) -> None:
        """Store ``body`` (JSON-serialisable) atomically."""
        self._cache(provider).put(key, {"url": url, "stored_at": time.time(), "body": body})
