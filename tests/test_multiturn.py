"""Multi-turn refinement without an LLM: a scripted session whose feedback becomes typed edits,
re-runs only the nodes whose inputs changed (read from the session's operator records), and
whose final results satisfy every edit; plus the session file round trip and the CLI."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litnav.core.settings import Settings
from litnav.corpus import Corpus
from litnav.navigator import refine, search
from litnav.navigator.planner import TAIL_OPS
from litnav.navigator.refine import ensure_turns
from litnav.session.io import read_session, write_session

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "multiturn"))
from multiturn_papers import build_corpus  # noqa: E402

INTENT = "contrastive learning of visual representations"
SPEECH = re.compile(r"\bspeech", re.I)


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory) -> Path:
    return build_corpus(tmp_path_factory.mktemp("multiturn") / "corpus")


@pytest.fixture(scope="module")
def corpus(corpus_dir):
    c = Corpus.open(corpus_dir)
    yield c
    c.close()


@pytest.fixture(scope="module")
def scripted(corpus):
    """intent -> 'only papers after 2019' -> 'follow the citing direction of the top paper'
    -> 'drop anything about speech', each turn a refinement of the previous one."""
    session = ensure_turns(search(INTENT, corpus, Settings(), top_k=10))
    for feedback in ("only papers after 2019", "follow the citing direction of the top paper",
                     "drop anything about speech"):
        session = refine(session, feedback, corpus, Settings())
    return session


def _non_tail(turn) -> set[str]:
    ops = {n.id: n.op for n in turn.workflow.nodes}
    return {n for n in turn.rerun if ops[n] not in TAIL_OPS}


def test_each_feedback_is_one_typed_edit_with_a_reason(scripted):
    t1, t2, t3, t4 = scripted.turns
    assert t1.feedback is None and [t.feedback for t in (t2, t3, t4)] == [
        "only papers after 2019", "follow the citing direction of the top paper", "drop anything about speech"]
    year = [e for e in t2.edits if e.action == "add_checkpoint"]
    assert len(year) == 1 and year[0].reason
    pred = year[0].detail["checkpoint"]["predicate"]
    assert pred["field"] == "year" and pred["start"] == "2020-01-01" and not pred.get("end")
    top = t2.results[0].corpus_id
    cite = [n for n in t3.workflow.nodes if n.op == "citation_expand" and n.params.get("direction") == "citing"
            and top in n.params.get("seed_ids", [])]
    assert len(cite) == 1, "the citing direction of the turn-2 top paper is one node"
    assert any(e.target == cite[0].id and e.action in ("add_node", "set_param") and e.reason for e in t3.edits)
    excl = [e for e in t4.edits if e.action == "add_checkpoint"]
    assert len(excl) == 1 and excl[0].detail["checkpoint"]["kind"] == "exclusion"
    assert "speech" in excl[0].detail["checkpoint"]["terms"]


def _fusions_of(workflow, ids: set[str]) -> set[str]:
    """The union nodes that read any of ``ids``, directly or through other nodes."""
    out: set[str] = set()
    grew = True
    while grew:
        grew = False
        for n in workflow.nodes:
            if n.id not in out and set(n.inputs) & (ids | out):
                out.add(n.id)
                grew = True
    return {n.id for n in workflow.nodes if n.id in out and n.op == "union"}


def test_only_affected_nodes_rerun(scripted):
    t1, t2, t3, t4 = scripted.turns
    # turn 1's workflow holds every round's retrieval (round 1's whole-intent searches included)
    assert {"lexical_intent", "semantic_intent"} <= {n.id for n in t1.workflow.nodes}
    retrieval_1 = {n.id for n in t1.workflow.nodes if n.op not in TAIL_OPS and n.op != "union"}
    # a hard year constraint: the whole-intent searches now search within it; nothing else re-runs
    within = {n.id for n in t2.workflow.nodes if n.params.get("within")}
    assert within == {"lexical_intent", "semantic_intent"}
    # turn 3's citation branch lifts the plain-hybrid guard (its two baseline searches leave)
    lifted = {"lexical_verbatim", "semantic_verbatim"}
    assert lifted <= retrieval_1 and not lifted & {n.id for n in t3.workflow.nodes}
    assert retrieval_1 - within <= set(t2.reused) and retrieval_1 - lifted <= set(t3.reused) | _non_tail(t3)
    filt = next(n.id for n in t2.workflow.nodes if n.op == "filter")
    assert _non_tail(t2) == within | _fusions_of(t2.workflow, within) | {filt}
    cite = next(n.id for n in t3.workflow.nodes if n.op == "citation_expand" and n.params["direction"] == "citing")
    assert _non_tail(t3) == {cite, filt} | _fusions_of(t3.workflow, {cite})
    excl = next(n.id for n in t4.workflow.nodes if n.op == "text_filter")
    assert _non_tail(t4) == {excl}
    # the session's operator records agree: each turn's rounds ran exactly its rerun nodes
    for t in (t2, t3, t4):
        ran = {op.node_id for r in scripted.rounds if r.index in t.rounds for op in r.operator_runs}
        assert ran == set(t.rerun)


def test_final_results_satisfy_all_three_edits(scripted, corpus):
    final = scripted.results
    assert final
    top = scripted.turns[1].results[0].corpus_id
    abstracts = corpus.abstracts([r.corpus_id for r in final])
    for r in final:
        assert r.year >= 2020, r
        assert not SPEECH.search(r.title + " " + (abstracts.get(r.corpus_id) or "")), r
    citers = {e.citing_id for e in corpus.citations(top)}
    eligible = {c for c in citers if corpus.paper(c).year >= 2020
                and not SPEECH.search(corpus.paper(c).title + " " + (corpus.abstract(c) or ""))}
    assert eligible, "fixture: the top paper has citers that satisfy the constraints"
    assert eligible <= {r.corpus_id for r in final}
    # the turns' diffs record what the exclusion dropped
    assert any(SPEECH.search(corpus.paper(c).title) for c in scripted.turns[3].diff.dropped)


def test_session_file_keeps_every_turn(scripted, corpus, corpus_dir, tmp_path):
    path = write_session(scripted, tmp_path / "s.json")
    again = read_session(path)
    assert [t.feedback for t in again.turns] == [t.feedback for t in scripted.turns]
    assert again.results == scripted.turns[-1].results


def test_cli_refine_and_audit_history(scripted, corpus_dir, tmp_path):
    from litnav.cli import _register, app

    _register()
    session = read_session(write_session(scripted, tmp_path / "s.json"))
    path = write_session(session.model_copy(update={"corpus": str(corpus_dir)}), tmp_path / "s.json")
    runner = CliRunner()
    res = runner.invoke(app, ["refine", str(path), "show 5 results"])
    assert res.exit_code == 0, res.output
    assert len(read_session(path).turns) == 5 and len(read_session(path).results) <= 5
    res = runner.invoke(app, ["audit", str(path), "--turns"])
    assert res.exit_code == 0, res.output
    assert "drop anything about speech" in res.output and "show 5 results" in res.output
    bad = runner.invoke(app, ["refine", str(path), "paper 99 cites what"])
    assert bad.exit_code != 0



def test_cli_refine_top_sets_the_number_of_results(scripted, corpus_dir, tmp_path):
    from litnav.cli import _register, app

    _register()
    path = write_session(scripted.model_copy(update={"corpus": str(corpus_dir)}), tmp_path / "s.json")
    runner = CliRunner()
    res = runner.invoke(app, ["refine", str(path), "--top", "3"])  # no feedback needed
    assert res.exit_code == 0, res.output
    again = read_session(path)
    assert len(again.results) == 3 and again.turns[-1].feedback == "show 3 results"
    third = again.results[2].corpus_id
    res = runner.invoke(app, ["refine", str(path), "pin paper 3", "--top", "2"])
    assert res.exit_code == 0, res.output
    again = read_session(path)
    assert [r.corpus_id for r in again.results][:1] == [third] and len(again.results) == 2
    res = runner.invoke(app, ["search", "--continue", str(path), "--top", "4"])
    assert res.exit_code == 0, res.output
    assert len(read_session(path).results) == 4
    again = read_session(path)
    for argv in (["refine", str(path)], ["refine", str(path), "--top", "0"],
                 ["search", "--continue", str(path), "--top", "4", "--rounds", "5"]):
        bad = runner.invoke(app, argv)
        assert bad.exit_code == 2, bad.output
    res = runner.invoke(app, ["refine", str(path), "show 5 results", "--top", "8"])
    assert res.exit_code != 0 and "top_k" in res.output  # two different counts: refused, not one silently
    assert len(read_session(path).turns) == len(again.turns)  # a refused call stores nothing


@pytest.mark.parametrize("top_k, feedback", [(True, ""), (2.7, ""), ("5", ""), (0, "show 3 results"), (None, None),
                                             (None, "drop speech " * 500)])
def test_refine_refuses_a_bad_top_k_or_feedback_by_name(scripted, corpus, top_k, feedback):
    from litnav.navigator import refine

    with pytest.raises(ValueError, match="top_k|feedback"):
        refine(scripted.model_copy(deep=True), feedback, corpus, Settings(), top_k=top_k)

def test_following_citations_a_paper_does_not_have_is_refused_not_a_silent_reshuffle(scripted, corpus):
    from litnav.navigator import refine
    from litnav.navigator.feedback import FeedbackError

    uncited = next(r for r in scripted.results if not corpus.citations(r.corpus_id))
    with pytest.raises(FeedbackError, match=f"no paper of this corpus cites {uncited.corpus_id}.*more like"):
        refine(scripted.model_copy(deep=True), f"follow the citing direction of paper {uncited.rank}", corpus,
               Settings())


def test_llm_navigator_reads_feedback_when_configured(scripted, corpus, tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from fake_openai import FakeOpenAI, json_reply

    first = scripted.model_copy(deep=True)
    first.turns = first.turns[:1]
    with FakeOpenAI(model="m") as fake:
        fake.push(json_reply({"phrases": ["only papers after 2019", "drop anything about speech"]}))
        settings = Settings.model_validate({"llm": {
            "endpoints": {"fake": {"base_url": fake.base_url, "model": "m", "max_retries": 0}},
            "navigator": "fake", "cache": False}})
        s = refine(first, "newer stuff please, and nothing on audio or voice", corpus, settings)
        assert "nothing on audio" in fake.bodies[-1]["messages"][-1]["content"]
    t = s.turns[-1]
    assert t.engine.startswith("llm:") and "rules" not in t.engine
    kinds = {e.detail["checkpoint"]["kind"] for e in t.edits if e.action == "add_checkpoint"}
    assert kinds == {"metadata", "exclusion"}
    assert all(r.year >= 2020 and not SPEECH.search(r.title) for r in s.results)


def test_a_refinement_keeps_every_round_of_the_first_search(corpus):
    # a later round's workflow holds only what it added: a refinement built on it alone would rank
    # without the round-1 whole-intent searches
    first = ensure_turns(search(INTENT, corpus, Settings(), top_k=10, rounds=2))
    assert len(first.rounds) == 2
    refined = refine(first, "drop anything about music", corpus, Settings())
    found_by = {fb.node_id for r in refined.results for fb in r.found_by}
    assert {"lexical_intent", "semantic_intent"} <= found_by
    round_1 = {cid for cid, _ in first.rounds[0].ranking}
    abstracts = corpus.abstracts(round_1)
    kept = {c for c in round_1 if not re.search(r"\bmusic", corpus.paper(c).title + " " + (abstracts.get(c) or ""), re.I)}
    assert kept <= {cid for cid, _ in refined.rounds[-1].ranking}


def test_a_hard_constraint_from_feedback_holds_in_every_later_turn(corpus):
    # a search with a hard year constraint has a filter in every round's branch; a stricter one
    # added by feedback must reach all of them, and still hold after an unrelated later turn
    first = ensure_turns(search(INTENT + " since 2010", corpus, Settings(), top_k=20, rounds=2))
    assert len(first.rounds) == 2
    assert len([n for n in first.turns[0].workflow.nodes if n.op == "filter"]) >= 2, "fixture: a filter a round"
    session = refine(first, "only papers after 2019", corpus, Settings())
    new = next(c.id for c in session.turns[-1].checklist.checkpoints
               if c.kind == "metadata" and c not in first.turns[0].checklist.checkpoints)
    session = refine(session, "drop anything about music", corpus, Settings())
    for turn in session.turns[1:]:
        assert turn.results
        assert all(r.year is not None and r.year >= 2020 for r in turn.results), turn.index
        for n in turn.workflow.nodes:
            if n.op == "filter" and n.params.get("checkpoint_ids"):
                assert new in n.params["checkpoint_ids"], (turn.index, n.id)


def test_feedback_that_changes_nothing_keeps_the_ranking(corpus):
    # the refinement's workflow sums every round's fused scores as the search loop did, so a
    # turn whose edits change nothing ranks exactly as the search it continues
    first = ensure_turns(search(INTENT, corpus, Settings(), top_k=10, rounds=2))
    assert len(first.rounds) == 2
    before = [r.corpus_id for r in first.results]
    again = refine(first, "show 10 results", corpus, Settings())
    assert [r.corpus_id for r in again.results] == before
    # and scores them the same: the holistic probability read a paper's best rank over the rounds'
    # own lists in the search, its rank in the one fused list in the refinement (a fresh user saw p
    # move 0.11 -> 0.37 on a turn that changed nothing)
    assert [(r.probability, r.final_score) for r in again.results] == [
        (r.probability, r.final_score) for r in first.results]


def test_a_constraint_from_feedback_can_be_replaced_or_ignored(corpus):
    from litnav.navigator.feedback import FeedbackError

    session = ensure_turns(search(INTENT, corpus, Settings(), top_k=10))
    session = refine(session, "only papers after 2019", corpus, Settings())
    session = refine(session, "only papers after 2020", corpus, Settings())  # replaces, not an error
    assert session.results and all(r.year >= 2021 for r in session.results)
    session = refine(session, "ignore the year constraint", corpus, Settings())
    last = session.turns[-1]
    assert not any(c.kind == "metadata" for c in last.checklist.checkpoints)
    assert not any(n.params.get("within") for n in last.workflow.nodes)  # searched whole again
    assert any(r.year is not None and r.year < 2021 for r in session.results)
    with pytest.raises(FeedbackError, match="no venue constraint"):
        refine(session, "ignore the venue constraint", corpus, Settings())
    dropped = {c.id for t in session.turns for c in t.checklist.checkpoints} - {
        c.id for c in session.turns[-1].checklist.checkpoints}
    session = refine(session, "only papers after 2018", corpus, Settings())
    new = [c.id for c in session.turns[-1].checklist.checkpoints if c.kind == "metadata"]
    assert new and not set(new) & dropped, (new, dropped)  # an id keeps one meaning in a session


def test_ignoring_a_year_of_the_intent_keeps_every_round(corpus):
    first = ensure_turns(search(INTENT + " since 2020", corpus, Settings(), top_k=10, rounds=2))
    rounds = len(first.rounds)
    session = refine(first, "ignore the year constraint", corpus, Settings())
    fuse = next(n for n in session.turns[-1].workflow.nodes if n.id == "fuse_rounds")
    assert rounds == 2 and len(fuse.inputs) == rounds  # each round's branch spliced past its filter
    assert any(r.year is not None and r.year < 2020 for r in session.results)


@pytest.mark.parametrize("feedback", ["more like #2", "focus on negative sampling",
                                      "follow the citing direction of the top paper"])
def test_a_channel_added_by_feedback_is_fused_on_the_rounds_scale(corpus, feedback):
    """The rounds' fused lists are summed (RRF scores near 1/61); a trial's "follow the citing
    direction" and "more like #2" joined that sum with their own scores (citation links plus
    cosine, BM25) after a three-round search, so every new paper, on topic or not, outranked
    every earlier result."""
    from litnav.core.records import Node
    from litnav.navigator.feedback import parse_feedback
    from litnav.navigator.refine import apply_edits

    turn = ensure_turns(search(INTENT, corpus, Settings(), top_k=10)).turns[-1]
    wf = turn.workflow.model_copy(deep=True)
    rounds = next(n for n in wf.nodes if n.op == "union" and n.params.get("method") == "sum")
    at = wf.nodes.index(rounds)
    for r in range(len(rounds.inputs) + 1, 5):  # as a search that ran four rounds
        wf.nodes[at:at] = [Node(id=f"citation_r{r}", op="citation_expand", params={"seeds": 3, "k": 20}, inputs=["fuse"]),
                           Node(id=f"fuse_r{r}", op="union", params={"method": "rrf", "weights": [0.3]},
                                inputs=[f"citation_r{r}"])]
        at += 2
        rounds.inputs.append(f"fuse_r{r}")
    rounds.params = {**rounds.params, "weights": [1.0] * len(rounds.inputs)}
    edits = parse_feedback(feedback, turn.checklist, wf, [r.corpus_id for r in turn.results], corpus, None)
    _, edited, _, _, _ = apply_edits(turn.checklist, wf, edits, Settings())
    nodes = {n.id: n for n in edited.nodes}
    summed = next(n for n in edited.nodes if n.id == rounds.id)
    assert len(summed.inputs) > len(rounds.inputs)  # the new channel joined the rounds' sum
    assert all(nodes[i].op == "union" and nodes[i].params.get("method", "rrf") == "rrf" for i in summed.inputs)


def test_more_like_a_result_adds_its_title_as_a_focus(corpus):
    session = ensure_turns(search(INTENT, corpus, Settings(), top_k=10))
    second = session.results[1]
    session = refine(session, "more like #2", corpus, Settings())
    [cp] = [c for c in session.turns[-1].checklist.checkpoints if c.source == "user"]
    assert cp.terms == [" ".join(second.title.split())]
    focus = {n.op: n.params["query"] for n in session.turns[-1].workflow.nodes if n.params.get("checkpoint_id") == cp.id}
    # one dense branch by the paper's title + abstract: BM25 over its title's words found papers
    # sharing one word with it (a user trial's "more like #2" brought three such into the top 10)
    assert set(focus) == {"semantic_search"}
    assert focus["semantic_search"].startswith(cp.terms[0]) and corpus.abstract(second.corpus_id) in focus["semantic_search"]
    # the first turn's plain-hybrid guard is lifted, so papers like #2 beyond its top 100 can rise
    assert not {"lexical_verbatim", "semantic_verbatim"} & {n.id for n in session.turns[-1].workflow.nodes}
    assert {"lexical_verbatim", "semantic_verbatim"} <= {n.id for n in session.turns[0].workflow.nodes}
    assert {e.target for e in session.turns[-1].edits if e.action == "remove_node"} >= {"lexical_verbatim",
                                                                                        "semantic_verbatim"}


def test_cli_refinements_of_one_file_wait_for_each_other(scripted, corpus_dir, tmp_path):
    import threading

    from filelock import FileLock

    from litnav.cli.refine import continue_session

    path = write_session(scripted.model_copy(update={"corpus": str(corpus_dir)}), tmp_path / "s.json")
    turns = len(read_session(path).turns)
    held = FileLock(str(tmp_path / ".s.json.lock"))
    held.acquire()  # another refinement is writing this file
    worker = threading.Thread(target=continue_session, args=(path, "show 5 results", None, None, None, None))
    worker.start()
    worker.join(timeout=3)
    assert worker.is_alive() and len(read_session(path).turns) == turns  # waits, writes nothing
    held.release()
    worker.join(timeout=120)
    assert not worker.is_alive() and len(read_session(path).turns) == turns + 1


@pytest.mark.parametrize("feedback", ["show 0 results", "show -5 results"])
def test_a_result_count_below_one_is_a_clear_feedback_error(scripted, corpus, feedback):
    from litnav.navigator.feedback import FeedbackError, parse_feedback

    last = scripted.turns[-1]
    with pytest.raises(FeedbackError, match="at least one result"):
        parse_feedback(feedback, last.checklist, last.workflow, [r.corpus_id for r in last.results], corpus, None)


def test_excluding_the_same_thing_twice_adds_no_second_checkpoint(scripted, corpus):
    from litnav.navigator.feedback import FeedbackError, parse_feedback

    last = scripted.turns[-1]  # turn 4 excluded speech
    ranking = [r.corpus_id for r in last.results]
    with pytest.raises(FeedbackError, match="'speech' is already excluded"):
        parse_feedback("drop anything about speech", last.checklist, last.workflow, ranking, corpus, None)
    edits = parse_feedback("drop anything about Speech and show 7 results", last.checklist, last.workflow,
                           ranking, corpus, None)
    assert [e.action for e in edits] == ["set_param"]


def test_excluding_alternatives_excludes_a_paper_about_either(scripted, corpus):
    from litnav.navigator.feedback import parse_feedback

    last = scripted.turns[-1]
    [edit] = parse_feedback("drop anything about crystals or materials", last.checklist, last.workflow,
                            [r.corpus_id for r in last.results], corpus, None)
    cp = edit.detail["checkpoint"]
    assert (cp["kind"], cp["any_of"]) == ("exclusion", True)
    assert {"crystals", "materials"} <= set(cp["terms"])


def test_followed_citations_below_the_results_are_named_not_silent(scripted):
    from litnav.session.render import result_notes

    turn = scripted.turns[2]  # 'follow the citing direction of the top paper'
    upto = scripted.model_copy(update={"turns": scripted.turns[:3], "results": turn.results,
                                       "rounds": [r for r in scripted.rounds if r.index <= max(turn.rounds)]})
    [run] = [r for rnd in upto.rounds if rnd.index in turn.rounds for r in rnd.operator_runs
             if r.op == "citation_expand"]
    found = {cid for cid, _ in run.outputs}
    assert found
    if found & {r.corpus_id for r in turn.results}:  # one of them shown: nothing to say
        assert not [n for n in result_notes(upto) if "none ranks among" in n]
    hidden = upto.model_copy(update={"results": [r for r in turn.results if r.corpus_id not in found]})
    [note] = [n for n in result_notes(hidden) if "citing" in n]
    assert f"found {len(found)} paper" in note and "none ranks among these" in note


def test_the_results_table_names_the_latest_turn_and_its_feedback(scripted):
    from rich.console import Console

    from litnav.session.render import results_table

    console = Console(record=True, width=400, color_system=None)
    console.print(results_table(scripted, top=3))
    text = console.export_text()
    last = scripted.turns[-1]
    assert f"turn {last.index}: {last.feedback}" in text and "final score" in text


def test_more_recent_counts_back_from_the_corpus_newest_paper(corpus):
    # a corpus that ends years before today: "more recent" means its own newest papers, not the
    # three years before today (which no paper of it could satisfy)
    from datetime import date

    from litnav.navigator.feedback import FeedbackError

    newest = corpus.newest_date()
    assert newest == date(max(corpus.papers_per_year()), 12, 31)  # the fixture has years, no dates
    later = date(newest.year + 4, 6, 1)
    session = refine(ensure_turns(search(INTENT, corpus, Settings(), top_k=10)), "more recent", corpus,
                     Settings(), today=later)
    [m] = [c for c in session.turns[-1].checklist.checkpoints if c.kind == "metadata"]
    assert (m.predicate.start, m.predicate.end, m.weight) == (date(newest.year - 2, 1, 1), newest, 0.5)
    assert f"newest papers are from {newest.year}" in m.text
    assert session.results[0].year >= newest.year - 2  # the preference re-weights towards them
    with pytest.raises(FeedbackError, match="already in the checklist"):
        refine(session, "more recent", corpus, Settings(), today=later)


def test_feedback_contradicting_a_date_of_the_intent_is_refused_and_an_impossible_one_relaxed(corpus):
    from litnav.navigator.feedback import FeedbackError

    session = ensure_turns(search(INTENT + " since 2019", corpus, Settings(), top_k=10))
    with pytest.raises(FeedbackError, match="contradicts m1.*ignore the year constraint"):
        refine(session, "only papers before 1900", corpus, Settings())
    # the same feedback after dropping the intent's date is no contradiction
    dropped = refine(session.model_copy(deep=True), "ignore the year constraint and only papers before 2016", corpus,
                     Settings())
    [m] = [c for c in dropped.turns[-1].checklist.checkpoints if c.kind == "metadata"]
    assert m.predicate.end.year == 2015 and m.predicate.start is None
    # a venue no paper has: a preference (as a search makes it), not a filter that empties the results
    session = refine(session, "only papers published at the Foo Bar Conference", corpus, Settings())
    [venue] = [c for c in session.turns[-1].checklist.checkpoints if c.predicate and c.predicate.field == "venue"]
    assert venue.weight < 1 and "no paper of this corpus matches it" in venue.text and session.results


def test_a_renamed_checkpoint_id_never_collides_with_another_added_in_the_same_turn():
    from types import SimpleNamespace

    from litnav.core.records import Checklist, Checkpoint, Edit
    from litnav.navigator.refine import _fresh_checkpoint_ids

    def cp(cid: str, text: str) -> Checkpoint:
        return Checkpoint(id=cid, kind="metadata", text=text, terms=[], source="user")

    before = Checklist(intent="x", checkpoints=[cp("c1", "topic"), cp("m1", "since 2020")])
    now = Checklist(intent="x", checkpoints=[cp("c1", "topic")])  # m1 dropped by an earlier turn
    session = SimpleNamespace(rounds=[], turns=[SimpleNamespace(checklist=before), SimpleNamespace(checklist=now)])
    edits = [Edit(action="add_checkpoint", target=c.id, detail={"checkpoint": c.model_dump(mode="json")}, reason=r)
             for c, r in ((cp("m1", "venue ICML"), "only ICML"), (cp("m2", "since 2018"), "after 2018"))]
    ids = [e.detail["checkpoint"]["id"] for e in _fresh_checkpoint_ids(session, now, edits)]
    assert ids == ["m3", "m2"]


def test_focus_on_a_subtopic_searches_it_within_the_topic(corpus):
    """"focus on speech" in a search on contrastive learning searches speech *with* the topic: its
    branch query holds both (it searched "speech" alone and brought in papers on anything spoken)."""
    session = ensure_turns(search(INTENT, corpus, Settings(), top_k=10))
    topic = session.turns[0].checklist.checkpoints[0].text
    session = refine(session, "focus on speech", corpus, Settings())
    queries = {n.params.get("query") for n in session.turns[-1].workflow.nodes if n.note and "focus" in n.note}
    assert queries == {f"speech {topic}"}


def test_a_refinement_after_the_corpus_was_rebuilt_searches_it_again(search_jsonl, tmp_path):
    """The session's recorded searches name the papers of the corpus as it was. Rebuilt in place
    with other papers, a refinement runs the searches again (nothing reused, every result a paper
    of the corpus now); the next refinement of the same version reuses that turn's outputs."""
    import json

    from litnav.ingest import build

    lines = search_jsonl.read_text().splitlines()
    corpus = tmp_path / "corpus"
    build([search_jsonl], corpus, progress=False)
    with Corpus.open(corpus) as c:
        session = search("dense retrieval for question answering", c, Settings(), rounds=1, top_k=5)
    first = [r.corpus_id for r in session.results]
    kept = [line for line in lines if json.loads(line)["id"] not in first[:3]]  # the top three leave the corpus
    import shutil
    shutil.rmtree(corpus)
    src = tmp_path / "v2.jsonl"
    src.write_text("\n".join(kept) + "\n")
    build([src], corpus, progress=False)
    with Corpus.open(corpus) as c:
        session = refine(session, "show 4 results", c, Settings())
        assert session.turns[-1].reused == [] and session.turns[-1].corpus_fingerprint == c.fingerprint()
        ids = [r.corpus_id for r in session.results]
        assert ids and not set(ids) & set(first[:3]) and all(c.paper(i) is not None for i in ids)
        session = refine(session, "show 5 results", c, Settings())
        assert session.turns[-1].reused  # the same corpus version: the recorded searches are reused


