"""``litnav eval --multi-turn``: per-turn Hit@5/MRR/nDCG@10 over scripted anchor cases, a clear
error for a malformed case file, and PaperPilot's workflow edit metrics."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litnav.core.records import Node, Workflow
from litnav.evaluation.multiturn import MultiTurnError, load_cases
from litnav.evaluation.workflow_metrics import workflow_edit_metrics

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "multiturn"))
from multiturn_papers import build_corpus  # noqa: E402

CASES = [
    {"id": "s1", "anchor": "simclr", "direction": "successor", "query": "contrastive pretraining of image encoders",
     "turns": ["only papers after 2020", "drop anything about speech"], "gold": ["medcl", "augpolicy", "clip"]},
    {"id": "p1", "anchor": "simclr", "direction": "predecessor", "query": "contrastive learning",
     "turns": ["only papers after 2017"], "gold": ["moco", "cpc"]},
]


def test_cli_reports_every_turn(tmp_path):
    from litnav.cli import _register, app

    _register()
    corpus = build_corpus(tmp_path / "corpus")
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(c) + "\n" for c in CASES))
    out = tmp_path / "report.json"
    res = CliRunner().invoke(app, ["eval", "--corpus", str(corpus), "--multi-turn", str(cases), "--json", str(out),
                                   "--set", "scorer.enabled=false", "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads(out.read_text())
    s1 = next(c for c in report["cases"] if c["id"] == "s1")
    assert [t["turn"] for t in s1["turns"]] == [1, 2, 3]
    for t in s1["turns"]:
        assert set(t["metrics"]) == {"Hit@5", "MRR", "nDCG@10"}
        assert all(0.0 <= v <= 1.0 for v in t["metrics"].values())
    # turn 3 dropped the speech paper that cites the anchor; every gold paper is still found
    assert "speechaug" in s1["turns"][0]["ranking"] and "speechaug" not in s1["turns"][2]["ranking"]
    assert s1["turns"][2]["metrics"]["MRR"] == 1.0
    assert [t["turn"] for t in report["summary"]["overall"]] == [1, 2, 3]


def test_malformed_case_file_names_line_and_field(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(CASES[0]) + "\n" + json.dumps({"id": "x", "anchor": "a"}) + "\n")
    with pytest.raises(MultiTurnError, match=r"bad.jsonl:2: missing field 'direction'"):
        load_cases(bad)


def test_workflow_edit_metrics():
    a = Workflow(nodes=[Node(id="s", op="semantic_search", params={"query": "q", "k": 10}),
                        Node(id="f", op="filter", inputs=["s"])], output="f")
    same_renamed = Workflow(nodes=[Node(id="x", op="semantic_search", params={"query": "q", "k": 10}),
                                   Node(id="y", op="filter", inputs=["x"])], output="y")
    m = workflow_edit_metrics(a, same_renamed)
    assert m["node_jaccard"] == 1.0 and m["edge_jaccard"] == 1.0
    changed = Workflow(nodes=[Node(id="s", op="semantic_search", params={"query": "q", "k": 50}),
                              Node(id="f", op="filter", inputs=["s"]),
                              Node(id="t", op="text_filter", params={"exclude_terms": ["speech"]}, inputs=["f"])],
                       output="t")
    m = workflow_edit_metrics(a, changed)
    assert (m["added"], m["removed"], m["modified"], m["edits"]) == (1, 0, 1, 2)
    assert m["node_jaccard"] == pytest.approx(1 / 4)  # filter shared; two searches differ; text_filter new
