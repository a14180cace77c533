"""Structured replies checked against facts the JSON schema cannot express (a quote must occur
in the evidence, an id must exist, a workflow must validate), with the same bounded repair loop
as schema errors: the problems go back to the model, which answers again."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel

from .calls import CallRecord
from .engine import LLMEngine, echoed
from .errors import LLMError

T = TypeVar("T", bound=BaseModel)

Check = Callable[[T], list[str]]
"""Returns the problems of a reply (empty list = accepted); each one a sentence the model can act on."""


def check_repair_message(problems: list[str]) -> str:
    """The user message that sends a reply's problems back to the model."""
    listed = "\n".join(f"- {p}" for p in problems)
    return (
        "Your previous reply is valid JSON but was rejected:\n"
        f"{listed}\n"
        "Reply again with only the corrected JSON object, no other text."
    )


def structured_checked(
    engine: LLMEngine,
    messages: list[dict[str, str]],
    schema: type[T],
    check: Check,
    *,
    role: str | None = None,
    what: str = "reply",
    **kwargs,
) -> tuple[T, list[CallRecord]]:
    """``engine.structured`` followed by ``check``; a rejected reply is sent back with its
    problems, up to ``engine.endpoint.repair_attempts`` times.

    Returns ``(instance, records)`` with one ``CallRecord`` per call (the last is the accepted
    one). ``kwargs`` go to ``engine.structured`` (``logprobs``, ``top_logprobs``, ...). Raises
    ``LLMError`` naming the role, the model, ``what`` was asked and the remaining problems when
    the repairs are exhausted (and whatever ``engine.structured`` raises).
    """
    records: list[CallRecord] = []
    convo = list(messages)
    repairs = 0
    while True:
        reply, rec = engine.structured(convo, schema, role=role, **kwargs)
        records.append(rec)
        problems = check(reply)
        if not problems:
            return reply, records
        engine.forget(rec)  # rejected: never replayed from the cache
        if repairs >= engine.endpoint.repair_attempts:
            raise LLMError(
                f"{what} still rejected after {repairs} repair attempt(s) (engine {engine.name}): "
                + "; ".join(problems),
                role=role or engine.role, model=engine.model,
            )
        repairs += 1
        convo = convo + [
            {"role": "assistant", "content": echoed(rec.text)},
            {"role": "user", "content": check_repair_message(problems)},
        ]
