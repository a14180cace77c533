"""``LLMEngine``: the interface every backend implements, with the shared logic — response
cache, usage metering, and the validate-and-repair loop for structured output."""

from __future__ import annotations

import dataclasses
import re
import time
from abc import ABC, abstractmethod
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from litnav.core.records import Usage
from litnav.core.settings import EndpointSettings

from .cache import ResponseCache, cache_key
from .calls import CallRecord, GenerationRequest, RawReply, TokenLogprob, check_messages
from .errors import LLMError
from .usage import CACHE_HIT, UsageMeter, call_usage

T = TypeVar("T", bound=BaseModel)

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def json_text(text: str) -> str:
    """The JSON part of a reply: drops ``<think>…</think>`` blocks and a surrounding Markdown
    code fence (replies of prompt-only engines); otherwise returns the text stripped."""
    text = _THINK.sub("", text).strip()
    m = _FENCE.match(text)
    return m.group(1) if m else text


MAX_ECHO_CHARS = 8_000
"""The most of a rejected reply sent back with a repair request: a runaway reply (a trial's 5 MB)
is not paid for again on every attempt."""


def echoed(text: str) -> str:
    """``text`` as sent back in a repair conversation: at most :data:`MAX_ECHO_CHARS` characters,
    saying how many were cut."""
    if len(text) <= MAX_ECHO_CHARS:
        return text
    return f"{text[:MAX_ECHO_CHARS]}\n[... {len(text) - MAX_ECHO_CHARS:,} more characters of this reply cut]"


def repair_message(error: ValidationError, finish_reason: str | None) -> str:
    """The user message that asks the model to fix an invalid structured reply."""
    hint = " Your reply was cut off (finish_reason=length); answer more briefly." if finish_reason == "length" else ""
    return (
        "Your previous reply is not valid for the required JSON schema.\n"
        f"Validation error:\n{error}\n{hint}\n"
        "Reply again with only the corrected JSON object, no other text."
    )


