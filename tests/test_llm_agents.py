"""The LLM-backed agents against the local fake OpenAI server: an LLM-planned search end to end
(navigator with a clarification, reflection edits, teacher grading, listwise reranking, usage,
cache, engines), and each agent's checks and repairs on its own."""

from __future__ import annotations

import json
import math
import re
from datetime import date
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, error, json_reply, logprob_reply

from litnav.core.records import Checklist, Checkpoint, Evidence, MetadataPredicate, ScoredPaper
from litnav.core.settings import Settings
from litnav.corpus import Corpus, CorpusSettings, CorpusWriter
from litnav.corpus.records import Author, Citation, Document, Paper, Paragraph
from litnav.librarians import validate_workflow
from litnav.llm import LLMError, UsageMeter, engine_for
from litnav.navigator import search
from litnav.navigator.llm_planner import LLMPlanner
from litnav.navigator.llm_reflect import LLMReflector
from litnav.navigator.reflect import ReflectionState
from litnav.reranker.llm import LLMReranker
from litnav.scorer.teacher import Teacher, find_quote, yes_probability

MODEL = "fake-model"
ENGINE = f"llm:openai:{MODEL}"
TODAY = date(2025, 6, 1)
PRICE_PROMPT, PRICE_COMPLETION = 1.0, 2.0

DOCS = [
    ("t1", "Attention-based neural machine translation", 2016, "ACL",
     "We study attention mechanisms for neural machine translation between English and German.",
     "Our attention model aligns source and target words and improves BLEU on WMT translation tasks."),
    ("t2", "Transformers for low-resource machine translation", 2020, "EMNLP",
     "We apply the Transformer with self-attention to machine translation for low-resource languages.",
     "Back-translation and attention dropout help translation quality in low-resource settings."),
    ("t3", "Statistical phrase-based translation", 2003, "ACL",
     "Phrase-based statistical machine translation models translate sequences of words.",
     "We estimate phrase translation probabilities from word-aligned parallel corpora."),
    ("t4", "A survey of neural machine translation", 2021, "Computational Linguistics",
     "This survey reviews neural machine translation, attention and the Transformer.",
     "We summarise encoder-decoder models and attention variants for translation."),
    ("g1", "Graph neural networks for molecular property prediction", 2019, "NeurIPS",
     "Message passing graph neural networks predict properties of molecules.",
     "We evaluate on quantum chemistry benchmarks and predict molecular energies."),
    ("g2", "Protein structure prediction with deep learning", 2021, "Nature",
     "Deep networks predict protein structures from amino acid sequences.",
     "Coevolution features and attention over residues improve accuracy."),
    ("s1", "Sentiment analysis of product reviews", 2012, "ACL",
     "We classify the sentiment of product reviews with lexicons and linear models.",
     "Negation handling improves sentiment accuracy on reviews."),
    ("s2", "Speech recognition with recurrent networks", 2014, "ICASSP",
     "Recurrent neural networks transcribe speech to text.",
     "Connectionist temporal classification trains the acoustic model end to end."),
]


def documents() -> list[Document]:
    return [Document(paper=Paper(corpus_id=cid, title=title, year=year, venue=venue,
                                 authors=[Author(name=f"Author {cid.upper()}")]),
                     abstract=abstract, paragraphs=[Paragraph(section="Method", text=body)])
            for cid, title, year, venue, abstract, body in DOCS]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("agents") / "corpus"
    with CorpusWriter.open(path, CorpusSettings(chunk_embeddings="eager")) as w:
        with w.source("docs", 1, "sha") as tx:
            tx.add_documents(documents())
            tx.add_citations([Citation(citing_id="t2", cited_id="t1"), Citation(citing_id="t4", cited_id="t2"),
                              Citation(citing_id="t4", cited_id="t3")])
        w.finalize(progress=False)
    with Corpus.open(path) as c:
        yield c


@pytest.fixture(scope="module")
def student_path(tmp_path_factory) -> str:
    """A tiny student trained on synthetic rows (independent of the bundled default model)."""
    from litnav.training.data import RowCheckpoint, RowEvidence, RowPaper, TrainingRow
    from litnav.training.train import train_student

    rows = []
    for i, topic in enumerate(["machine translation", "protein folding", "graph networks", "speech", "sentiment"]):
        for label in (1, 0):
            text = f"We propose a method for {topic}." if label else "Pottery styles and kiln temperatures."
            rows.append(TrainingRow(
                checkpoint=RowCheckpoint(kind="topic", text=f"papers on {topic}", terms=[topic]),
                paper=RowPaper(title=f"On {topic}" if label else f"Pottery {i}"),
                evidence=[RowEvidence(text=text, similarity=0.7 if label else 0.1)],
                label_score=5.0 * label, label_relevant=label, source="teacher", group=f"g{i}{label}"))
    path = tmp_path_factory.mktemp("student") / "student.json"
    train_student(rows, seed=0, name="student:agents-test").save(path)
    return str(path)


ROLES = ("navigator", "reflection", "scorer", "reranker")


