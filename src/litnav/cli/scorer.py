"""``litnav scorer``: distil a student scorer from a teacher (synthesize, train, eval, convert)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from litnav.cli.common import (
    SetOpt,
    SettingsOpt,
    clean_errors,
    err_console,
    fail,
    open_corpus,
    settings_from,
    stdout_is_tty,
)

scorer_app = typer.Typer(name="scorer", help="Distil a lightweight student scorer from a teacher.",
                         no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)


def _print_json(doc) -> None:
    typer.echo(json.dumps(doc, indent=1, default=str))


@scorer_app.command("synthesize")
def synthesize_command(
    corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
    teacher: str = typer.Option("scorer", "--teacher", help="LLM role (e.g. scorer) or endpoint name of the teacher."),
    out: Path = typer.Option(..., "--out", help="Training data JSONL, synthesize's own (a rerun resumes it; "
                             "<out>.state.json tracks progress)."),
    topics: int = typer.Option(8, "--topics", min=1, help="Seed topics (k-means clusters)."),
    intents_per_topic: int = typer.Option(2, "--intents-per-topic", min=1),
    seeds_per_topic: int = typer.Option(3, "--seeds-per-topic", min=1, help="Papers shown per topic."),
    sample: int = typer.Option(20000, "--sample", min=1, help="Abstract vectors clustered (seeded sample)."),
    positives: int = typer.Option(4, "--positives", min=0),
    partials: int = typer.Option(4, "--partials", min=0),
    hard_negatives: int = typer.Option(4, "--hard-negatives", min=0),
    random_negatives: int = typer.Option(2, "--random-negatives", min=0),
    seed: int = typer.Option(0, "--seed"),
    set_: Optional[list[str]] = SetOpt,
    settings_file: Optional[Path] = SettingsOpt,
    no_progress: bool = typer.Option(False, "--no-progress"),
) -> None:
    """Sample topics, synthesise intents + checklists, retrieve candidates, and label them with the teacher."""
    from litnav.llm import LLMError
    from litnav.training.distill import DistillConfig, DistillError, synthesize, usage_line

    settings = settings_from(settings_file, set_)
    cfg = DistillConfig(topics=topics, intents_per_topic=intents_per_topic, seeds_per_topic=seeds_per_topic,
                        sample=sample, positives=positives, partials=partials, hard_negatives=hard_negatives,
                        random_negatives=random_negatives, seed=seed)
    c = open_corpus(corpus, settings)
    try:
        with clean_errors(DistillError, LLMError, OSError):
            rep = synthesize(c, settings, teacher, out, cfg, progress=not no_progress and stdout_is_tty())
    finally:
        c.close()
    typer.echo(f"{rep.intents_done} intent(s) labelled, {rep.intents_skipped} already done "
               f"(of {rep.intents_total}); {rep.rows_written} rows from {rep.papers_labelled} papers -> {rep.out}")
    if rep.dropped_rows:
        typer.echo(f"dropped {rep.dropped_rows} row(s) of an interrupted intent before resuming")
    if rep.failed:
        typer.echo(f"{len(rep.failed)} paper(s) the teacher could not grade (skipped), first: {rep.failed[0]}")
    if rep.ungraded:
        typer.echo(f"{len(rep.ungraded)} intent(s) of which the teacher graded no paper ({', '.join(rep.ungraded[:5])}): "
                   "not marked done, so a rerun asks again")
    typer.echo(f"cost: {usage_line(rep.usage)}")


@scorer_app.command("train")
def train_command(
    data: Path = typer.Argument(..., help="Training data JSONL."),
    out: Path = typer.Option(..., "--out", help="Model: a .json file or a folder (cross-encoder: a folder)."),
    kind: str = typer.Option("feature", "--kind", help="feature | cross-encoder."),
    seed: int = typer.Option(0, "--seed"),
    heldout: float = typer.Option(0.2, "--heldout", help="Fraction of intents held out for evaluation."),
    name: Optional[str] = typer.Option(None, "--name", help="Engine name recorded in judgements."),
    epochs: int = typer.Option(2, "--epochs", min=1, help="Cross-encoder epochs."),
    batch_size: int = typer.Option(16, "--batch-size", min=1),
    learning_rate: float = typer.Option(5e-5, "--lr"),
    max_seq_length: int = typer.Option(128, "--max-seq-length", min=8),
    base_model: Optional[Path] = typer.Option(None, "--base-model", help="Encoder folder (default: bundled MiniLM)."),
    passage: str = typer.Option("evidence", "--passage", help="Cross-encoder input beside the checkpoint: evidence "
                                "(a checkpoint scorer) | abstract (a reranker for reranker.cross_encoder_path)."),
    precision: str = typer.Option("fp32", "--precision", help="fp32 | bf16 (autocast; ~2x faster on CPUs with bf16)."),
    trainable_layers: Optional[int] = typer.Option(None, "--trainable-layers", min=1,
                                                   help="Train only the top k transformer layers and the head."),
    delta: bool = typer.Option(False, "--delta", help="Save only the tensors that differ from the bundled MiniLM "
                               "(float16; with --trainable-layers 3 about 11 MB instead of 90 MB)."),
    force: bool = typer.Option(False, "--force", help="Replace a cross-encoder student in --out by a feature one."),
    no_progress: bool = typer.Option(False, "--no-progress"),
) -> None:
    """Train a student on teacher (or human) labels and report held-out agreement."""
    from litnav.training.data import DataError
    from litnav.training.pipeline import KINDS, train_file

    if kind not in KINDS:
        fail(f"--kind {kind!r}: expected one of {', '.join(KINDS)}", code=2)
    if passage not in ("evidence", "abstract") or precision not in ("fp32", "bf16"):
        fail(f"--passage {passage!r} / --precision {precision!r}: expected evidence|abstract and fp32|bf16", code=2)
    if kind != "cross-encoder" and (delta or trainable_layers or passage != "evidence" or precision != "fp32"):
        fail("--passage, --precision, --trainable-layers and --delta are for --kind cross-encoder", code=2)
    folder = out if out.suffix != ".json" else out.parent if out.name == "student.json" else None
    if kind == "feature" and folder is not None and not force:
        from litnav.scorer.cross_encoder import holds_weights

        if holds_weights(folder):
            fail(f"--out {out} holds a cross-encoder student; a feature student saved there replaces it and deletes "
                 "its weights: give another --out (or a .json file), or --force", code=2)
    ce = ({"epochs": epochs, "batch_size": batch_size, "learning_rate": learning_rate,
           "max_seq_length": max_seq_length, "base_model": base_model, "passage": passage, "precision": precision,
           "trainable_layers": trainable_layers} if kind == "cross-encoder" else {})
    with clean_errors(DataError, ValueError, OSError):
        res = train_file(data, out, kind=kind, seed=seed, heldout=heldout, name=name,
                         progress=not no_progress and stdout_is_tty(), delta=delta, **ce)
    _print_json({"model": str(res.path), "name": res.student.name, "kind": kind, "train_rows": res.n_train,
                 "heldout_rows": res.n_heldout, "heldout_agreement": res.heldout})


@scorer_app.command("eval")
def eval_command(
    data: Path = typer.Argument(..., help="Training data JSONL (teacher labels)."),
    model: Path = typer.Option(..., "--model", help="Student file or folder."),
    heldout: Optional[float] = typer.Option(None, "--heldout", help="Default: the split recorded at training; 0 = all rows."),
    seed: Optional[int] = typer.Option(None, "--seed"),
    corpus: Optional[Path] = typer.Option(None, "--corpus", help="Corpus directory (with --bench)."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark JSONL or judged-intents folder (with "
                                         "--split): retrieval metrics new vs default student."),
    split: Optional[str] = typer.Option(None, "--split", help="dev or heldout: that split of a judged-intents folder."),
    k: str = typer.Option("5,10,20", "--k", help="Cut-offs for --bench."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the results here."),
    set_: Optional[list[str]] = SetOpt,
    settings_file: Optional[Path] = SettingsOpt,
) -> None:
    """Agreement with the teacher on held-out intents; with --bench, retrieval metrics vs the default student."""
    from litnav.scorer.student import StudentError
    from litnav.training.data import DataError
    from litnav.training.pipeline import evaluate_file

    if (corpus is None) != (bench is None):
        fail("--corpus and --bench go together", code=2)
    if bench is not None and bench.is_dir() and split is None:
        fail(f"{bench}: a judged-intents folder; say which split to evaluate (--split dev or heldout)", code=2)
    with clean_errors(DataError, StudentError, ValueError, OSError):
        doc = evaluate_file(data, model, heldout=heldout, seed=seed)
    if bench is not None:
        from litnav.evaluation.benchmark import BenchmarkError
        from litnav.evaluation.harness import EvaluationError
        from litnav.evaluation.report import print_report
        from litnav.evaluation.students import compare_students

        settings = settings_from(settings_file, set_)
        try:
            ks = [int(x) for x in k.split(",") if x.strip()]
        except ValueError:
            fail(f"--k {k!r}: expected comma-separated integers", code=2)
        with clean_errors(BenchmarkError, EvaluationError, ValueError, OSError):
            report = compare_students(corpus, bench, model, settings, ks=ks, limit=limit, split=split)
        print_report(report)
        if settings.reranker.order == "combined":
            from litnav.reranker.combine import load_combination

            if load_combination(settings.reranker.combination).scorer_weight == 0:
                err_console.print("note: the reranker combination gives the scorer weight 0, so both students "
                                    "rank alike; compare their orderings with --set reranker.order=score, or refit the "
                                    "combination for the new student (README: Distilling your own scorer)",
                                    markup=False, highlight=False)
        doc["retrieval"] = {name: res.metrics for name, res in report.systems.items()}
    _print_json(doc)
    if json_out is not None:
        json_out.write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")


@scorer_app.command("convert")
def convert_command(
    src: Path = typer.Argument(..., help="SciFact folder (corpus.jsonl, claims_train.csv) or BEIR folder."),
    out: Path = typer.Option(..., "--out", help="Training data JSONL (a new file; --force replaces one)."),
    fmt: str = typer.Option(..., "--format", help="scifact | beir."),
    force: bool = typer.Option(False, "--force", help="Replace --out when it exists."),
    queries: Optional[Path] = typer.Option(None, "--queries", help="BEIR queries file (default: found in SRC)."),
    qrels: Optional[Path] = typer.Option(None, "--qrels", help="BEIR qrels file (default: found in SRC)."),
    seed: int = typer.Option(0, "--seed"),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="Cache sentence vectors here."),
) -> None:
    """Turn human evidence labels into the student training format."""
    from litnav.training.data import DataError, from_scifact, write_rows

    if fmt not in ("scifact", "beir"):
        fail(f"--format {fmt!r}: expected scifact or beir", code=2)
    if out.exists() and out.stat().st_size and not force:
        fail(f"--out {out} exists; convert writes a new file: give another --out (join files for training with "
             "`cat a.jsonl b.jsonl > all.jsonl`) or --force to replace it", code=2)
    with clean_errors(DataError, OSError):
        if fmt == "scifact":
            rows = from_scifact(src, cache_dir=cache_dir, seed=seed)
        else:
            from litnav.training.beir import from_beir

            rows = from_beir(src, queries=queries, qrels=qrels, cache_dir=cache_dir, seed=seed)
        n = write_rows(rows, out)
    typer.echo(f"{n} rows -> {out}")


def register(app: typer.Typer) -> None:
    """Add the ``scorer`` sub-commands to ``app``."""
    app.add_typer(scorer_app, name="scorer")
