"""Shared printing of the dev experiments in this folder: nDCG@10 per variant and its paired
difference to a baseline with the 95 % bootstrap interval of ``litnav.evaluation.stats``."""

from __future__ import annotations

import numpy as np

from litnav.evaluation.metrics import per_query_metrics
from litnav.evaluation.stats import bootstrap_ci

RESAMPLES = 2000


def print_deltas(qrels: dict, runs: dict[str, dict[str, list[str]]], baseline: str) -> None:
    """One line per run in ``runs`` (qid -> ranked ids): nDCG@10, Δ to ``runs[baseline]``, CI."""
    values = {name: np.array([m["nDCG@10"] for _q, m in sorted(per_query_metrics(qrels, run, [10]).items())])
              for name, run in runs.items()}
    base = values[baseline]
    print(f"{len(base)} queries; {baseline} nDCG@10 {base.mean():.4f}")
    for name, v in values.items():
        if name == baseline:
            continue
        low, high = bootstrap_ci(v - base, resamples=RESAMPLES, seed=0)
        print(f"{name:14s} {v.mean():.4f}  Δ {(v - base).mean():+.4f} [{low:+.4f}, {high:+.4f}]")
