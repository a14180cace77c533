"""Bootstrap confidence intervals over queries (percentile method, Efron & Tibshirani 1993)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0


def bootstrap_ci(
    values: Sequence[float], *, confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of per-query ``values``.

    Draws ``resamples`` samples of len(values) queries with replacement
    (``numpy.random.default_rng(seed)``), takes each sample's mean and returns the
    ``(1-confidence)/2`` and ``(1+confidence)/2`` quantiles. Same input and seed -> same
    interval. One value gives ``(v, v)``; no values raises ``ValueError``.
    """
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("bootstrap_ci needs at least one value")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, data.size, size=(resamples, data.size))
    means = data[idx].mean(axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)
