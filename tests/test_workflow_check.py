"""A workflow a user edits runs as written or is refused with the node and field named: a node
that feeds nothing, a second score node, a filter or ``within`` on a preference, ids the checklist
lacks, unknown seeds, unfilled placeholders; the results' notes say what the workflow did. From a
power-user trial of ``litnav plan`` -> edit -> ``litnav search --workflow``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litnav.core.records import Node
from litnav.core.settings import Settings
from litnav.corpus import Corpus
from litnav.librarians import WorkflowError
from litnav.navigator import search
from litnav.navigator.planner import plan_workflow, rule_checklist
from litnav.session.render import result_notes

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "multiturn"))
from multiturn_papers import build_corpus  # noqa: E402

INTENT = "contrastive learning of visual representations since 2019"


@pytest.fixture(scope="module")
def corpus_dir(tmp_path_factory) -> Path:
    return build_corpus(tmp_path_factory.mktemp("wfcheck") / "corpus")


@pytest.fixture(scope="module")
def corpus(corpus_dir):
    c = Corpus.open(corpus_dir)
    yield c
    c.close()


def _planned(corpus, intent=INTENT):
    settings = Settings()
    return plan_workflow(rule_checklist(intent, corpus, settings), settings)


def _refused(corpus, wf, *words, intent=INTENT):
    with pytest.raises(WorkflowError) as err:
        search(intent, corpus, Settings(), workflow=wf, rounds=1, top_k=5)
    assert all(w in str(err.value) for w in words), str(err.value)


def test_a_node_that_feeds_nothing_is_refused_by_name(corpus):
    """A trial's orphan search ran (and cost time) and its result was thrown away, silently."""
    wf = _planned(corpus)
    wf.nodes.append(Node(id="orphan", op="lexical_search", params={"query": "momentum contrast", "k": 5}))
    _refused(corpus, wf, "'orphan'", "no path")


def test_a_second_score_node_is_refused(corpus):
    """A trial's unused second score node re-counted round 1 and reordered the results from rank 1."""
    wf = _planned(corpus)
    wf.nodes.append(Node(id="score2", op="score", inputs=["evidence"]))
    _refused(corpus, wf, "exactly one score node")


def test_a_filter_or_within_on_a_preference_is_refused(corpus):
    intent = "contrastive learning, preferably since 2021"  # a soft year: weight 0.5
    checklist = rule_checklist(intent, corpus, Settings())
    [soft] = [c.id for c in checklist.checkpoints if c.kind == "metadata"]
    wf = _planned(corpus, intent)
    fuse = wf.node("fuse")
    wf.nodes.append(Node(id="f", op="filter", inputs=["fuse"], params={"checkpoint_ids": [soft]}))
    wf.node("evidence").inputs = ["f"]
    assert fuse.id == "fuse"
    _refused(corpus, wf, "'f'", "checkpoint_ids", "preference", intent=intent)
    wf = _planned(corpus, intent)
    wf.node("lexical_intent").params = {**wf.node("lexical_intent").params, "within": [soft]}
    _refused(corpus, wf, "'lexical_intent'", "within", "preference", intent=intent)


def test_an_empty_filter_enforces_the_hard_constraints_only(corpus):
    """"checkpoint_ids": [] had filtered by the preferences too and returned nothing."""
    intent = "contrastive learning since 2019, preferably in TMLR"  # no TMLR paper: a relaxed preference
    wf = _planned(corpus, intent)
    wf.node("filter").params = {**wf.node("filter").params, "checkpoint_ids": []}
    session = search(intent, corpus, Settings(), workflow=wf, rounds=1, top_k=5)
    assert session.results and all(corpus.papers([r.corpus_id])[r.corpus_id].year >= 2019 for r in session.results)


