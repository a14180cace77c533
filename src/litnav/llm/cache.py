"""On-disk LLM response cache: one JSON file per request key, written atomically."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

CACHE_VERSION = 1


def cache_key(kind: str, backend: str, model: str, params: dict[str, Any], extra: dict[str, Any] | None = None) -> str:
    """SHA-256 hex digest of the canonical JSON of everything that shapes a reply: call kind
    (``complete``/``structured``), backend, model, the request parameters (messages,
    temperature, max tokens, log-probability options, JSON schema) and endpoint extras."""
    body = {"v": CACHE_VERSION, "kind": kind, "backend": backend, "model": model, "params": params, "extra": extra or {}}
    canon = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def default_cache_dir() -> Path:
    """``~/.cache/litnav/llm`` (honours ``XDG_CACHE_HOME``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "litnav" / "llm"


class ResponseCache:
    """Maps a request key to the stored reply (a JSON object). Files live at
    ``<dir>/<key[:2]>/<key>.json``; a write goes to a temporary file in the same folder and is
    renamed into place (``os.replace``), so readers never see half a file and concurrent
    writers of one key leave one complete copy. An unreadable entry counts as a miss."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory).expanduser()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored reply for ``key``, or None."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Store ``value`` under ``key`` atomically."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{key[:8]}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(value, f, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
