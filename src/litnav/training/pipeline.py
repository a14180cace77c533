"""Train, save and evaluate a student from a training-data file (``litnav scorer train|eval``).

Both commands split the rows the same way (``training.agreement.split_rows``: whole intents held
out, seeded): ``train`` fits on the training part only and records the split in the model's
``training["split"]``; ``eval`` reuses that split by default, so its agreement numbers are on
intents the student never saw.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from litnav.scorer import load_student
from litnav.scorer.student import STUDENT_FILE, Student
from litnav.training.agreement import agreement, split_rows
from litnav.training.data import TrainingRow, read_rows

KINDS: tuple[str, ...] = ("feature", "cross-encoder")


@dataclass
class TrainOutcome:
    """What ``train_file`` did: the student, where it went, row counts and held-out agreement."""

    student: Any
    path: Path
    n_train: int
    n_heldout: int
    heldout: dict[str, float] | None


def save_student(student, out: str | Path, *, delta: bool = False) -> Path:
    """Save where ``load_student`` finds it: a feature student to ``out`` when it ends in
    ``.json`` (else ``out/student.json``, and the weights of a cross-encoder saved there before
    are removed); a cross-encoder student to the folder ``out`` (only
    its tensors that differ from the bundled MiniLM when ``delta``). Returns the path to give
    ``load_student``/``scorer.student``."""
    out = Path(out)
    if isinstance(student, Student):
        target = out if out.suffix == ".json" else out / STUDENT_FILE
        student.save(target)
        if target.parent == out:  # a cross-encoder saved here before: its weights are no longer named
            from litnav.scorer.cross_encoder import remove_other_weights

            remove_other_weights(out, keep="")
        return out
    if out.suffix == ".json":
        raise ValueError(f"{out}: a cross-encoder student is a folder; give a path without .json")
    student.save(out, delta=delta)
    return out


def train_rows(rows: list[TrainingRow], *, kind: str = "feature", seed: int = 0, name: str | None = None,
               metadata: dict | None = None, progress: bool = False, **cross_encoder: Any):
    """Train a student of ``kind`` (``KINDS``) on ``rows``; ``cross_encoder`` keywords go to
    ``training.cross_encoder.train_cross_encoder`` (epochs, batch_size, learning_rate,
    max_seq_length, base_model, passage, precision, trainable_layers). Raises ``ValueError`` for an unknown kind or unusable rows."""
    if kind == "feature":
        from litnav.training.train import DEFAULT_NAME, train_student

        return train_student(rows, seed=seed, name=name or DEFAULT_NAME, metadata={"kind": "feature", **(metadata or {})})
    if kind == "cross-encoder":
        from litnav.training.cross_encoder import DEFAULT_NAME, train_cross_encoder

        return train_cross_encoder(rows, seed=seed, name=name or DEFAULT_NAME, metadata=metadata,
                                   progress=progress, **cross_encoder)
    raise ValueError(f"unknown student kind {kind!r}; expected one of {KINDS}")


def train_file(data: str | Path, out: str | Path, *, kind: str = "feature", seed: int = 0, heldout: float = 0.2,
               name: str | None = None, progress: bool = False, delta: bool = False,
               **cross_encoder: Any) -> TrainOutcome:
    """Read ``data`` (JSONL rows), hold out ``heldout`` of the intents (seeded), train on the
    rest, measure agreement on the held-out part (None when it is empty), save to ``out``.
    Raises ``DataError`` (bad file), ``ValueError`` (no rows / one class / bad kind)."""
    if not 0.0 <= heldout < 1.0:
        raise ValueError(f"--heldout {heldout}: expected a fraction in [0, 1)")
    rows = list(read_rows(data))
    if not rows:
        raise ValueError(f"{data}: no training rows")
    train, test = split_rows(rows, heldout, seed)
    if not train:
        raise ValueError(f"{data}: every intent fell in the held-out split; lower --heldout")
    meta = {"data": str(data), "split": {"heldout": heldout, "seed": seed}}
    student = train_rows(train, kind=kind, seed=seed, name=name, metadata=meta, progress=progress, **cross_encoder)
    student.training["heldout_agreement"] = agreement(student, test) if test else None
    path = save_student(student, out, delta=delta)
    return TrainOutcome(student, path, len(train), len(test), student.training["heldout_agreement"])


def evaluate_file(data: str | Path, model: str | Path, *, heldout: float | None = None,
                  seed: int | None = None) -> dict[str, Any]:
    """Agreement of the student at ``model`` with the teacher labels of ``data`` on the
    held-out intents. The split defaults to the one recorded at training time
    (``training["split"]``), else 0.2 / seed 0; ``heldout=0`` evaluates on every row.
    Returns ``{"student", "split", "metrics"}``."""
    student = load_student(model)
    recorded = (getattr(student, "training", None) or {}).get("split") or {}
    frac = heldout if heldout is not None else float(recorded.get("heldout", 0.2))
    s = seed if seed is not None else int(recorded.get("seed", 0))
    rows = list(read_rows(data))
    test = rows if frac == 0 else split_rows(rows, frac, s)[1]
    return {"student": student.name, "split": {"heldout": frac, "seed": s},
            "metrics": agreement(student, test)}