@pytest.mark.parametrize("ops", [("semantic_search", "lexical_search"), ("locate_evidence",)])
def test_a_workflow_node_named_like_the_rounds_fusion_does_not_break_refine(search_corpus_dir, ops):
    """Refine fuses the rounds of a search in a node of its own; a user's node already called
    "fuse_rounds" (a search, or a tail node such as the evidence locator) keeps its name and the
    fusion takes another."""
    from litnav.navigator.intent import parse_intent
    from litnav.navigator.planner import plan_workflow

    intent = "dense retrieval for question answering"
    with Corpus.open(search_corpus_dir) as c:
        wf = plan_workflow(parse_intent(intent), Settings())
        old = next(n.id for n in wf.nodes if n.op in ops)
        nodes = [n.model_copy(update={"id": "fuse_rounds" if n.id == old else n.id,
                                      "inputs": ["fuse_rounds" if i == old else i for i in n.inputs]}) for n in wf.nodes]
        wf = wf.model_copy(update={"nodes": nodes})
        session = search(intent, c, Settings(), workflow=wf, rounds=2, top_k=5)
        assert len(session.rounds) == 2
        session = refine(session, "show 3 results", c, Settings())
    assert len(session.results) == 3


def test_a_focus_said_twice_or_a_pin_and_ban_of_one_paper_are_refused(corpus):
    """"focus on speech" again would count speech twice; "pin paper 1 and ban paper 1" cannot
    both hold. Both are refused with a reason, and the session keeps its turns."""
    from litnav.navigator.feedback import FeedbackError

    session = ensure_turns(search(INTENT, corpus, Settings(), top_k=10))
    session = refine(session, "focus on speech", corpus, Settings())
    turns = len(session.turns)
    with pytest.raises(FeedbackError, match="already in the checklist"):
        refine(session, "focus on Speech", corpus, Settings())
    with pytest.raises(FeedbackError, match="name the same paper"):
        refine(session, "pin paper 1 and ban paper 1", corpus, Settings())
    assert len(session.turns) == turns