def make_settings(fake: FakeOpenAI, cache_dir: Path, student: str, *, roles=ROLES, teacher: bool = True,
                  cache: bool = True, fallback: bool = False, **endpoint) -> Settings:
    ep = {"base_url": fake.base_url, "model": MODEL, "backoff_initial_s": 0.001, "backoff_max_s": 0.002,
          "max_retries": 1, "price_prompt_per_mtok": PRICE_PROMPT, "price_completion_per_mtok": PRICE_COMPLETION,
          **endpoint}
    return Settings.model_validate({
        "llm": {"endpoints": {"fake": ep}, **{r: "fake" for r in roles}, "cache": cache,
                "cache_dir": str(cache_dir), "fallback": fallback},
        "scorer": {"teacher": teacher, "student": student},
        "navigator": {"rounds": 2, "top_k": 5},
    })


# -- the scripted model ----------------------------------------------------------------------------

def system_of(body: dict) -> str:
    return body["messages"][0]["content"]


def last_user(body: dict) -> str:
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


PLAN = {
    "ambiguous": True,
    "question": "Which kind of translation do you mean?",
    "options": ["machine translation of text", "translation of speech", "protein translation"],
    "default": "machine translation of text",
    "checkpoints": [
        {"id": "c1", "kind": "topic", "text": "The paper studies machine translation", "weight": 1.0,
         "terms": ["machine translation"], "predicate": None},
        {"id": "c2", "kind": "method", "text": "The paper uses attention", "weight": 1.0,
         "terms": ["attention"], "predicate": None},
        {"id": "m1", "kind": "metadata", "text": "Published from 2010", "weight": 1.0, "terms": [],
         "predicate": {"field": "year", "values": [], "start": "2010-01-01", "end": None, "negate": False}},
    ],
    "workflow": {"nodes": [
        {"id": "dense", "op": "semantic_search", "params": {"query": "attention machine translation", "k": 20},
         "inputs": [], "note": "dense"},
        {"id": "bm25", "op": "lexical_search", "params": {"query": "attention translation", "k": 20,
                                                           "checkpoint_id": "c2"}, "inputs": [], "note": None},
        {"id": "fuse", "op": "union", "params": {"method": "rrf"}, "inputs": ["dense", "bm25"], "note": None},
        {"id": "meta", "op": "filter", "params": {"checkpoint_ids": ["m1"]}, "inputs": ["fuse"], "note": None},
        {"id": "ev", "op": "locate_evidence", "params": {"k": 2}, "inputs": ["meta"], "note": None},
        {"id": "sc", "op": "score", "params": {}, "inputs": ["ev"], "note": None},
        {"id": "rk", "op": "rerank", "params": {"top_k": 3}, "inputs": ["sc"], "note": None},
    ], "output": "rk"},
}


def teacher_reply(body: dict):
    """Grades every checkpoint of the prompt, quoting the first words of its first evidence;
    score 4 when the evidence mentions translation, else 1. With logprobs asked, 'relevant' is
    'yes' with P(yes) = e^-0.2 / (e^-0.2 + e^-1.8)."""
    text = last_user(body)
    grades, current = [], None
    for line in text.splitlines():
        m = re.match(r"\[(\w+)\] (\w+)", line)
        if m:
            current = {"checkpoint_id": m.group(1), "score": 1.0, "quote": None,
                       "rationale": "no evidence located"}
            grades.append(current)
            continue
        m = re.match(r"  E1 \([^)]*\): (.*)", line)
        if m and current is not None:
            quote = " ".join(m.group(1).split()[:6])
            current.update(quote=quote, score=4.0 if "translat" in m.group(1).lower() else 1.0,
                           rationale=f'the evidence says "{quote}"')
    relevant = "yes" if any(g["score"] >= 4 for g in grades) else "no"
    content = json.dumps({"grades": grades, "relevant": relevant, "relevance": 4 if relevant == "yes" else 1})
    if not body.get("logprobs"):
        return json_reply(json.loads(content))
    head, tail = content.split('"relevant": "', 1)
    return logprob_reply([(head + '"relevant": "', -0.01, {}), (relevant, -0.2, {"yes": -0.2, "no": -1.8}),
                          (tail[len(relevant):], -0.01, {})])


def reflection_reply(body: dict):
    text = last_user(body)
    top = re.findall(r"^- (\S+) \d\.\d\d \[", text, re.M)
    return {"edits": [
        {"action": "add_query", "query": "neural machine translation attention", "channel": "both",
         "reason": "c2 is weakly covered"},
        {"action": "add_citation_seeds", "ids": top[:1], "direction": "both", "reason": "best paper so far"},
        {"action": "add_checkpoint", "kind": "topic", "text": "The paper evaluates with BLEU", "terms": ["BLEU"],
         "weight": 0.5, "reason": "the best evidence reports BLEU"},
        {"action": "reweight", "id": "c2", "weight": 0.8, "reason": "attention is common to all results"},
    ]}


def rerank_reply(body: dict):
    ids = re.findall(r"^- id (\S+):", last_user(body), re.M)
    return {"order": list(reversed(ids))}


