"""scorer layer of litnav: turns (paper metadata, checklist, located evidence) into judgements.

Public API::

    from litnav.scorer import score_paper, score_papers, load_student, Student
    student = load_student()                       # bundled default, or load_student(path)
    scored = score_paper(paper, checklist, {checkpoint_id: [Evidence, ...]}, student)
    scored = score_papers(papers, checklist, {corpus_id: {checkpoint_id: [Evidence]}}, student)

See ``scorer.scoring`` for the final-score formula (PaSaMaster Eq. 9) and the hard-constraint
policy, ``scorer.metadata`` for the metadata rules, ``scorer.features`` for the student's inputs.
Training (row format, converters, fitting, agreement) lives above, in ``litnav.training``.
"""

from __future__ import annotations

import json
from pathlib import Path

from litnav.scorer.scoring import final_score, metadata_failed, score_paper, score_papers, weighted_mean_score
from litnav.scorer.student import FORMAT, STUDENT_FILE, Student, StudentError, default_model_path

__all__ = [
    "Student", "StudentError", "default_model_path", "final_score", "load_student", "metadata_failed",
    "score_paper", "score_papers", "weighted_mean_score",
]


def load_student(path: str | Path | None = None, device: str = "cpu"):
    """Load a student from ``path``, or the bundled default when ``path`` is None
    (``ScorerSettings.student``).

    ``path`` is a feature-student JSON file, or a folder holding ``student.json``; the folder's
    document names the kind (``FORMAT`` = feature student; ``scorer.cross_encoder.FORMAT`` = a
    ``CrossEncoderStudent``, whose weights sit beside it). Both kinds offer ``name``,
    ``predict_satisfaction(items)`` and ``relevance(r)``. Raises ``StudentError`` for a missing
    path or a bad or unknown document and ``OSError`` when the path cannot be read. ``device`` is the torch
    device a cross-encoder runs on (``ScorerSettings.device``); the feature student ignores it."""
    path = default_model_path() if path is None else Path(path)
    if not path.exists():
        raise StudentError(f"{path}: no such student file or folder (scorer.student)")
    if not path.is_dir():
        if path.suffix in (".safetensors", ".bin", ".pt"):
            raise StudentError(f"{path}: a weights file; give the model's folder (the one holding {STUDENT_FILE})")
        return Student.load(path)
    doc_path = path / STUDENT_FILE
    if not doc_path.is_file():
        raise StudentError(f"{path}: a student folder needs {STUDENT_FILE}")
    try:
        fmt = json.loads(doc_path.read_text(encoding="utf-8")).get("format")
    except (json.JSONDecodeError, AttributeError) as exc:
        raise StudentError(f"{doc_path}: {exc}") from exc
    if fmt == FORMAT:
        return Student.load(doc_path)
    from litnav.scorer import cross_encoder

    if fmt == cross_encoder.FORMAT:
        return cross_encoder.CrossEncoderStudent.load(path, device=device)
    raise StudentError(f"{doc_path}: format {fmt!r}, expected {FORMAT!r} or {cross_encoder.FORMAT!r}")
