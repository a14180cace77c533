"""The distilled-scorer pipeline end to end on a tiny corpus with the fake OpenAI server as the
teacher: synthesize (resumable, cached, costed) -> train -> eval -> search with the new student
recorded in the session; plus the converters and the split."""

from __future__ import annotations

import json
import re

import pytest
from fake_openai import FakeOpenAI
from typer.testing import CliRunner

from litnav.cli import _register, app
from litnav.core.records import Checklist
from litnav.core.settings import Settings
from litnav.corpus import Corpus, CorpusSettings, CorpusWriter
from litnav.corpus.records import Author, Document, Paper, Paragraph
from litnav.navigator import search
from litnav.scorer import load_student
from litnav.training.agreement import split_rows
from litnav.training.data import read_rows
from litnav.training.distill import DistillConfig, DistillError, pick_candidates, state_path, synthesize

MODEL = "fake-teacher"
AREAS = {
    "translation": ("machine translation", "attention"),
    "molecules": ("molecular property", "graph"),
    "speech": ("speech recognition", "recurrent"),
}
DOCS = []
for area, (topic, method) in AREAS.items():
    for i in range(4):
        uses = i % 2 == 0
        DOCS.append((f"{area[:2]}{i}", f"{topic.capitalize()} study {i}" + (f" with {method}" if uses else ""),
                     2015 + i, f"We study {topic} on benchmark {i}." + (f" Our model uses {method}." if uses else
                                                                        " We use simple counting baselines."),
                     f"Experiments on {topic} data set {i} show gains."))


def documents() -> list[Document]:
    return [Document(paper=Paper(corpus_id=cid, title=title, year=year, venue="Conf",
                                 authors=[Author(name=f"Author {cid}")]),
                     abstract=abstract, paragraphs=[Paragraph(section="Method", text=body)])
            for cid, title, year, abstract, body in DOCS]


def synth_reply(body: dict) -> dict:
    """Intents for the area of the seed papers: a topic and a method checkpoint."""
    text = body["messages"][-1]["content"].lower()
    topic, method = next(v for v in AREAS.values() if v[0] in text)
    return {"intents": [{"intent": f"{topic} papers using {method}", "checkpoints": [
        {"id": "c1", "kind": "topic", "text": f"Papers about {topic}", "weight": 1.0, "terms": [topic],
         "predicate": None},
        {"id": "c2", "kind": "method", "text": f"The method uses {method}", "weight": 1.0, "terms": [method],
         "predicate": None}]}]}


def teacher_reply(body: dict) -> dict:
    """Grades 5 when the checkpoint's key term is in the paper's evidence, else 0; relevant when
    every checkpoint scores 5. Quotes the first words of the first evidence passage."""
    text = [m for m in body["messages"] if m["role"] == "user"][-1]["content"]
    grades, cur = [], None
    for line in text.splitlines():
        m = re.match(r"\[(\w+)\] \w+: (?:Papers about|The method uses) (.+)$", line)
        if m:
            cur = {"checkpoint_id": m.group(1), "score": 0.0, "quote": None, "rationale": "no evidence", "_t": m.group(2)}
            grades.append(cur)
            continue
        m = re.match(r"  E\d \([^)]*\): (.*)", line)
        if m and cur is not None:
            if cur["quote"] is None:
                cur["quote"] = " ".join(m.group(1).split()[:4])
            if cur["_t"].lower() in m.group(1).lower():
                cur["score"] = 5.0
            cur["rationale"] = f'the evidence says "{cur["quote"]}"'
    for g in grades:
        g.pop("_t")
    ok = bool(grades) and all(g["score"] == 5.0 for g in grades)
    return {"grades": grades, "relevant": "yes" if ok else "no", "relevance": 5 if ok else 0}


def handler(body: dict):
    system = body["messages"][0]["content"]
    return synth_reply(body) if system.startswith("You are the intent synthesiser") else teacher_reply(body)


def make_settings(fake: FakeOpenAI, cache) -> Settings:
    return Settings.model_validate({"llm": {
        "endpoints": {"t": {"base_url": fake.base_url, "model": MODEL, "max_retries": 0,
                            "price_prompt_per_mtok": 1.0, "price_completion_per_mtok": 2.0}},
        "scorer": "t", "cache_dir": str(cache)}, "navigator": {"rounds": 1}})


CFG = DistillConfig(topics=3, intents_per_topic=1, seeds_per_topic=2, positives=3, partials=2,
                    hard_negatives=2, random_negatives=2)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("distill") / "corpus"
    with CorpusWriter.open(path, CorpusSettings(chunk_embeddings="eager")) as w:
        with w.source("docs", 1, "sha") as tx:
            tx.add_documents(documents())
        w.finalize(progress=False)
    with Corpus.open(path) as c:
        yield c


