"""Fault injection: LLM endpoints that misbehave, and schemas OpenAI's strict mode rejects
(issue 12, case 6)."""

from __future__ import annotations

from typing import Any

import pytest
from fake_openai import FakeOpenAI, Reply, json_reply, strict_schema_problems
from pydantic import BaseModel, ConfigDict

from litnav.core.settings import Settings
from litnav.llm import LLMError, UsageMeter, engine_for
from litnav.navigator.llm_planner import NodeDraft, PlanReply
from litnav.navigator.llm_reflect import ReflectionReply
from litnav.reranker.llm import Ordering
from litnav.scorer.teacher import PaperGrade
from litnav.training.distill import IntentBatch

MSGS = [{"role": "user", "content": "Grade this."}]
CUT_BODY = '{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "mess'


class Grade(BaseModel):
    model_config = ConfigDict(extra="forbid")
    relevant: bool


class OpenDict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    params: dict[str, Any]


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server


def _settings(fake, tmp_path, **kw) -> Settings:
    ep = {"base_url": fake.base_url, "model": "test-model", "backoff_initial_s": 0.001, "backoff_max_s": 0.01,
          "max_retries": 2}
    return Settings.model_validate({"llm": {"endpoints": {"local": ep}, "scorer": "local", "navigator": "local",
                                            "cache": False, "cache_dir": str(tmp_path / "cache"), **kw}})


@pytest.mark.parametrize("schema", [PlanReply, ReflectionReply, Ordering, PaperGrade, IntentBatch],
                         ids=lambda m: m.__name__)
def test_every_schema_litnav_sends_passes_openai_strict_rules(schema):
    assert strict_schema_problems(schema.model_json_schema()) == []


def test_fake_server_rejects_what_strict_mode_rejects(fake, tmp_path):
    assert strict_schema_problems(OpenDict.model_json_schema())
    engine = engine_for(_settings(fake, tmp_path), "scorer", UsageMeter())
    with pytest.raises(LLMError, match="Invalid schema for response_format"):
        engine.structured(MSGS, OpenDict)
    assert len(fake.bodies) == 1  # a 400 is not retried


def test_node_params_are_name_value_pairs_and_objects_still_parse():
    node = NodeDraft.model_validate({"id": "s", "op": "semantic_search", "inputs": [], "note": None,
                                     "params": [{"name": "query", "value": '"graph networks"'},
                                                {"name": "k", "value": "20"}]})
    assert node.to_node().params == {"query": "graph networks", "k": 20}
    legacy = NodeDraft.model_validate({"id": "s", "op": "semantic_search", "inputs": [], "note": None,
                                       "params": {"query": "graph networks", "k": 20}})
    assert legacy.to_node().params == {"query": "graph networks", "k": 20}


def test_cut_200_reply_is_retried(fake, tmp_path):
    fake.push(Reply(content=None, status=200, raw=CUT_BODY), json_reply({"relevant": True}))
    engine = engine_for(_settings(fake, tmp_path), "scorer", UsageMeter())
    grade, _ = engine.structured(MSGS, Grade)
    assert grade.relevant is True and len(fake.bodies) == 2


def test_cut_200_replies_are_reported_with_role_model_and_url(fake, tmp_path):
    fake.push(*[Reply(content=None, status=200, raw=CUT_BODY)] * 3)
    engine = engine_for(_settings(fake, tmp_path), "scorer", UsageMeter())
    with pytest.raises(LLMError) as err:
        engine.structured(MSGS, Grade)
    message = str(err.value)
    assert "role=scorer" in message and "model=test-model" in message and fake.base_url in message
    assert "not JSON" in message and len(fake.bodies) == 3


def test_cut_200_replies_honour_llm_fallback(fake, tmp_path):
    from litnav.navigator.llm_planner import LLMPlanner

    fake.push(*[Reply(content=None, status=200, raw=CUT_BODY)] * 3)
    engine = engine_for(_settings(fake, tmp_path), "navigator", UsageMeter())

    class _Corpus:
        def venues(self):
            return {}

    planner = LLMPlanner(engine, fallback=True)
    checklist, workflow, how = planner("graph neural networks for molecules", _Corpus(), Settings())
    assert checklist.checkpoints and "fallback" in how and "not JSON" in how