def handler(body: dict):
    system = system_of(body)
    if system.startswith("You are the Navigator"):
        return PLAN
    if system.startswith("You are the reflection"):
        return reflection_reply(body)
    if system.startswith("You are the teacher"):
        return teacher_reply(body)
    if system.startswith("You are the listwise"):
        return rerank_reply(body)
    return error(400, message="unknown role")


# -- end to end ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def llm_runs(corpus, student_path, tmp_path_factory):
    """The same LLM-planned search twice against one cache: (settings, fake, first, second, n_first)."""
    cache = tmp_path_factory.mktemp("llm-cache")
    with FakeOpenAI(handler=handler, model=MODEL) as fake:
        settings = make_settings(fake, cache, student_path)
        first = search("attention for machine translation since 2010", corpus, settings, today=TODAY)
        n_first = len(fake.bodies)
        second = search("attention for machine translation since 2010", corpus, settings, today=TODAY)
        yield settings, fake, first, second, n_first


def test_llm_planned_checklist_and_workflow(llm_runs):
    _, fake, session, _, _ = llm_runs
    r1 = session.rounds[0]
    assert [c.id for c in r1.checklist.checkpoints] == ["c1", "c2", "m1"]
    assert {c.source for c in r1.checklist.checkpoints} == {"llm"}
    assert r1.checklist.get("m1").predicate == MetadataPredicate(field="year", start=date(2010, 1, 1))
    assert [n.id for n in r1.workflow.nodes] == ["dense", "bm25", "fuse", "meta", "ev", "sc", "rk"]
    assert r1.workflow.node("rk").params["top_k"] == 5  # the search's top_k, not the model's
    nav = [b for b in fake.bodies if system_of(b).startswith("You are the Navigator")][0]
    prompt = system_of(nav)
    assert "citation_expand" in prompt and "output pool" in prompt and "NeurIPS" in prompt  # library + venues
    assert session.results and all(r.year >= 2010 for r in session.results)


def test_clarification_default_stored_in_session(llm_runs):
    _, _, session, _, _ = llm_runs
    [c] = session.clarifications
    assert c.question == PLAN["question"] and c.options == PLAN["options"]
    assert c.answer == PLAN["default"] and c.interactive is False


def test_reflection_edits_applied_with_reasons(llm_runs):
    _, _, session, _, _ = llm_runs
    r1, r2 = session.rounds
    actions = {ch.action: ch for ch in r1.changes}
    assert set(actions) == {"add_query", "add_citation_seeds", "add_checkpoint", "reweight"}
    assert actions["add_query"].reason == "c2 is weakly covered"
    assert actions["add_checkpoint"].detail == "r1: The paper evaluates with BLEU"
    seeds = actions["add_citation_seeds"].detail.split(", ")
    assert seeds and all(s in {d[0] for d in DOCS} for s in seeds)
    assert r2.checklist.get("r1").source == "reflection" and r2.checklist.get("c2").weight == 0.8
    ops = {n.id: n for n in r2.workflow.nodes}
    assert ops["semantic_r2_q1"].params["query"] == "neural machine translation attention"
    assert ops["citation_r2_s2"].params["seed_ids"] == seeds
    fuse = next(n for n in r2.workflow.nodes if n.op == "union")
    weights = dict(zip(fuse.inputs, fuse.params["weights"]))
    assert weights["semantic_r2_q1"] > 0 and weights["citation_r2_s2"] > 0  # the model's queries count
    validate_workflow(r2.workflow)
    assert r2.changes[-1].action == "stop" and "round limit" in r2.changes[-1].reason


def test_teacher_judgements_quote_evidence_and_probability_from_logprobs(llm_runs):
    _, _, session, _, _ = llm_runs
    p_yes = math.exp(-0.2) / (math.exp(-0.2) + math.exp(-1.8))
    graded = [j for r in session.results for j in r.checkpoints if j.engine == ENGINE]
    assert graded
    for j in graded:
        if j.quote is not None:
            ev = next(e for e in j.evidence if e.chunk_id == j.quote_chunk_id)
            assert ev.text[j.quote_start - ev.char_start:j.quote_end - ev.char_start] == j.quote
    assert any(r.probability == pytest.approx(p_yes, abs=1e-6) for r in session.results)
    metas = [j for r in session.results for j in r.checkpoints if j.kind == "metadata"]
    assert metas and {j.engine for j in metas} == {"metadata"}


def test_listwise_reranker_order_applied(llm_runs):
    _, fake, session, _, n_first = llm_runs
    last = [b for b in fake.bodies[:n_first] if system_of(b).startswith("You are the listwise")][-1]
    asked = re.findall(r"^- id (\S+):", last_user(last), re.M)
    assert [r.corpus_id for r in session.results] == list(reversed(asked))[:5]


