"""Fault injection at the CLI and planner: contradictory constraints, loose workflow params, a
closed pipe, oversized intents, RIS without end lines, rejects later joined (issue 12, case 6)."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from litnav.cli import _register, app
from litnav.core.records import Node, Workflow
from litnav.core.settings import Settings
from litnav.corpus import Corpus
from litnav.ingest import build
from litnav.librarians import WorkflowError, load_workflow, validate_workflow
from litnav.navigator.intent import parse_intent
from litnav.navigator.planner import BASELINE_NODES, MAX_CHECKPOINT_BRANCHES, MAX_FAN_IN, plan_workflow
from litnav.web import ReferenceParseError
from litnav.web.references import read_references

PAPERS = [{"id": f"p{i}", "title": f"Graph neural networks for molecules, part {i}", "year": 2018 + i % 4,
           "abstract": "Message passing networks predict molecular properties."} for i in range(6)]


@pytest.fixture(scope="module")
def runner():
    _register()
    return CliRunner()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    src = root / "p.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in PAPERS))
    build([src], root / "c", fmt="jsonl", progress=False)
    return root / "c"


def test_contradictory_years_are_an_error_naming_both(runner, corpus):
    with pytest.raises(ValueError, match="'published after 2020' and 'before 2015'"):
        parse_intent("graph neural networks published after 2020 and before 2015")
    res = runner.invoke(app, ["plan", "graph neural networks published after 2020 and before 2015",
                              "--corpus", str(corpus)])
    assert res.exit_code != 0 and "after 2020" in res.output and "before 2015" in res.output


def test_workflow_params_are_strict(tmp_path):
    base = plan_workflow(parse_intent("graph neural networks for molecules"), Settings())
    for bad in ({"query": "graph networks", "k": True}, {"query": "graph networks", "k": "20"}):
        nodes = [n.model_copy(update={"params": bad}) if n.id == "semantic_intent" else n for n in base.nodes]
        with pytest.raises(WorkflowError, match="semantic_intent"):
            validate_workflow(Workflow(nodes=nodes, output=base.output))


def test_long_multi_clause_intent_plans_a_valid_bounded_workflow():
    from litnav.core.records import Checklist, Checkpoint

    checklist = Checklist(intent="many clauses", checkpoints=[
        Checkpoint(id=f"c{i}", kind="method", text=f"The paper uses method {i}", terms=[f"method {i}"])
        for i in range(1, 300)])
    wf = plan_workflow(checklist, Settings.model_validate({"librarians": {"facet_weight": 0.3}}))
    validate_workflow(wf)
    searches = [n for n in wf.nodes if n.op in ("semantic_search", "lexical_search")]
    assert len(searches) == 2 + 2 * MAX_CHECKPOINT_BRANCHES + len(BASELINE_NODES)
    assert all(len(n.inputs) <= MAX_FAN_IN for n in wf.nodes)


def test_plan_out_writes_only_a_valid_workflow(runner, corpus, tmp_path, monkeypatch):
    import litnav.navigator.planner as planner

    out = tmp_path / "wf.json"
    res = runner.invoke(app, ["plan", "graph neural networks for molecules", "--corpus", str(corpus), "--out", str(out)])
    assert res.exit_code == 0, res.output
    validate_workflow(load_workflow(out))
    assert json.loads(out.read_text())["intent"] == "graph neural networks for molecules"  # what its ids name
    broken = Workflow(nodes=[Node(id="u", op="union", inputs=[f"s{i}" for i in range(MAX_FAN_IN + 1)])], output="u")
    monkeypatch.setattr(planner, "plan_workflow", lambda *a, **k: broken)
    out2 = tmp_path / "bad.json"
    res = runner.invoke(app, ["plan", "graph neural networks for molecules", "--corpus", str(corpus), "--out", str(out2)])
    assert res.exit_code != 0 and not out2.exists()


def test_session_is_written_before_printing(runner, corpus, tmp_path, monkeypatch):
    import litnav.session.render as render

    def closed_pipe(*a, **k):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(render, "print_session", closed_pipe)
    out = tmp_path / "s.json"
    runner.invoke(app, ["search", "graph neural networks for molecules", "--corpus", str(corpus), "--rounds", "1",
                        "--json", str(out)])
    assert out.is_file() and json.loads(out.read_text())


def test_ris_entry_without_end_line_names_it(tmp_path):
    ris = tmp_path / "refs.ris"
    ris.write_text("TY  - JOUR\nTI  - First paper\nER  - \nTY  - JOUR\nTI  - Graph networks\nPY  - 2020\n")
    with pytest.raises(ReferenceParseError, match=r"refs.ris:4: .*no end line 'ER  - '"):
        read_references(ris)


def test_rejects_stop_counting_once_their_records_are_joined(tmp_path, fixtures):
    for name in ("metadata_0.jsonl", "pdf_parses_0.jsonl"):
        shutil.copy(fixtures / "ingest" / name, tmp_path / name)
    corpus = tmp_path / "c"
    build([tmp_path / "pdf_parses_0.jsonl"], corpus, progress=False, finalize=False)
    with Corpus.open(corpus) as c:
        alone = {line for _, f, line, _ in c.rejects() if f.endswith("pdf_parses_0.jsonl")}
    build([tmp_path / "metadata_0.jsonl", tmp_path / "pdf_parses_0.jsonl"], corpus, progress=False, finalize=False)
    with Corpus.open(corpus) as c:
        still = {line for _, f, line, _ in c.rejects() if f.endswith("pdf_parses_0.jsonl")}
        joined = alone - still
        assert joined  # a pdf_parse rejected alone is now part of its paper ...
        by_key = {m["source_key"]: m["rejects"] for m in c.manifest()}
        # ... and is no longer counted, in the table or the manifest
        assert by_key[str(tmp_path / "pdf_parses_0.jsonl")] == len(still)
        assert c.stats()["rejects"] == len(c.rejects())


def test_plan_prints_checkpoint_kinds_and_brackets_verbatim(runner, corpus):
    res = runner.invoke(app, ["plan", "graph neural networks [GNN] for molecules, not surveys", "--corpus", str(corpus)])
    assert res.exit_code == 0, res.output
    assert "Intent: graph neural networks [GNN] for molecules, not surveys" in res.output
    assert "[topic]" in res.output and "[metadata]" in res.output
    assert "publication_type in [survey" in res.output


def test_plan_shows_the_workflow_as_a_table_and_json_on_request(runner, corpus):
    res = runner.invoke(app, ["plan", "graph neural networks for molecules", "--corpus", str(corpus)])
    assert res.exit_code == 0, res.output
    assert "Workflow (round 1)" in res.output and "semantic_search" in res.output
    assert '"nodes"' not in res.output
    res = runner.invoke(app, ["plan", "graph neural networks for molecules", "--corpus", str(corpus), "--json"])
    assert res.exit_code == 0, res.output
    workflow = json.loads(res.stdout)  # stdout is the JSON alone: `plan --json > wf.json` feeds --workflow
    assert {n["op"] for n in workflow["nodes"]} >= {"semantic_search", "lexical_search", "union"}
    assert "c1" in res.stderr  # the checklist is still shown, beside it


def test_build_names_why_records_were_rejected(runner, tmp_path):
    src = tmp_path / "p.jsonl"
    src.write_text(json.dumps(PAPERS[0]) + "\n" + json.dumps({"id": "p9", "year": 2020}) + "\n"
                   + json.dumps({"id": "p10"}) + "\n")
    res = runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c"), "--no-progress"])
    assert res.exit_code == 0, res.output
    with Corpus.open(tmp_path / "c") as c:
        reasons = {reason for *_x, reason in c.rejects()}
    assert len(reasons) >= 1
    summary = " ".join(res.output.split())
    assert "2 records rejected (" in summary
    assert "p9" not in summary and "p10" not in summary  # ids are masked: the reasons group


def test_search_output_says_when_no_result_matches_and_when_a_filter_was_relaxed(runner, corpus, tmp_path):
    res = runner.invoke(app, ["search", "protein folding since 2030", "--corpus", str(corpus), "--top", "3",
                              "--json", str(tmp_path / "s.json")])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "matches no paper of this corpus, so the results are not filtered by it" in text
    assert "0 of 3 results are judged to satisfy the whole intent (c1); the scorer judges strictly" in text
    assert "c1 = the whole intent's score" in text  # the results table shows it beside the final score


def test_a_venue_of_the_intent_that_the_corpus_lacks_is_a_note_under_the_results():
    from litnav.core.records import Round, Session
    from litnav.navigator.planner import plan_workflow
    from litnav.session.render import result_notes

    vocab = {"Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics": 40}
    checklist = parse_intent("dialogue state tracking in ACL or EMNLP", venues=vocab)
    session = Session(intent=checklist.intent, corpus="c", rounds=[
        Round(index=1, checklist=checklist, workflow=plan_workflow(checklist, Settings()))])
    [venue] = [c for c in checklist.checkpoints if c.predicate is not None]
    assert any(n.startswith(f"Note: {venue.id} names EMNLP, which no venue of this corpus matches")
               for n in result_notes(session))

    only = parse_intent("dialogue state tracking presented at FOOCL", venues=vocab)
    session = Session(intent=only.intent, corpus="c", rounds=[Round(index=1, checklist=only,
                                                                    workflow=plan_workflow(only, Settings()))])
    [venue] = [c for c in only.checkpoints if c.predicate is not None]
    [note] = [n for n in result_notes(session) if n.startswith(f"Note: {venue.id} names FOOCL")]
    assert "other venues" not in note and "contains it as words" in note  # it named no other venue


def test_markup_and_terminal_escapes_in_data_or_arguments_are_shown_never_run(runner, tmp_path):
    """A title with rich markup or terminal escape sequences (OSC 52 writes the clipboard,
    CSI 2J clears the screen) is printed as text; an argument with "[/x]" is an error message,
    not a MarkupError traceback."""
    evil = "Graph networks [/bold] for molecules \x1b]52;c;ZXZpbA==\x07 \x1b[2J [link=file:///etc/passwd]x[/link]"
    src = tmp_path / "e.jsonl"
    src.write_text(json.dumps({"id": "e1", "title": evil, "year": 2020, "authors": [{"name": "A \x1b[8mB"}],
                               "abstract": "Message passing networks predict molecular properties."}) + "\n"
                   + "".join(json.dumps(r) + "\n" for r in PAPERS))
    assert runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c"), "--no-progress"]).exit_code == 0
    shown = runner.invoke(app, ["show", "e1", "--corpus", str(tmp_path / "c")])
    searched = runner.invoke(app, ["search", "graph networks for molecules", "--corpus", str(tmp_path / "c"),
                                   "--json", str(tmp_path / "s.json")])
    for res in (shown, searched):
        assert res.exit_code == 0, res.output
        assert "\x1b]52" not in res.output and "\x1b[2J" not in res.output and "\x1b[8m" not in res.output
    assert "[/bold]" in shown.output and "[link=file:///etc/passwd]" in shown.output
    bad = runner.invoke(app, ["show", "[/x]", "--corpus", str(tmp_path / "c")])
    assert bad.exit_code == 1 and "error:" in bad.output and "[/x]" in bad.output
    assert bad.exception is None or isinstance(bad.exception, SystemExit)  # no MarkupError


def test_an_anchor_whose_title_has_no_words_searches_audits_and_refines(runner, tmp_path):
    """A corpus paper titled "???" (or only emoji) names its anchor session; printing the results,
    the audit, the report and a refine turn of that session never trip over the wordless text."""
    src = tmp_path / "w.jsonl"
    src.write_text(json.dumps({"id": "w.q", "title": "???", "year": 2020,
                               "abstract": "Message passing networks predict molecular properties."}) + "\n"
                   + "".join(json.dumps(r) + "\n" for r in PAPERS))
    assert runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c"), "--no-progress"]).exit_code == 0
    session = tmp_path / "a.json"
    res = runner.invoke(app, ["search", "--anchor", "w.q", "--direction", "sibling", "--corpus", str(tmp_path / "c"),
                              "--json", str(session), "--no-interactive"])
    assert res.exit_code == 0, res.output
    for args in (["audit", str(session)], ["report", str(session), "--out", str(tmp_path / "a.html")],
                 ["refine", str(session), "show 3 results"], ["audit", str(session)]):
        res = runner.invoke(app, args)
        assert res.exit_code == 0, (args, res.output)
    assert len(json.loads(session.read_text())["turns"]) == 2


def test_an_interrupted_build_says_how_to_resume(runner, tmp_path, monkeypatch):
    import litnav

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(litnav, "build", interrupted)
    src = tmp_path / "p.jsonl"
    src.write_text(json.dumps({"id": "p1", "title": "Parsing"}) + "\n")
    res = runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c")])
    assert res.exit_code == 130
    assert "interrupted" in res.output and "rerun the same `litnav build` to resume" in res.output


def test_audit_with_a_corpus_that_is_no_corpus_is_an_error(runner, export_session, tmp_path):
    """report and export refuse a --corpus that is no corpus; audit showed the evidence without
    context and exited 0."""
    (tmp_path / "file").write_text("x")
    for bad, message in ((tmp_path / "missing", "does not exist"), (tmp_path / "file", "not a corpus directory")):
        res = runner.invoke(app, ["audit", str(export_session), "--corpus", str(bad)])
        assert res.exit_code == 1 and message in res.output and "(--corpus)" in res.output


def test_a_workflow_query_of_whitespace_is_refused_naming_the_node():
    wf = plan_workflow(parse_intent("dense retrieval"), Settings())
    node = next(n for n in wf.nodes if n.op == "semantic_search")
    node.params = {**node.params, "query": "   \n\t "}
    with pytest.raises(WorkflowError, match=f"{node.id}.*params.query"):
        validate_workflow(wf)


def test_ctrl_c_while_a_batch_is_written_waits_for_that_write_before_going_on():
    """Ctrl-C during an ingest crashed the process in 3 of 5 tries (DuckDB's connection used by the
    writer thread and the clean-up at once): the interrupt now waits for the write in flight,
    drops the queued ones, and is raised after."""
    import threading
    import time

    from litnav.ingest.build import _BackgroundWriter

    class SlowTx:
        def __init__(self):
            self.started, self.done = threading.Event(), []

        def add_documents(self, batch):
            self.started.set()
            time.sleep(0.3)
            self.done.append(batch)

    tx = SlowTx()
    out = _BackgroundWriter(tx)
    out.put("add_documents", [1])
    out.put("add_documents", [2])
    tx.started.wait(5)
    real_join, calls = out._thread.join, []

    def join_interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real_join(*args, **kwargs)

    out._thread.join = join_interrupted
    with pytest.raises(KeyboardInterrupt):
        out.close()
    assert not out._thread.is_alive()
    assert tx.done == [[1]]  # the write in flight finished; the queued one was dropped


def test_the_count_of_results_satisfying_c1_names_those_that_break_a_stated_constraint():
    """A user trial read "10 of 10 results are judged to satisfy the whole intent" beside two results
    judged to violate its "do not use adversarial training" exclusion."""
    from litnav.core.records import METADATA_UNKNOWN_SCORE, Judgement, Result, Round, Session
    from litnav.navigator.planner import plan_workflow
    from litnav.session.render import result_notes

    checklist = parse_intent("adversarial robustness that does not use adversarial training, since 2019")
    kinds = {c.id: c.kind for c in checklist.checkpoints}
    [exclusion] = [c.id for c in checklist.checkpoints if c.kind == "exclusion"]
    [year] = [c.id for c in checklist.checkpoints if c.kind == "metadata"]

    def result(rank: int, c1: float, x: float, m: float) -> Result:
        scores = {"c1": c1, exclusion: x, year: m}
        return Result(rank=rank, corpus_id=f"p{rank}", title=f"Paper {rank}", final_score=0.5, probability=0.5,
                      checkpoints=[Judgement(id=cid, kind=kinds[cid], text=cid, score=score, rationale="r",
                                             engine="test") for cid, score in scores.items()])

    def notes(*results: Result) -> str:
        session = Session(intent=checklist.intent, corpus="c", results=list(results), rounds=[
            Round(index=1, checklist=checklist, workflow=plan_workflow(checklist, Settings()))])
        [note] = [n for n in result_notes(session) if "judged to satisfy the whole intent" in n]
        return note

    assert notes(result(1, 4.0, 4.5, 5.0), result(2, 1.0, 0.5, 0.0)).endswith("satisfy the whole intent (c1).")
    note = notes(result(1, 4.0, 4.5, 5.0), result(2, 4.0, 0.5, 5.0), result(3, 3.0, 4.5, METADATA_UNKNOWN_SCORE),
                 result(4, 1.0, 0.5, 0.0))
    assert note.startswith("3 of 4 results are judged to satisfy the whole intent (c1); of those,")
    assert f"{exclusion} is judged violated by #2" in note and f"{year} cannot be checked for 1 of them" in note
    assert "#4" not in note  # it does not satisfy c1


def test_refining_a_session_whose_corpus_moved_says_so_and_records_the_new_place(runner, corpus, tmp_path):
    """A break-it trial's refine of a session whose corpus had moved said "build one with `litnav
    build`", and a refine with --corpus NEW kept the old path, so every later command needed
    --corpus again."""
    moved = tmp_path / "moved"
    shutil.copytree(corpus, moved)
    session_file = tmp_path / "s.json"
    res = runner.invoke(app, ["search", "graph networks for molecules", "--corpus", str(moved), "--json",
                              str(session_file), "--top", "3"])
    assert res.exit_code == 0, res.output
    shutil.move(str(moved), str(tmp_path / "elsewhere"))
    res = runner.invoke(app, ["refine", str(session_file), "show 2 results"])
    said = " ".join(res.output.split())
    assert res.exit_code == 1 and "moved or deleted" in said and "--corpus" in said and "litnav build" not in said
    res = runner.invoke(app, ["refine", str(session_file), "show 2 results", "--corpus", str(tmp_path / "elsewhere")])
    assert res.exit_code == 0, res.output
    assert json.loads(session_file.read_text())["corpus"] == str((tmp_path / "elsewhere").resolve())
    res = runner.invoke(app, ["refine", str(session_file), "show 3 results"])  # no --corpus needed any more
    assert res.exit_code == 0, res.output
