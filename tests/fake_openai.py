"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests (no network, no model).

Serves ``POST /v1/chat/completions`` and ``GET /v1/models`` from a thread. Replies come from a
scripted queue (``push``), and when the queue is empty from ``handler`` (a function of the
request body), so a test can play a teacher or a navigator. Every request is recorded.

    with FakeOpenAI() as fake:
        fake.push(error(429, retry_after=0), json_reply({"score": 4}))
        settings = EndpointSettings(base_url=fake.base_url, model=fake.model)
        ...
        assert fake.bodies[-1]["response_format"]["type"] == "json_schema"

Token counts are deterministic: prompt tokens = whitespace words over all message contents,
completion tokens = words of the reply (at least 1), unless a ``Reply`` sets them.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import BaseModel


@dataclass
class Reply:
    """One scripted answer. ``status`` != 200 sends an OpenAI-style error body; ``delay_s``
    sleeps first (interrupted when the server stops); ``logprobs`` is a list of
    ``(token, logprob, {alt_token: logprob})`` whose tokens should join to ``content``;
    ``raw`` replaces the whole body with this text (e.g. broken JSON)."""

    content: str | None = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    logprobs: list[tuple[str, float, dict[str, float]]] | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int = 0
    finish_reason: str = "stop"
    raw: str | None = None


def text_reply(content: str, **kw: Any) -> Reply:
    """A 200 reply with this message content."""
    return Reply(content=content, **kw)


def json_reply(obj: Any, **kw: Any) -> Reply:
    """A 200 reply whose content is ``obj`` as JSON (a pydantic model, dict, list, ...)."""
    content = obj.model_dump_json() if isinstance(obj, BaseModel) else json.dumps(obj)
    return Reply(content=content, **kw)


def error(status: int, *, retry_after: float | None = None, message: str | None = None) -> Reply:
    """An HTTP error reply, with ``Retry-After`` when given."""
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    return Reply(content=None, status=status, headers=headers, raw=json.dumps(
        {"error": {"message": message or f"fake error {status}", "type": "fake", "code": status}}
    ))


def delayed(seconds: float, reply: Reply | None = None) -> Reply:
    """``reply`` (default: empty content) sent after ``seconds``."""
    r = reply or Reply()
    r.delay_s = seconds
    return r


def logprob_reply(tokens: list[tuple[str, float, dict[str, float]]], **kw: Any) -> Reply:
    """A reply whose content is the tokens joined, carrying their log-probabilities."""
    return Reply(content="".join(t for t, _, _ in tokens), logprobs=tokens, **kw)


Handler = Callable[[dict[str, Any]], "Reply | str | dict | BaseModel"]


@dataclass
class Received:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None


