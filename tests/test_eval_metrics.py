"""Metrics against hand-computed values, bootstrap CIs, reciprocal rank fusion."""

from __future__ import annotations

import math

import pytest

from litnav.evaluation.fusion import reciprocal_rank_fusion
from litnav.evaluation.metrics import metric_names, per_query_metrics
from litnav.evaluation.stats import bootstrap_ci

QRELS = {"q1": {"a": 2, "b": 1, "c": 1}, "q2": {"d": 1}, "q3": {"e": 1, "x": 0}}
RUN = {"q1": ["a", "x", "b", "y", "z"], "q2": ["x", "y", "d"], "q3": []}

# Worked by hand (linear gain, discount log2(rank + 1)):
# q1: relevant a(2) b(1) c(1); a at rank 1, b at rank 3.
#   DCG@2 = 2/1 = 2; IDCG@2 = 2 + 1/log2(3) = 2.630930 -> nDCG@2 = 0.760188
#   DCG@5 = 2 + 1/log2(4) = 2.5; IDCG@5 = 2 + 1/log2(3) + 1/log2(4) = 3.130930 -> 0.798485
#   R@2 = 1/3, P@2 = 1/2, F1@2 = 2(1/2)(1/3)/(5/6) = 0.4; R@5 = 2/3, P@5 = 2/5, F1@5 = 0.5; RR = 1
# q2: d at rank 3. R@2 = P@2 = 0; R@5 = 1, P@5 = 1/5, F1@5 = 2(.2)(1)/1.2 = 1/3;
#   nDCG@5 = (1/log2(4)) / 1 = 0.5; Hit@2 = 0, Hit@5 = 1; RR = 1/3
# q3: nothing returned -> every metric 0.
EXPECTED = {
    "q1": {"Recall@2": 1 / 3, "Precision@2": 0.5, "F1@2": 0.4, "nDCG@2": 0.760188, "Hit@2": 1.0,
           "Recall@5": 2 / 3, "Precision@5": 0.4, "F1@5": 0.5, "nDCG@5": 0.798485, "Hit@5": 1.0, "MRR": 1.0},
    "q2": {"Recall@2": 0.0, "Precision@2": 0.0, "F1@2": 0.0, "nDCG@2": 0.0, "Hit@2": 0.0,
           "Recall@5": 1.0, "Precision@5": 0.2, "F1@5": 1 / 3, "nDCG@5": 0.5, "Hit@5": 1.0, "MRR": 1 / 3},
    "q3": dict.fromkeys(metric_names([2, 5]), 0.0),
}


def test_per_query_metrics_match_hand_computed_values():
    got = per_query_metrics(QRELS, RUN, [2, 5])
    assert set(got) == {"q1", "q2", "q3"}
    for qid, expected in EXPECTED.items():
        assert set(got[qid]) == set(metric_names([2, 5]))
        for name, value in expected.items():
            assert got[qid][name] == pytest.approx(value, abs=1e-6), (qid, name)


def test_order_not_scores_decides_and_repeats_count_once():
    got = per_query_metrics({"q": {"a": 1}}, {"q": ["x", "x", "a"]}, [1])
    assert got["q"]["MRR"] == pytest.approx(0.5)
    assert got["q"]["Hit@1"] == 0.0


def test_missing_query_in_run_scores_zero():
    got = per_query_metrics({"q": {"a": 1}}, {}, [10])
    assert got["q"] == dict.fromkeys(metric_names([10]), 0.0)


def test_a_relevance_level_counts_only_grades_at_or_above_it():
    """trec_eval -l 2: on q1 only "a" (grade 2) is relevant to the binary metrics; nDCG keeps the grades."""
    got = per_query_metrics(QRELS, RUN, [2, 5], relevance_level=2)["q1"]
    assert (got["Recall@5"], got["Precision@5"], got["MRR"], got["Hit@2"]) == (1.0, 0.2, 1.0, 1.0)
    assert got["nDCG@5"] == pytest.approx(EXPECTED["q1"]["nDCG@5"], abs=1e-6)
    assert per_query_metrics(QRELS, RUN, [2], relevance_level=2)["q2"]["Recall@2"] == 0.0
    with pytest.raises(ValueError, match="relevance level"):
        per_query_metrics(QRELS, RUN, [2], relevance_level=0)


def test_bad_cutoffs():
    with pytest.raises(ValueError, match="cut-offs"):
        per_query_metrics(QRELS, RUN, [0])


def test_bootstrap_is_deterministic_and_contains_the_mean():
    values = [0.0, 1.0, 0.5, 0.25, 1.0, 0.0, 0.75, 0.3, 0.9, 0.1]
    mean = sum(values) / len(values)
    lo, hi = bootstrap_ci(values, seed=7)
    assert (lo, hi) == bootstrap_ci(values, seed=7)
    assert lo < mean < hi
    assert 0.0 <= lo and hi <= 1.0
    assert bootstrap_ci(values, seed=8) != (lo, hi)
    assert bootstrap_ci([0.4]) == (0.4, 0.4)
    with pytest.raises(ValueError):
        bootstrap_ci([])


def test_rrf_tiny_example():
    # a: 1/61 + 1/62; b: 1/62 + 1/61; c: 1/63; d: 1/63 -> ties keep first appearance (a before b, c before d)
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "a", "d"]], k=60)
    assert [d for d, _ in fused] == ["a", "b", "c", "d"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[2][1] == pytest.approx(1 / 63)
    fused1 = dict(reciprocal_rank_fusion([["x", "y"], ["y"]], k=1))
    assert fused1["y"] == pytest.approx(1 / 3 + 1 / 2)
    assert fused1["x"] == pytest.approx(1 / 2)
    assert math.isclose(sum(fused1.values()), 1 / 2 + 1 / 3 + 1 / 2)
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], k=0)