def test_engines_and_usage_recorded(llm_runs):
    _, _, session, _, _ = llm_runs
    assert session.engines == {"navigator": ENGINE, "reflection": ENGINE, "scorer": ENGINE, "reranker": ENGINE,
                               "retrieval": "semantic (dense) + lexical (bm25)"}
    for role in ("navigator", "reflection", "scorer", "reranker"):
        u = session.usage[role]
        assert u.calls > 0 and u.prompt_tokens > 0
        expected = (u.prompt_tokens * PRICE_PROMPT + u.completion_tokens * PRICE_COMPLETION) / 1e6
        assert u.cost_usd == pytest.approx(expected)


def test_a_refinement_is_judged_and_ordered_by_the_session_s_llm_roles(llm_runs, corpus):
    """Refined without settings, a session runs under the settings it recorded: the teacher grades
    and the LLM reranker orders the turn, the turn and the session say so, and the usage grows."""
    from litnav.navigator.feedback import parse_feedback
    from litnav.navigator.refine import refine

    _, fake, first, _, _ = llm_runs
    session = first.model_copy(deep=True)
    before = {role: u.calls + u.cache_hits for role, u in session.usage.items()}
    n = len(fake.bodies)
    refined = refine(session, "show 4 results", corpus, None, today=TODAY, parser=parse_feedback)
    turn = refined.turns[-1]
    assert turn.engines["scorer"] == ENGINE and turn.engines["reranker"] == ENGINE
    assert refined.engines["scorer"] == ENGINE and refined.engines["reranker"] == ENGINE
    graded = [j for r in refined.results for j in r.checkpoints if j.kind != "metadata"]
    assert graded and {j.engine for j in graded} == {ENGINE}
    for role in ("scorer", "reranker"):
        u = refined.usage[role]
        assert u.calls + u.cache_hits > before[role], role
    assert len(fake.bodies) >= n  # served by the server or its cache, never by the bundled student


def test_a_refinement_keeps_the_session_s_own_student(corpus, student_path, tmp_path):
    from litnav.navigator.feedback import parse_feedback
    from litnav.navigator.refine import refine

    settings = Settings.model_validate({"scorer": {"student": student_path}, "navigator": {"rounds": 1, "top_k": 5}})
    session = search("attention for machine translation", corpus, settings, today=TODAY)
    refined = refine(session, "show 4 results", corpus, None, today=TODAY, parser=parse_feedback)
    graded = [j for r in refined.results for j in r.checkpoints if j.kind != "metadata"]
    assert graded and {j.engine for j in graded} == {"student:agents-test"}
    assert refined.turns[-1].engines["scorer"] == "student:agents-test" == refined.engines["scorer"]


def test_second_identical_run_is_served_from_cache(llm_runs):
    _, fake, first, second, n_first = llm_runs
    assert len(fake.bodies) == n_first  # no request at all the second time
    for role, u in second.usage.items():
        assert (u.calls, u.prompt_tokens, u.completion_tokens, u.cost_usd) == (0, 0, 0, 0.0), role
        assert u.cache_hits == first.usage[role].calls
    assert [r.corpus_id for r in second.results] == [r.corpus_id for r in first.results]


def test_llm_failure_fails_the_query_with_the_cause(corpus, student_path, tmp_path):
    with FakeOpenAI(handler=lambda body: error(500, message="model crashed"), model=MODEL) as fake:
        settings = make_settings(fake, tmp_path, student_path, cache=False)
        with pytest.raises(LLMError) as info:
            search("attention for machine translation", corpus, settings, today=TODAY)
    assert "role=navigator" in str(info.value) and "HTTP 500" in str(info.value) and "model crashed" in str(info.value)


def test_explicit_fallback_uses_the_rules_and_records_it(corpus, student_path, tmp_path):
    with FakeOpenAI(handler=lambda body: error(500, message="model crashed"), model=MODEL) as fake:
        settings = make_settings(fake, tmp_path, student_path, cache=False, fallback=True)
        session = search("attention for machine translation", corpus, settings, today=TODAY)
    assert session.results
    assert session.engines["navigator"].startswith(f"rules (fallback from {ENGINE}")
    assert "HTTP 500" in session.engines["navigator"]
    assert session.engines["reflection"].startswith(f"{ENGINE}; fallback to rules")
    assert session.engines["scorer"].startswith(f"{ENGINE}; fallback to student:agents-test")
    assert session.engines["reranker"].startswith(f"{ENGINE}; fallback to the order before it (no LLM reranking)")
    assert session.rounds[0].changes[0].action == "engine_fallback"
    assert all(j.engine in ("student:agents-test", "metadata") for r in session.results for j in r.checkpoints)
    assert session.usage["navigator"].calls == 0  # failed attempts are not billed
    from litnav.session.render import result_notes

    said = [n for n in result_notes(session) if "LLM failed and fell back" in n]
    assert {n.split()[2] for n in said} == {"navigator", "reflection", "scorer", "reranker"}  # a line each


# -- the agents one by one -------------------------------------------------------------------------

@pytest.fixture
def fake():
    with FakeOpenAI(model=MODEL) as server:
        yield server


