"""``litnav eval``: compare litnav, its ablations and plain baselines on a benchmark."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from litnav.cli.common import SetOpt, SettingsOpt, fail, settings_from


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def register(app: typer.Typer) -> None:
    """Add the ``eval`` command to ``app``."""

    @app.command("eval")
    def eval_command(
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
        bench: Optional[Path] = typer.Option(
            None, "--bench", help="Benchmark JSONL (qid, query, gold[, checklist]) or a judged-intents folder "
            "(bench/intents/<suite>: intents.jsonl + judgements.jsonl)."),
        split: Optional[str] = typer.Option(
            None, "--split", help="dev or heldout: that split of a judged-intents folder (default: all intents)."),
        queries: Optional[Path] = typer.Option(None, "--queries", help="BEIR queries.jsonl (with --qrels)."),
        qrels: Optional[Path] = typer.Option(None, "--qrels", help="Qrels (with --queries): BEIR TSV (query-id, "
                                             "corpus-id, score) or TREC (qid, iteration, docid, grade); .gz read too."),
        systems: str = typer.Option(
            "bm25,dense,hybrid,litnav", "--systems",
            help="Comma-separated: bm25, dense, hybrid, hybrid+filter (hybrid then the task's exact metadata "
            "filter), hybrid-no-source (hybrid without the paper a quoted query comes from, as litnav leaves it out), litnav, litnav-no-citations, litnav-no-reflection, litnav-no-scorer, litnav-fusion-only, "
            "litnav-score-order, litnav-fused-order, litnav-keep-source, litnav-no-example, litnav-no-cross-encoder, "
            "litnav-rounds-N. Every system is compared with hybrid, "
            "hybrid+filter, hybrid-no-source and bm25 when those ran.",
        ),
        k: str = typer.Option("5,10,20,50,100", "--k", help="Comma-separated cut-offs K."),
        condensed: bool = typer.Option(
            False, "--condensed", help="Score condensed lists: drop unjudged ids from each ranking first "
            "(for pooled judgements a system did not contribute to; Judged@K shows the coverage)."),
        limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Evaluate only the first N queries."),
        relevance_level: int = typer.Option(
            1, "--relevance-level", min=1, help="Least grade that Recall, Precision, F1, Hit and MRR count as relevant "
            "(trec_eval -l; nDCG keeps every grade as its gain)."),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Write metrics, CIs and per-query values here."),
        markdown: Optional[Path] = typer.Option(None, "--markdown", help="Write a Markdown report here."),
        run_dir: Optional[Path] = typer.Option(None, "--run-dir", help="Write TREC run files DIR/<system>.run."),
        plot: Optional[Path] = typer.Option(None, "--plot", help="PNG of recall per round (litnav systems)."),
        set_: Optional[list[str]] = SetOpt,
        settings_file: Optional[Path] = SettingsOpt,
        no_progress: bool = typer.Option(False, "--no-progress", help="Hide the progress bars."),
        multi_turn: Optional[Path] = typer.Option(
            None, "--multi-turn", help="Multi-turn anchor benchmark JSONL (anchor, direction, query, turns, gold; "
            "bench/multiturn/cases.jsonl): Hit@5, MRR, nDCG@10 after every turn."),
    ) -> None:
        """Measure systems against a benchmark: metrics with 95% bootstrap CIs, per-round recall."""
        if multi_turn is not None:
            from litnav.cli.multiturn import multiturn_eval

            multiturn_eval(corpus, multi_turn, settings_from(settings_file, set_), limit, json_out, not no_progress)
            return
        from litnav.corpus import CorpusError
        from litnav.evaluation.benchmark import BenchmarkError
        from litnav.evaluation.harness import EvaluationError
        from litnav.evaluation.run import Outputs, run_evaluation

        beir = queries is not None or qrels is not None
        if (bench is None) == (not beir) or (beir and (queries is None or qrels is None)):
            fail("give --bench FILE, or both --queries FILE and --qrels FILE", code=2)
        if split is not None and split not in ("dev", "heldout"):
            fail(f"--split {split!r}: expected dev or heldout", code=2)
        if not corpus.exists():
            fail(f"corpus directory {corpus} does not exist (build one with `litnav build SOURCE --corpus {corpus}`)")
        try:
            ks = [int(x) for x in _csv(k)]
        except ValueError:
            fail(f"--k {k!r}: expected comma-separated integers", code=2)
        settings = settings_from(settings_file, set_)
        try:
            run_evaluation(
                corpus, bench=bench, queries=queries, qrels=qrels, systems=_csv(systems), ks=ks, limit=limit, split=split, condensed=condensed,
                relevance_level=relevance_level,
                settings=settings, outputs=Outputs(json_out, markdown, run_dir, plot), progress=not no_progress,
            )
        except (BenchmarkError, ValueError) as exc:
            fail(str(exc), code=2)
        except (CorpusError, EvaluationError) as exc:
            fail(str(exc))
        except OSError as exc:  # an output that could not be written after all (disk full, permissions)
            from litnav.core.tool import error_text

            fail(error_text(exc))
