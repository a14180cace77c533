"""The harness with fake systems: hallucination rate, per-round recall, run files, JSON, reports."""

from __future__ import annotations

import json

import pytest

from litnav.core.records import Usage
from litnav.corpus.records import Paper
from litnav.evaluation import (
    Benchmark,
    EvaluationError,
    SystemRun,
    Task,
    check_system_names,
    evaluate,
    plot_rounds,
    report_to_dict,
    to_markdown,
    write_json,
    write_run_files,
)
from litnav.evaluation.systems import System, litnav_overrides

KS = [5, 10, 20, 50]


class FakeCorpus:
    def __init__(self, papers: list[Paper]) -> None:
        self._papers = {p.corpus_id: p for p in papers}

    def papers(self, ids):
        return {i: self._papers[i] for i in ids if i in self._papers}


class Fixed:
    """Returns a canned SystemRun per query text."""

    def __init__(self, name: str, runs: dict[str, SystemRun]) -> None:
        self.name, self.runs = name, runs

    def run(self, query: str) -> SystemRun:
        return self.runs[query]


CORPUS = FakeCorpus([
    Paper(corpus_id="a", title="Alpha Paper", year=2020, venue="ACL", venue_raw="Proceedings of ACL"),
    Paper(corpus_id="b", title="B Paper", year=2019),
    Paper(corpus_id="c", title="Gamma"),
    Paper(corpus_id="d", title="Delta", year=2001),
])
BENCH = Benchmark(
    [Task("q1", "first", {"a": 1, "b": 1}), Task("q2", "second", {"c": 2, "gone": 1})], source="fake"
)


def _liar() -> System:
    return Fixed("liar", {
        "first": SystemRun(
            ranking=[("a", 0.9), ("nope", 0.5), ("b", 0.3)],
            printed=[
                {"corpus_id": "a", "title": "A Wrong Title", "year": 2020},
                {"corpus_id": "nope", "title": "Invented"},
                {"corpus_id": "b", "title": "b paper!", "year": 2019, "venue": None},
            ],
        ),
        "second": SystemRun(
            ranking=[("c", 1.0), ("a", 0.5)],
            printed=[{"corpus_id": "c", "title": "Gamma"}, {"corpus_id": "a", "venue": "proceedings of acl", "year": 2021}],
        ),
    })


def _multi() -> System:
    usage = Usage(calls=2, prompt_tokens=100, completion_tokens=20, cost_usd=0.01)
    return Fixed("litnav-fake", {
        "first": SystemRun([("d", 0.9), ("a", 0.8), ("b", 0.7)], per_round=[["d"], ["d", "a"], ["d", "a", "b"]],
                           stage_seconds={"plan": 1.0, "score": 3.0}, usage=usage),
        "second": SystemRun([("c", 0.9)], per_round=[["d"], ["c"]], stage_seconds={"plan": 2.0}, usage=usage),
    })


def _perfect() -> System:
    return Fixed("perfect", {"first": SystemRun([("a", 1.0), ("b", 1.0)]), "second": SystemRun([("c", 1.0)])})


@pytest.fixture(scope="module")
def report():
    return evaluate(BENCH, [_perfect(), _liar(), _multi()], CORPUS, KS, progress=False)