def test_an_exclusion_added_by_feedback_can_be_dropped_by_its_id(scripted, corpus):
    """"drop checkpoint x1" takes back an earlier turn's exclusion: the checkpoint and its terms
    in the exclusion filter go, and the excluded papers may come back; c1 cannot be dropped."""
    from litnav.navigator.feedback import FeedbackError

    last = scripted.turns[-1]  # turn 4 excluded speech
    [x] = [c for c in last.checklist.checkpoints if c.kind == "exclusion" and "speech" in c.terms]
    undone = refine(scripted.model_copy(deep=True), f"drop checkpoint {x.id}", corpus, Settings())
    turn = undone.turns[-1]
    assert x.id not in {c.id for c in turn.checklist.checkpoints}
    assert all("speech" not in n.params.get("exclude_terms", []) for n in turn.workflow.nodes)
    with pytest.raises(FeedbackError, match="c1 is the intent itself"):
        refine(scripted.model_copy(deep=True), "drop checkpoint c1", corpus, Settings())
    with pytest.raises(FeedbackError, match="no checkpoint 'x9'"):
        refine(scripted.model_copy(deep=True), "remove checkpoint x9", corpus, Settings())


def test_an_exclusion_no_paper_mentions_says_so(scripted, corpus):
    """A user trial's misspelt "exclude reinforcment learnng" was accepted and excluded nothing,
    without a word; a real word keeps no such note."""
    from litnav.session.render import result_notes

    typo = refine(scripted.model_copy(deep=True), "exclude anything about reinforcment learnng", corpus, Settings())
    [note] = [n for n in result_notes(typo) if "no paper of this corpus mentions it" in n]
    assert "reinforcment learnng" in note and "check the spelling" in note
    real = refine(scripted.model_copy(deep=True), "exclude anything about augmentations", corpus, Settings())
    assert not [n for n in result_notes(real) if "no paper of this corpus mentions it" in n]