def engine(fake, tmp_path, role, meter=None, **endpoint):
    settings = make_settings(fake, tmp_path, "unused", cache=False, teacher=False, **endpoint)
    return engine_for(settings, role, meter or UsageMeter())


def test_invalid_workflow_is_repaired_after_the_validation_error(fake, tmp_path, corpus):
    bad = json.loads(json.dumps(PLAN))
    bad["ambiguous"], bad["question"], bad["options"], bad["default"] = False, None, [], None
    bad["workflow"]["nodes"][2]["inputs"] = ["dense", "ev"]  # union fed by an evidence edge
    good = json.loads(json.dumps(bad))
    good["workflow"]["nodes"][2]["inputs"] = ["dense", "bm25"]
    fake.push(json_reply(bad), json_reply(good))
    planner = LLMPlanner(engine(fake, tmp_path, "navigator"), top_k=7, today=TODAY)
    checklist, workflow, name = planner("attention for machine translation", corpus, Settings())
    assert name == ENGINE and len(fake.bodies) == 2
    repair = fake.bodies[1]["messages"]
    assert repair[-2]["role"] == "assistant" and repair[-1]["role"] == "user"
    assert "node 'fuse', field 'inputs'" in repair[-1]["content"] and "needs 'pool'" in repair[-1]["content"]
    validate_workflow(workflow)
    assert workflow.node("fuse").inputs == ["dense", "bm25"] and workflow.node("rk").params["top_k"] == 7
    assert [c.id for c in checklist.checkpoints] == ["c1", "c2", "m1"]


def _sent_back(fake, tmp_path, corpus, intent, m1, m2, fixed):
    """Plan ``intent`` with a first reply whose m1 predicate is ``m1`` plus a checkpoint ``m2``,
    then a repaired reply (m1 updated with ``fixed``, no m2): ``(checklist, workflow, problems sent back)``."""
    bad = json.loads(json.dumps(PLAN))
    bad.update(ambiguous=False, question=None, options=[], default=None, workflow=None)
    bad["checkpoints"][2]["predicate"] = m1
    bad["checkpoints"].append({"id": "m2", "kind": "metadata", "text": "another constraint", "weight": 0.5,
                               "terms": [], "predicate": m2})
    good = json.loads(json.dumps(bad))
    good["checkpoints"][2]["predicate"].update(fixed)
    good["checkpoints"].pop()
    fake.push(json_reply(bad), json_reply(good))
    checklist, workflow, _ = LLMPlanner(engine(fake, tmp_path, "navigator"), today=TODAY)(intent, corpus, Settings())
    return checklist, workflow, fake.bodies[1]["messages"][-1]["content"]


def test_unknown_venue_and_missing_predicate_are_sent_back(fake, tmp_path, corpus):
    checklist, workflow, problems = _sent_back(
        fake, tmp_path, corpus, "machine translation in ACL",
        {"field": "venue", "values": ["Journal of Nowhere"], "start": None, "end": None, "negate": False}, None,
        {"values": ["acl"]})
    assert "'Journal of Nowhere'" in problems and "not in the venue vocabulary" in problems
    assert "checkpoint 'm2': kind metadata needs a predicate" in problems
    assert workflow is None and checklist.get("m1").predicate.values == ["ACL"]  # the corpus spelling


def test_an_absurd_checklist_is_sent_back(fake, tmp_path, corpus):
    """A trial's model sent 200 checkpoints, the years 3000-3001 and an exclusion of "the", "a", "of"."""
    checklist, _, problems = _sent_back(
        fake, tmp_path, corpus, "machine translation since 2010",
        {"field": "year", "values": [], "start": "3000-01-01", "end": "3001-12-31", "negate": False},
        {"field": "year", "values": [], "start": "2010-01-01", "end": None, "negate": False},
        {"start": "2010-01-01", "end": None})
    assert "a date outside 1800-2100" in problems and checklist.get("m1").predicate.start == date(2010, 1, 1)
    bad = json.loads(json.dumps(PLAN))
    bad.update(ambiguous=False, question=None, options=[], default=None, workflow=None)
    bad["checkpoints"] += [{"id": f"c{i}", "kind": "topic", "text": f"t{i}", "weight": 0.5, "terms": [f"t{i}"],
                            "predicate": None} for i in range(10, 210)]
    bad["checkpoints"].append({"id": "x1", "kind": "exclusion", "text": "nothing", "weight": 1.0,
                               "terms": ["the", "a", "of"], "predicate": None})
    good = json.loads(json.dumps(PLAN))
    good.update(ambiguous=False, question=None, options=[], default=None, workflow=None)
    fake.push(json_reply(bad), json_reply(good))
    checklist, _, _ = LLMPlanner(engine(fake, tmp_path, "navigator"), today=TODAY)("machine translation", corpus,
                                                                                   Settings())
    problems = fake.bodies[-1]["messages"][-1]["content"]
    assert "give at most 30" in problems and "'x1': an exclusion needs terms that name something" in problems
    assert len(checklist.checkpoints) == len(PLAN["checkpoints"])