def test_ids_the_checklist_lacks_and_unknown_seeds_are_refused_with_what_there_is(corpus):
    wf = _planned(corpus)
    wf.node("semantic_intent").params = {**wf.node("semantic_intent").params, "within": ["m7"]}
    _refused(corpus, wf, "'semantic_intent'", "'params.within'", "['m7']", "m1")
    wf = _planned(corpus)
    wf.nodes.append(Node(id="cite", op="citation_expand", params={"seed_ids": ["no-such-paper"], "direction": "citing"}))
    wf.node("fuse").inputs.append("cite")
    wf.node("fuse").params = {**wf.node("fuse").params, "weights": [*wf.node("fuse").params["weights"], 1.0]}
    _refused(corpus, wf, "'cite'", "no-such-paper", "not papers of the corpus")


def test_a_placeholder_slip_in_an_anchor_template_is_refused_and_tex_is_not_one(corpus, tmp_path):
    """A trial's `seed_ids: ["{anchr}"]` listed nothing and blamed the corpus; and a check of every
    "{word}" after filling refused anchors whose abstracts hold TeX ("$AP^{box}$")."""
    from litnav.navigator.anchor import AnchorError, anchor_search, load_template

    template = load_template("successor")
    template["nodes"][0]["params"]["seed_ids"] = ["{anchr}"]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(template))
    with pytest.raises(AnchorError, match=r"\{anchr\} is no placeholder; did you mean \{anchor\}"):
        anchor_search("simclr", "successor", corpus, Settings(), template=path, top_k=5)
    wf = _planned(corpus)
    wf.node("lexical_intent").params = {**wf.node("lexical_intent").params,
                                        "query": r"contrastive loss in \mathbb{R}^d raising $AP^{box}$"}
    assert search(INTENT, corpus, Settings(), workflow=wf, rounds=1, top_k=5).results
    wf.nodes.append(Node(id="cite", op="citation_expand", params={"seed_ids": ["{anchr}"], "direction": "citing"}))
    wf.node("fuse").inputs.append("cite")
    wf.node("fuse").params = {**wf.node("fuse").params, "weights": [*wf.node("fuse").params["weights"], 1.0]}
    _refused(corpus, wf, "'cite'", "seed_ids", "{anchr}", "not papers of the corpus")


def test_the_workflows_top_k_is_the_number_of_results_and_the_record_says_what_ran(corpus):
    """A trial's `rerank.top_k: 5` was ignored by search (20 results) and obeyed by the next refine."""
    wf = _planned(corpus)
    wf.node("rank").params = {**wf.node("rank").params, "top_k": 3}
    session = search(INTENT, corpus, Settings(), workflow=wf, rounds=1)
    assert len(session.results) == 3 and session.rounds[0].workflow.top_k() == 3
    session = search(INTENT, corpus, Settings(), workflow=wf, rounds=1, top_k=4)  # an explicit number wins
    assert len(session.results) == 4 and session.rounds[0].workflow.top_k() == 4


def test_too_few_results_are_blamed_on_the_constraints_only_when_their_filter_cut_the_list(corpus):
    """"Only 5 papers found pass the hard constraints" was printed when a channel's k=5 cut the list."""
    wf = _planned(corpus)
    for n in wf.nodes:
        if n.op in ("lexical_search", "semantic_search"):
            n.params = {**n.params, "k": 2}
    session = search(INTENT, corpus, Settings(), workflow=wf, rounds=1, top_k=10)
    assert len(session.results) < 10
    notes = result_notes(session)
    assert not any("pass the hard constraints" in n for n in notes)
    assert any("the workflow's filter passed" in n and "candidates its searches retrieved" in n for n in notes)


def test_later_rounds_planned_by_reflection_are_said(corpus):
    session = search(INTENT, corpus, Settings(), workflow=_planned(corpus), rounds=3, top_k=5)
    if len(session.rounds) > 1:
        assert any("round 1 ran the workflow" in n for n in result_notes(session))
    one = search(INTENT, corpus, Settings(), workflow=_planned(corpus), rounds=1, top_k=5)
    assert one.engines["workflow"] == "given (round 1)"
    assert not any("round 1 ran the workflow" in n for n in result_notes(one))