def test_several_pins_in_one_feedback_each_pin_their_paper(scripted, corpus):
    from litnav.navigator.feedback import parse_feedback

    last = scripted.turns[-1]
    ranking = [r.corpus_id for r in last.results]
    edits = parse_feedback("pin #1 pin #2 pin #3", last.checklist, last.workflow, ranking, corpus, None)
    assert [e.target for e in edits if e.action == "pin"] == ranking[:3]


def test_feedback_that_names_nothing_or_repeats_a_like_is_not_a_new_checkpoint(scripted, corpus):
    from litnav.navigator.feedback import FeedbackError, parse_feedback

    last = scripted.turns[-1]
    ranking = [r.corpus_id for r in last.results]
    with pytest.raises(FeedbackError, match="names nothing to exclude"):
        parse_feedback("drop anything about the", last.checklist, last.workflow, ranking, corpus, None)
    once = refine(scripted.model_copy(deep=True), "more like #1", corpus, Settings())
    turn = once.turns[-1]
    with pytest.raises(FeedbackError, match="already in the checklist"):
        parse_feedback("more like #1", turn.checklist, turn.workflow, [r.corpus_id for r in turn.results], corpus, None)


def test_a_session_whose_recorded_round_workflow_is_damaged_is_named_not_a_key_error(scripted, corpus):
    damaged = scripted.model_copy(deep=True, update={"turns": []})
    for rnd in damaged.rounds:
        for n in rnd.workflow.nodes:
            if n.op == "locate_evidence":
                n.inputs = ["ghost"]
    with pytest.raises(ValueError, match="round 1 workflow is damaged.*'ghost'"):
        refine(damaged, "only papers after 2017", corpus, Settings())


