"""Retrieval metrics of litnav with a new scorer student against the configured one
(``litnav scorer eval --bench``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from litnav.core.settings import Settings
from litnav.evaluation.benchmark import BenchmarkError, load_benchmark
from litnav.evaluation.harness import EvalReport, evaluate
from litnav.evaluation.metrics import DEFAULT_KS
from litnav.evaluation.systems import LitnavSystem


def compare_students(corpus_dir: str | Path, bench: str | Path, student: str | Path, settings: Settings | None = None,
                     *, ks: Sequence[int] = DEFAULT_KS, limit: int | None = None, progress: bool = False,
                     split: str | None = None) -> EvalReport:
    """Evaluate ``litnav[default]`` (``settings.scorer.student``, or the corpus-local/bundled
    default when None) and ``litnav[new]`` (``scorer.student = student``) on the benchmark
    (``split`` "dev"/"heldout" of a judged-intents folder, which needs one: its intents of both
    splits together would mix what a student was tuned on with what it is reported on).
    Raises ``BenchmarkError`` for a bad benchmark and the corpus's errors when it cannot open."""
    from litnav.corpus import Corpus

    settings = settings or Settings()
    tree = settings.model_dump()
    tree["scorer"]["student"] = str(student)
    new = Settings.model_validate(tree)
    ks = sorted(set(ks))
    if Path(bench).is_dir() and split is None:
        raise BenchmarkError(f"{bench}: a judged-intents folder; say which split to evaluate (--split dev or heldout)")
    benchmark = load_benchmark(bench, split=split).limit(limit)
    corpus = Corpus.open(corpus_dir, settings=settings.corpus)
    try:
        systems = [LitnavSystem(corpus, settings, max(ks), name="litnav[default]"),
                   LitnavSystem(corpus, new, max(ks), name="litnav[new]")]
        return evaluate(benchmark, systems, corpus, ks, progress=progress,
                        meta={"corpus": str(corpus_dir), "student": str(student)})
    finally:
        corpus.close()
