"""Grades name where they come from: a checkpoint kind the student never saw in training is
marked as not calibrated, with the engine and its training data (never passed off as a
calibrated probability)."""

from __future__ import annotations

from litnav.core.records import Checklist, Checkpoint, Evidence
from litnav.corpus.records import Paper
from litnav.scorer import load_student, score_paper
from litnav.scorer.student import calibration

TEXT = "We fine-tune BERT for named entity recognition in clinical notes."
EVIDENCE = [Evidence(chunk_id="1:0", corpus_id="1", section="Abstract", char_start=0, char_end=len(TEXT),
                     text=TEXT, similarity=0.6)]
PAPER = Paper(corpus_id="1", title="Clinical NER with BERT", year=2021)


def test_default_student_is_calibrated_for_topic_checkpoints_only() -> None:
    data, kinds = calibration(load_student())
    assert "scifact" in data and kinds == ("topic",)


def test_uncalibrated_kinds_say_so_with_engine_and_training_data() -> None:
    student = load_student()
    topic = Checkpoint(id="c1", kind="topic", text="clinical named entity recognition", terms=["named entity recognition"])
    method = Checkpoint(id="c2", kind="method", text="The paper uses BERT", terms=["BERT"])
    cl = Checklist(intent="clinical NER using BERT", checkpoints=[topic, method])
    j_topic, j_method = score_paper(PAPER, cl, {"c1": EVIDENCE, "c2": EVIDENCE}, student).judgements
    assert "not calibrated" not in j_topic.rationale
    assert "not calibrated for method checkpoints" in j_method.rationale
    assert student.name in j_method.rationale and "scifact" in j_method.rationale
    assert j_method.engine == student.name


def test_recorded_checkpoint_kinds_win_over_sources() -> None:
    class Fake:
        training = {"sources": ["scifact", "teacher"], "data": "mixed", "checkpoint_kinds": ["topic", "method"]}

    assert calibration(Fake()) == ("mixed", ("topic", "method"))
    Fake.training = {"sources": ["teacher"]}
    assert "exclusion" in calibration(Fake())[1]