def test_dropping_several_checkpoints_names_each_and_refuses_c1(scripted, corpus):
    from litnav.navigator.feedback import FeedbackError, parse_feedback

    last = scripted.turns[-1]
    ranking = [r.corpus_id for r in last.results]
    ids = [c.id for c in last.checklist.checkpoints if c.id != "c1"][:2]
    edits = parse_feedback(f"remove checkpoints {ids[0]} and {ids[1]}", last.checklist, last.workflow, ranking,
                           corpus, None)
    assert [e.target for e in edits if e.action == "drop_checkpoint"] == ids
    with pytest.raises(FeedbackError, match="c1 is the intent itself"):
        parse_feedback(f"remove checkpoint {ids[0]} and checkpoint c1", last.checklist, last.workflow, ranking,
                       corpus, None)


def test_reweighting_a_concept_says_that_the_order_does_not_follow_weights(corpus):
    """"x matters more" was accepted and then moved nothing, with no word why: the order is the
    fused retrieval order, which content weights do not change; the notes say so."""
    from litnav.session.render import result_notes

    first = ensure_turns(search(INTENT, corpus, Settings(), top_k=10, rounds=1))
    assert not any("not the order" in n for n in result_notes(first))
    for feedback in ("visual representations matters more", "c1 is less important"):
        again = refine(first.model_copy(deep=True), feedback, corpus, Settings())
        [edit] = [e for e in again.turns[-1].edits if e.action == "reweight_checkpoint"]
        assert edit.target == ("c1" if feedback.startswith("c1") else "c3"), (feedback, edit)  # the concept, not c1
        assert any("changes the final scores, not the order" in n for n in result_notes(again))


def test_a_filter_added_by_feedback_says_which_earlier_results_it_removed(corpus):
    """A user's "only randomized controlled trials" silently removed the one relevant trial (its
    record names no type); the results now say how many of the previous turn's results the new
    filter removed, their ranks there, and how to bring them back."""
    from litnav.session.render import result_notes

    first = ensure_turns(search(INTENT, corpus, Settings(), top_k=10, rounds=1))
    session = refine(first.model_copy(deep=True), "only papers after 2019", corpus, Settings())
    before = {r.corpus_id: r.rank for r in first.results}
    gone = sorted(before[c] for c in before if c not in {r.corpus_id for r in session.results}
                  and (corpus.paper(c).year or 0) <= 2019)
    assert gone, "fixture: some of the first results are from 2019 or before"
    [note] = [n for n in result_notes(session) if "is an exact filter" in n]
    assert f"{len(gone)} of the previous turn's results are gone" in note and f"#{gone[0]}" in note
    assert "'drop checkpoint m1' brings them back" in note
    assert not [n for n in result_notes(first) if "is an exact filter" in n]
    # a user trial's "only after 2021 and drop anything about X" blamed the year for what X removed
    both = refine(first.model_copy(deep=True), "only papers after 2019 and drop anything about speech", corpus,
                  Settings())
    [note] = [n for n in result_notes(both) if "is an exact filter" in n]
    years = {r.corpus_id: corpus.paper(r.corpus_id).year or 0 for r in first.results}
    counted = int(note.split(" of the previous turn's")[0].rsplit(" ", 1)[1])
    assert counted == sum(1 for c in years if years[c] <= 2019 and c not in {r.corpus_id for r in both.results})


@pytest.mark.parametrize("feedback", ["I'm not interested in speech", "the speech ones are not relevant",
                                      "I don't want speech papers", "we do not need speech"])
def test_a_wish_to_leave_something_out_is_an_exclusion_of_it(scripted, corpus, feedback):
    from litnav.navigator.feedback import parse_feedback

    first = scripted.turns[0]  # before "drop anything about speech"
    edits = parse_feedback(feedback, first.checklist, first.workflow, [r.corpus_id for r in first.results],
                           corpus, None)
    [cp] = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
    assert (cp["kind"], cp["weight"], cp["terms"][0].lower()) == ("exclusion", 1.0, "speech")
    assert [e.detail["role"] for e in edits if e.action == "add_checkpoint"] == ["exclude"]


@pytest.mark.parametrize(("feedback", "kind"), [("fewer surveys", "metadata"), ("too many surveys", "metadata"),
                                                ("less speech", "exclusion"), ("fewer speech papers", "exclusion"),
                                                ("maybe fewer surveys?", "metadata"), ("could we have fewer surveys", "metadata"),
                                                ("I'd prefer fewer surveys", "metadata"), ("perhaps less speech", "exclusion"),
                                                ("there are too many surveys", "metadata"),
                                                ("I think fewer surveys would help", "metadata"),
                                                ("surveys, fewer please", "metadata")])
def test_asking_for_fewer_of_something_demotes_it_and_never_asks_for_it(scripted, corpus, feedback, kind):
    from litnav.navigator.feedback import parse_feedback

    first = scripted.turns[0]
    edits = parse_feedback(feedback, first.checklist, first.workflow, [r.corpus_id for r in first.results],
                           corpus, None)
    [edit] = edits
    cp = edit.detail["checkpoint"]
    assert (cp["kind"], cp["weight"]) == (kind, 0.5) and cp["text"].endswith("(preference)")
    if kind == "metadata":  # a negated preference, not a preference for surveys
        assert cp["predicate"]["negate"] is True and edit.detail["role"] == "prefer"
    else:  # judged and demoted, never a filter that drops every paper mentioning it
        assert edit.detail["role"] == "demote"
        session = scripted.model_copy(update={"turns": scripted.turns[:1]})
        turn = refine(session, feedback, corpus, Settings()).turns[-1]
        assert not [n for n in turn.workflow.nodes if n.op == "text_filter" and n.params.get("exclude_terms")]
        assert [c.weight for c in turn.checklist.checkpoints if c.kind == "exclusion"] == [0.5]  # judged: demoted


