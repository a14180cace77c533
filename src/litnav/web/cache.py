"""On-disk response cache for provider requests: one JSON file per request key, written
atomically (temporary file in the same folder, then ``os.replace``)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any


class ResponseCache:
    """Cache of decoded response bodies under ``root/<provider>/<sha256>.json``.

    ``ttl_s`` (seconds) expires entries by file age; None keeps them forever.
    A corrupt entry is treated as a miss and overwritten.
    """

    def __init__(self, root: str | Path, ttl_s: float | None = None):
        self.root = Path(root).expanduser()
        self.ttl_s = ttl_s

    @staticmethod
    def key(url: str, params: dict[str, Any] | None) -> str:
        """A stable key for a GET request: sha256 of the URL and the sorted parameters."""
        blob = json.dumps([url, sorted((params or {}).items())], default=str)
        return hashlib.sha256(blob.encode()).hexdigest()

    def _path(self, provider: str, key: str) -> Path:
        return self.root / provider / f"{key}.json"

    def get(self, provider: str, key: str) -> Any | None:
        """The cached body or None (missing, expired or unreadable)."""
        path = self._path(provider, key)
        try:
            if self.ttl_s is not None and time.time() - path.stat().st_mtime > self.ttl_s:
                return None
            with path.open("r", encoding="utf-8") as fh:
                return json.load(fh)["body"]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, provider: str, key: str, url: str, body: Any) -> None:
        """Store ``body`` (JSON-serialisable) atomically."""
        path = self._path(provider, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"url": url, "stored_at": time.time(), "body": body}, fh)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
