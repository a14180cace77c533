"""Student training: learns a separable set, is deterministic, round-trips through JSON,
and the training-data format/converters report bad input precisely."""

from __future__ import annotations

import json

import numpy as np
import pytest

from litnav.scorer.features import feature_matrix
from litnav.scorer.student import Student, StudentError
from litnav.training.data import (
    DataError,
    RowCheckpoint,
    RowEvidence,
    RowPaper,
    TrainingRow,
    from_scifact,
    read_rows,
    write_rows,
)
from litnav.training.train import row_input, train_student

TOPICS = ["graph neural networks", "protein folding", "machine translation", "image segmentation",
          "reinforcement learning", "speech recognition", "sentiment analysis", "climate modelling",
          "quantum error correction", "dependency parsing", "drug discovery", "question answering"]
OTHER = "We report a survey of regional pottery styles and kiln temperatures."


def synthetic_rows() -> list[TrainingRow]:
    rows = []
    for i, topic in enumerate(TOPICS):
        for label in (1, 0, 0):
            j = len(rows)
            text = f"We propose a new method for {topic} and evaluate it." if label else OTHER
            rows.append(TrainingRow(
                checkpoint=RowCheckpoint(kind="topic", text=f"papers on {topic}", terms=[topic]),
                paper=RowPaper(title=(f"Advances in {topic}" if label else f"Pottery study {j}")),
                evidence=[RowEvidence(text=text, similarity=(0.7 + 0.01 * i) if label else (0.1 + 0.01 * i))],
                label_score=5.0 * label, label_relevant=label, source="teacher", group=f"g{j}"))
    return rows


@pytest.fixture(scope="module")
def rows() -> list[TrainingRow]:
    return synthetic_rows()


@pytest.fixture(scope="module")
def student(rows) -> Student:
    return train_student(rows, seed=3, name="student:test")


def test_learns_separable_set(student, rows):
    p = student.satisfaction(feature_matrix([row_input(r) for r in rows]))
    y = np.array([r.label_score > 2.5 for r in rows])
    assert ((p >= 0.5) == y).mean() == 1.0
    assert student.training["n_rows"] == len(rows) and student.training["seed"] == 3


def test_deterministic_given_seed(student, rows):
    again = train_student(list(rows), seed=3, name="student:test")
    assert again.to_dict() == student.to_dict()


def test_save_load_round_trip(student, rows, tmp_path):
    path = tmp_path / "s.json"
    student.save(path)
    loaded = Student.load(path)
    x = feature_matrix([row_input(r) for r in rows])
    assert loaded.name == "student:test"
    np.testing.assert_allclose(loaded.satisfaction(x), student.satisfaction(x))
    doc = json.loads(path.read_text())
    doc["checkpoint_model"]["features"][0] = "no_such_feature"
    path.write_text(json.dumps(doc))
    with pytest.raises(StudentError, match="no_such_feature"):
        Student.load(path)


def test_one_class_rows_rejected(rows):
    with pytest.raises(ValueError, match="one class"):
        train_student([r for r in rows if r.label_score > 2.5], seed=0)


def test_exclusion_rows_train_the_inverse_target(rows):
    """An exclusion row labelled 0 (violated) means the paper IS about the text: same learning."""
    flipped = [r.model_copy(update={"checkpoint": r.checkpoint.model_copy(update={"kind": "exclusion"}),
                                    "label_score": 5.0 - r.label_score}) for r in rows]
    a, b = train_student(rows, seed=1), train_student(flipped, seed=1)
    assert a.checkpoint_model.coef == pytest.approx(b.checkpoint_model.coef)


def test_rows_jsonl_round_trip_and_errors(rows, tmp_path):
    path = tmp_path / "rows.jsonl"
    assert write_rows(rows, path) == len(rows)
    assert list(read_rows(path)) == rows
    lines = path.read_text().splitlines()
    bad = json.loads(lines[1])
    bad["label_score"] = 7
    lines[1] = json.dumps(bad)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"rows\.jsonl:2: label_score"):
        list(read_rows(path))
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"\x00\xf7\xff" * 100)
    with pytest.raises(DataError, match=r"model\.bin:1: not UTF-8 text"):  # named, not a bare codec error
        list(read_rows(binary))
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("{bad\n")
    with pytest.raises(DataError, match=r"garbage\.jsonl:1: Invalid JSON"):  # no stray ": " before it
        list(read_rows(garbage))


def test_from_scifact_on_a_mini_fixture(fixtures):
    """Hand-written 4-abstract SciFact folder and a bag-of-words encoder: one positive per claim
    with its rationale sentence, hard + random negatives, top-k evidence sorted by cosine."""
    vocab = ["vitamin", "kidney", "folic", "methadone", "liver", "transplant", "mouse", "gene"]

    def encode(texts):
        v = np.array([[t.lower().count(w) for w in vocab] for t in texts], dtype=np.float32) + 1e-3
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    rows = list(from_scifact(fixtures / "scorer" / "scifact-mini", encoder=encode, n_hard=1, n_fused=0, n_random=1,
                             evidence_k=2, seed=0))
    pos = [r for r in rows if r.label_relevant == 1]
    assert len(pos) == 2 and len(rows) == 6
    with_fused = list(from_scifact(fixtures / "scorer" / "scifact-mini", encoder=encode, n_hard=1, n_fused=1,
                                   n_random=1, evidence_k=2, seed=0))
    assert len(with_fused) == 8, "one fused-list negative more per claim"
    assert all(r.paper.retrieval_rank and r.paper.bm25_relative is not None and r.paper.doc_similarity is not None
               for r in with_fused)
    kidney = next(r for r in pos if "kidney" in r.checkpoint.text)
    assert kidney.paper.corpus_id == "100"
    assert kidney.rationale == ["Folic acid and vitamin B12 did not slow kidney disease progression."]
    assert kidney.evidence[0].similarity >= kidney.evidence[1].similarity
    assert kidney.checkpoint.terms  # key phrases from the claim
    assert all(r.label_score == 0 for r in rows if r.label_relevant == 0)


def test_default_model_records_its_training(shared_data):
    """The shipped default student names the SciFact files it was trained on (by hash) and its
    held-out metrics, so `python -m training.train_default` can be checked against it."""
    from litnav.scorer import load_student
    from litnav.training.data import scifact_hash

    meta = load_student().training
    assert meta["data_sha256"] == scifact_hash(shared_data / "scifact-train")
    assert meta["heldout"]["n_claims"] > 50 and 0.5 < meta["heldout"]["auc"] <= 1.0
    assert meta["sources"] == ["scifact"]
