"""End-to-end search on a small corpus with known answers (no LLM): exact metadata filtering,
demotion of an excluded topic, citation expansion in a later round, a user-edited workflow,
and an audit that shows verbatim evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litnav.core.settings import Settings, load_settings
from litnav.corpus import Corpus
from litnav.navigator import search
from litnav.session.io import read_session


@pytest.fixture(scope="module")
def corpus_dir(search_corpus_dir) -> Path:
    return search_corpus_dir


@pytest.fixture(scope="module")
def corpus(corpus_dir) -> Corpus:
    c = Corpus.open(corpus_dir)
    yield c
    c.close()


@pytest.fixture(scope="module")
def runner():
    from litnav.cli import _register

    _register()
    return CliRunner()


def _ids(session) -> list[str]:
    return [r.corpus_id for r in session.results]


def test_metadata_constraints_filter_exactly(corpus):
    s = search("dense retrieval for question answering since 2018 in EMNLP", corpus, Settings(), top_k=20)
    assert s.results, "expected results"
    for r in s.results:
        paper = corpus.paper(r.corpus_id)
        assert paper.year >= 2018 and paper.venue == "EMNLP", r
    assert "old" not in _ids(s) and "acl" not in _ids(s)
    assert {"dpr", "colbert"} <= set(_ids(s)[:3])


def test_excluded_topic_is_demoted(corpus):
    plain = search("dense retrieval", corpus, Settings(), top_k=20, rounds=1)
    excl = search("dense retrieval, not machine translation", corpus, Settings(), top_k=20, rounds=1)
    assert any(c.kind == "exclusion" for c in excl.rounds[0].checklist.checkpoints)
    assert _ids(excl).index("mt") > _ids(plain).index("mt")
    assert _ids(excl).index("mt") > _ids(excl).index("dpr")
    mt = next(r for r in excl.results if r.corpus_id == "mt")
    x = next(j for j in mt.checkpoints if j.kind == "exclusion")
    assert x.score < 2.5 and "exclu" in x.rationale.lower()


def test_paper_reachable_only_through_citations_is_found_in_a_later_round(corpus):
    settings = load_settings(overrides=["librarians.semantic_k=3", "librarians.lexical_k=3",
                                        "librarians.first_stage_guard=0",
                                        "navigator.new_paper_threshold=0.0"])
    s = search("dense passage retrieval for question answering", corpus, settings, top_k=20, rounds=3)
    round1 = {cid for run in s.rounds[0].operator_runs for cid, _ in run.outputs}
    assert "bird" not in round1
    bird = next(r for r in s.results if r.corpus_id == "bird")
    channels = {(f.channel, f.round) for f in bird.found_by}
    assert any(ch == "citation" and rnd >= 2 for ch, rnd in channels), channels
    change = [c for rnd in s.rounds for c in rnd.changes if c.action == "add_citation_expansion"]
    assert change and change[0].reason


def test_each_round_keeps_checklist_workflow_and_reasons(corpus):
    s = search("dense retrieval for question answering", corpus, Settings(), top_k=10, rounds=3)
    assert len(s.rounds) in (1, 2, 3)
    for rnd in s.rounds:
        assert rnd.workflow.nodes and rnd.checklist.checkpoints and rnd.operator_runs
        assert all(run.seconds >= 0 for run in rnd.operator_runs)
    assert all(c.reason for rnd in s.rounds for c in rnd.changes)
    assert s.stop_reason


def test_results_are_reread_from_the_corpus(corpus):
    s = search("question answering", corpus, Settings(), top_k=5)
    for r in s.results:
        p = corpus.paper(r.corpus_id)
        assert (r.title, r.year, r.venue) == (p.title, p.year, p.venue)


def test_cli_search_writes_session_with_evidence(corpus_dir, runner, tmp_path):
    out = tmp_path / "s.json"
    res = runner.invoke(_app(), ["search", "dense retrieval for question answering", "--corpus", str(corpus_dir),
                                 "--top", "5", "--json", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["intent"] and data["rounds"] and data["results"]
    full = Corpus.open(corpus_dir)
    try:
        for r in data["results"]:
            assert {"corpus_id", "title", "year", "venue", "final_score", "probability", "checkpoints",
                    "found_by"} <= set(r)
            for cp in r["checkpoints"]:
                assert {"id", "kind", "text", "score", "rationale", "evidence"} <= set(cp)
                text = full.full_text(r["corpus_id"])
                for ev in cp["evidence"]:
                    assert text[ev["char_start"]:ev["char_end"]] == ev["text"]
                if cp.get("quote"):
                    assert cp["quote"] in " ".join(e["text"] for e in cp["evidence"])
    finally:
        full.close()
    assert data["results"][0]["corpus_id"] in res.output


def test_user_edited_workflow_runs(corpus_dir, runner, tmp_path):
    wf_file = tmp_path / "wf.json"
    res = runner.invoke(_app(), ["plan", "dense retrieval for question answering", "--corpus", str(corpus_dir),
                                 "--out", str(wf_file)])
    assert res.exit_code == 0, res.output
    wf = json.loads(wf_file.read_text())
    wf["nodes"] = [n for n in wf["nodes"] if n["op"] != "lexical_search"]
    fuse = next(n for n in wf["nodes"] if n["op"] == "union")
    fuse["inputs"] = [i for i in fuse["inputs"] if i.startswith("semantic")]
    fuse["params"]["weights"] = None
    wf["nodes"].insert(0, {"id": "my_query", "op": "semantic_search", "params": {"query": "late interaction", "k": 5}})
    fuse["inputs"].append("my_query")
    wf_file.write_text(json.dumps(wf))
    out = tmp_path / "s.json"
    res = runner.invoke(_app(), ["search", "dense retrieval for question answering", "--corpus", str(corpus_dir),
                                 "--workflow", str(wf_file), "--rounds", "1", "--json", str(out)])
    assert res.exit_code == 0, res.output
    session = read_session(out)
    ran = {run.node_id for run in session.rounds[0].operator_runs}
    assert "my_query" in ran and not any(n.startswith("lexical") for n in ran)


def test_invalid_workflow_is_a_clear_cli_error(corpus_dir, runner, tmp_path):
    wf_file = tmp_path / "bad.json"
    wf_file.write_text(json.dumps({"nodes": [{"id": "a", "op": "semantic_search", "params": {"k": 5}}],
                                   "output": "a"}))
    res = runner.invoke(_app(), ["search", "x", "--corpus", str(corpus_dir), "--workflow", str(wf_file)])
    assert res.exit_code != 0
    assert "node 'a'" in res.output and "params.query" in res.output


def test_audit_shows_verbatim_evidence(corpus_dir, runner, tmp_path):
    out = tmp_path / "s.json"
    res = runner.invoke(_app(), ["search", "dense retrieval for question answering", "--corpus", str(corpus_dir),
                                 "--top", "3", "--json", str(out)])
    assert res.exit_code == 0, res.output
    session = read_session(out)
    top = session.results[0]
    res = runner.invoke(_app(), ["audit", str(out), "--paper", top.corpus_id], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    evidence = [e for j in top.checkpoints for e in j.evidence]
    assert evidence
    flat = " ".join(res.output.split())
    assert " ".join(evidence[0].text.split()) in flat
    res = runner.invoke(_app(), ["audit", str(out)], env={"COLUMNS": "400"})
    assert res.exit_code == 0 and "Paper × checkpoint" in res.output
    res = runner.invoke(_app(), ["audit", str(out), "--paper", "nope"])
    assert res.exit_code != 0 and "nope" in res.output


def _app():
    from litnav.cli import app

    return app


def test_search_json_waits_for_a_refinement_of_the_file_and_says_it_replaced_it(corpus_dir, runner, tmp_path,
                                                                                  monkeypatch):
    """`search --json F` while `refine F` ran kept one of the two and both said "written": the search
    now takes the session lock for its write, and says so when the file changed under it."""
    import threading

    from litnav.session.io import session_lock

    out = tmp_path / "s.json"
    args = ["--corpus", str(corpus_dir), "--top", "3", "--json", str(out)]
    assert runner.invoke(_app(), ["search", "graph neural networks", *args]).exit_code == 0
    held, release = threading.Event(), threading.Event()

    def refinement():
        with session_lock(out):
            held.set()
            release.wait(60)
            out.write_text(out.read_text() + "\n")  # a refinement writes its turn before it lets go

    t = threading.Thread(target=refinement)
    t.start()
    held.wait(60)
    import litnav.cli.search as cli_search

    stamp = cli_search._stamp

    def stamp_then_release(path):  # the refinement writes only after the search has looked at the file
        seen = stamp(path)
        release.set()
        return seen

    monkeypatch.setattr(cli_search, "_stamp", stamp_then_release)
    try:
        res = runner.invoke(_app(), ["search", "dense retrieval for question answering", *args])
    finally:
        release.set()
        t.join()
    assert res.exit_code == 0, res.output
    assert "was changed by another litnav run" in res.output
    assert read_session(out).intent == "dense retrieval for question answering"
