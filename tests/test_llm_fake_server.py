"""The fake OpenAI server itself: routes, handler mode, recording, defaults."""

from __future__ import annotations

import openai
import pytest
from fake_openai import FakeOpenAI, error, json_reply
from pydantic import BaseModel


def client(fake: FakeOpenAI) -> openai.OpenAI:
    return openai.OpenAI(api_key="k", base_url=fake.base_url, max_retries=0, timeout=5)


def test_models_route():
    with FakeOpenAI(model="tiny") as fake:
        assert [m.id for m in client(fake).models.list()] == ["tiny"]
        assert fake.requests[0].method == "GET" and fake.requests[0].path == "/v1/models"


def test_handler_plays_a_role_and_queue_comes_first():
    class Plan(BaseModel):
        steps: list[str]

    def handler(body):
        return Plan(steps=[m["content"] for m in body["messages"]])

    with FakeOpenAI(handler=handler) as fake:
        fake.push(json_reply({"steps": ["scripted"]}))
        c = client(fake)
        first = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
        second = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "b"}])
        assert Plan.model_validate_json(first.choices[0].message.content).steps == ["scripted"]
        assert Plan.model_validate_json(second.choices[0].message.content).steps == ["b"]
        assert second.usage.prompt_tokens == 1 and second.usage.completion_tokens == 1  # compact JSON: one word
        assert fake.pending == 0 and len(fake.bodies) == 2


def test_without_script_or_handler_answers_400():
    with FakeOpenAI() as fake:
        with pytest.raises(openai.BadRequestError, match="no scripted reply"):
            client(fake).chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])


def test_error_reply_carries_retry_after():
    with FakeOpenAI() as fake:
        fake.push(error(429, retry_after=2))
        with pytest.raises(openai.RateLimitError) as info:
            client(fake).chat.completions.create(model="m", messages=[{"role": "user", "content": "a"}])
        assert info.value.response.headers["retry-after"] == "2"