def strict_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` made acceptable to OpenAI's strict structured outputs (the rules
    ``openai.lib._pydantic.to_strict_json_schema`` applies): every object with ``properties`` gets
    ``"additionalProperties": false`` and lists all its properties in ``required`` (a field with a
    default must then be written; nullable fields may be null). Open dicts (``dict[str, X]``)
    cannot be made strict and are left for the endpoint to reject, so model them as lists of
    name/value pairs. Returns a new dict; ``schema`` is not modified."""

    def fix(node: Any) -> Any:
        if isinstance(node, list):
            return [fix(x) for x in node]
        if not isinstance(node, dict):
            return node
        out = {k: (v if k in ("enum", "const", "default", "examples") else fix(v)) for k, v in node.items()}
        if isinstance(out.get("properties"), dict):
            out["properties"] = {name: fix(sub) for name, sub in node["properties"].items()}
            out.setdefault("additionalProperties", False)
            out["required"] = list(out["properties"])
        return out

    return fix(schema)


def schema_name(schema: type[BaseModel]) -> str:
    """The ``json_schema.name`` sent for a model: its class name limited to ``[A-Za-z0-9_-]``,
    64 characters (the OpenAI constraint)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64] or "reply"


class LLMEngine(ABC):
    """One configured LLM (an endpoint of ``llm.endpoints``) bound to a default role.

    Subclasses implement ``_generate`` (one generation, with their own retries); this class
    adds caching, usage metering and structured-output repair. Instances are thread-safe when
    ``_generate`` is. ``name`` is ``"llm:<backend>:<model>"`` (for ``Session.engines``).
    """

    backend: str = "abstract"

    def __init__(
        self,
        endpoint: EndpointSettings,
        *,
        role: str = "default",
        meter: UsageMeter | None = None,
        cache: ResponseCache | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.model = endpoint.model
        self.role = role
        self.meter = meter
        self.cache = cache
        self.name = f"llm:{self.backend}:{endpoint.model}"

    @abstractmethod
    def _generate(self, request: GenerationRequest, role: str) -> RawReply:
        """Run one generation; raise ``LLMError`` (naming ``role``) when it fails for good."""

    def _cache_extra(self) -> dict[str, Any]:
        """Endpoint settings besides the request that change replies (part of the cache key)."""
        return {}

    # -- public API -----------------------------------------------------------------------

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        role: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        logprobs: bool = False,
        top_logprobs: int | None = None,
    ) -> tuple[str, CallRecord]:
        """Free-text chat completion. Returns ``(text, CallRecord)``.

        ``temperature``/``max_tokens`` default to the endpoint's settings; with
        ``logprobs=True`` the record carries per-token log-probabilities (and ``top_logprobs``
        alternatives per token) when the engine returns them. Raises ``LLMError`` after the
        bounded retries, ``ValueError`` on malformed messages.
        """
        role = role or self.role
        req = self._request(messages, temperature, max_tokens, logprobs, top_logprobs)
        return self._run(req, role, "complete", validate=None)

    def structured(
        self,
        messages: list[dict[str, str]],
        schema: type[T],
        *,
        role: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        logprobs: bool = False,
        top_logprobs: int | None = None,
    ) -> tuple[T, CallRecord]:
        """Chat completion constrained to ``schema`` (a pydantic model). Returns
        ``(instance, CallRecord)``.

        The model's JSON schema is sent as ``response_format={"type": "json_schema",
        "json_schema": {"name", "schema", "strict": true}}`` (guided decoding on vLLM); the reply
        is validated with pydantic. An invalid reply (malformed JSON or schema violation) is
        sent back with the error as a user message, up to ``endpoint.repair_attempts`` times;
        then ``LLMError`` names the role, model and the last validation error.
        """
        role = role or self.role
        req = self._request(
            messages, temperature, max_tokens, logprobs, top_logprobs,
            json_schema=strict_json_schema(schema.model_json_schema()), schema_name=schema_name(schema),
        )
        return self._run(req, role, "structured", validate=schema)

    # -- shared machinery -----------------------------------------------------------------

    def _request(
        self, messages, temperature, max_tokens, logprobs, top_logprobs, json_schema=None, schema_name=None
    ) -> GenerationRequest:
        if top_logprobs is not None and not logprobs:
            raise ValueError("top_logprobs needs logprobs=True")
        return GenerationRequest(
            messages=check_messages(messages),
            temperature=self.endpoint.temperature if temperature is None else temperature,
            max_tokens=max_tokens or self.endpoint.max_tokens,
            logprobs=logprobs,
            top_logprobs=top_logprobs,
            json_schema=json_schema,
            schema_name=schema_name,
        )

    def _record(self, role: str, usage: Usage) -> None:
        if self.meter is not None:
            self.meter.record(role, usage)

    def _run(self, req: GenerationRequest, role: str, kind: str, validate: type[BaseModel] | None):
        start = time.perf_counter()
        key = None
        if self.cache is not None:
            key = cache_key(kind, self.backend, self.model, req.cache_params(), self._cache_extra())
            hit = self.cache.get(key)
            if hit is not None:
                parsed = self._parse(hit["text"], validate)
                if not isinstance(parsed, ValidationError):
                    self._record(role, CACHE_HIT)
                    return parsed, CallRecord(
                        role=role, engine=self.name, model=self.model, usage=CACHE_HIT, cached=True, cache_key=key,
                        seconds=time.perf_counter() - start, finish_reason=hit.get("finish_reason"),
                        text=hit["text"], logprobs=_logprobs_from_json(hit.get("logprobs")),
                    )

        usage, attempts, repairs = Usage(), 0, 0
        messages = list(req.messages)
        while True:
            try:
                reply = self._generate(_with_messages(req, messages), role)
            except LLMError:
                self._record(role, usage)
                raise
            attempts += reply.attempts
            usage = usage.add(call_usage(self.endpoint, reply.prompt_tokens, reply.completion_tokens, reply.cached_tokens))
            parsed = self._parse(reply.text, validate)
            if not isinstance(parsed, ValidationError):
                break
            if repairs >= self.endpoint.repair_attempts:
                self._record(role, usage)
                raise LLMError(
                    f"reply to schema {validate.__name__} still invalid after {repairs} repair attempt(s) "
                    f"(engine {self.name}, finish_reason={reply.finish_reason}): {parsed}",
                    role=role, model=self.model,
                ) from parsed
            repairs += 1
            messages = messages + [
                {"role": "assistant", "content": echoed(reply.text)},
                {"role": "user", "content": repair_message(parsed, reply.finish_reason)},
            ]

        self._record(role, usage)
        if key is not None:
            self.cache.put(key, {
                "text": reply.text,
                "finish_reason": reply.finish_reason,
                "logprobs": None if reply.logprobs is None else [t.model_dump(mode="json") for t in reply.logprobs],
                "usage": usage.model_dump(mode="json"),
            })
        return parsed, CallRecord(
            role=role, engine=self.name, model=self.model, usage=usage, attempts=attempts, repairs=repairs,
            cache_key=key, seconds=time.perf_counter() - start, finish_reason=reply.finish_reason, text=reply.text,
            logprobs=reply.logprobs,
        )

    def forget(self, record: CallRecord) -> None:
        """Drop the reply of ``record`` from the reply cache: it passed the schema but a caller's
        own check rejected it (an invented id, a quote not in the evidence), so a later run asks
        the model again instead of replaying the rejected reply for ever."""
        if self.cache is not None and record.cache_key is not None:
            self.cache.delete(record.cache_key)

    @staticmethod
    def _parse(text: str, validate: type[BaseModel] | None):
        if validate is None:
            return text
        try:
            return validate.model_validate_json(json_text(text))
        except ValidationError as exc:
            return exc


def _with_messages(req: GenerationRequest, messages: list[dict[str, str]]) -> GenerationRequest:
    return req if messages is req.messages else dataclasses.replace(req, messages=messages)


def _logprobs_from_json(data: Any) -> list[TokenLogprob] | None:
    return None if data is None else [TokenLogprob.model_validate(t) for t in data]
