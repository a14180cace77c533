"""The OpenAI-compatible LLM client against the local fake server: structured output and
repairs, retries and timeouts, logprobs, cache, cost and usage accounting, concurrency."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import openai
import pytest
from fake_openai import FakeOpenAI, delayed, error, json_reply, logprob_reply, text_reply
from pydantic import BaseModel, Field

from litnav.core.settings import EndpointSettings, Settings, SettingsError, load_settings
from litnav.llm import LLMError, UsageMeter, engine_for
from litnav.llm.openai_engine import OpenAIEngine


class Grade(BaseModel):
    score: int = Field(ge=0, le=5)
    rationale: str


MSGS = [{"role": "system", "content": "You grade papers."}, {"role": "user", "content": "Grade this abstract."}]


@pytest.fixture
def fake():
    with FakeOpenAI() as server:
        yield server


def make_settings(fake: FakeOpenAI, tmp_path: Path, *, cache: bool = False, **endpoint) -> Settings:
    ep = {"base_url": fake.base_url, "model": "test-model", "backoff_initial_s": 0.001, "backoff_max_s": 0.01,
          "max_retries": 2, **endpoint}
    return Settings.model_validate({"llm": {
        "endpoints": {"local": ep}, "scorer": "local", "navigator": "local",
        "cache": cache, "cache_dir": str(tmp_path / "cache"),
    }})


def scorer(fake, tmp_path, meter=None, **kw) -> OpenAIEngine:
    return engine_for(make_settings(fake, tmp_path, **kw), "scorer", meter or UsageMeter())


# -- structured output and repairs -------------------------------------------------------------

def test_structured_sends_json_schema_and_validates(fake, tmp_path):
    fake.push(json_reply({"score": 4, "rationale": "fits"}))
    engine = scorer(fake, tmp_path)
    grade, rec = engine.structured(MSGS, Grade)
    assert grade == Grade(score=4, rationale="fits")
    assert (rec.role, rec.engine, rec.repairs, rec.attempts, rec.cached) == ("scorer", "llm:openai:test-model", 0, 1, False)
    rf = fake.bodies[0]["response_format"]
    assert rf["type"] == "json_schema"
    from litnav.llm.engine import strict_json_schema

    assert rf["json_schema"] == {"name": "Grade", "schema": strict_json_schema(Grade.model_json_schema()), "strict": True}
    assert fake.bodies[0]["model"] == "test-model" and fake.bodies[0]["messages"] == MSGS


@pytest.mark.parametrize("bad", ['{"score": 4, "rationale": ', '{"score": 9, "rationale": "too high"}'],
                         ids=["malformed-json", "schema-violation"])
def test_invalid_reply_is_repaired(fake, tmp_path, bad):
    fake.push(text_reply(bad), json_reply({"score": 3, "rationale": "ok"}))
    meter = UsageMeter()
    grade, rec = scorer(fake, tmp_path, meter).structured(MSGS, Grade)
    assert grade.score == 3 and rec.repairs == 1 and rec.usage.calls == 2
    repair = fake.bodies[1]["messages"]
    assert repair[:2] == MSGS
    assert repair[2] == {"role": "assistant", "content": bad}
    assert repair[3]["role"] == "user" and "Validation error" in repair[3]["content"]
    assert meter.by_role()["scorer"].calls == 2


def test_repairs_exhausted_raise_clear_error(fake, tmp_path):
    fake.push("nope", "still nope", "never json")
    meter = UsageMeter()
    with pytest.raises(LLMError) as info:
        scorer(fake, tmp_path, meter, repair_attempts=2).structured(MSGS, Grade)
    msg = str(info.value)
    assert "role=scorer" in msg and "model=test-model" in msg and "Grade" in msg and "Invalid JSON" in msg
    assert len(fake.bodies) == 3
    assert meter.by_role()["scorer"].calls == 3, "tokens spent on failed attempts are still counted"


def test_think_block_and_code_fence_are_stripped(fake, tmp_path):
    fake.push('<think>hmm</think>\n```json\n{"score": 2, "rationale": "r"}\n```')
    grade, rec = scorer(fake, tmp_path).structured(MSGS, Grade)
    assert grade.score == 2 and rec.repairs == 0


# -- retries and timeouts --------------------------------------------------------------------

def test_429_with_retry_after_then_success(fake, tmp_path):
    fake.push(error(429, retry_after=0), json_reply({"score": 1, "rationale": "r"}))
    grade, rec = scorer(fake, tmp_path).structured(MSGS, Grade)
    assert grade.score == 1 and rec.attempts == 2 and rec.usage.calls == 1
    assert len(fake.bodies) == 2


def test_retry_after_is_honoured_and_capped(fake, tmp_path):
    settings = make_settings(fake, tmp_path, backoff_max_s=2.0)
    sleeps: list[float] = []
    engine = OpenAIEngine(settings.llm.endpoints["local"], role="scorer", sleep=sleeps.append)
    fake.push(error(429, retry_after=1.5), error(503, retry_after=30), "done")
    text, rec = engine.complete(MSGS)
    assert text == "done" and rec.attempts == 3
    assert sleeps == [1.5, 2.0]


def test_5xx_is_retried_with_bounded_backoff(fake, tmp_path):
    settings = make_settings(fake, tmp_path, backoff_initial_s=0.01, backoff_max_s=0.05)
    sleeps: list[float] = []
    engine = OpenAIEngine(settings.llm.endpoints["local"], role="scorer", sleep=sleeps.append)
    fake.push(error(500), error(502), "ok")
    assert engine.complete(MSGS)[0] == "ok"
    assert len(sleeps) == 2 and all(0 < s <= 0.05 for s in sleeps)


def test_5xx_exhausted_names_status_and_attempts(fake, tmp_path):
    fake.push(error(500), error(500), error(500))
    with pytest.raises(LLMError, match=r"after 3 attempt\(s\): HTTP 500") as info:
        scorer(fake, tmp_path, max_retries=2).complete(MSGS)
    assert isinstance(info.value.__cause__, openai.InternalServerError)
    assert len(fake.bodies) == 3


def test_client_error_is_not_retried(fake, tmp_path):
    fake.push(error(400, message="bad schema"))
    with pytest.raises(LLMError, match="HTTP 400.*bad schema"):
        scorer(fake, tmp_path).complete(MSGS)
    assert len(fake.bodies) == 1


def test_timeout_gives_clear_error_after_bounded_retries(fake, tmp_path):
    fake.push(delayed(5), delayed(5))
    with pytest.raises(LLMError, match=r"after 2 attempt\(s\): timed out \(timeout_s=0.2\)"):
        scorer(fake, tmp_path, timeout_s=0.2, max_retries=1).complete(MSGS)
    assert len(fake.bodies) == 2


def test_connection_refused_is_an_llm_error(tmp_path):
    with FakeOpenAI() as gone:
        url = gone.base_url
    ep = EndpointSettings(base_url=url, model="m", max_retries=1, backoff_initial_s=0.001, backoff_max_s=0.001)
    with pytest.raises(LLMError, match="connection error"):
        OpenAIEngine(ep, role="navigator").complete(MSGS)


def test_unauthorised_names_the_key_variable(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("LITNAV_TEST_KEY", "s3cret")
    fake.push(error(401, message="invalid key"), "fine")
    engine = scorer(fake, tmp_path, api_key_env="LITNAV_TEST_KEY")
    with pytest.raises(LLMError, match=r"\$LITNAV_TEST_KEY"):
        engine.complete(MSGS)
    assert fake.requests[-1].headers["authorization"] == "Bearer s3cret"


# -- logprobs and request options --------------------------------------------------------------

def test_logprobs_are_requested_and_returned(fake, tmp_path):
    fake.push(logprob_reply([
        ('{"score": ', -0.01, {'{"score": ': -0.01}),
        ("4", -0.2, {"4": -0.2, "3": -1.8}),
        (', "rationale": "x"}', -0.05, {', "rationale": "x"}': -0.05}),
    ]))
    grade, rec = scorer(fake, tmp_path).structured(MSGS, Grade, logprobs=True, top_logprobs=2)
    assert grade.score == 4
    assert fake.bodies[0]["logprobs"] is True and fake.bodies[0]["top_logprobs"] == 2
    assert [t.token for t in rec.logprobs] == ['{"score": ', "4", ', "rationale": "x"}']
    assert rec.logprobs[1].logprob == -0.2 and rec.logprobs[1].top == [("4", -0.2), ("3", -1.8)]


def test_no_logprobs_unless_asked(fake, tmp_path):
    fake.push("plain")
    text, rec = scorer(fake, tmp_path).complete(MSGS, temperature=0.7, max_tokens=5)
    assert text == "plain" and rec.logprobs is None
    body = fake.bodies[0]
    assert "logprobs" not in body and "response_format" not in body
    assert body["temperature"] == 0.7 and body["max_tokens"] == 5


def test_extra_body_is_sent(fake, tmp_path):
    fake.push("x")
    scorer(fake, tmp_path, extra_body={"chat_template_kwargs": {"enable_thinking": False}}).complete(MSGS)
    assert fake.bodies[0]["chat_template_kwargs"] == {"enable_thinking": False}


def test_bad_messages_name_the_field(fake, tmp_path):
    with pytest.raises(ValueError, match=r"messages\[1\]\.role"):
        scorer(fake, tmp_path).complete([{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}])


# -- cache -------------------------------------------------------------------------------------

def test_cache_hit_costs_no_tokens(fake, tmp_path):
    fake.push(json_reply({"score": 5, "rationale": "great"}, prompt_tokens=100, completion_tokens=10))
    first_meter, second_meter = UsageMeter(), UsageMeter()
    g1, r1 = scorer(fake, tmp_path, first_meter, cache=True).structured(MSGS, Grade)
    g2, r2 = scorer(fake, tmp_path, second_meter, cache=True).structured(MSGS, Grade)
    assert g1 == g2 and len(fake.bodies) == 1
    assert (r1.cached, r1.usage.prompt_tokens, r1.usage.completion_tokens) == (False, 100, 10)
    assert r2.cached and r2.usage.model_dump() == {
        "calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0, "cache_hits": 1, "cost_usd": 0.0}
    assert second_meter.by_role()["scorer"].cache_hits == 1
    files = list((tmp_path / "cache").rglob("*"))
    assert any(f.suffix == ".json" for f in files) and not any(f.name.endswith(".tmp") for f in files)


def test_cache_key_covers_schema_params_and_messages(fake, tmp_path):
    class Other(BaseModel):
        score: int
        rationale: str
        extra: str = ""

    fake.handler = lambda body: {"score": 1, "rationale": "r"}
    engine = scorer(fake, tmp_path, cache=True)
    engine.structured(MSGS, Grade)
    engine.structured(MSGS, Other)
    engine.structured(MSGS, Grade, temperature=0.5)
    engine.structured(MSGS + [{"role": "user", "content": "again"}], Grade)
    engine.complete(MSGS)
    assert len(fake.bodies) == 5
    engine.structured(MSGS, Grade)
    assert len(fake.bodies) == 5


def test_repaired_reply_is_cached_under_the_original_request(fake, tmp_path):
    fake.push("broken", json_reply({"score": 2, "rationale": "r"}))
    scorer(fake, tmp_path, cache=True).structured(MSGS, Grade)
    grade, rec = scorer(fake, tmp_path, cache=True).structured(MSGS, Grade)
    assert grade.score == 2 and rec.cached and len(fake.bodies) == 2


def test_failed_calls_are_not_cached(fake, tmp_path):
    fake.push(error(400), "later")
    engine = scorer(fake, tmp_path, cache=True)
    with pytest.raises(LLMError):
        engine.complete(MSGS)
    assert engine.complete(MSGS)[0] == "later"


def test_a_reply_the_caller_rejects_is_not_replayed_from_the_cache(fake, tmp_path):
    """A reply that passes the schema but not the caller's own check (an invented id) is forgotten,
    so once the server answers well the next run gets the good answer, not the cached bad one."""
    from litnav.llm.checked import structured_checked

    def check(grade):
        return [] if grade.rationale != "invented" else ["the rationale quotes no evidence"]

    fake.handler = lambda body: {"score": 1, "rationale": "invented"}
    with pytest.raises(LLMError, match="still rejected"):
        structured_checked(scorer(fake, tmp_path, cache=True, repair_attempts=0), MSGS, Grade, check)
    fake.handler = lambda body: {"score": 4, "rationale": "quoted"}
    grade, records = structured_checked(scorer(fake, tmp_path, cache=True, repair_attempts=0), MSGS, Grade, check)
    assert grade.score == 4 and not records[-1].cached and len(fake.bodies) == 2
    again, records = structured_checked(scorer(fake, tmp_path, cache=True, repair_attempts=0), MSGS, Grade, check)
    assert again.score == 4 and records[-1].cached and "cache_key" not in records[-1].model_dump()


def test_cache_off(fake, tmp_path):
    fake.handler = lambda body: "same"
    engine = scorer(fake, tmp_path, cache=False)
    engine.complete(MSGS)
    _, rec = engine.complete(MSGS)
    assert not rec.cached and len(fake.bodies) == 2


# -- cost and usage ---------------------------------------------------------------------------

def test_cost_from_endpoint_prices(fake, tmp_path):
    fake.push(text_reply("a", prompt_tokens=1000, completion_tokens=500, cached_tokens=200),
              text_reply("b", prompt_tokens=3000, completion_tokens=0))
    meter = UsageMeter()
    engine = scorer(fake, tmp_path, meter, price_prompt_per_mtok=1.0, price_completion_per_mtok=2.0,
                    price_cached_per_mtok=0.5)
    _, r1 = engine.complete(MSGS)
    _, r2 = engine.complete(MSGS + [{"role": "user", "content": "more"}])
    assert r1.usage.cost_usd == pytest.approx((800 * 1.0 + 200 * 0.5 + 500 * 2.0) / 1e6)
    assert r1.usage.cached_tokens == 200
    assert r2.usage.cost_usd == pytest.approx(3000 / 1e6)
    total = meter.total()
    assert (total.calls, total.prompt_tokens, total.completion_tokens) == (2, 4000, 500)
    assert total.cost_usd == pytest.approx(r1.usage.cost_usd + r2.usage.cost_usd)


def test_usage_per_role(fake, tmp_path):
    fake.handler = lambda body: text_reply("ok", prompt_tokens=10, completion_tokens=2)
    settings = make_settings(fake, tmp_path)
    meter = UsageMeter()
    nav, grader = engine_for(settings, "navigator", meter), engine_for(settings, "scorer", meter)
    nav.complete(MSGS)
    grader.complete(MSGS)
    grader.complete(MSGS)
    grader.complete(MSGS, role="reranker")
    usage = meter.by_role()
    assert {r: (u.calls, u.prompt_tokens, u.completion_tokens) for r, u in usage.items()} == {
        "navigator": (1, 10, 2), "scorer": (2, 20, 4), "reranker": (1, 10, 2)}
    assert engine_for(settings, "reflection", meter) is None


# -- concurrency -------------------------------------------------------------------------------

def test_concurrency_limit_is_respected_across_threads(fake, tmp_path):
    fake.handler = lambda body: delayed(0.15, json_reply({"score": 1, "rationale": body["messages"][-1]["content"]}))
    settings = make_settings(fake, tmp_path, max_concurrency=2)
    meter = UsageMeter()
    engine = engine_for(settings, "scorer", meter)
    with ThreadPoolExecutor(max_workers=6) as pool:
        grades = list(pool.map(
            lambda i: engine.structured([{"role": "user", "content": f"paper {i}"}], Grade)[0], range(6)))
    assert [g.rationale for g in grades] == [f"paper {i}" for i in range(6)]
    assert fake.max_in_flight in (1, 2)
    assert meter.by_role()["scorer"].calls == 6


def test_roles_on_one_endpoint_share_its_semaphore(fake, tmp_path):
    settings = make_settings(fake, tmp_path, max_concurrency=3)
    a, b = engine_for(settings, "scorer"), engine_for(settings, "navigator")
    assert a._semaphore is b._semaphore


def test_meter_is_thread_safe():
    from litnav.core.records import Usage

    meter = UsageMeter()
    threads = [threading.Thread(target=lambda: [meter.record("scorer", Usage(calls=1, prompt_tokens=3))
                                                for _ in range(500)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert meter.by_role()["scorer"] == Usage(calls=2000, prompt_tokens=6000)


# -- configuration ---------------------------------------------------------------------------

def test_role_naming_a_missing_endpoint_is_a_settings_error():
    with pytest.raises(SettingsError, match="llm.scorer = 'nowhere' names no endpoint"):
        load_settings(overrides=["llm.scorer=nowhere"])


def test_unknown_role_and_unset_role(fake, tmp_path):
    settings = make_settings(fake, tmp_path)
    with pytest.raises(ValueError, match="unknown LLM role 'teacher'"):
        engine_for(settings, "teacher")
    assert engine_for(Settings(), "scorer") is None


def test_openai_backend_needs_base_url():
    settings = Settings.model_validate({"llm": {"endpoints": {"x": {"model": "m"}}, "scorer": "x"}})
    with pytest.raises(LLMError, match="no base_url"):
        engine_for(settings, "scorer")


def test_a_runaway_reply_is_not_sent_back_whole_on_a_repair(fake, tmp_path):
    from litnav.llm.engine import MAX_ECHO_CHARS

    fake.push("x" * 200_000, json_reply({"score": 2, "rationale": "r"}))
    grade, _ = scorer(fake, tmp_path).structured(MSGS, Grade)
    echoed = fake.bodies[1]["messages"][-2]["content"]
    assert grade.score == 2 and len(echoed) < MAX_ECHO_CHARS + 100 and "more characters of this reply cut" in echoed
