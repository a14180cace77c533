"""Training students from ``training.data.TrainingRow`` rows (scikit-learn; training time only).

``train_student(rows, seed)`` fits, deterministically for a given seed:

1. the checkpoint model: a standardised L2 logistic regression on the evidence features with
   soft targets ``t = label_score / 5`` (for exclusion rows ``t = 1 - label_score / 5``: the
   model predicts that the paper IS about the excluded thing), fitted as weighted duplicated
   rows (weight t as positive, 1 - t as negative), i.e. cross-entropy with soft labels;
2. Platt calibration (Platt 1999) of its decision values, fitted on out-of-fold decision values
   (k folds over checkpoint texts, so no checkpoint is in its own calibration fold);
3. the relevance model: a logistic regression over ``RELEVANCE_FEATURES`` aggregated per group
   from the out-of-fold calibrated checkpoint scores, on groups with ``label_relevant``; Platt
   calibrated the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

from litnav.scorer.features import FEATURE_NAMES, EvidenceItem, FeatureInput, feature_matrix
from litnav.scorer.student import RELEVANCE_FEATURES, LinearModel, Student, relevance_features, retrieval_rr
from litnav.training.data import TrainingRow

DEFAULT_NAME = "student:logreg"


def row_input(row: TrainingRow) -> FeatureInput:
    """The ``FeatureInput`` of a training row."""
    return FeatureInput(
        text=row.checkpoint.text, terms=list(row.checkpoint.terms), title=row.paper.title,
        abstract=row.paper.abstract,
        evidence=[EvidenceItem(e.text, e.similarity, e.section) for e in row.evidence],
        title_sim=row.paper.title_similarity, bm25_rel=row.paper.bm25_relative,
        doc_sim=row.paper.doc_similarity,
    )


def satisfaction_target(row: TrainingRow) -> float:
    """Soft target in [0, 1]: P(the paper is about the checkpoint text) implied by the label."""
    t = row.label_score / 5.0
    return 1.0 - t if row.checkpoint.kind == "exclusion" else t


def _fit_logreg(x: np.ndarray, t: np.ndarray, c: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Standardise, fit soft-label logistic regression; returns (coef, intercept, mean, scale)."""
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-12, scale, 1.0)
    xs = (x - mean) / scale
    xx = np.vstack([xs, xs])
    yy = np.concatenate([np.ones(len(t)), np.zeros(len(t))])
    ww = np.concatenate([t, 1.0 - t])
    keep = ww > 0
    if len(np.unique(yy[keep])) < 2:
        raise ValueError("training labels are all of one class; need both satisfied and unsatisfied rows")
    lr = LogisticRegression(C=c, max_iter=2000, solver="lbfgs")
    lr.fit(xx[keep], yy[keep], sample_weight=ww[keep])
    return lr.coef_[0], float(lr.intercept_[0]), mean, scale


def _platt(z: np.ndarray, t: np.ndarray) -> tuple[float, float]:
    """Platt scaling: fit sigmoid(a z + b) to soft targets t (nearly unregularised)."""
    from sklearn.linear_model import LogisticRegression

    zz = np.concatenate([z, z])[:, None]
    yy = np.concatenate([np.ones(len(t)), np.zeros(len(t))])
    ww = np.concatenate([t, 1.0 - t])
    keep = ww > 0
    lr = LogisticRegression(C=1e6, max_iter=2000, solver="lbfgs")
    lr.fit(zz[keep], yy[keep], sample_weight=ww[keep])
    return float(lr.coef_[0, 0]), float(lr.intercept_[0])


