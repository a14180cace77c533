"""scorer layer of litnav: turns (paper metadata, checklist, located evidence) into judgements.

Public API::

    from litnav.scorer import score_paper, score_papers, load_student, Student
    student = load_student()                       # bundled default, or load_student(path)
    scored = score_paper(paper, checklist, {checkpoint_id: [Evidence, ...]}, student)
    scored = score_papers(papers, checklist, {corpus_id: {checkpoint_id: [Evidence]}}, student)

    from litnav.scorer.data import from_scifact, read_rows, write_rows, TrainingRow   # training data
    from litnav.scorer.train import train_student                                      # needs scikit-learn

See ``scorer.scoring`` for the final-score formula (PaSaMaster Eq. 9) and the hard-constraint
policy, ``scorer.metadata`` for the metadata rules, ``scorer.features`` for the student's inputs.
"""

from litnav.scorer.scoring import final_score, metadata_failed, score_paper, score_papers, weighted_mean_score
from litnav.scorer.student import Student, StudentError, default_model_path, load_student

__all__ = [
    "Student", "StudentError", "default_model_path", "final_score", "load_student", "metadata_failed",
    "score_paper", "score_papers", "weighted_mean_score",
]
