"""The OpenAI-compatible HTTP engine (``vllm serve``, OpenAI, any compatible server).

Built on the ``openai`` package (the reference client: typed errors per status, ``Retry-After``
on the response, httpx timeouts). Its own retries are switched off (``max_retries=0``) and
replaced with tenacity, so the backoff comes from settings (tiny in tests) and every attempt is
counted. A semaphore per endpoint bounds requests in flight across all threads and roles.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

import openai
from tenacity import RetryError

from litnav.core.retry import retrying
from litnav.core.settings import EndpointSettings

from .cache import ResponseCache
from .calls import GenerationRequest, RawReply, TokenLogprob
from .engine import LLMEngine
from .errors import LLMError
from .retry import is_transient
from .usage import UsageMeter

_SEMAPHORES: dict[tuple, threading.BoundedSemaphore] = {}
_SEMAPHORES_LOCK = threading.Lock()


def endpoint_semaphore(name: str, endpoint: EndpointSettings) -> threading.BoundedSemaphore:
    """The process-wide semaphore of one endpoint (``max_concurrency`` slots), shared by every
    engine built for it, whichever role."""
    key = (name, endpoint.base_url, endpoint.model, endpoint.max_concurrency)
    with _SEMAPHORES_LOCK:
        sem = _SEMAPHORES.get(key)
        if sem is None:
            sem = _SEMAPHORES[key] = threading.BoundedSemaphore(endpoint.max_concurrency)
        return sem


def api_key(endpoint: EndpointSettings) -> str:
    """``endpoint.api_key``, else ``$<api_key_env>``, else ``"EMPTY"`` (local servers such as
    ``vllm serve`` need none; a server that does answers 401, reported with the variable name)."""
    return endpoint.api_key or os.environ.get(endpoint.api_key_env) or "EMPTY"


class OpenAIEngine(LLMEngine):
    """``LLMEngine`` over ``POST {base_url}/chat/completions``.

    Each attempt times out after ``timeout_s``; transient failures (``retry.is_transient``) are
    retried up to ``max_retries`` times with ``core.retry.BackoffWait``; anything else, or the last
    transient failure, raises ``LLMError`` naming role, model, URL, attempts and cause.
    ``sleep`` is injectable for tests.
    """

    backend = "openai"

    def __init__(
        self,
        endpoint: EndpointSettings,
        *,
        endpoint_name: str = "default",
        role: str = "default",
        meter: UsageMeter | None = None,
        cache: ResponseCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not endpoint.base_url:
            raise LLMError(f"endpoint {endpoint_name!r} has backend 'openai' but no base_url", role=role, model=endpoint.model)
        super().__init__(endpoint, role=role, meter=meter, cache=cache)
        self.base_url = endpoint.base_url
        self._client = openai.OpenAI(
            api_key=api_key(endpoint), base_url=endpoint.base_url, timeout=endpoint.timeout_s, max_retries=0
        )
        self._semaphore = endpoint_semaphore(endpoint_name, endpoint)
        self._sleep = sleep

    def _cache_extra(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "extra_body": self.endpoint.extra_body}

    def _body(self, req: GenerationRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": req.messages,
            "temperature": req.temperature,
            "max_tokens": req.max_tokens,
        }
        if req.logprobs:
            body["logprobs"] = True
            if req.top_logprobs is not None:
                body["top_logprobs"] = req.top_logprobs
        if req.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": req.schema_name, "schema": req.json_schema, "strict": True},
            }
        if self.endpoint.extra_body:
            body["extra_body"] = self.endpoint.extra_body
        return body

    def _once(self, body: dict[str, Any]):
        with self._semaphore:
            try:
                return self._client.chat.completions.create(**body)
            except ValueError as exc:  # json.JSONDecodeError: the client could not parse the reply body
                raise ReplyNotJSON(f"the reply body is not JSON, e.g. cut short ({exc})") from exc

    def _generate(self, req: GenerationRequest, role: str) -> RawReply:
        body = self._body(req)
        ep = self.endpoint
        retry = retrying(_retry_worthy, max_retries=ep.max_retries, initial_s=ep.backoff_initial_s,
                         max_s=ep.backoff_max_s, sleep=self._sleep)
        attempts = 0
        try:
            for attempt in retry:
                with attempt:
                    attempts = attempt.retry_state.attempt_number
                    completion = self._once(body)
        except (openai.OpenAIError, RetryError, ReplyNotJSON) as exc:
            raise LLMError(
                f"{self.base_url}/chat/completions failed after {attempts} attempt(s): {_describe(exc, self.endpoint)}",
                role=role, model=self.model,
            ) from exc
        return _raw_reply(completion, attempts, role, self.model)


class ReplyNotJSON(Exception):
    """An endpoint answered (often HTTP 200) with a body that does not parse as JSON: a proxy's
    HTML page or a reply cut short. Retried like a transient failure, then an ``LLMError``."""


def _retry_worthy(exc: BaseException) -> bool:
    return is_transient(exc) or isinstance(exc, ReplyNotJSON)


def _describe(exc: BaseException, endpoint: EndpointSettings) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return f"timed out (timeout_s={endpoint.timeout_s})"
    if isinstance(exc, openai.APIConnectionError):
        return f"connection error: {exc.__cause__ or exc}"
    if isinstance(exc, openai.APIStatusError):
        text = f"HTTP {exc.status_code}: {exc.message}"
        if exc.status_code == 401:
            text += f" (set ${endpoint.api_key_env} or llm.endpoints.<name>.api_key)"
        return text
    return f"{type(exc).__name__}: {exc}"


def _raw_reply(completion: Any, attempts: int, role: str, model: str) -> RawReply:
    if not getattr(completion, "choices", None):
        raise LLMError(f"reply has no choices: {completion!r:.300}", role=role, model=model)
    choice = completion.choices[0]
    usage = completion.usage
    cached = 0
    if usage is not None and getattr(usage, "prompt_tokens_details", None) is not None:
        cached = usage.prompt_tokens_details.cached_tokens or 0
    logprobs = None
    if choice.logprobs is not None and choice.logprobs.content is not None:
        logprobs = [
            TokenLogprob(token=t.token, logprob=t.logprob, top=[(a.token, a.logprob) for a in (t.top_logprobs or [])])
            for t in choice.logprobs.content
        ]
    return RawReply(
        text=choice.message.content or "",
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
        cached_tokens=cached,
        finish_reason=choice.finish_reason,
        logprobs=logprobs,
        attempts=attempts,
    )