@pytest.fixture(scope="module")
def pipeline(corpus, tmp_path_factory):
    """synthesize, a rerun, an interrupted-and-resumed run, all against one cache."""
    tmp = tmp_path_factory.mktemp("distill-run")
    out = tmp / "data.jsonl"
    with FakeOpenAI(handler=handler, model=MODEL) as fake:
        settings = make_settings(fake, tmp / "cache")
        first = synthesize(corpus, settings, "scorer", out, CFG)
        n_first = len(fake.bodies)
        lines_first = out.read_text().splitlines()
        second = synthesize(corpus, settings, "scorer", out, CFG)
        n_second = len(fake.bodies)
        # simulate a crash: the last intent's rows are written, its mark is not, a line is torn
        state = json.loads(state_path(out).read_text())
        last = sorted(state["done"])[-1]
        del state["done"][last]
        state_path(out).write_text(json.dumps(state))
        with out.open("a") as fh:
            fh.write('{"checkpoint": {"kind": "top')
        third = synthesize(corpus, settings, "scorer", out, CFG)
        yield {"out": out, "settings": settings, "first": first, "second": second, "third": third,
               "n_first": n_first, "n_second": n_second, "n_third": len(fake.bodies), "lines_first": lines_first,
               "last": last, "tmp": tmp}


def test_synthesize_writes_teacher_rows_with_cost(pipeline):
    first, out = pipeline["first"], pipeline["out"]
    rows = list(read_rows(out))
    assert first.intents_done == 3 and first.rows_written == len(rows) > 0
    assert {r.source for r in rows} == {"teacher"}
    assert {r.checkpoint.kind for r in rows} == {"topic", "method"}
    assert {r.teacher.bucket for r in rows} >= {"positive", "hard_negative"}  # the pool covers the tiny corpus
    assert {r.label_score for r in rows} == {0.0, 5.0} and {r.label_relevant for r in rows} == {0, 1}
    for r in rows:
        if r.teacher.quote:  # the quote is verbatim evidence
            assert any(r.teacher.quote in e.text for e in r.evidence)
        assert r.teacher.engine == f"llm:openai:{MODEL}"
    u = first.usage
    assert u.calls == pipeline["n_first"] and u.prompt_tokens > 0
    assert u.cost_usd == pytest.approx((u.prompt_tokens * 1.0 + u.completion_tokens * 2.0) / 1e6)
    state = json.loads(state_path(out).read_text())
    assert len(state["done"]) == 3 and all(len(t["seed_ids"]) == 2 for t in state["topics"])


def test_rerun_skips_finished_intents(pipeline):
    second = pipeline["second"]
    assert second.intents_done == 0 and second.intents_skipped == 3 and second.rows_written == 0
    assert pipeline["n_second"] == pipeline["n_first"]  # no request at all


def test_interrupted_intent_is_redone_from_cache_without_duplicates(pipeline):
    third, out = pipeline["third"], pipeline["out"]
    assert third.intents_done == 1 and third.intents_skipped == 2 and third.dropped_rows > 0
    assert pipeline["n_third"] == pipeline["n_first"]  # the redo is served by the disk cache
    assert third.usage.calls == 0 and third.usage.cache_hits > 0 and third.usage.cost_usd == 0.0
    assert sorted(out.read_text().splitlines()) == sorted(pipeline["lines_first"])


def test_state_of_another_configuration_is_refused(pipeline, corpus):
    other = DistillConfig(topics=2, intents_per_topic=1)
    with pytest.raises(DistillError, match="config differs"):
        synthesize(corpus, pipeline["settings"], "scorer", pipeline["out"], other)


def test_rows_synthesize_did_not_write_are_never_dropped(pipeline, corpus, tmp_path):
    row = json.loads(pipeline["out"].read_text().splitlines()[0])
    human = json.dumps({**row, "group": "claim-12"}) + "\n"  # a valid row of another origin
    alone = tmp_path / "human.jsonl"  # a file synthesize did not create (no state file)
    alone.write_text(human)
    with pytest.raises(DistillError, match="no state file"):
        synthesize(corpus, pipeline["settings"], "scorer", alone, CFG)
    assert alone.read_text() == human
    mixed = tmp_path / "mixed.jsonl"  # human labels appended to synthesize's own output
    mixed.write_text(pipeline["out"].read_text() + human)
    state_path(mixed).write_text(state_path(pipeline["out"]).read_text())
    before = mixed.read_text()
    with pytest.raises(DistillError, match=r"mixed\.jsonl:\d+: a row synthesize did not write"):
        synthesize(corpus, pipeline["settings"], "scorer", mixed, CFG)
    assert mixed.read_text() == before


