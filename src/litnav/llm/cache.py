"""LLM replies in the shared on-disk cache (``core.cache.DiskCache``), keyed by everything that
shapes a reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litnav.core.cache import DiskCache, cache_root, stable_key

CACHE_VERSION = 1

ResponseCache = DiskCache
"""The LLM reply cache: ``<dir>/<key[:2]>/<key>.json``, atomic writes, unreadable = miss."""


def cache_key(kind: str, backend: str, model: str, params: dict[str, Any], extra: dict[str, Any] | None = None) -> str:
    """SHA-256 hex digest of the canonical JSON of everything that shapes a reply: call kind
    (``complete``/``structured``), backend, model, the request parameters (messages,
    temperature, max tokens, log-probability options, JSON schema) and endpoint extras."""
    return stable_key({"v": CACHE_VERSION, "kind": kind, "backend": backend, "model": model, "params": params,
                       "extra": extra or {}})


def default_cache_dir() -> Path:
    """``~/.cache/litnav/llm`` (honours ``XDG_CACHE_HOME``)."""
    return cache_root("llm")
