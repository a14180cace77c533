"""Records of one LLM call: the request an engine receives, the raw reply it returns, and the
``CallRecord`` handed back to the caller (usage, cache, retries, repairs, log-probabilities)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from litnav.core.records import Usage

MESSAGE_ROLES = ("system", "user", "assistant")


class TokenLogprob(BaseModel):
    """One generated token with its natural-log probability and the ``top`` alternatives
    (``(token, logprob)`` pairs, most likely first; empty unless ``top_logprobs`` was asked)."""

    model_config = ConfigDict(extra="forbid")

    token: str
    logprob: float
    top: list[tuple[str, float]] = Field(default_factory=list)


class CallRecord(BaseModel):
    """What one ``complete``/``structured`` call cost and how it went.

    ``usage`` is this call's share (zero tokens and ``cache_hits=1`` on a cache hit);
    ``attempts`` counts HTTP/generation attempts including retries and repairs; ``repairs``
    counts re-asks after an invalid structured reply; ``seconds`` is wall time; ``text`` is the
    final raw reply; ``logprobs`` is set only when requested and returned by the engine.
    """

    model_config = ConfigDict(extra="forbid")

    role: str
    engine: str
    model: str
    usage: Usage
    cached: bool = False
    attempts: int = 0
    repairs: int = 0
    seconds: float = 0.0
    finish_reason: str | None = None
    cache_key: str | None = Field(default=None, exclude=True)
    """Where the reply is kept in the reply cache (None without one); never written out."""
    text: str = ""
    logprobs: list[TokenLogprob] | None = None


@dataclass(frozen=True)
class GenerationRequest:
    """One generation as an engine backend sees it. ``json_schema`` (with ``schema_name``) asks
    for guided/structured JSON output; ``top_logprobs`` is meaningful only with ``logprobs``."""

    messages: list[dict[str, str]]
    temperature: float
    max_tokens: int
    logprobs: bool = False
    top_logprobs: int | None = None
    json_schema: dict[str, Any] | None = None
    schema_name: str | None = None

    def cache_params(self) -> dict[str, Any]:
        """Every field that changes the reply, as JSON-ready data (the cache key's body)."""
        return {
            "messages": self.messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "logprobs": self.logprobs,
            "top_logprobs": self.top_logprobs,
            "json_schema": self.json_schema,
            "schema_name": self.schema_name,
        }


@dataclass
class RawReply:
    """An engine backend's answer: text, token counts, optional log-probabilities, and how many
    attempts (retries included) it took."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str | None = None
    logprobs: list[TokenLogprob] | None = None
    attempts: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def check_messages(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """Validate chat messages (``{"role": system|user|assistant, "content": str}``) and return
    plain copies; raises ``ValueError`` naming the index and field of the first bad message."""
    if not messages:
        raise ValueError("messages: empty list")
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise ValueError(f"messages[{i}]: expected a dict, got {type(m).__name__}")
        if m.get("role") not in MESSAGE_ROLES:
            raise ValueError(f"messages[{i}].role: {m.get('role')!r} not in {MESSAGE_ROLES}")
        if not isinstance(m.get("content"), str):
            raise ValueError(f"messages[{i}].content: expected a string")
        out.append({"role": m["role"], "content": m["content"]})
    return out