def test_hallucination_rate_counts_fake_ids_and_wrong_metadata(report):
    liar = report.systems["liar"]
    # q1: "nope" is not a record, "a" has a wrong title; "b" matches after normalisation -> 2/3
    assert liar.per_query["q1"]["hallucination_rate"] == pytest.approx(2 / 3)
    # q2: "a" printed with the raw venue (matches) but a wrong year -> 1/2
    assert liar.per_query["q2"]["hallucination_rate"] == pytest.approx(1 / 2)
    assert liar.metrics["hallucination_rate"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert {p["corpus_id"]: p["problem"] for p in liar.hallucinated["q1"]} == {"a": "wrong title", "nope": "not in corpus"}
    assert liar.hallucinated["q2"] == [{"corpus_id": "a", "problem": "wrong year"}]
    assert report.systems["perfect"].metrics["hallucination_rate"] == 0.0


def test_missing_gold_reported_and_counted_against_recall(report):
    assert report.missing_gold == {"q2": ["gone"]}
    assert report.missing_gold_count == 1
    perfect = report.systems["perfect"]
    assert perfect.per_query["q1"]["Recall@5"] == 1.0
    assert perfect.per_query["q2"]["Recall@5"] == 0.5
    assert perfect.metrics["Recall@5"] == pytest.approx(0.75)
    assert perfect.metrics["MRR"] == 1.0


def test_per_round_recall_cost_and_stages(report):
    multi = report.systems["litnav-fake"]
    # q1 rounds: [d] -> 0, [d,a] -> 1/2, [d,a,b] -> 1; q2 (2 rounds, padded): [d] -> 0, [c] -> 1/2, [c] -> 1/2
    assert [r["Recall@5"] for r in multi.per_round] == pytest.approx([0.0, 0.5, 0.75])
    assert [r["round"] for r in multi.per_round] == [1, 2, 3]
    assert multi.metrics["tokens"] == 120
    assert multi.metrics["cost_usd"] == pytest.approx(0.01)
    assert multi.stage_seconds == {"plan": 1.5, "score": 1.5}
    assert multi.metrics["latency_s"] >= 0
    assert report.systems["perfect"].per_round is None
    assert report.systems["perfect"].metrics["tokens"] == 0


def test_ci_brackets_macro_mean(report):
    for res in report.systems.values():
        for metric, (lo, hi) in res.ci.items():
            assert lo <= res.metrics[metric] + 1e-12 and res.metrics[metric] <= hi + 1e-12, (res.name, metric)


def test_run_file_format(report, tmp_path):
    paths = write_run_files(report, tmp_path / "runs")
    assert sorted(p.name for p in paths) == ["liar.run", "litnav-fake.run", "perfect.run"]
    lines = (tmp_path / "runs" / "liar.run").read_text().splitlines()
    # the score column is N + 1 - rank: trec_eval, pytrec_eval and ranx order by score, and a
    # system's own scores need not follow its order (litnav's final scores did not)
    assert lines == [
        "q1 Q0 a 1 3 liar",
        "q1 Q0 nope 2 2 liar",
        "q1 Q0 b 3 1 liar",
        "q2 Q0 c 1 2 liar",
        "q2 Q0 a 2 1 liar",
    ]
    for line in (tmp_path / "runs" / "litnav-fake.run").read_text().splitlines():
        qid, q0, docid, rank, score, system = line.split(" ")
        assert q0 == "Q0" and int(rank) >= 1 and system.startswith("litnav")
        float(score)


def test_json_keys(report, tmp_path):
    data = json.loads(write_json(report, tmp_path / "out.json").read_text())
    assert set(data["systems"]) == {"perfect", "liar", "litnav-fake"}
    entry = data["systems"]["litnav-fake"]
    for key in ("nDCG@10", "Recall@20", "F1@20", "Precision@5", "Hit@10", "MRR", "Recall@50",
                "hallucination_rate", "latency_s", "tokens", "cost_usd", "ci", "per_query", "missing_gold",
                "per_round", "stage_seconds"):
        assert key in entry, key
    assert entry["ci"]["nDCG@10"][0] <= entry["nDCG@10"] <= entry["ci"]["nDCG@10"][1]
    assert set(entry["per_query"]) == {"q1", "q2"}
    assert entry["per_query"]["q1"]["Recall@5"] == 1.0
    assert entry["missing_gold"] == {"count": 1, "queries": 1, "by_query": {"q2": ["gone"]}}
    assert data["ks"] == KS and data["benchmark"]["queries"] == 2
    assert report_to_dict(report)["bootstrap"]["seed"] == report.seed


def test_markdown_and_plot(report, tmp_path):
    md = to_markdown(report)
    assert "| nDCG@10 |" in md and "litnav-fake round 3" in md and "- q2: gone" in md
    png = plot_rounds(report, tmp_path / "rounds.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_system_failure_names_system_and_query():
    class Broken:
        name = "broken"

        def run(self, query):
            raise RuntimeError("boom")

    with pytest.raises(EvaluationError, match=r"'broken' failed on query 'q1': boom"):
        evaluate(BENCH, [Broken()], CORPUS, KS, progress=False)
    with pytest.raises(ValueError, match="unique"):
        evaluate(BENCH, [_perfect(), _perfect()], CORPUS, KS, progress=False)


def test_system_names_and_ablations():
    assert check_system_names(["bm25", " dense", "bm25", "litnav-rounds-2"]) == ["bm25", "dense", "litnav-rounds-2"]
    assert litnav_overrides("litnav-no-citations") == {"librarians": {"citation_expansion": False}}
    assert litnav_overrides("litnav-no-reflection") == {"navigator": {"rounds": 1}}
    assert litnav_overrides("litnav-no-scorer") == {"scorer": {"enabled": False}}
    assert litnav_overrides("litnav-rounds-4") == {"navigator": {"rounds": 4}}
    with pytest.raises(ValueError, match="unknown system 'bm26'"):
        check_system_names(["bm26"])
    with pytest.raises(ValueError, match="rounds must be >= 1"):
        check_system_names(["litnav-rounds-0"])


def test_paired_difference_against_bm25():
    bm25 = _perfect()
    bm25.name = "bm25"
    rep = evaluate(BENCH, [bm25, _multi()], CORPUS, [5], progress=False)
    mean, lo, hi = rep.deltas("bm25")["litnav-fake"]["MRR"]
    # per query: 1 vs 1/2 and 1 vs 1 -> differences -0.5, 0
    assert mean == pytest.approx(-0.25)
    assert lo <= mean <= hi and lo >= -0.5 and hi <= 0.0
    data = report_to_dict(rep)
    assert data["systems"]["litnav-fake"]["delta_vs_bm25"]["MRR"][0] == pytest.approx(-0.25)
    assert "delta_vs_bm25" not in data["systems"]["bm25"]
    assert "Difference from bm25" in to_markdown(rep)


def test_the_notes_count_papers_a_system_left_out_and_how_they_were_judged():
    """litnav leaves a quoted passage's own paper out, the baselines rank it first: on a
    CSFCube-style suite most of litnav's gain over hybrid came from that, and nothing said so."""
    from litnav.evaluation.report import note_lines

    drops = Fixed("litnav-x", {"first": SystemRun([("b", 1.0)], left_out=["d"]),
                               "second": SystemRun([("c", 1.0)], left_out=["a"])})
    bench = Benchmark([Task("q1", "first", {"a": 1, "b": 1}), Task("q2", "second", {"c": 2, "a": 0})], source="fake",
                      skipped_queries=["q3"], unmatched_qrels=["q9"])
    lines = note_lines(evaluate(bench, [drops], CORPUS, KS, progress=False))
    assert lines[0].startswith("Judgements: graded") and "base rate 75.0%" in lines[0]
    assert "Skipped 1 queries without a relevant judgement: q3." in lines
    assert "Left out the judgements of 1 query ids the queries file does not hold: q9." in lines
    assert lines[-1].startswith("litnav-x left out the query's own paper") and "in 2 of 2 queries (1 unjudged, " \
        "1 judged not relevant)" in lines[-1]


def test_a_fallback_query_counts_in_the_per_round_recall():
    """A query ranked by litnav's first stage alone has no rounds of its own; "Recall per round"
    left it out silently, so its numbers covered fewer queries than the main table's."""
    mixed = Fixed("litnav-y", {"first": SystemRun([("a", 1.0), ("b", 0.5)], per_round=[["a"], ["a", "b"]]),
                               "second": SystemRun([("c", 1.0)], fallback="intent names nothing")})
    res = evaluate(BENCH, [mixed], CORPUS, KS, progress=False).systems["litnav-y"]
    assert res.per_round[-1]["Recall@5"] == pytest.approx(res.metrics["Recall@5"])
