"""The student a search judges with: ``scorer.student``, else a corpus-local one, else the
bundled default; loaded once per file version and device in a process."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from litnav.core.settings import Settings

CORPUS_STUDENT = ("scorer/student.json", "scorer/student")
"""Corpus-local students, tried in order under the corpus folder when ``scorer.student`` is None."""


def student_path(settings: Settings, corpus) -> str | None:
    """The student to load: ``settings.scorer.student``; else a corpus-local one
    (``DIR/scorer/student.json`` or the folder ``DIR/scorer/student/``); else None (the bundled
    default)."""
    if settings.scorer.student is not None:
        return settings.scorer.student
    directory = getattr(corpus, "directory", None)
    for rel in CORPUS_STUDENT if directory is not None else ():
        candidate = Path(directory) / rel
        if candidate.exists():
            return str(candidate)
    return None


def cached_student(path: str | None, device: str = "cpu"):
    """``scorer.load_student`` once per (path, modification time, device) in this process."""
    from litnav.scorer import default_model_path

    target = Path(path) if path else default_model_path()
    stamped = target / "student.json" if target.is_dir() else target
    stamp = stamped.stat().st_mtime_ns if stamped.exists() else 0  # load_student says what is missing
    return _load_student(str(target), stamp, device)


def search_student(settings: Settings, corpus):
    """The loaded student a search with ``settings`` over ``corpus`` judges with
    (:func:`student_path`, on ``scorer.device``), or None when ``scorer.enabled`` is false."""
    if not settings.scorer.enabled:
        return None
    return cached_student(student_path(settings, corpus), settings.scorer.device)


@lru_cache(maxsize=4)
def _load_student(path: str, stamp: int, device: str = "cpu"):
    from litnav.scorer import load_student

    return load_student(path, device=device)