@pytest.fixture(scope="module")
def runner():
    from litnav.cli import _register

    _register()
    return CliRunner()


def test_a_plan_file_says_its_intent_and_a_search_of_another_intent_warns(corpus_dir, runner, tmp_path):
    from litnav.cli import app

    out = tmp_path / "wf.json"
    res = runner.invoke(app, ["plan", INTENT, "--corpus", str(corpus_dir), "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(out.read_text())
    assert data["intent"] == INTENT and "m1" in data["checkpoints"] and data["nodes"]
    res = runner.invoke(app, ["search", "speech representations since 2020", "--corpus", str(corpus_dir), "--workflow",
                              str(out), "--rounds", "1", "--no-interactive", "--json", str(tmp_path / "s.json")])
    assert res.exit_code == 0, res.output
    assert "was planned for the intent" in " ".join(res.output.split())


def test_plan_says_when_search_runs_the_intent_as_an_anchor_search(corpus_dir, runner):
    """A trial's "papers citing <title>": plan showed a topic workflow, search ran the citing papers."""
    from litnav.cli import app

    res = runner.invoke(app, ["plan", "papers citing A Simple Framework for Contrastive Learning of Visual "
                              "Representations", "--corpus", str(corpus_dir)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "anchor search of simclr" in " ".join(res.output.split())


def test_too_few_results_of_the_planned_workflow_are_blamed_on_the_constraints(corpus):
    session = search("contrastive learning since 2022", corpus, Settings(), rounds=1, top_k=10)
    assert len(session.results) < 10
    assert any(n.startswith("Only ") and "the hard constraints" in n for n in result_notes(session))


def test_the_evidence_nodes_limit_caps_the_papers_judged(corpus):
    """A trial's `locate_evidence.limit: 3` had no effect: the scorer judged its own number of papers."""
    wf = _planned(corpus)
    wf.node("evidence").params = {**wf.node("evidence").params, "limit": 3}
    session = search(INTENT, corpus, Settings(), workflow=wf, rounds=1, top_k=8)
    assert len(session.results) > 3
    assert sum(bool(r.checkpoints) for r in session.results) == 3


def test_a_direction_without_an_anchor_is_refused_not_overridden(corpus_dir, runner):
    """A trial's "follow-up work of <title>" with --direction predecessor silently ran the successors."""
    from litnav.cli import app

    res = runner.invoke(app, ["search", "follow-up work of A Simple Framework for Contrastive Learning of Visual "
                              "Representations", "--direction", "predecessor", "--corpus", str(corpus_dir),
                              "--no-interactive"])
    assert res.exit_code == 2 and "needs --anchor" in " ".join(res.output.split())


def test_the_audit_names_the_workflow_that_ran_and_turn_one_lists_every_rounds_nodes(corpus_dir, runner, tmp_path):
    """A trial: the audit never showed the workflow or its file, and turn 1's "re-run" listed only the
    last round's nodes (the user's lexical_intent missing)."""
    from litnav.cli import app
    from litnav.navigator.turns import first_turn
    from litnav.session.io import read_session

    wf = tmp_path / "wf.json"
    assert runner.invoke(app, ["plan", INTENT, "--corpus", str(corpus_dir), "--out", str(wf)]).exit_code == 0
    out = tmp_path / "s.json"
    res = runner.invoke(app, ["search", INTENT, "--corpus", str(corpus_dir), "--workflow", str(wf), "--rounds", "3",
                              "--no-interactive", "--json", str(out)])
    assert res.exit_code == 0, res.output
    audit = runner.invoke(app, ["audit", str(out)], env={"COLUMNS": "300"})
    assert audit.exit_code == 0 and "round-1 workflow [" + str(wf.resolve()) in " ".join(audit.output.split())
    session = read_session(out)
    assert "lexical_intent" in first_turn(session).rerun