def test_interactive_answer_other_than_default_replans(fake, tmp_path, corpus):
    replanned = json.loads(json.dumps(PLAN))
    replanned.update(ambiguous=False, question=None, options=[], default=None, workflow=None)
    replanned["checkpoints"][0]["text"] = "The paper studies speech translation"
    fake.push(json_reply(PLAN), json_reply(replanned))
    asked = []

    def ask(question, options, default):
        asked.append((question, options, default))
        return options[1]

    planner = LLMPlanner(engine(fake, tmp_path, "navigator"), ask=ask, interactive=True, today=TODAY)
    checklist, workflow, _ = planner("translation", corpus, Settings())
    assert asked == [(PLAN["question"], PLAN["options"], PLAN["default"])]
    assert planner.clarifications[0].answer == "translation of speech" and planner.clarifications[0].interactive
    assert "The user answered: translation of speech" in fake.bodies[1]["messages"][-1]["content"]
    assert checklist.checkpoints[0].text == "The paper studies speech translation" and workflow is None


def scored(cid: str, score: float = 3.0) -> ScoredPaper:
    return ScoredPaper(corpus_id=cid, judgements=[], probability=0.5, final_score=score / 5)


def test_reflection_unknown_ids_are_rejected_then_repaired(fake, tmp_path, corpus):
    checklist = Checklist(intent="machine translation", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="The paper studies machine translation", terms=["machine translation"])])
    fake.push(json_reply({"edits": [{"action": "add_citation_seeds", "ids": ["nope"], "direction": "both",
                                     "reason": "r"},
                                    {"action": "drop_checkpoint", "id": "c9", "reason": "r"}]}),
              json_reply({"edits": [{"action": "add_citation_seeds", "ids": ["t1"], "direction": "cited",
                                     "reason": "best paper"}]}))
    reflector = LLMReflector(engine(fake, tmp_path, "reflection"), corpus)
    out = reflector(checklist, [scored("t1", 4), scored("t2")], 1, ["t1"], ReflectionState(), Settings(), 5, 3)
    problems = fake.bodies[1]["messages"][-1]["content"]
    assert "['nope'] are not papers of the corpus" in problems and "'c9' is not a checkpoint id" in problems
    assert [(c.action, c.detail, c.reason) for c in out.changes] == [("add_citation_seeds", "t1", "best paper")]
    assert out.workflow.node("citation_r2_s1").params["direction"] == "cited"
    assert "t1" in fake.bodies[0]["messages"][1]["content"]  # the digest names the top papers


def test_reflection_may_not_drop_what_the_user_asked_for(fake, tmp_path, corpus):
    checklist = Checklist(intent="machine translation since 2010, not surveys", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="machine translation", terms=["machine translation"]),
        Checkpoint(id="c2", kind="topic", text="The paper studies translation", terms=["translation"], weight=0.5),
        Checkpoint(id="m1", kind="metadata", text="From 2010",
                   predicate=MetadataPredicate(field="year", start=date(2010, 1, 1))),
        Checkpoint(id="x1", kind="exclusion", text="The paper is not about surveys", terms=["surveys"])])
    fake.push(json_reply({"edits": [{"action": "drop_checkpoint", "id": "m1", "reason": "r"},
                                    {"action": "drop_checkpoint", "id": "x1", "reason": "r"},
                                    {"action": "reweight", "id": "c1", "weight": 0.0, "reason": "r"}]}),
              json_reply({"edits": [{"action": "reweight", "id": "c2", "weight": 0.8, "reason": "weakly covered"}]}))
    out = LLMReflector(engine(fake, tmp_path, "reflection"), corpus)(
        checklist, [scored("t1", 4), scored("t2")], 1, ["t1"], ReflectionState(), Settings(), 5, 3)
    problems = fake.bodies[1]["messages"][-1]["content"]
    assert all(f"'{cid}' is what the user asked for" in problems for cid in ("m1", "x1", "c1"))
    kept = {c.id: c.weight for c in out.checklist.checkpoints}
    assert kept == {"c1": 1.0, "c2": 0.8, "m1": 1.0, "x1": 1.0}


def test_reflection_stop_edit_ends_the_search(fake, tmp_path, corpus):
    checklist = Checklist(intent="x", checkpoints=[Checkpoint(id="c1", kind="topic", text="x")])
    fake.push(json_reply({"edits": [{"action": "stop", "reason": "every checkpoint is covered"}]}))
    out = LLMReflector(engine(fake, tmp_path, "reflection"), corpus)(
        checklist, [scored("t1")], 1, ["t1"], ReflectionState(), Settings(), 5, 3)
    assert out.workflow is None and out.stop_reason == "every checkpoint is covered"


EVIDENCE = [Evidence(chunk_id="t1:1", corpus_id="t1", section="Method", char_start=100, char_end=190,
                     text="Our attention model aligns source and target words and improves BLEU.", similarity=0.8)]
TEACH_LIST = Checklist(intent="attention for translation", checkpoints=[
    Checkpoint(id="c1", kind="method", text="The paper uses attention", terms=["attention"]),
    Checkpoint(id="m1", kind="metadata", text="From 2010", predicate=MetadataPredicate(field="year",
                                                                                       start=date(2010, 1, 1)))])
