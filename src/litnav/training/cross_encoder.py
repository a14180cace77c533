"""Fine-tuning the cross-encoder student (``scorer.cross_encoder.CrossEncoderStudent``).

``train_cross_encoder`` fine-tunes from a local encoder (default: the bundled all-MiniLM-L6-v2)
with binary cross-entropy on soft targets ``training.train.satisfaction_target`` (AdamW, linear
warm-up/decay), deterministically on CPU given the seed, then fits the calibrated relevance head.
Needs torch and sentence-transformers.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from litnav.scorer.cross_encoder import (
    DEFAULT_NAME,
    CrossEncoderStudent,
    _load_cross_encoder,
    autocast,
    default_base_model,
    pair_text,
)
from litnav.scorer.student import RELEVANCE_FEATURES, LinearModel, relevance_features
from litnav.training.data import TrainingRow


def seed_everything(seed: int) -> None:
    """Seed ``random``, numpy and torch, and ask torch for deterministic kernels."""
    import torch
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def _relevance_head(rows: list[TrainingRow], p: np.ndarray, seed: int) -> LinearModel | None:
    """Logistic head over per-group aggregated scores, Platt-calibrated out of fold
    (``training.train._model``); None when the groups carry one relevance class only."""
    from litnav.training.train import _fold_of, _model

    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(r.group or f"row-{i}", []).append(i)
    xs, ts, keys = [], [], []
    for idx in groups.values():
        labels = {rows[i].label_relevant for i in idx} - {None}
        if len(labels) != 1:
            continue
        best = max((e.similarity for i in idx for e in rows[i].evidence), default=0.0)
        xs.append(relevance_features(5.0 * p[idx], np.ones(len(idx)), float(best)))
        ts.append(float(labels.pop()))
        keys.append(rows[idx[0]].checkpoint.text)
    if len(set(ts)) < 2 or len(set(keys)) < 2:
        return None
    folds = _fold_of(keys, max(2, min(5, len(set(keys)))), seed)
    model, _ = _model(np.vstack(xs), np.array(ts), RELEVANCE_FEATURES, folds, 1.0)
    return model


def _freeze_below(model, k: int) -> None:
    """Freeze every parameter of ``model`` (a Hugging Face sequence classifier) except those of
    its top ``k`` encoder layers, its pooler and its classification head."""
    import re

    layers = {int(m.group(1)) for n, _ in model.named_parameters() if (m := re.search(r"\.layer\.(\d+)\.", n))}
    keep = set(sorted(layers)[-k:]) if k > 0 else set()
    for name, p in model.named_parameters():
        m = re.search(r"\.layer\.(\d+)\.", name)
        p.requires_grad = (m is not None and int(m.group(1)) in keep) or ("classifier" in name or "pooler" in name)


def train_cross_encoder(
    rows: Iterable[TrainingRow],
    seed: int = 0,
    *,
    base_model: str | Path | None = None,
    epochs: int = 2,
    batch_size: int = 16,
    learning_rate: float = 5e-5,
    max_seq_length: int = 128,
    name: str = DEFAULT_NAME,
    metadata: dict | None = None,
    progress: bool = False,
    device: str = "cpu",
    trainable_layers: int | None = None,
    passage: str = "evidence",
    precision: str = "fp32",
) -> CrossEncoderStudent:
    """Fine-tune a cross-encoder student on ``rows``; deterministic given ``seed`` (CPU).

    Loss: binary cross-entropy with soft targets ``satisfaction_target(row)`` (label/5, inverted
    for exclusions); AdamW (weight decay 0.01), linear warm-up over the first 10% of steps then
    linear decay; batches shuffled by a seeded generator. ``device`` is the torch device to
    train on (deterministic on "cpu" only). ``trainable_layers`` k > 0 freezes the embeddings and
    all but the top k transformer layers (the classification head always trains), for short CPU
    runs; None trains everything. ``passage`` is what the model reads beside the checkpoint
    (``scorer.cross_encoder.pair_text``: "evidence" chunks, or the "abstract" for a reranker of
    title + abstract); ``precision`` "bf16" runs forward passes under bfloat16 autocast (about 2x
    faster on CPUs with native bf16; weights and optimiser stay fp32). Raises ``ValueError`` on empty rows or
    one-class targets, ``OSError`` when ``base_model`` is missing."""
    import torch

    from litnav.core.progress import progress_bar
    from litnav.training.train import row_input, satisfaction_target

    rows = list(rows)
    if not rows:
        raise ValueError("no training rows")
    t = np.array([satisfaction_target(r) for r in rows], dtype=np.float32)
    if (t >= 0.5).all() or (t < 0.5).all():
        raise ValueError("training labels are all of one class; need both satisfied and unsatisfied rows")
    base = Path(base_model) if base_model is not None else default_base_model()
    if not base.exists():
        raise OSError(f"base model folder {base} does not exist")
    seed_everything(seed)
    ce = _load_cross_encoder(base, max_seq_length, num_labels=1, device=device)
    items = [row_input(r) for r in rows]
    pairs = [pair_text(it, passage) for it in items]
    model, tok = ce.model, ce.tokenizer
    if trainable_layers is not None:
        _freeze_below(model, trainable_layers)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=learning_rate, weight_decay=0.01)
    steps = epochs * math.ceil(len(pairs) / batch_size)
    warm = max(1, int(0.1 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (steps - s) / max(1, steps - warm)))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    gen = torch.Generator().manual_seed(seed)
    losses: list[float] = []
    bar = progress_bar(total=steps, desc="cross-encoder", unit="step", progress=progress, leave=False)
    for _ in range(epochs):
        model.train()
        order = torch.randperm(len(pairs), generator=gen).tolist()
        for i in range(0, len(order), batch_size):
            b = order[i:i + batch_size]
            enc = tok([pairs[j][0] for j in b], [pairs[j][1] for j in b], padding=True, truncation=True,
                      max_length=max_seq_length, return_tensors="pt").to(model.device)
            with autocast(device, precision):
                out = model(**enc).logits[:, 0].float()
            loss = loss_fn(out, torch.from_numpy(t[b]).to(model.device))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            losses.append(float(loss.detach()))
            bar.update(1)
    bar.close()
    student = CrossEncoderStudent(name=name, model=ce, max_seq_length=max_seq_length, relevance_model=None,
                                  passage=passage, precision=precision)
    p = student.predict_satisfaction(items)
    student.relevance_model = _relevance_head(rows, p, seed)
    student.training = {
        "kind": "cross-encoder", "seed": seed, "epochs": epochs, "batch_size": batch_size,
        "learning_rate": learning_rate, "max_seq_length": max_seq_length, "trainable_layers": trainable_layers, "passage": passage, "precision": precision, "base_model": str(base), "n_rows": len(rows), "n_positive": int((t >= 0.5).sum()),
        "final_loss": round(float(np.mean(losses[-max(1, len(losses) // epochs):])), 6),
        "constant_loss": round(_constant_loss(t), 6),
        "sources": sorted({r.source for r in rows}),
        "rows_sha256": hashlib.sha256("\n".join(r.dump_stable() for r in rows).encode()).hexdigest(),
        **(metadata or {}),
    }
    return student


def _constant_loss(targets: np.ndarray) -> float:
    """The binary cross-entropy of predicting the targets' mean for every row: the training loss
    of a cross-encoder that learned nothing (``final_loss`` at or above it)."""
    m = float(np.clip(np.mean(targets), 1e-6, 1 - 1e-6))
    return float(-np.mean(targets * np.log(m) + (1 - targets) * np.log(1 - m)))