@pytest.mark.parametrize(("feedback", "expect"), [
    ("papers before 2015 are not relevant", ("year", False)),
    ("surveys are not relevant", ("publication_type", True)),
    ("reviews are not relevant", ("publication_type", True)),
    ("skip reviews", ("publication_type", True)),
    ("avoid anything about speech", ("exclusion", "speech")),
    ("I don't care about speech", ("exclusion", "speech")),
    ("surveys aren't really what I need", ("publication_type", True)),
    ("anything but surveys", ("publication_type", True)),
    ("show everything but the surveys", ("publication_type", True)),
    ("surveys ❌", ("publication_type", True)),
    ("exlcude surveys", ("publication_type", True)),
    ("would you remove anything about speech?", ("exclusion", "speech")),
    ("drop anythng about speech", ("exclusion", "speech")),
    ("never mind, drop anything about speech", ("exclusion", "speech")),
])
def test_feedback_that_opens_with_what_to_leave_out_leaves_it_out(scripted, corpus, feedback, expect):
    """A trial's "papers before 2015 are not relevant" kept only those papers, and "surveys are not
    relevant" asked for surveys."""
    from litnav.navigator.feedback import parse_feedback

    first = scripted.turns[0]
    edits = parse_feedback(feedback, first.checklist, first.workflow, [r.corpus_id for r in first.results],
                           corpus, None)
    [cp] = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
    if expect[0] == "exclusion":
        assert cp["kind"] == "exclusion" and cp["terms"][0].lower() == expect[1]
    elif expect[0] == "year":  # before 2015 left out: from 2015 on
        assert cp["predicate"]["field"] == "year" and cp["predicate"]["start"] == "2015-01-01"
    else:
        assert cp["predicate"]["field"] == expect[0] and cp["predicate"]["negate"] is expect[1]


def test_not_being_interested_in_a_result_puts_it_aside(scripted, corpus):
    from litnav.navigator.feedback import parse_feedback

    first = scripted.turns[0]
    ranking = [r.corpus_id for r in first.results]
    edits = parse_feedback("I'm not interested in paper 2", first.checklist, first.workflow, ranking, corpus, None)
    assert [(e.action, e.target) for e in edits] == [("ban", ranking[1])]


def _edits(scripted, corpus, feedback):
    from litnav.navigator.feedback import parse_feedback

    first = scripted.turns[0]
    ranking = [r.corpus_id for r in first.results]
    return parse_feedback(feedback, first.checklist, first.workflow, ranking, corpus, None), ranking


@pytest.mark.parametrize("feedback", ["drop anything before 2020", "remove papers before 2020",
                                      "hide everything before 2020", "get rid of papers older than 2020"])
def test_a_verb_of_removal_before_a_date_removes_those_papers(scripted, corpus, feedback):
    """A trial's "drop anything before 2010" kept only the papers before 2010."""
    edits, _ = _edits(scripted, corpus, feedback)
    [cp] = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
    assert cp["predicate"]["field"] == "year" and cp["predicate"]["start"] == "2020-01-01" and not cp["predicate"]["end"]


@pytest.mark.parametrize("feedback", ["drop the surveys", "get rid of the survey papers", "filter out surveys",
                                      "dont show surveys", "no more surveys", "hide surveys please"])
def test_a_removal_of_surveys_in_any_words_leaves_them_out(scripted, corpus, feedback):
    edits, _ = _edits(scripted, corpus, feedback)
    [cp] = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
    assert cp["predicate"] == {**cp["predicate"], "field": "publication_type", "values": ["survey"], "negate": True}


@pytest.mark.parametrize(("feedback", "action", "ranks"), [
    ("pin #1 and #2", "pin", [1, 2]), ("keep 1 and 2", "pin", [1, 2]), ("the second and fourth are wrong", "ban", [2, 4]),
    ("#3, #4 and #5 are irrelevant", "ban", [3, 4, 5]), ("3 is irrelevant", "ban", [3]), ("remove 2 and 4", "ban", [2, 4]),
    ("remove #3 pls", "ban", [3]), ("the 3rd one is wrong", "ban", [3]), ("#2 and #4 aren't relevant", "ban", [2, 4]),
    ("get rid of number 3", "ban", [3]), ("paper 2 doesn't interest me", "ban", [2]),
    ("#2 is not what I'm looking for", "ban", [2]),
])
def test_results_named_in_any_words_are_each_the_one_meant(scripted, corpus, feedback, action, ranks):
    edits, ranking = _edits(scripted, corpus, feedback)
    assert [(e.action, e.target) for e in edits] == [(action, ranking[r - 1]) for r in ranks]


@pytest.mark.parametrize("feedback", ["exclude speech, audio", "no speech and no audio",
                                      "drop anything about speech and audio"])
def test_each_thing_of_a_list_left_out_is_excluded(scripted, corpus, feedback):
    edits, _ = _edits(scripted, corpus, feedback)
    excluded = {e.detail["checkpoint"]["terms"][0].lower() for e in edits if e.action == "add_checkpoint"}
    assert excluded == {"speech", "audio"}


def test_a_year_after_a_misspelt_cue_is_refused_not_read_as_that_year(scripted, corpus):
    from litnav.navigator.feedback import FeedbackError

    with pytest.raises(FeedbackError, match="'aftr' is no word litnav reads before a year"):
        _edits(scripted, corpus, "only papers aftr 2020")


def test_fewer_papers_like_a_result_is_no_focus_on_it(scripted, corpus):
    from litnav.navigator.feedback import FeedbackError

    with pytest.raises(FeedbackError, match="cannot demote papers similar to one"):
        _edits(scripted, corpus, "fewer papers like #3")


def test_what_cites_a_result_follows_the_citing_direction(scripted, corpus):
    edits, ranking = _edits(scripted, corpus, "what cites the top paper")
    assert [(e.action, e.target, e.detail["seed_ids"]) for e in edits] == [("add_node", "cite_citing", [ranking[0]])]


@pytest.mark.parametrize("feedback", ["I care most about speech", "concentrate on speech",
                                      "I'm mostly interested in speech", "speech matters most",
                                      "I want more speech papers", "more speech papers", "more papers on speech"])
def test_a_focus_in_any_words_is_a_focus(scripted, corpus, feedback):
    edits, _ = _edits(scripted, corpus, feedback)
    assert [(e.action, e.detail["role"], e.detail["checkpoint"]["terms"]) for e in edits] == [
        ("add_checkpoint", "focus", ["speech"])]


@pytest.mark.parametrize(("feedback", "n"), [("top 5 only", 5), ("give me five results", 5),
                                             ("only show the first 5", 5), ("more results", None), ("show me more", None)])
def test_the_number_of_results_in_any_words(scripted, corpus, feedback, n):
    edits, ranking = _edits(scripted, corpus, feedback)
    assert [(e.action, e.detail["value"]) for e in edits] == [("set_param", n or len(ranking) + 10)]


@pytest.mark.parametrize(("feedback", "action", "ranks"), [
    ("keep the first two", "pin", [1, 2]), ("pin the top two", "pin", [1, 2]),
    ("remove the last three", "ban", [-3, -2, -1]), ("the bottom three are wrong", "ban", [-3, -2, -1]),
])
def test_results_counted_from_either_end(scripted, corpus, feedback, action, ranks):
    edits, ranking = _edits(scripted, corpus, feedback)
    assert [(e.action, e.target) for e in edits] == [(action, ranking[r - 1 if r > 0 else r]) for r in ranks]


