"""The student: two small calibrated logistic models, evaluated with numpy only.

- the checkpoint model maps the evidence features of one (checkpoint, paper) pair
  (``scorer.features.FEATURE_NAMES``) to P(the paper satisfies the checkpoint);
- the relevance model maps a paper's aggregated judgements (``RELEVANCE_FEATURES``) to the
  holistic probability p that the paper is relevant to the intent.

Each model is ``p = sigmoid(a * z + b)`` with ``z = ((x - mean) / scale) . coef + intercept``
(a standardised logistic regression followed by Platt scaling, Platt 1999). Missing inputs
(NaN) take the model's ``impute`` value (the training mean). The JSON file stores both models,
the feature names, and the training metadata; ``scikit-learn`` is only needed to train
(``training.train``), never to load or score.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from litnav.core.io import write_json
from litnav.scorer.features import FEATURE_NAMES, FeatureInput, feature_matrix

FORMAT = "litnav-scorer-student/1"
RELEVANCE_FEATURES: tuple[str, ...] = ("content_mean", "content_min", "metadata_pass", "best_sim", "retrieval_rr")
"""content_mean/min: weighted mean / min of the content and exclusion judgement scores over 5;
metadata_pass: fraction of metadata checkpoints passed (1 when there are none);
best_sim: the highest evidence cosine over the content checkpoints."""

DEFAULT_MODEL = "default.json"

SOURCE_KINDS: dict[str, tuple[str, ...]] = {
    "scifact": ("topic",), "beir": ("topic",), "mined": ("topic",),
    "teacher": ("topic", "method", "application", "data", "exclusion"),
    "judged": ("topic", "method", "application", "data"),
}
"""Checkpoint kinds each training-row source supplies (``training.data.TrainingRow.source``):
SciFact, BEIR and mined rows are whole-claim / whole-query topic checkpoints only."""


def calibration(student: Any) -> tuple[str, tuple[str, ...]]:
    """``(training data, checkpoint kinds)`` of a loaded student, from its ``training``
    metadata: ``checkpoint_kinds`` when recorded, else the kinds its row ``sources`` supply
    (:data:`SOURCE_KINDS`). Its grades are calibrated only for those kinds; ``("unknown", ())``
    when the metadata says nothing."""
    t = getattr(student, "training", None) or {}
    sources = list(t.get("sources") or [])
    kinds = t.get("checkpoint_kinds")
    if kinds is None:
        kinds = sorted({k for s in sources for k in SOURCE_KINDS.get(s, ())})
    data = str(t.get("data") or "+".join(sources) or "unknown")
    return data, tuple(kinds)


def retrieval_rr(rank: int | None) -> float:
    """The retrieval feature of a paper from its 1-based rank in the fused (reciprocal rank
    fusion) retrieval list: ``1 / (1 + ln rank)`` in (0, 1]; NaN (imputed) when unknown."""
    return 1.0 / (1.0 + math.log(rank)) if rank and rank >= 1 else math.nan


def relevance_features(scores: np.ndarray, weights: np.ndarray, best_sim: float,
                       metadata_pass: float = 1.0, retrieval: float = math.nan) -> np.ndarray:
    """Aggregate one paper's content/exclusion judgement scores (0-5) into ``RELEVANCE_FEATURES``;
    ``retrieval`` is ``retrieval_rr(rank)`` of the paper (NaN when unknown: the model imputes).

    Without content judgements, ``content_mean``/``content_min`` fall back to ``metadata_pass``."""
    if len(scores):
        w = weights if weights.sum() > 0 else np.ones_like(scores)
        mean = float(np.dot(w, scores) / w.sum()) / 5.0
        low = float(scores.min()) / 5.0
    else:
        mean = low = metadata_pass
    return np.array([mean, low, metadata_pass, best_sim, retrieval], dtype=np.float64)



class StudentError(ValueError):
    """A student file is malformed or names unknown features; the message names file and field."""


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


@dataclass
class LinearModel:
    """A standardised logistic regression with Platt calibration over named features."""

    features: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    impute: list[float]
    calibration_a: float = 1.0
    calibration_b: float = 0.0

    def __post_init__(self) -> None:
        n = len(self.features)
        for name in ("mean", "scale", "coef", "impute"):
            if len(getattr(self, name)) != n:
                raise StudentError(f"{name}: {len(getattr(self, name))} values for {n} features")
        self._mean = np.asarray(self.mean, dtype=np.float64)
        self._scale = np.where(np.asarray(self.scale, dtype=np.float64) > 0, self.scale, 1.0)
        self._coef = np.asarray(self.coef, dtype=np.float64)
        self._impute = np.asarray(self.impute, dtype=np.float64)

    def logit(self, x: np.ndarray) -> np.ndarray:
        """Uncalibrated decision values z for rows ``x`` of shape ``[n, len(features)]``."""
        x = np.where(np.isnan(x), self._impute, x)
        return ((x - self._mean) / self._scale) @ self._coef + self.intercept

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Calibrated probabilities, shape ``[n]``."""
        return _sigmoid(self.calibration_a * self.logit(x) + self.calibration_b)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready parameters."""
        return {k: v for k, v in asdict(self).items() if not k.startswith("_")}

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str) -> LinearModel:
        """Parse; raises ``StudentError`` naming ``where`` and the field."""
        try:
            return cls(**{k: d[k] for k in ("features", "mean", "scale", "coef", "intercept", "impute")},
                       calibration_a=float(d.get("calibration_a", 1.0)),
                       calibration_b=float(d.get("calibration_b", 0.0)))
        except KeyError as exc:
            raise StudentError(f"{where}: missing field {exc.args[0]!r}") from exc
        except (TypeError, StudentError) as exc:
            raise StudentError(f"{where}: {exc}") from exc


def _columns(model: LinearModel, known: tuple[str, ...], where: str) -> np.ndarray:
    unknown = [f for f in model.features if f not in known]
    if unknown:
        raise StudentError(f"{where}: unknown features {unknown}; known: {list(known)}")
    return np.array([known.index(f) for f in model.features], dtype=np.intp)


@dataclass
class Student:
    """A trained student. ``name`` becomes ``Judgement.engine`` (e.g. ``"student:logreg-scifact-v1"``).

    ``satisfaction(X)`` takes the full feature matrix ``[n, len(FEATURE_NAMES)]`` and returns
    P(satisfied) ``[n]``; ``relevance(R)`` takes ``[m, len(RELEVANCE_FEATURES)]`` and returns p ``[m]``.
    """

    name: str
    checkpoint_model: LinearModel
    relevance_model: LinearModel
    training: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._cp_cols = _columns(self.checkpoint_model, FEATURE_NAMES, "checkpoint_model")
        self._rel_cols = _columns(self.relevance_model, RELEVANCE_FEATURES, "relevance_model")

    def satisfaction(self, x: np.ndarray) -> np.ndarray:
        """P(checkpoint satisfied) for each row of the feature matrix."""
        return self.checkpoint_model.predict_proba(np.asarray(x, dtype=np.float64)[:, self._cp_cols])

    def predict_satisfaction(self, items: list[FeatureInput]) -> np.ndarray:
        """P(satisfied) ``[n]`` for (checkpoint, paper, evidence) pairs: the interface
        ``scorer.scoring.score_papers`` calls (shared with ``CrossEncoderStudent``)."""
        return self.satisfaction(feature_matrix(items))

    def relevance(self, r: np.ndarray) -> np.ndarray:
        """Holistic relevance probability for each row of aggregated features."""
        return self.relevance_model.predict_proba(np.asarray(r, dtype=np.float64)[:, self._rel_cols])

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``save`` writes."""
        return {"format": FORMAT, "name": self.name,
                "checkpoint_model": self.checkpoint_model.to_dict(),
                "relevance_model": self.relevance_model.to_dict(), "training": self.training}

    def save(self, path: str | Path) -> None:
        """Write the student as JSON, atomically (``core.io.write_json``)."""
        write_json(path, self.to_dict(), indent=1)

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "student") -> Student:
        """Parse a student document; raises ``StudentError`` naming ``where`` and the field."""
        if d.get("format") != FORMAT:
            raise StudentError(f"{where}: format {d.get('format')!r}, expected {FORMAT!r}")
        for key in ("name", "checkpoint_model", "relevance_model"):
            if key not in d:
                raise StudentError(f"{where}: missing field {key!r}")
        cp = LinearModel.from_dict(d["checkpoint_model"], f"{where}: checkpoint_model")
        rel = LinearModel.from_dict(d["relevance_model"], f"{where}: relevance_model")
        try:
            return cls(name=str(d["name"]), checkpoint_model=cp, relevance_model=rel,
                       training=dict(d.get("training") or {}))
        except StudentError as exc:
            raise StudentError(f"{where}: {exc}") from exc

    @classmethod
    def load(cls, path: str | Path) -> Student:
        """Read a student JSON file; raises ``StudentError`` (bad content) or ``OSError``."""
        path = Path(path)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise StudentError(f"{path}: not a student JSON document ({exc})") from exc
        return cls.from_dict(doc, str(path))


def default_model_path() -> Path:
    """Path of the bundled default student (``scorer/models/default.json``)."""
    return Path(str(resources.files("litnav.scorer") / "models" / DEFAULT_MODEL))


STUDENT_FILE = "student.json"
"""The document inside a student folder (``load_student`` on a directory)."""
