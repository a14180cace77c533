"""The cross-encoder student: learns a tiny separable set in one epoch (16 pairs, 64 tokens),
round-trips through its folder, is picked by ``load_student`` and plugs into ``score_papers``."""

from __future__ import annotations

import numpy as np
import pytest

from litnav.core.records import Checklist, Checkpoint, Evidence
from litnav.corpus.records import Paper
from litnav.scorer import load_student, score_papers
from litnav.scorer.student import StudentError
from litnav.training.agreement import agreement
from litnav.training.data import RowCheckpoint, RowEvidence, RowPaper, TrainingRow
from litnav.training.train import row_input

TOPICS = ["machine translation", "protein folding", "graph neural networks", "speech recognition",
          "sentiment analysis", "image segmentation", "drug discovery", "question answering"]
OTHER = "We describe pottery styles and kiln temperatures."


def rows() -> list[TrainingRow]:
    out = []
    for i, topic in enumerate(TOPICS):
        for label in (1, 0):
            out.append(TrainingRow(
                checkpoint=RowCheckpoint(kind="topic", text=f"papers on {topic}"),
                paper=RowPaper(title=f"Advances in {topic}" if label else f"Pottery {i}"),
                evidence=[RowEvidence(text=f"We propose a new method for {topic} and evaluate it." if label else OTHER,
                                      similarity=0.5)],
                label_score=5.0 * label, label_relevant=label, source="teacher", group=f"q{i}:{label}"))
    return out


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from litnav.training.cross_encoder import train_cross_encoder

    student = train_cross_encoder(rows(), seed=0, epochs=1, batch_size=4, learning_rate=3e-4, max_seq_length=64,
                                  name="student:ce-test")
    folder = tmp_path_factory.mktemp("ce") / "student"
    student.save(folder)
    return student, folder


def test_learns_separable_pairs(trained):
    student, _ = trained
    m = agreement(student, rows())
    assert m["accuracy"] == 1.0 and m["auc"] == 1.0 and m["spearman"] > 0.8
    p = student.predict_satisfaction([row_input(r) for r in rows()])
    assert (p[::2] > 0.5).all() and (p[1::2] < 0.5).all()
    assert student.training["kind"] == "cross-encoder" and student.training["seed"] == 0


def test_folder_round_trip_and_load_student_picks_the_kind(trained):
    student, folder = trained
    loaded = load_student(folder)
    assert type(loaded).__name__ == "CrossEncoderStudent" and loaded.name == "student:ce-test"
    items = [row_input(r) for r in rows()]
    np.testing.assert_allclose(loaded.predict_satisfaction(items), student.predict_satisfaction(items), atol=1e-6)


def test_plugs_into_score_papers(trained):
    student, _ = trained
    paper = Paper(corpus_id="p1", title="Advances in machine translation")
    checklist = Checklist(intent="machine translation", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="papers on machine translation")])
    ev = Evidence(chunk_id="p1:0", corpus_id="p1", section="Abstract", char_start=0, char_end=52,
                  text="We propose a new method for machine translation and evaluate it.", similarity=0.5)
    [scored] = score_papers([paper], checklist, {"p1": {"c1": [ev]}}, student)
    assert scored.judgements[0].engine == "student:ce-test" and scored.judgements[0].score > 2.5
    assert scored.probability_engine == "student:ce-test" and 0.0 <= scored.final_score <= 1.0


def test_bad_student_folder_is_named(tmp_path):
    with pytest.raises(StudentError, match="needs student.json"):
        load_student(tmp_path)
    (tmp_path / "student.json").write_text('{"format": "nope"}')
    with pytest.raises(StudentError, match="format 'nope'"):
        load_student(tmp_path)