@pytest.mark.parametrize(("feedback", "focus"), [("only cohort studies", "cohort studies"), ("speech only please", "speech")])
def test_only_a_topic_is_a_focus_that_drops_nothing(scripted, corpus, feedback, focus):
    edits, _ = _edits(scripted, corpus, feedback)
    assert [(e.detail["role"], e.detail["checkpoint"]["terms"]) for e in edits] == [("focus", [focus])]


def _edits_last(scripted, corpus, feedback):
    """Edits of ``feedback`` on the scripted session's last turn, which holds the user's "only
    papers after 2019" (a year filter) and "drop anything about speech" (an exclusion)."""
    from litnav.navigator.feedback import parse_feedback

    last = scripted.turns[-1]
    return parse_feedback(feedback, last.checklist, last.workflow, [r.corpus_id for r in last.results], corpus, None), last


def _year_id(turn) -> str:
    return next(c.id for c in turn.checklist.checkpoints if c.predicate is not None and c.predicate.field == "year")


@pytest.mark.parametrize("feedback", ["no surveys", "exclude 2021", "fewer surveys", "nothing from 2022"])
def test_a_wish_to_leave_more_out_keeps_every_earlier_constraint(scripted, corpus, feedback):
    """A trial's "no LREC papers" then "no workshop papers" dropped the first: 5 LREC results came back."""
    edits, _ = _edits_last(scripted, corpus, feedback)
    assert not [e for e in edits if e.action == "drop_checkpoint"]


def test_a_wanted_year_replaces_the_earlier_one_and_also_widens_it(scripted, corpus):
    edits, last = _edits_last(scripted, corpus, "only papers after 2020")
    assert [e.target for e in edits if e.action == "drop_checkpoint"] == [_year_id(last)]
    edits, _ = _edits_last(scripted, corpus, "also include 2016 and 2017")  # after 2019: from 2016 on, not 2016-2017
    [cp] = [e.detail["checkpoint"]["predicate"] for e in edits if e.action == "add_checkpoint"]
    assert (cp["start"], cp["end"]) == ("2016-01-01", None)


@pytest.mark.parametrize(("feedback", "start"), [("I meant 2021, not 2019", "2022-01-01"), ("sorry, I meant from 2018", "2018-01-01"),
                                                 ("actually, I meant 2021", "2021-01-01")])
def test_a_corrected_year_keeps_the_form_of_the_period_it_corrects(scripted, corpus, feedback, start):
    """"only papers after 2019" corrected by "I meant 2021, not 2019" is after 2021 (by "I meant 2021": from 2021 on),
    not the year 2021 alone."""
    edits, last = _edits_last(scripted, corpus, feedback)
    [cp] = [e.detail["checkpoint"]["predicate"] for e in edits if e.action == "add_checkpoint"]
    assert (cp["start"], cp["end"], cp["negate"]) == (start, None, False)
    assert [e.target for e in edits if e.action == "drop_checkpoint"] == [_year_id(last)]


@pytest.mark.parametrize("feedback", ["undo the year filter", "drop the 2019 limit", "get rid of the year constraint"])
def test_a_constraint_named_by_its_field_in_any_words_is_dropped(scripted, corpus, feedback):
    edits, last = _edits_last(scripted, corpus, feedback)
    assert [(e.action, e.target) for e in edits] == [("drop_checkpoint", _year_id(last))]


def test_what_is_let_back_in_drops_what_left_it_out_and_nothing_else(scripted, corpus):
    from litnav.navigator.feedback import FeedbackError

    edits, last = _edits_last(scripted, corpus, "speech is fine after all")
    [x] = [c.id for c in last.checklist.checkpoints if c.kind == "exclusion"]
    assert [(e.action, e.target) for e in edits] == [("drop_checkpoint", x)]
    for feedback in ("TACL papers are fine too", "not only TACL"):  # nothing keeps TACL out or in: no filter for it
        with pytest.raises(FeedbackError, match="nothing to change"):
            _edits_last(scripted, corpus, feedback)


def test_a_focus_then_what_to_leave_out_are_two_edits(scripted, corpus):
    edits, _ = _edits(scripted, corpus, "focus on augmentation but nothing about speech")
    cps = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
    assert [(c["kind"], c["text"]) for c in cps] == [("topic", "The paper is about augmentation"),
                                                      ("exclusion", "The paper is not about speech")]


@pytest.mark.parametrize(("feedback", "message"), [
    ("exclude speech papers from before 2020", "two wishes apart"),
    ("drop the old speech papers", "two wishes apart"),
    ("no speech except #2", "cannot be kept past a filter"),
])
def test_a_wish_no_one_constraint_says_is_refused_by_name(scripted, corpus, feedback, message):
    """A trial's "exclude speech papers from before 2010" kept only papers from before 2010."""
    from litnav.navigator.feedback import FeedbackError

    with pytest.raises(FeedbackError, match=message):
        _edits(scripted, corpus, feedback)


def test_leaving_out_old_papers_asks_for_recent_ones(scripted, corpus):
    edits, _ = _edits(scripted, corpus, "drop the old papers")
    [cp] = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
    assert cp["predicate"]["field"] == "year" and cp["weight"] < 1.0 and not cp["predicate"]["negate"]


def test_pins_said_together_keep_the_order_said(scripted, corpus):
    ranking = [r.corpus_id for r in scripted.results]
    session = refine(scripted.model_copy(deep=True), "pin #2 and #3", corpus, Settings())
    assert session.turns[-1].pins[:2] == ranking[1:3]


@pytest.mark.parametrize(("feedback", "focus"), [("must use contrastive losses", "contrastive losses"),
                                                 ("needs a linear evaluation", "linear evaluation"),
                                                 ("linear evaluation required", "linear evaluation")])
def test_a_requirement_of_content_is_a_focus_on_it(scripted, corpus, feedback, focus):
    edits, _ = _edits(scripted, corpus, feedback)
    assert [e.detail["checkpoint"]["text"] for e in edits] == [f"The paper is about {focus}"]


@pytest.mark.parametrize(("feedback", "expect"), [("#3 👎", ("ban", 3)), ("❤️ #1", ("pin", 1))])
def test_a_result_marked_with_an_emoji_is_put_aside_or_pinned(scripted, corpus, feedback, expect):
    edits, ranking = _edits(scripted, corpus, feedback)
    assert [(e.action, e.target) for e in edits] == [(expect[0], ranking[expect[1] - 1])]


@pytest.mark.parametrize("feedback", ["never mind speech", "undo the speech exclusion", "never mind the speech filter",
                                      "keep the speech papers after all"])
def test_letting_something_back_in_drops_what_left_it_out_and_asks_for_nothing(scripted, corpus, feedback):
    """A trial's "undo the LREC filter" and "never mind LREC" had become filters *for* LREC."""
    edits, last = _edits_last(scripted, corpus, feedback)
    [x] = [c.id for c in last.checklist.checkpoints if c.kind == "exclusion"]
    assert [(e.action, e.target) for e in edits] == [("drop_checkpoint", x)]


def test_a_correction_that_names_no_one_period_is_refused_not_read_as_one_year(scripted, corpus):
    from litnav.navigator.feedback import FeedbackError

    with pytest.raises(FeedbackError, match="not clear which period"):
        _edits(scripted, corpus, "I meant 2012")  # the first turn has no year constraint
    edits, last = _edits_last(scripted, corpus, "I meant 2016 to 2018")  # a whole period: as said
    [cp] = [e.detail["checkpoint"]["predicate"] for e in edits if e.action == "add_checkpoint"]
    assert (cp["start"], cp["end"]) == ("2016-01-01", "2018-12-31")


def test_a_correction_to_an_upper_bound_replaces_the_period(scripted, corpus):
    """A trial's "oops, I meant before 2012" after "since 2010" kept both: 2010-2011 only."""
    edits, last = _edits_last(scripted, corpus, "oops, I meant before 2022")
    [cp] = [e.detail["checkpoint"]["predicate"] for e in edits if e.action == "add_checkpoint"]
    assert (cp["start"], cp["end"]) == (None, "2021-12-31")
    assert [e.target for e in edits if e.action == "drop_checkpoint"] == [_year_id(last)]


