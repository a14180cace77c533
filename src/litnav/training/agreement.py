"""Agreement of a student with its teacher on held-out rows, and the seeded split by intent.

Metrics (``agreement``):

- ``within1``: fraction of (checkpoint, paper) rows where |student score - teacher score| <= 1,
  student score = 5 P(satisfied) (``5 (1 - P)`` for exclusions, Judgement semantics);
- ``spearman``: Spearman rank correlation of student and teacher scores (scipy);
- ``mae``: mean absolute score difference (0-5 scale);
- ``auc``: ROC AUC of the student's holistic probability p against the teacher's holistic
  judgement (``label_relevant``), one value per group (= (intent, paper));
- ``ece``: expected calibration error of p over 10 equal-width bins (Naeini et al. 2015);
- ``accuracy``: holistic accuracy at p = 0.5.
A metric that is undefined on the rows (one class, constant scores) is NaN.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import numpy as np

from litnav.scorer.student import relevance_features
from litnav.training.data import TrainingRow
from litnav.training.train import row_input


def intent_of(row: TrainingRow, index: int = 0) -> str:
    """The intent (or claim, query) key of a row: ``group`` up to its first ``:``."""
    return (row.group or f"row-{index}").split(":", 1)[0]


def is_heldout(key: str, fraction: float, seed: int) -> bool:
    """True when sha256(``seed:key``) falls below ``fraction`` (stable across runs and machines)."""
    h = int(hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()[:8], 16)
    return h / 0xFFFFFFFF < fraction


def split_rows(rows: Sequence[TrainingRow], heldout: float, seed: int) -> tuple[list[TrainingRow], list[TrainingRow]]:
    """(train, held-out): whole intents are held out (``is_heldout`` of ``intent_of``), so no
    intent's checkpoints leak between the two. Same rule as ``training.train_default.split_claims``."""
    train, test = [], []
    for i, r in enumerate(rows):
        (test if is_heldout(intent_of(r, i), heldout, seed) else train).append(r)
    return train, test


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error: sum over equal-width bins of |mean p - mean y| * bin share."""
    if not len(p):
        return math.nan
    idx = np.minimum((p * bins).astype(int), bins - 1)
    return float(sum(abs(p[idx == b].mean() - y[idx == b].mean()) * (idx == b).mean()
                     for b in range(bins) if (idx == b).any()))


def student_scores(student, rows: Sequence[TrainingRow]) -> np.ndarray:
    """The student's 0-5 score of each row (Judgement semantics)."""
    p = student.predict_satisfaction([row_input(r) for r in rows]) if rows else np.zeros(0)
    excl = np.array([r.checkpoint.kind == "exclusion" for r in rows], dtype=bool)
    return np.where(excl, 5.0 * (1.0 - p), 5.0 * p)


def group_probabilities(student, rows: Sequence[TrainingRow], scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(student p, teacher 0/1) per group with a ``label_relevant``: the student's relevance
    head over the group's row scores, as ``score_papers`` aggregates them."""
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.group or f"row-{i}", []).append(i)
    feats, labels = [], []
    for idx in groups.values():
        lab = {rows[i].label_relevant for i in idx} - {None}
        if len(lab) != 1:
            continue
        best = max((e.similarity for i in idx for e in rows[i].evidence), default=0.0)
        feats.append(relevance_features(scores[idx], np.ones(len(idx)), float(best)))
        labels.append(float(lab.pop()))
    if not feats:
        return np.zeros(0), np.zeros(0)
    return student.relevance(np.vstack(feats)), np.array(labels)


def agreement(student, rows: Sequence[TrainingRow]) -> dict[str, float]:
    """The metrics of the module docstring on ``rows`` (plus ``n_rows``, ``n_groups``,
    ``n_intents``, and beside AUC and accuracy the groups' ``positive_rate`` and
    ``base_rate_accuracy``, the accuracy of always answering the majority class). Raises
    ``ValueError`` on no rows."""
    from scipy.stats import spearmanr
    from sklearn.metrics import roc_auc_score

    rows = list(rows)
    if not rows:
        raise ValueError("no rows to evaluate (is the held-out split empty? try a larger --heldout)")
    s = student_scores(student, rows)
    t = np.array([r.label_score for r in rows])
    p, y = group_probabilities(student, rows, s)
    rho = spearmanr(s, t).statistic if np.ptp(s) > 0 and np.ptp(t) > 0 else math.nan
    out = {
        "n_rows": len(rows), "n_groups": len(p), "n_intents": len({intent_of(r, i) for i, r in enumerate(rows)}),
        "within1": float(np.mean(np.abs(s - t) <= 1.0)),
        "mae": float(np.mean(np.abs(s - t))),
        "spearman": float(rho),
        "auc": float(roc_auc_score(y, p)) if len(set(y.tolist())) == 2 else math.nan,
        "ece": ece(p, y),
        "accuracy": float(np.mean((p >= 0.5) == (y == 1))) if len(p) else math.nan,
        "positive_rate": float(np.mean(y == 1)) if len(y) else math.nan,
        "base_rate_accuracy": float(max(np.mean(y == 1), 1 - np.mean(y == 1))) if len(y) else math.nan,
    }
    return {k: (round(v, 4) if isinstance(v, float) and not math.isnan(v) else v) for k, v in out.items()}
