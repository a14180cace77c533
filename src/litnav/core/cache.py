"""The on-disk JSON cache (LLM replies, web provider responses) and where caches live.

One entry per key: ``<directory>/<key[:2]>/<key>.json``, written atomically (``core.io``), so
readers never see half an entry and concurrent writers of one key leave one complete copy. An
unreadable or expired entry counts as a miss (and is overwritten by the next ``put``).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from litnav.core.io import write_json


def cache_root(*parts: str) -> Path:
    """Where litnav's per-user caches live (exported encoders, lexicon tables, chunk vectors of
    read-only corpora, LLM and web replies): ``$LITNAV_CACHE_DIR/<parts>`` (``~`` expanded), else
    ``$XDG_CACHE_HOME/litnav/<parts>``, else ``~/.cache/litnav/<parts>``; with none of them
    usable (no ``HOME`` and a user unknown to the system) :func:`process_temp_dir`."""
    root = os.environ.get("LITNAV_CACHE_DIR")
    if root:
        return Path(root).expanduser().joinpath(*parts)
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:  # no HOME and no passwd entry (e.g. a container run with an arbitrary uid)
            return _homeless_root().joinpath(*parts)
    return Path(base).expanduser().joinpath("litnav", *parts)


@cache
def process_temp_dir(name: str) -> Path:
    """A private folder (mode 0700, unpredictable name) for this process only, removed at exit:
    where a cache goes when the per-user one cannot be used."""
    folder = Path(tempfile.mkdtemp(prefix=f"litnav-{name}-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@lru_cache(maxsize=1)
def _homeless_root() -> Path:
    folder = process_temp_dir("cache")
    logging.getLogger(__name__).warning(
        "note: no home directory for the per-user cache (set LITNAV_CACHE_DIR); using %s for this process only",
        folder)
    return folder


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

    def delete(self, key: str) -> None:
        """Forget ``key`` (nothing happens when it is not stored)."""
        self.path(key).unlink(missing_ok=True)
