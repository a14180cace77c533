"""The judged-intents benchmark format: grades derived from per-checkpoint labels, exact
metadata filters, the seeded dev/held-out split, and the benchmark shipped in bench/intents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litnav.evaluation.benchmark import (
    BenchmarkError,
    MetadataFilter,
    grade_from_labels,
    load_benchmark,
    load_intents,
)

ROOT = Path(__file__).resolve().parents[1]
CHECKLIST = [
    {"id": "c1", "kind": "topic", "text": "about sign language"},
    {"id": "x1", "kind": "exclusion", "text": "not about Twitter"},
    {"id": "m1", "kind": "year", "text": "2010 to 2014", "filter": {"year_min": 2010, "year_max": 2014}},
]


def _suite(tmp_path: Path, judgements: list[tuple[str, str, str, int]], split=None) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "intents.jsonl").write_text(json.dumps({"qid": "q1", "query": "sign language", "type": "metadata",
                                                      "checklist": CHECKLIST}) + "\n")
    (folder / "judgements.jsonl").write_text("".join(
        json.dumps({"qid": q, "corpus_id": c, "checkpoint": cp, "label": lab, "rationale": "r"}) + "\n"
        for q, c, cp, lab in judgements))
    if split is not None:
        (tmp_path / "split.json").write_text(json.dumps(split))
    return folder


def test_grade_is_the_weakest_content_label_gated_by_metadata():
    assert grade_from_labels(CHECKLIST, {"c1": 2, "x1": 2, "m1": 2}) == 2
    assert grade_from_labels(CHECKLIST, {"c1": 1, "x1": 2, "m1": 2}) == 1
    assert grade_from_labels(CHECKLIST, {"c1": 2, "x1": 0, "m1": 2}) == 0  # exclusion violated
    assert grade_from_labels(CHECKLIST, {"c1": 2, "x1": 2, "m1": 0}) == 0  # metadata fails
    assert grade_from_labels(CHECKLIST, {"c1": 2, "m1": 2}) is None  # not fully judged


def test_metadata_filter_is_exact_and_fails_missing_fields():
    f = MetadataFilter.from_checklist([*CHECKLIST, {"id": "m2", "kind": "venue", "text": "LREC",
                                                    "filter": {"venue_regex": "Language Resources"}}])
    assert f.passes(2012, "Proceedings of ... Language Resources and Evaluation (LREC'12)")
    assert not f.passes(2015, "Language Resources and Evaluation")
    assert not f.passes(None, "Language Resources and Evaluation")
    assert not f.passes(2012, None)
    assert MetadataFilter.from_checklist(CHECKLIST[:2]) is None


def test_loader_derives_gold_and_keeps_the_filter(tmp_path):
    folder = _suite(tmp_path, [("q1", "a", "c1", 2), ("q1", "a", "x1", 2), ("q1", "a", "m1", 2),
                               ("q1", "b", "c1", 2), ("q1", "b", "x1", 2), ("q1", "b", "m1", 0),
                               ("q1", "c", "c1", 2)])
    bench = load_intents(folder)
    (task,) = bench.tasks
    assert task.gold == {"a": 2, "b": 0}  # c is partly judged: left out
    assert task.filters == MetadataFilter(2010, 2014, None)
    assert "partly judged" in bench.source
    assert load_benchmark(folder).tasks[0].qid == "q1"


def test_split_selects_intents_and_names_missing_split_file(tmp_path):
    judged = [("q1", "a", "c1", 2), ("q1", "a", "x1", 2), ("q1", "a", "m1", 2)]
    folder = _suite(tmp_path, judged, split={"dev": {"suite": ["q1"]}, "heldout": {"suite": []}})
    assert [t.qid for t in load_benchmark(folder, split="dev").tasks] == ["q1"]
    with pytest.raises(BenchmarkError, match="no intent of split 'heldout'"):
        load_intents(folder, "heldout")
    (tmp_path / "split.json").unlink()
    with pytest.raises(BenchmarkError, match="split.json"):
        load_intents(folder, "dev")


def test_bad_label_names_file_and_line(tmp_path):
    folder = _suite(tmp_path, [("q1", "a", "c1", 3)])
    with pytest.raises(BenchmarkError, match=r"judgements.jsonl:1: label 3"):
        load_intents(folder)


@pytest.mark.parametrize("suite", ["acl-pre2016", "scifact", "acl-2016"])
def test_shipped_benchmark_loads_and_split_is_the_seeded_draw(suite):
    import importlib.util

    spec = importlib.util.spec_from_file_location("intents_split", ROOT / "bench" / "intents" / "split.py")
    split = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(split)
    assert json.loads((ROOT / "bench" / "intents" / "split.json").read_text()) == split.draw()
    dev = load_intents(ROOT / "bench" / "intents" / suite, "dev")
    assert dev.tasks and all(any(g > 0 for g in t.gold.values()) for t in dev.tasks)
    held = {q for q in split.draw()["heldout"][suite]}
    assert not held & {t.qid for t in dev.tasks}
