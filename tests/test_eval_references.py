"""hybrid+filter (hybrid then the task's exact metadata filter) and the paired differences
every system gets against hybrid, hybrid+filter and bm25."""

from __future__ import annotations

from litnav.core.settings import Settings
from litnav.corpus.records import Hit, Paper
from litnav.evaluation import Benchmark, SystemRun, Task, evaluate, report_to_dict, to_markdown
from litnav.evaluation.benchmark import MetadataFilter
from litnav.evaluation.systems import HybridSystem, make_systems

PAPERS = {
    "a": Paper(corpus_id="a", title="A", year=2012, venue_raw="Proceedings of LREC'12"),
    "b": Paper(corpus_id="b", title="B", year=2008, venue_raw="Proceedings of LREC'08"),
    "c": Paper(corpus_id="c", title="C", year=2013, venue_raw="Transactions of the ACL"),
    "d": Paper(corpus_id="d", title="D", year=None, venue_raw="Proceedings of LREC"),
}


class Corpus:
    def lexical_search(self, query, k):
        return [Hit(corpus_id=c, score=s) for c, s in [("b", 9.0), ("a", 5.0), ("d", 2.0)]][:k]

    def semantic_search(self, query, k, ids=None):
        return [Hit(corpus_id=c, score=s) for c, s in [("c", 0.9), ("d", 0.8), ("a", 0.1)]][:k]

    def papers(self, ids):
        return {i: PAPERS[i] for i in ids if i in PAPERS}


def test_hybrid_filter_applies_the_stated_filter_and_equals_hybrid_without_one():
    corpus = Corpus()
    (hf,) = make_systems(["hybrid+filter"], corpus, Settings(), depth=10)
    hybrid = HybridSystem(corpus, 10, lexical_k=200, semantic_k=200)
    plain = Task("q", "query", {"a": 1})
    assert hf.run_task(plain).ranking == hybrid.run("query").ranking
    lrec_2010s = Task("q", "query", {"a": 1}, filters=MetadataFilter(2010, 2014, "LREC"))
    ids = [c for c, _ in hf.run_task(lrec_2010s).ranking]
    assert ids == ["a"]  # b too old, c not LREC, d has no year


class Fixed:
    def __init__(self, name, order):
        self.name, self.order = name, order

    def run(self, query):
        return SystemRun([(c, 1.0 / (i + 1)) for i, c in enumerate(self.order[query])])


def test_every_system_is_compared_with_hybrid_and_bm25():
    bench = Benchmark([Task("q1", "one", {"a": 2, "b": 1}), Task("q2", "two", {"c": 1})], source="fake")
    systems = [
        Fixed("bm25", {"one": ["x", "a"], "two": ["c"]}),
        Fixed("hybrid", {"one": ["a", "x"], "two": ["x", "c"]}),
        Fixed("litnav", {"one": ["a", "b"], "two": ["c"]}),
    ]
    report = evaluate(bench, systems, Corpus(), ks=[1, 10], progress=False)
    assert report.references() == ["hybrid", "bm25"]
    data = report_to_dict(report)["systems"]
    mean, lo, hi = data["litnav"]["delta_vs_hybrid"]["nDCG@1"]
    assert mean > 0 and lo <= mean <= hi
    assert "delta_vs_bm25" in data["litnav"] and "delta_vs_bm25" in data["hybrid"]
    assert "delta_vs_hybrid" in data["bm25"] and "delta_vs_hybrid" not in data["hybrid"]
    assert "F1@10" in data["litnav"]["delta_vs_hybrid"]
    md = to_markdown(report)
    assert "Difference from hybrid" in md and "Difference from bm25" in md


def test_condensed_lists_drop_unjudged_ids_and_judged_at_k_reports_coverage():
    bench = Benchmark([Task("q1", "one", {"a": 2, "b": 0})], source="fake")
    system = Fixed("dense", {"one": ["new1", "new2", "a", "b"]})
    plain = evaluate(bench, [system], Corpus(), ks=[1, 10], progress=False)
    condensed = evaluate(bench, [system], Corpus(), ks=[1, 10], progress=False, condensed=True)
    assert plain.systems["dense"].metrics["nDCG@1"] == 0.0
    assert condensed.systems["dense"].metrics["nDCG@1"] == 1.0  # unjudged new1/new2 removed
    assert plain.systems["dense"].metrics["Judged@10"] == 0.5  # 2 of 4 returned are judged
    assert condensed.meta["condensed"] is True
