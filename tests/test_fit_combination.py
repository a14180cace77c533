"""The final ordering's weight is fitted on development records: a scorer that orders the gold
first earns weight, one that orders it last falls back to the fused order (weight 0)."""

from __future__ import annotations

import json

import pytest

from litnav.evaluation.fit_combination import cross_validate, evaluate_weight, fit, main, ranking, read_records
from litnav.reranker.combine import Combination, load_combination


def _records(path, scorer_good: bool) -> None:
    rows = []
    for q in range(6):
        # fused order d0..d9; gold is d5 (relevant); the scorer puts it first or last
        head = [[f"q{q}d{i}", i + 1, (0.9 if i == 5 else 0.1 + 0.01 * i) if scorer_good
                 else (0.0 if i == 5 else 0.5 + 0.01 * i), 0.5, 0.0] for i in range(10)]
        rows.append({"qid": f"q{q}", "gold": {f"q{q}d5": 1, f"q{q}d0": 0}, "head": head, "tail": [f"q{q}t"]})
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")


@pytest.mark.parametrize("good", [True, False])
def test_fit_rewards_an_informative_scorer_only(tmp_path, good):
    path = tmp_path / "r.jsonl"
    _records(path, good)
    model = fit([path])
    assert (model.scorer_weight > 0) is good
    rec = json.loads(path.read_text().splitlines()[0])
    assert ranking(rec, Combination(scorer_weight=0.0))[:10] == [f"q0d{i}" for i in range(10)]
    assert ranking(rec, model)[-1] == "q0t"  # the unscored tail stays below


def test_cli_writes_a_loadable_file_with_its_command(tmp_path):
    path, out = tmp_path / "r.jsonl", tmp_path / "c.json"
    _records(path, True)
    assert main(["fit", str(path), "--out", str(out)]) == 0
    model = load_combination(out)
    assert "fit_combination fit" in model.command and str(path) in model.fitted_on
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "x"}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        fit([bad])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="empty.jsonl: no fit_combination records"):
        fit([empty])


def test_cross_validation_scores_each_query_with_a_weight_fitted_without_it(tmp_path):
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    _records(good, True)
    _records(bad, False)
    cv = cross_validate([good])["files"][str(good)]
    assert cv["queries"] == 6 and cv["nDCG@10"]["delta"] > 0 and cv["nDCG@10"]["ci95"][0] > 0
    assert cross_validate([bad])["files"][str(bad)]["nDCG@10"]["delta"] == 0  # falls back to fused order
    # one query where the scorer is right, one where it is wrong: each is ranked with the weight
    # the other one asks for, so out of fold the scorer only ever hurts
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(good.read_text().splitlines()[0] + "\n"
                     + bad.read_text().splitlines()[1] + "\n")
    out = cross_validate([mixed])
    assert out["files"][str(mixed)]["nDCG@10"]["delta"] < 0
    assert main(["cv", str(mixed)]) == 0
    # in sample the scorer wins (one big gain, one small loss), out of fold it only loses: the
    # fit does not keep a weight that does not beat the fused order on queries it did not see
    assert evaluate_weight([read_records(mixed)], Combination(scorer_weight=1.0))["nDCG@10"] > \
        evaluate_weight([read_records(mixed)], Combination(scorer_weight=0.0))["nDCG@10"]
    model = fit([mixed])
    assert model.scorer_weight == 0 and model.metrics["nDCG@10 out-of-fold - fused (macro)"] < 0