PAPER = Paper(corpus_id="t1", title="Attention-based neural machine translation", year=2016, venue="ACL")


def grade(quote, relevant="yes", relevance=4):
    return {"grades": [{"checkpoint_id": "c1", "score": 4.5, "quote": quote, "rationale": f"it says {quote}"}],
            "relevant": relevant, "relevance": relevance}


def test_teacher_quote_not_in_evidence_is_rejected_then_repaired(fake, tmp_path):
    fake.push(json_reply(grade("attention is all you need")), json_reply(grade("aligns source and  target words")))
    teacher = Teacher(engine(fake, tmp_path, "scorer"), logprobs=False)
    [sp] = teacher.score_papers([PAPER], TEACH_LIST, {"t1": {"c1": EVIDENCE}})
    assert "'attention is all you need' is not in its evidence passages" in fake.bodies[1]["messages"][-1]["content"]
    j = sp.judgements[0]
    assert (j.quote, j.quote_chunk_id, j.score, j.engine) == ("aligns source and target words", "t1:1", 4.5, ENGINE)
    text = EVIDENCE[0].text
    assert (j.quote_start, j.quote_end) == (100 + text.index("aligns"), 100 + text.index(" and improves"))
    assert sp.judgements[1].engine == "metadata" and sp.judgements[1].score == 5.0
    assert sp.probability == 0.8 and sp.probability_engine == f"{ENGINE}:stated"  # relevance 4 / 5
    assert sp.final_score == pytest.approx((4.5 + 0.8) / 6)  # metadata stays out of the content score


def test_a_runaway_rationale_is_cut(fake, tmp_path):
    from litnav.scorer.teacher import MAX_RATIONALE_CHARS

    reply = grade("aligns source and target words")
    reply["grades"][0]["rationale"] = "because " * 100_000
    fake.push(json_reply(reply))
    [sp] = Teacher(engine(fake, tmp_path, "scorer"), logprobs=False).score_papers(
        [PAPER], TEACH_LIST, {"t1": {"c1": EVIDENCE}})
    assert len(sp.judgements[0].rationale) <= MAX_RATIONALE_CHARS + 10 and sp.judgements[0].rationale.endswith("[...]")


def test_teacher_still_bad_quote_fails_clearly(fake, tmp_path):
    fake.push(*[json_reply(grade("invented words here")) for _ in range(3)])
    teacher = Teacher(engine(fake, tmp_path, "scorer", repair_attempts=2), logprobs=False)
    with pytest.raises(LLMError) as info:
        teacher.score_papers([PAPER], TEACH_LIST, {"t1": {"c1": EVIDENCE}})
    msg = str(info.value)
    assert "paper 't1'" in msg and "after 2 repair attempt(s)" in msg and "'invented words here'" in msg
    assert msg.count("LLM role=scorer") == 1  # one prefix, not the inner error's again


def test_teacher_probability_from_logprobs(fake, tmp_path):
    content = json.dumps(grade("improves BLEU", relevance=1))
    head, tail = content.split('"relevant": "', 1)
    fake.push(logprob_reply([(head + '"relevant": "', -0.1, {}), ("y", -0.5, {"y": -0.5, "no": -1.5, "maybe": -3.0}),
                             (tail[1:], -0.1, {})]))
    teacher = Teacher(engine(fake, tmp_path, "scorer"))
    [sp] = teacher.score_papers([PAPER], TEACH_LIST, {"t1": {"c1": EVIDENCE}})
    assert fake.bodies[0]["logprobs"] is True and fake.bodies[0]["top_logprobs"] == 5
    assert sp.probability == pytest.approx(math.exp(-0.5) / (math.exp(-0.5) + math.exp(-1.5)))
    assert sp.probability_engine == f"{ENGINE}:logprobs"


def test_yes_probability_and_find_quote_edges():
    assert yes_probability(None) is None
    assert find_quote("short", EVIDENCE) is None  # too short to be evidence
    assert find_quote('"improves BLEU."', EVIDENCE).text == "improves BLEU."


def test_reranker_unknown_ids_repaired_missing_appended(fake, tmp_path, corpus):
    ranked = [scored(c, s) for c, s in (("t1", 5), ("t2", 4), ("t3", 3), ("t4", 2))]
    fake.push(json_reply({"order": ["t3", "zz"]}), json_reply({"order": ["t3", "t1", "t3"]}))
    rr = LLMReranker(engine(fake, tmp_path, "reranker"), top_n=3)
    out = rr("translation", TEACH_LIST, ranked, corpus)
    assert "['zz'] are not among the candidates" in fake.bodies[1]["messages"][-1]["content"]
    assert [p.corpus_id for p in out] == ["t3", "t1", "t2", "t4"]  # t2 omitted: appended; t4 past top_n
    assert "id t4" not in fake.bodies[0]["messages"][1]["content"]