def test_an_intent_the_teacher_graded_nothing_of_is_not_marked_done(corpus, tmp_path):
    def refusing(body):
        if body["messages"][0]["content"].startswith("You are the intent synthesiser"):
            return synth_reply(body)
        return "not json"  # every grade fails

    out = tmp_path / "d.jsonl"
    with FakeOpenAI(handler=refusing, model=MODEL) as fake:
        settings = make_settings(fake, tmp_path / "cache")
        rep = synthesize(corpus, settings, "scorer", out, CFG)
    assert rep.intents_done == 0 and len(rep.ungraded) == 3
    assert json.loads(state_path(out).read_text())["done"] == {}


def test_unknown_teacher_is_a_clear_error(corpus, tmp_path):
    with pytest.raises(DistillError, match="neither an LLM role"):
        synthesize(corpus, Settings(), "nobody", tmp_path / "d.jsonl", CFG)
    with pytest.raises(DistillError, match="llm.scorer names no endpoint"):
        synthesize(corpus, Settings(), "scorer", tmp_path / "d.jsonl", CFG)


def test_train_eval_and_search_with_the_new_student(pipeline, corpus):
    runner = CliRunner()
    _register()
    model = corpus.directory / "scorer" / "student.json"
    res = runner.invoke(app, ["scorer", "train", str(pipeline["out"]), "--out", str(model), "--heldout", "0.34",
                              "--name", "student:distilled-test"])
    assert res.exit_code == 0, res.output
    trained = json.loads(res.output)
    assert trained["name"] == "student:distilled-test" and trained["train_rows"] > 0
    res = runner.invoke(app, ["scorer", "eval", str(pipeline["out"]), "--model", str(model), "--heldout", "0"])
    assert res.exit_code == 0, res.output
    metrics = json.loads(res.output)["metrics"]
    assert metrics["n_rows"] == len(list(read_rows(pipeline["out"])))
    assert metrics["within1"] >= 0.8 and metrics["auc"] >= 0.8 and metrics["spearman"] > 0.5
    assert 0.0 <= metrics["ece"] <= 1.0
    # the corpus-local student is picked up when settings.scorer.student is None, and recorded
    session = search("attention for machine translation", corpus, Settings.model_validate({"navigator": {"rounds": 1}}))
    assert session.engines["scorer"] == "student:distilled-test"
    assert {j.engine for r in session.results for j in r.checkpoints} <= {"student:distilled-test", "metadata"}
    # settings win over the corpus-local student
    default = search("attention for machine translation", corpus,
                     Settings.model_validate({"navigator": {"rounds": 1},
                                              "scorer": {"student": str(load_student.__globals__["default_model_path"]())}}))
    assert default.engines["scorer"] == load_student().name
    # retrieval metrics of the new student vs the default on a benchmark
    bench = pipeline["tmp"] / "bench.jsonl"
    bench.write_text(json.dumps({"qid": "q1", "query": "machine translation with attention", "gold": ["ma0", "ma2"]}) + "\n")
    res = runner.invoke(app, ["scorer", "eval", str(pipeline["out"]), "--model", str(model), "--corpus",
                              str(corpus.directory), "--bench", str(bench), "--k", "5", "--set", "navigator.rounds=1"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output[res.output.index('{\n "student"'):])
    assert set(doc["retrieval"]) == {"litnav[default]", "litnav[new]"}
    assert 0.0 <= doc["retrieval"]["litnav[new]"]["Recall@5"] <= 1.0
    model.unlink()


def test_pick_candidates_buckets():
    import random
    ranking = [f"p{i}" for i in range(20)]
    cands = pick_candidates(ranking, ranking + ["x1", "x2", "x3"], CFG, random.Random(0))
    buckets = {}
    for cid, b in cands:
        buckets.setdefault(b, []).append(cid)
    assert buckets["positive"] == ["p0", "p1", "p2"]
    assert buckets["hard_negative"] == ["p18", "p19"]
    assert len(buckets["partial"]) == 2 and all(c in ranking[3:18] for c in buckets["partial"])
    assert len(buckets["random"]) == 2 and set(buckets["random"]) <= {"x1", "x2", "x3"}


def test_split_keeps_intents_together(pipeline):
    rows = list(read_rows(pipeline["out"]))
    train, test = split_rows(rows, 0.34, 0)
    key = lambda r: r.group.split(":")[0]  # noqa: E731
    assert train and test and not ({key(r) for r in train} & {key(r) for r in test})
    assert split_rows(rows, 0.34, 0) == (train, test)


def test_checklists_in_state_are_valid(pipeline):
    state = json.loads(state_path(pipeline["out"]).read_text())
    for t in state["topics"]:
        for doc in t["checklists"]:
            assert len(Checklist.model_validate(doc).checkpoints) == 2
