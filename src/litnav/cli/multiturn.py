"""``litnav eval --multi-turn FILE``: the multi-turn anchor benchmark (called from ``cli.eval``)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table

from litnav.cli.common import clean_errors, fail, make_console, open_corpus


def multiturn_eval(corpus: Path, cases_file: Path, settings, limit: int | None, json_out: Path | None,
                   progress: bool) -> None:
    """Run the cases of ``cases_file`` over ``corpus``; print per-turn means (overall and per
    direction) and write everything (per case, per turn) to ``json_out`` when given."""
    from litnav.evaluation.benchmark import BenchmarkError
    from litnav.evaluation.multiturn import METRICS, MultiTurnError, load_cases, run_multiturn
    from litnav.session.io import write_text_atomic

    with clean_errors(BenchmarkError):
        cases = load_cases(cases_file)[:limit]
    c = open_corpus(corpus, settings)
    with clean_errors(MultiTurnError):
        report = run_multiturn(cases, c, settings, progress=progress)
    report["cases_file"] = str(cases_file)
    report["corpus"] = str(corpus)
    table = Table(title=f"multi-turn: {len(report['cases'])} cases ({len(report['errors'])} failed)")
    for col in ("direction", "turn", "cases", *METRICS, "edits vs t1", "node Jaccard vs t1"):
        table.add_column(col)
    rows = [("all", report["summary"]["overall"])] + list(report["summary"]["by_direction"].items())
    for name, turns in rows:
        for t in turns:
            table.add_row(name, str(t["turn"]), str(t["cases"]), *(f"{t[m]:.3f}" for m in METRICS),
                          f"{t['edits_vs_turn1']:.2f}", f"{t['node_jaccard_vs_turn1']:.3f}")
    make_console().print(table)
    for e in report["errors"]:
        make_console(stderr=True).print(f"[yellow]case {e['id']} failed: {e['error']}[/yellow]")
    if json_out is not None:
        with clean_errors(OSError):
            write_text_atomic(json.dumps(report, indent=1), json_out)
        make_console(stderr=True).print(f"report written to {json_out}")
    if not report["cases"]:
        fail("no case ran")