def test_cli_interactive_question_is_asked_and_stored(corpus, student_path, tmp_path, monkeypatch):
    import typer
    from typer.testing import CliRunner

    import litnav.cli.search as search_command
    from litnav.session.io import read_session

    app = typer.Typer()
    app.callback()(lambda: None)
    search_command.register(app)
    monkeypatch.setattr(search_command, "open_corpus", lambda path, settings=None: corpus)
    with FakeOpenAI(handler=handler, model=MODEL) as fake:
        settings = make_settings(fake, tmp_path / "cache", student_path, roles=("navigator",), teacher=False)
        (tmp_path / "s.json").write_text(settings.model_dump_json())
        runs = {}
        # "2" answers the navigator's question; the empty line takes the default of any later
        # branch question (the no-LLM clarification of issue 14)
        for flag, stdin in (("--interactive", "2\n\n"), (None, "")):
            out = tmp_path / f"{flag}.json"
            args = ["search", "attention for translation", "--corpus", str(tmp_path), "--rounds", "1",
                    "--settings", str(tmp_path / "s.json"), "--json", str(out)] + ([flag] if flag else [])
            result = CliRunner().invoke(app, args, input=stdin)
            assert result.exit_code == 0, result.output
            runs[flag] = read_session(out).clarifications
    def navigator_question(clarifications):
        return next(c for c in clarifications if c.question.startswith("Which kind of translation"))

    asked = navigator_question(runs["--interactive"])
    assert (asked.answer, asked.interactive) == ("translation of speech", True)
    default = navigator_question(runs[None])  # CliRunner's stdin is not a terminal: the default is taken
    assert (default.answer, default.interactive) == ("machine translation of text", False)


def test_engine_that_cannot_be_built_fails_or_falls_back_explicitly(corpus):
    from litnav.navigator.agents import build_agents

    def settings(fallback):
        return Settings.model_validate({"llm": {
            "endpoints": {"local": {"backend": "openai", "base_url": None, "model": "m"}},
            "navigator": "local", "reranker": "local", "fallback": fallback}})

    with pytest.raises(LLMError, match="role=navigator.*no base_url"):
        build_agents(settings(False), corpus)
    agents = build_agents(settings(True), corpus)
    assert agents.planner is None and agents.llm_reranker is None
    assert agents.engines["navigator"].startswith("rules (fallback: ") and "no base_url" in agents.engines["navigator"]
    assert agents.engines["reranker"].startswith("rank fusion (fallback: ")


def test_teacher_without_scorer_endpoint_is_a_settings_error(corpus):
    from litnav.navigator.agents import build_agents

    with pytest.raises(ValueError, match="scorer.teacher is true but llm.scorer"):
        build_agents(Settings.model_validate({"scorer": {"teacher": True}}), corpus)


def test_an_undated_venue_year_is_sent_back(fake, tmp_path, corpus):
    checklist, _, problems = _sent_back(
        fake, tmp_path, corpus, "machine translation in ACL 2019",
        {"field": "venue_year", "values": ["acl"], "start": None, "end": None, "negate": False},
        {"field": "venue_year", "values": ["acl"], "start": None, "end": None, "negate": False},
        {"start": "2019-01-01", "end": "2019-12-31"})
    assert "a venue_year predicate needs start or end" in problems
    p = checklist.get("m1").predicate
    assert p.field == "venue_year" and p.values == ["ACL"] and p.start.year == 2019


def test_a_session_whose_endpoint_had_masked_credentials_asks_for_the_settings(llm_runs, monkeypatch):
    """Refined under its own settings, a session must not send the masked "***" as credentials."""
    from litnav.navigator.refine import session_settings

    _, _, first, _, _ = llm_runs
    session = first.model_copy(deep=True)
    ep = session.settings["llm"]["endpoints"]["fake"]
    session_settings(session)  # no credentials: runs as recorded
    ep["base_url"] = ep["base_url"].replace("http://", "http://***@")
    with pytest.raises(ValueError, match="'fake' had credentials that session files do not keep.*--settings"):
        session_settings(session)
    ep["base_url"] = ep["base_url"].replace("***@", "")
    ep["api_key"] = "***"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="--settings"):
        session_settings(session)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
    assert session_settings(session).llm.endpoints["fake"].api_key is None  # the key comes from api_key_env


def test_a_refinement_whose_llm_is_down_fails_in_one_line(llm_runs, corpus, tmp_path):
    from typer.testing import CliRunner

    from litnav.cli import _register, app
    from litnav.session.io import write_session

    _, _, first, _, _ = llm_runs
    session = first.model_copy(deep=True)
    session.settings["llm"]["endpoints"]["fake"]["base_url"] = "http://127.0.0.1:9/v1"  # nothing listens
    session.settings["llm"]["cache"] = False
    session.corpus = str(corpus.directory)
    path = write_session(session, tmp_path / "s.json")
    _register()
    res = CliRunner().invoke(app, ["refine", str(path), "only papers after 2012"])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert "error: LLM role=navigator" in res.output and len(res.output.strip().splitlines()) <= 3
