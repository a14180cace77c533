"""Shared pieces of the in-process backends: optional-extra imports and one loaded model per
path, shared by every role and guarded by a lock (these engines are not thread-safe)."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .errors import LLMError

_MODELS: dict[tuple[str, str], tuple[Any, threading.Lock]] = {}
_MODELS_LOCK = threading.Lock()


def require(module: str, extra: str, *, role: str | None, model: str | None) -> ModuleType:
    """Import ``module`` or raise ``LLMError`` telling to ``pip install litnav[<extra>]``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise LLMError(
            f"backend {extra!r} needs the optional extra: pip install litnav[{extra}] ({exc})", role=role, model=model
        ) from exc


def shared_model(backend: str, model: str, load: Callable[[], Any]) -> tuple[Any, threading.Lock]:
    """The loaded model for ``(backend, model)`` and its lock, loading it once."""
    key = (backend, model)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = (load(), threading.Lock())
        return _MODELS[key]


def schema_instruction(schema: dict[str, Any]) -> str:
    """The system text that asks a prompt-only engine for JSON matching ``schema``."""
    import json
    return (
        "Answer with only a JSON object, no other text, that conforms to this JSON schema:\n"
        + json.dumps(schema, ensure_ascii=False)
    )


def with_schema_instruction(messages: list[dict[str, str]], schema: dict[str, Any] | None) -> list[dict[str, str]]:
    """``messages`` with the schema instruction appended to the system message (or a new one)."""
    if schema is None:
        return messages
    text = schema_instruction(schema)
    if messages and messages[0]["role"] == "system":
        return [{"role": "system", "content": messages[0]["content"] + "\n\n" + text}, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]
