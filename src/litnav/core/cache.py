"""The on-disk JSON cache (LLM replies, web provider responses) and where caches live.

One entry per key: ``<directory>/<key[:2]>/<key>.json``, written atomically (``core.io``), so
readers never see half an entry and concurrent writers of one key leave one complete copy. An
unreadable or expired entry counts as a miss (and is overwritten by the next ``put``).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from litnav.core.io import write_json


def cache_root(*parts: str) -> Path:
    """Where litnav's per-user caches live (exported encoders, lexicon tables, chunk vectors of
    read-only corpora, LLM and web replies): ``$LITNAV_CACHE_DIR/<parts>``, else
    ``$XDG_CACHE_HOME/litnav/<parts>``, else ``~/.cache/litnav/<parts>``."""
    root = os.environ.get("LITNAV_CACHE_DIR")
    if root:
        return Path(root).joinpath(*parts)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).joinpath("litnav", *parts)


def stable_key(value: Any) -> str:
    """SHA-256 hex digest of the canonical JSON of ``value`` (keys sorted, compact; non-JSON
    values via ``str``): equal requests give equal keys across processes and runs."""
    canon = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


class DiskCache:
    """JSON values by key under ``directory``; ``ttl_s`` (seconds) expires entries by file age,
    None keeps them forever."""

    def __init__(self, directory: str | Path, ttl_s: float | None = None) -> None:
        self.directory = Path(directory).expanduser()
        self.ttl_s = ttl_s

    def path(self, key: str) -> Path:
        """The file of ``key`` (which need not exist)."""
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The stored value for ``key``, or None (missing, expired or unreadable)."""
        path = self.path(key)
        try:
            if self.ttl_s is not None and time.time() - path.stat().st_mtime > self.ttl_s:
                return None
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def put(self, key: str, value: Any) -> None:
        """Store the JSON-serialisable ``value`` under ``key`` atomically."""
        write_json(self.path(key), value)