def _model(x: np.ndarray, t: np.ndarray, names: tuple[str, ...], folds: np.ndarray, c: float
           ) -> tuple[LinearModel, np.ndarray]:
    """Fit a calibrated model; returns it and the out-of-fold calibrated probabilities."""
    ok = np.isfinite(x)
    n_ok = ok.sum(axis=0)
    impute = np.where(n_ok > 0, np.where(ok, x, 0.0).sum(axis=0) / np.maximum(n_ok, 1), 0.0)
    x = np.where(np.isnan(x), impute, x)
    oof = np.zeros(len(t))
    coef, b0, mu, sd = _fit_logreg(x, t, c)
    for f in np.unique(folds):
        tr, te = folds != f, folds == f
        if len(np.unique(t[tr] >= 0.5)) < 2:  # one key (or one class) only: no held-out fit possible
            oof[te] = ((x[te] - mu) / sd) @ coef + b0
            continue
        fc, fb, fmu, fsd = _fit_logreg(x[tr], t[tr], c)
        oof[te] = ((x[te] - fmu) / fsd) @ fc + fb
    a, b = _platt(oof, t)
    model = LinearModel(features=list(names), mean=mu.tolist(), scale=sd.tolist(), coef=coef.tolist(),
                        intercept=b0, impute=impute.tolist(), calibration_a=a, calibration_b=b)
    return model, 1.0 / (1.0 + np.exp(-(a * oof + b)))


def _fold_of(keys: list[str], k: int, seed: int) -> np.ndarray:
    uniq = sorted(set(keys))
    perm = np.random.default_rng(seed).permutation(len(uniq))
    fold = {u: int(perm[i]) % k for i, u in enumerate(uniq)}
    return np.array([fold[x] for x in keys])


def train_student(rows: Iterable[TrainingRow], seed: int = 0, *, name: str = DEFAULT_NAME,
                  c: float = 1.0, folds: int = 5, metadata: dict | None = None) -> Student:
    """Train a student on rows (any iterable of ``TrainingRow``); deterministic given ``seed``.

    Rows are split into ``folds`` folds by checkpoint text for the out-of-fold calibration.
    Raises ``ValueError`` when rows are empty or carry one class only. ``metadata`` is merged
    into ``Student.training`` (which also records n_rows, n_groups, seed, C, feature means).
    """
    rows = list(rows)
    if not rows:
        raise ValueError("no training rows")
    x = feature_matrix([row_input(r) for r in rows])
    t = np.array([satisfaction_target(r) for r in rows])
    k = max(2, min(folds, len({r.checkpoint.text for r in rows})))
    fold = _fold_of([r.checkpoint.text for r in rows], k, seed)
    cp_model, oof_p = _model(x, t, FEATURE_NAMES, fold, c)

    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.group or f"row-{i}", []).append(i)
    rel_x, rel_t, rel_keys = [], [], []
    sim_col = FEATURE_NAMES.index("sim_max")
    for g, idx in groups.items():
        labels = {rows[i].label_relevant for i in idx} - {None}
        if not labels:
            continue
        if len(labels) > 1:
            raise ValueError(f"group {g!r}: rows disagree on label_relevant {sorted(labels)}")
        rel_x.append(relevance_features(5.0 * oof_p[idx], np.ones(len(idx)), float(x[idx, sim_col].max()),
                                        retrieval=retrieval_rr(rows[idx[0]].paper.retrieval_rank)))
        rel_t.append(float(labels.pop()))
        rel_keys.append(rows[idx[0]].checkpoint.text)
    if not rel_x:
        raise ValueError("no row has label_relevant; the relevance model needs paper-level labels")
    rel_k = max(2, min(folds, len(set(rel_keys))))
    rel_model, _ = _model(np.vstack(rel_x), np.array(rel_t), RELEVANCE_FEATURES,
                          _fold_of(rel_keys, rel_k, seed), c)
    training = {
        "seed": seed, "C": c, "folds": k, "n_rows": len(rows), "n_groups": len(rel_x),
        "n_positive": int((t >= 0.5).sum()), "sources": sorted({r.source for r in rows}),
        "rows_sha256": hashlib.sha256("\n".join(r.dump_stable() for r in rows).encode()).hexdigest(),
    }
    training.update(metadata or {})
    return Student(name=name, checkpoint_model=cp_model, relevance_model=rel_model, training=training)
