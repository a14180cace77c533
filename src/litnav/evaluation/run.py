"""One evaluation run end to end, as ``litnav eval`` performs it: open the corpus, load the
benchmark, build the systems, evaluate, print and write the requested outputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from litnav.core.settings import Settings
from litnav.core.version import package_version
from litnav.evaluation.benchmark import load_benchmark
from litnav.evaluation.harness import EvalReport, evaluate
from litnav.evaluation.metrics import DEFAULT_KS
from litnav.evaluation.report import plot_rounds, print_report, write_json, write_markdown, write_run_files
from litnav.evaluation.systems import DEFAULT_SYSTEMS, check_system_names, make_systems


@dataclass
class Outputs:
    """Where to write results; None = not written."""

    json: Path | None = None
    markdown: Path | None = None
    run_dir: Path | None = None
    plot: Path | None = None


def run_evaluation(
    corpus_dir: str | Path,
    *,
    bench: str | Path | None = None,
    queries: str | Path | None = None,
    qrels: str | Path | None = None,
    systems: Sequence[str] = DEFAULT_SYSTEMS,
    ks: Sequence[int] = DEFAULT_KS,
    limit: int | None = None,
    split: str | None = None,
    condensed: bool = False,
    relevance_level: int = 1,
    settings: Settings | None = None,
    outputs: Outputs | None = None,
    progress: bool = True,
    console: Any = None,
) -> EvalReport:
    """Evaluate ``systems`` on a benchmark over the corpus at ``corpus_dir``.

    Systems return ``max(ks)`` results each. ``split`` ("dev"/"heldout") picks the intents of a
    judged-intents folder (``bench/intents/<suite>``). The corpus is read with the encoder of
    ``settings.corpus.model_path`` when set (else the corpus's own model). The plot is drawn only when some system reports
    rounds. Raises ``BenchmarkError`` (bad benchmark file), ``ValueError`` (unknown system,
    bad cut-off) and the corpus's own errors when the corpus cannot be opened.
    """
    from litnav.corpus import Corpus

    settings = settings or Settings()
    outputs = outputs or Outputs()
    names = check_system_names(systems)
    ks = sorted(set(ks))
    if not ks or ks[0] < 1:
        raise ValueError(f"cut-offs must be positive integers, got {list(ks)}")
    benchmark = load_benchmark(bench, queries=queries, qrels=qrels, split=split).limit(limit)
    check_outputs(outputs, benchmark, inputs=_input_files(bench, queries, qrels))
    if outputs.plot and not any(n.startswith("litnav") for n in names):
        (console or _console()).print(f"no plot will be written to {outputs.plot}: only litnav systems report rounds",
                                      markup=False, highlight=False)
    corpus = Corpus.open(corpus_dir, settings=settings.corpus)
    try:
        built = make_systems(names, corpus, settings, depth=max(ks))
        meta = {"corpus": str(corpus_dir), "corpus_fingerprint": corpus.fingerprint(), "systems": names,
                "litnav_version": package_version(), "settings": settings.model_dump(mode="json")}
        report = evaluate(benchmark, built, corpus, ks, progress=progress, meta=meta, condensed=condensed,
                          relevance_level=relevance_level)
    finally:
        corpus.close()
    print_report(report, console)
    if outputs.json:
        write_json(report, outputs.json)
    if outputs.markdown:
        write_markdown(report, outputs.markdown)
    if outputs.run_dir:
        write_run_files(report, outputs.run_dir)
    if outputs.plot and any(r.per_round for r in report.systems.values()):
        plot_rounds(report, outputs.plot)
    elif outputs.plot and any(n.startswith("litnav") for n in names):
        (console or _console()).print(f"no plot written to {outputs.plot}: no system reported rounds",
                                      markup=False, highlight=False)
    return report


def _console():
    from rich.console import Console

    return Console()


def _writable(flag: str, path: Path, folder: Path) -> None:
    """Make ``folder`` and write and remove a file in it, or raise ``ValueError`` naming ``flag``:
    a place that cannot be written ("/proc/...", a read-only mount) stops the run before it starts."""
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".litnav-probe-"):
            pass
    except OSError as exc:
        raise ValueError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None


def _input_files(*paths: str | Path | None) -> list[Path]:
    """The benchmark files an evaluation reads: each given file, and the files of a given folder
    (a judged-intents folder)."""
    out: list[Path] = []
    for p in (Path(x) for x in paths if x is not None):
        out += sorted(f for f in p.iterdir() if f.is_file()) if p.is_dir() else [p]
    return out


def check_outputs(outputs: Outputs, benchmark, inputs: Sequence[Path] = ()) -> None:
    """Refuse, before anything runs, outputs that could not be written or would destroy data: a
    file path that is a folder or lies under a file, a path inside a corpus directory or over one
    of ``inputs`` (the benchmark files read; ``session.io.check_output``'s rules, as every other
    command's outputs), a folder where no file can be written (missing folders are made now), two
    outputs naming one file, a run folder that is a file or lies in a corpus directory, and query
    ids with whitespace for TREC run files (their columns are space-separated). Raises
    ``ValueError``."""
    from litnav.session.io import check_output

    for flag, path in (("--json", outputs.json), ("--markdown", outputs.markdown), ("--plot", outputs.plot)):
        if path is None:
            continue
        path = Path(path)
        if not path.is_dir():
            try:
                check_output(path, "export", inputs=inputs)
            except ValueError as exc:
                raise ValueError(f"{flag} {exc}") from None
        if path.is_dir():
            raise ValueError(f"{flag} {path}: is a folder, not a file")
        existing = next(p for p in path.parents if p.exists() or p == Path(p.anchor) or str(p) == ".")
        if not existing.is_dir():
            raise ValueError(f"{flag} {path}: {existing} is a file, not a folder")
        _writable(flag, path, path.parent)
    files = [(f, Path(p).resolve()) for f, p in (("--json", outputs.json), ("--markdown", outputs.markdown),
                                                  ("--plot", outputs.plot)) if p is not None]
    for i, (flag, path) in enumerate(files):
        other = next((f for f, p in files[:i] if p == path), None)
        if other:
            raise ValueError(f"{other} and {flag} name the same file {path}: one would overwrite the other")
    if outputs.run_dir is not None:
        run_dir = Path(outputs.run_dir)
        if run_dir.exists() and not run_dir.is_dir():
            raise ValueError(f"--run-dir {run_dir}: is a file, not a folder")
        try:
            check_output(run_dir / "system.run", "export", inputs=inputs)
        except ValueError as exc:
            raise ValueError(f"--run-dir {str(exc).replace(str(run_dir / 'system.run'), str(run_dir))}") from None
        _writable("--run-dir", run_dir, run_dir)
        spaced = [t.qid for t in benchmark.tasks if any(c.isspace() for c in t.qid)]
        if spaced:
            raise ValueError(f"--run-dir: query ids with whitespace cannot be written to TREC run files "
                             f"(space-separated columns): {spaced[:5]}")