@pytest.mark.parametrize("feedback", ["oops, 2021", "sorry, 2021", "oops 2021!", "correction: 2021"])
def test_a_year_alone_after_oops_corrects_the_period_in_its_form(scripted, corpus, feedback):
    """A trial's "oops, 2012" after "since 2010" became the year 2012 alone."""
    edits, last = _edits_last(scripted, corpus, feedback)
    [cp] = [e.detail["checkpoint"]["predicate"] for e in edits if e.action == "add_checkpoint"]
    assert (cp["start"], cp["end"]) == ("2021-01-01", None)
    assert [e.target for e in edits if e.action == "drop_checkpoint"] == [_year_id(last)]


@pytest.mark.parametrize("feedback", ["focus on anything but speech", "concentrate on everything except speech"])
def test_a_focus_on_anything_but_a_topic_leaves_the_topic_out(scripted, corpus, feedback):
    edits, _ = _edits(scripted, corpus, feedback)
    assert [(e.detail["role"], e.detail["checkpoint"]["terms"]) for e in edits] == [("exclude", ["speech"])]


def test_a_list_left_out_then_but_and_a_period_keeps_all_three(scripted, corpus):
    """A trial's "no LREC and no workshops but since 2008" excluded the word "workshops"."""
    edits, _ = _edits(scripted, corpus, "no speech and no audio but since 2020")
    cps = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
    assert {t.lower() for c in cps if c["kind"] == "exclusion" for t in c["terms"]} == {"speech", "audio"}
    assert [c["predicate"]["start"] for c in cps if c["kind"] == "metadata"] == ["2020-01-01"]


def test_a_result_named_as_paper_and_its_id_is_that_result(scripted, corpus):
    ranking = [r.corpus_id for r in scripted.turns[0].results]
    named = next(cid for cid in ranking if any(ch.isdigit() for ch in cid))  # an id as ids are: "simclrv2", "L14-1147"
    edits, _ = _edits(scripted, corpus, f"pin paper {named}")
    assert [(e.action, e.target) for e in edits] == [("pin", named)]


def test_a_name_before_papers_is_an_author_only_when_the_corpus_lists_that_author(scripted, corpus):
    """A trial's "no Hermann Ney papers" excluded the words "Hermann Ney" instead of his papers."""
    edits, _ = _edits(scripted, corpus, "no Author Moco papers")  # the fixture's authors are "Author <id>"
    [cp] = [e.detail["checkpoint"] for e in edits]
    assert cp["predicate"]["field"] == "author" and cp["predicate"]["negate"]
    assert cp["predicate"]["values"][0].endswith("Moco")  # "by Author Moco" reads "Author" as the word, not a name
    edits, _ = _edits(scripted, corpus, "no Contrastive Learning papers")
    assert [e.detail["checkpoint"]["kind"] for e in edits] == ["exclusion"]
    edits, _ = _edits(scripted, corpus, "more Author Moco papers")  # more of them: ranked first, none left out
    [cp] = [e.detail["checkpoint"] for e in edits]
    assert cp["predicate"]["field"] == "author" and not cp["predicate"]["negate"] and cp["weight"] < 1.0


def test_nothing_but_a_type_is_only_that_type(scripted, corpus):
    edits, _ = _edits(scripted, corpus, "nothing but surveys")
    [cp] = [e.detail["checkpoint"] for e in edits]
    assert cp["predicate"] == {**cp["predicate"], "field": "publication_type", "values": ["survey"], "negate": False}
    assert cp["weight"] == 1.0


def test_a_wider_period_replaces_the_intents_and_a_stricter_wish_replaces_a_preference(corpus):
    """A trial's "since 2008" after an intent's "since 2010" added a constraint that changed nothing
    ("+0 -0"), and "only since 2021" after "ideally since 2021" was refused as already there."""
    from litnav.navigator.feedback import parse_feedback

    for intent, feedback, start, weight in (("contrastive learning since 2020", "since 2019", "2019-01-01", 1.0),
                                            ("contrastive learning, ideally since 2021", "only since 2021",
                                             "2021-01-01", 1.0)):
        first = search(intent, corpus, Settings(), top_k=5, rounds=1)
        [old] = [c.id for c in first.rounds[0].checklist.checkpoints if c.predicate is not None]
        edits = parse_feedback(feedback, first.rounds[0].checklist, first.rounds[0].workflow,
                               [r.corpus_id for r in first.results], corpus)
        assert [e.target for e in edits if e.action == "drop_checkpoint"] == [old]
        [cp] = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
        assert (cp["predicate"]["start"], cp["weight"]) == (start, weight)


def test_a_type_let_back_in_beside_a_wanted_type_widens_it(scripted, corpus):
    session = refine(scripted.model_copy(update={"turns": scripted.turns[:1]}, deep=True), "only surveys", corpus,
                     Settings())
    from litnav.navigator.feedback import parse_feedback

    last = session.turns[-1]
    edits = parse_feedback("tutorials too", last.checklist, last.workflow, [r.corpus_id for r in last.results], corpus)
    [cp] = [e.detail["checkpoint"]["predicate"] for e in edits if e.action == "add_checkpoint"]
    assert sorted(cp["values"]) == ["survey", "tutorial"] and not cp["negate"]


def test_what_is_not_required_drops_a_focus_on_it_and_filters_nothing(scripted, corpus):
    session = refine(scripted.model_copy(deep=True), "must use contrastive losses", corpus, Settings())
    from litnav.navigator.feedback import parse_feedback

    last = session.turns[-1]
    [focus] = [c.id for c in last.checklist.checkpoints if c.source == "user" and c.kind == "topic"]
    edits = parse_feedback("contrastive losses not required", last.checklist, last.workflow,
                           [r.corpus_id for r in last.results], corpus)
    assert [(e.action, e.target) for e in edits] == [("drop_checkpoint", focus)]


def test_a_focus_then_a_clause_that_leaves_something_out_are_two_edits(scripted, corpus):
    edits, _ = _edits(scripted, corpus, "focus on augmentation but skip speech")
    cps = [e.detail["checkpoint"] for e in edits if e.action == "add_checkpoint"]
    assert [(c["kind"], c["text"]) for c in cps] == [("topic", "The paper is about augmentation"),
                                                      ("exclusion", "The paper is not about speech")]


def test_a_pin_and_a_struck_out_result_in_one_line_are_a_pin_and_a_ban(scripted, corpus):
    edits, ranking = _edits(scripted, corpus, "📌 #2, ❌ #5")
    assert sorted((e.action, e.target) for e in edits) == [("ban", ranking[4]), ("pin", ranking[1])]


def test_a_result_named_by_an_arxiv_or_year_first_id_is_that_result(scripted):
    """"pin paper 2206.03996v4" read "paper 2206" as result number 2206."""
    from litnav.navigator.feedback import parse_feedback

    first = scripted.turns[0]
    ranking = ["2206.03996v4", "2012.amta-monomt.7", *[r.corpus_id for r in first.results]]
    for named in ranking[:2]:
        edits = parse_feedback(f"pin paper {named}", first.checklist, first.workflow, ranking, None, None)
        assert [(e.action, e.target) for e in edits] == [("pin", named)]


def test_the_turns_table_names_the_paper_whose_citations_a_turn_followed(scripted):
    """A trial's turns table said "citing direction of the top paper" without naming it; later turns renumber."""
    from rich.console import Console

    from litnav.session.render import turns_table

    console = Console(width=400, record=True)
    console.print(turns_table(scripted))
    [seed] = [(e.detail.get("seed_ids") or e.detail["node"]["params"]["seed_ids"])[0] for t in scripted.turns
              for e in t.edits if e.action == "add_node" and e.target.startswith("cite_")]
    assert f"(seed {seed})" in console.export_text()