class FakeOpenAI:
    """The server. ``base_url`` is ``http://127.0.0.1:<port>/v1``; ``requests`` lists every
    ``Received``; ``bodies`` the chat-completion bodies; ``max_in_flight`` the largest number of
    chat requests being served at once. A ``handler`` may return a ``Reply``, a string (content)
    or a dict/pydantic model (JSON content). With an empty queue and no handler the server
    answers HTTP 400 "no scripted reply", which a client does not retry."""

    def __init__(self, handler: Handler | None = None, model: str = "fake-model") -> None:
        self.handler = handler
        self.model = model
        self.requests: list[Received] = []
        self.max_in_flight = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._in_flight = 0
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        fake = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake._record(self, None)
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, json.dumps({"object": "list", "data": [
                        {"id": fake.model, "object": "model", "created": 0, "owned_by": "fake"}]}))
                else:
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, json.dumps({"error": {"message": "request body is not JSON"}}))
                    return
                fake._record(self, body)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
                    return
                fmt = body.get("response_format") or {}
                spec = fmt.get("json_schema") or {}
                if fmt.get("type") == "json_schema" and spec.get("strict"):
                    problems = strict_schema_problems(spec.get("schema") or {})
                    if problems:  # what api.openai.com answers for a schema strict mode cannot enforce
                        self._send(400, json.dumps({"error": {
                            "message": f"Invalid schema for response_format '{spec.get('name')}': {problems[0]}",
                            "type": "invalid_request_error", "param": "response_format", "code": None}}))
                        return
                with fake._lock:
                    fake._in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
                try:
                    reply = fake._next(body)
                    if reply.delay_s and fake._stopping.wait(reply.delay_s):
                        return
                    status, text = fake._render(reply, body)
                    self._send(status, text, reply.headers)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with fake._lock:
                        fake._in_flight -= 1

            def _send(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
                data = text.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; delayed replies still pending are dropped."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "FakeOpenAI not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # -- scripting --------------------------------------------------------------------------

    def push(self, *replies: Reply | str | dict | BaseModel) -> None:
        """Queue replies, served in order before ``handler`` is consulted."""
        with self._lock:
            self._queue.extend(_as_reply(r) for r in replies)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """Bodies of the chat-completion requests received, in order."""
        return [r.body for r in self.requests if r.body is not None and r.path.rstrip("/").endswith("/chat/completions")]

    @property
    def pending(self) -> int:
        """Scripted replies not yet served."""
        return len(self._queue)

    # -- internals --------------------------------------------------------------------------

    def _record(self, h: BaseHTTPRequestHandler, body: dict[str, Any] | None) -> None:
        with self._lock:
            self.requests.append(Received(h.command, h.path, {k.lower(): v for k, v in h.headers.items()}, body))

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.handler is not None:
            return _as_reply(self.handler(body))
        return error(400, message="FakeOpenAI: no scripted reply left and no handler")

    def _render(self, reply: Reply, body: dict[str, Any]) -> tuple[int, str]:
        if reply.raw is not None:
            return reply.status, reply.raw
        content = reply.content or ""
        prompt = reply.prompt_tokens
        if prompt is None:
            prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        completion = reply.completion_tokens if reply.completion_tokens is not None else max(1, len(content.split()))
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": reply.content},
            "finish_reason": reply.finish_reason,
            "logprobs": None,
        }
        if reply.logprobs is not None and body.get("logprobs"):
            choice["logprobs"] = {"content": [
                {"token": t, "logprob": lp, "bytes": list(t.encode()),
                 "top_logprobs": [{"token": a, "logprob": alp, "bytes": list(a.encode())} for a, alp in alts.items()]}
                for t, lp, alts in reply.logprobs
            ]}
        out = {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [choice],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
            },
        }
        return reply.status, json.dumps(out)


def strict_schema_problems(schema: dict[str, Any]) -> list[str]:
    """What OpenAI's structured outputs (``"strict": true``) reject in a JSON schema: a root that is
    not an object, an object without ``"additionalProperties": false``, a property missing from
    ``required``, and open dicts (an object whose values are any keys: ``additionalProperties``
    true or a schema, or no ``properties`` at all). One line per problem, with its JSON path."""
    out: list[str] = []
    if schema.get("type") != "object":
        out.append("#: the root schema must be an object (not anyOf or another type)")

    def walk(node: Any, path: str) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{path}/{i}")
            return
        if not isinstance(node, dict):
            return
        if node.get("type") == "object" or "properties" in node:
            if node.get("additionalProperties") is not False:
                out.append(f"{path}: 'additionalProperties' is required to be supplied and to be false")
            if "properties" not in node:
                out.append(f"{path}: an object needs 'properties' (open dicts are not allowed)")
            missing = sorted(set(node.get("properties", {})) - set(node.get("required", [])))
            if missing:
                out.append(f"{path}: 'required' is required to be supplied and to include every key in "
                           f"properties; missing {missing}")
        for key, value in node.items():
            if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
                for name, sub in value.items():
                    walk(sub, f"{path}/{key}/{name}")
            elif isinstance(value, (dict, list)) and key not in ("enum", "const", "default", "examples"):
                walk(value, f"{path}/{key}")

    walk(schema, "#")
    return out


def _as_reply(r: Reply | str | dict | BaseModel) -> Reply:
    if isinstance(r, Reply):
        return r
    if isinstance(r, str):
        return text_reply(r)
    return json_reply(r)
