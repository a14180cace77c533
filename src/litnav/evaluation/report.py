"""Outputs of an evaluation: JSON, TREC run files, Markdown and rich tables.

The JSON (:func:`report_to_dict`) holds, per system name under ``"systems"``, the macro metrics
under their usual names (``nDCG@10``, ``Recall@20``, ``F1@20``, ``Precision@5``, ``Hit@10``,
``MRR``, ``hallucination_rate``, ``latency_s``, ``tokens``, ``cost_usd``), plus ``ci``
(metric -> [low, high]), ``per_query`` (qid -> metric -> value), ``stage_seconds``,
``per_round``, ``hallucinated``, ``missing_gold``, ``verdicts`` (systems that judge papers:
``scorer.verdicts.verdict_agreement`` summed over queries) and, for each reference baseline evaluated
(``hybrid``, ``hybrid+filter``, ``bm25``), ``delta_vs_<reference>`` (metric -> [mean paired
difference, low, high]; nDCG/F1/Recall at every K and MRR) and, when the benchmark records
intent types, ``by_kind`` (type -> headline metric means and ``n``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from litnav.core.io import write_text
from litnav.evaluation.harness import COST_METRICS, HEADLINE, JUDGED_KS, EvalReport
from litnav.evaluation.metrics import metric_names


def _missing(report: EvalReport) -> dict[str, Any]:
    return {"count": report.missing_gold_count, "queries": len(report.missing_gold), "by_query": report.missing_gold}


def _by_kind(report: EvalReport, name: str) -> dict[str, dict[str, float]]:
    """Macro averages of the headline metrics per intent type (``Task.kind``), with the count
    of intents as ``n``; empty when the benchmark records no types."""
    groups: dict[str, list[str]] = {}
    for t in report.benchmark.tasks:
        if t.kind:
            groups.setdefault(t.kind, []).append(t.qid)
    unkinded = [t.qid for t in report.benchmark.tasks if not t.kind]
    if groups and unkinded:  # every query in some row: the rows' counts add up to the table's
        groups["(no kind)"] = unkinded
    per_query = report.systems[name].per_query
    metrics = [m for m in HEADLINE if m in metric_names(report.ks)]
    return {kind: {"n": len(qids), **{m: sum(per_query[q][m] for q in qids) / len(qids) for m in metrics}}
            for kind, qids in sorted(groups.items())}


def _kind_rows(report: EvalReport, metric: str = "nDCG@10") -> list[tuple[str, list[str]]]:
    """``(kind (n), [metric per system])`` per query kind (``Task.kind``: an intent's type, a
    BEIR query's facet); empty when the benchmark records none or ``metric`` was not measured."""
    if metric not in metric_names(report.ks):
        return []
    by = {name: _by_kind(report, name) for name in report.systems}
    kinds = next(iter(by.values()), {})
    return [(f"{kind} ({v['n']})", [f"{by[name][kind][metric]:.3f}" for name in report.systems])
            for kind, v in kinds.items()]


def report_to_dict(report: EvalReport) -> dict[str, Any]:
    """The whole report as JSON-ready data (see module doc)."""
    missing = _missing(report)
    deltas = {ref: report.deltas(ref) for ref in report.references()}
    systems = {}
    for name, res in report.systems.items():
        systems[name] = {
            **res.metrics,
            "ci": {m: list(v) for m, v in res.ci.items()},
            "stage_seconds": res.stage_seconds,
            "per_round": res.per_round,
            "per_query": res.per_query,
            "hallucinated": res.hallucinated,
            "missing_gold": missing,
            "fallbacks": res.fallbacks,
            "left_out": res.left_out,
            "engines": res.engines,
        }
        if res.verdicts is not None:
            systems[name]["verdicts"] = res.verdicts
        kinds = _by_kind(report, name)
        if kinds:
            systems[name]["by_kind"] = kinds
        for ref, by_system in deltas.items():
            if name in by_system:
                systems[name][f"delta_vs_{ref}"] = {m: list(v) for m, v in by_system[name].items()}
    return {
        "benchmark": {
            "source": report.benchmark.source,
            "queries": len(report.benchmark.tasks),
            "skipped_queries": report.benchmark.skipped_queries,
            "unmatched_qrels": report.benchmark.unmatched_qrels,
            "judgements": judgement_summary(report),
        },
        "ks": report.ks,
        "bootstrap": {"resamples": report.resamples, "seed": report.seed, "confidence": 0.95},
        "missing_gold": missing,
        "meta": report.meta,
        "systems": systems,
    }


def write_json(report: EvalReport, path: str | Path) -> Path:
    """Write :func:`report_to_dict` as indented JSON (atomically); returns the path."""
    return write_text(path, json.dumps(report_to_dict(report), indent=2, default=str) + "\n")


def write_run_files(report: EvalReport, run_dir: str | Path) -> list[Path]:
    """Write each system's rankings as a TREC run file ``run_dir/<system>.run``.

    One line per returned paper: ``qid Q0 corpus_id rank score system`` (rank 1-based; score
    ``N + 1 - rank`` for a ranking of N papers, since trec_eval, pytrec_eval and ranx order by
    score, not rank: litnav's final scores do not follow its order, and RRF scores tie). Queries
    keep benchmark order. Returns the paths written.
    """
    paths = []
    for name, res in report.systems.items():
        lines = []
        for task in report.benchmark.tasks:
            ranking = res.rankings.get(task.qid, [])
            for rank, (cid, _score) in enumerate(ranking, 1):
                lines.append(f"{task.qid} Q0 {cid} {rank} {len(ranking) + 1 - rank} {name}")
        paths.append(write_text(Path(run_dir) / f"{name}.run", "\n".join(lines) + ("\n" if lines else "")))
    return paths


def _fmt(metric: str, value: float) -> str:
    if metric == "tokens":
        return f"{value:,.0f}"
    if metric == "cost_usd":
        return f"{value:.4f}"
    if metric == "latency_s":
        return f"{value:.3f}"
    return f"{value:.3f}"


def _rows(report: EvalReport) -> list[tuple[str, list[str], set[int]]]:
    """(metric, cells, indices of the best systems) for the comparison table; no best for
    cost rows or when all systems tie."""
    names = list(report.systems)
    rows = []
    for metric in [*metric_names(report.ks), *COST_METRICS, *(f"Judged@{k}" for k in JUDGED_KS)]:
        if any(metric not in report.systems[n].metrics for n in names):
            continue
        values = [report.systems[n].metrics[metric] for n in names]
        cells = []
        for n, v in zip(names, values):
            lo, hi = report.systems[n].ci[metric]
            cells.append(f"{_fmt(metric, v)} [{_fmt(metric, lo)}, {_fmt(metric, hi)}]")
        best: set[int] = set()
        if metric not in COST_METRICS and len(names) > 1 and max(values) > min(values):
            best = {i for i, v in enumerate(values) if v == max(values)}
        rows.append((metric, cells, best))
    return rows


def _delta_tables(report: EvalReport) -> list[tuple[str, list[str], list[tuple[str, list[str]]]]]:
    """One (reference, other systems, rows) per reference; rows are the headline metrics
    (``harness.HEADLINE`` present in this run), cells ``mean [low, high]`` with ``*`` when the
    interval lies above 0 and ``!`` when it lies below."""
    tables = []
    available = set(metric_names(report.ks))
    metrics = [m for m in HEADLINE if m in available] or ["MRR"]
    for ref in report.references():
        deltas = report.deltas(ref, metrics)
        others = list(deltas)
        rows = []
        for m in metrics:
            cells = []
            for n in others:
                mean, lo, hi = deltas[n][m]
                flag = "*" if lo > 0 else "!" if hi < 0 else ""
                cells.append(f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]{flag}")
            rows.append((m, cells))
        tables.append((ref, others, rows))
    return tables


DELTA_TITLE = "Difference from {ref} (paired bootstrap 95% CI; * = CI above 0, ! = CI below 0)"


def _round_rows(report: EvalReport) -> list[tuple[str, list[str]]]:
    out = []
    for name, res in report.systems.items():
        prev = None
        for row in res.per_round or []:
            cells = []
            for k in report.ks:
                v = row[f"Recall@{k}"]
                gain = "" if prev is None else f" ({v - prev[f'Recall@{k}']:+.3f})"
                cells.append(f"{v:.3f}{gain}")
            out.append((f"{name} round {int(row['round'])}", cells))
            prev = row
    return out


def to_markdown(report: EvalReport) -> str:
    """A Markdown report: the comparison table (mean [95% CI]), per-round recall, stage times
    and missing gold."""
    names = list(report.systems)
    lines = [
        f"# litnav eval: {report.benchmark.source}",
        "",
        f"{len(report.benchmark.tasks)} queries; cells are the mean over queries "
        f"[95% bootstrap CI, {report.resamples} resamples, seed {report.seed}]; best in bold.",
        "",
        "| metric | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for metric, cells, best in _rows(report):
        shown = [f"**{c}**" if i in best else c for i, c in enumerate(cells)]
        lines.append(f"| {metric} | " + " | ".join(shown) + " |")
    for title, first, columns, rows in _tables(report):
        lines += ["", f"## {title}", "", f"| {first} | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
        lines += [f"| {label} | " + " | ".join(cells) + " |" for label, cells in rows]
    verdicts = verdict_lines(report)
    if verdicts:
        lines += ["", "## Verdicts and their quotes", "", *(f"- {line}" for line in verdicts)]
    lines += ["", "## Notes", "", *(f"- {line}" for line in note_lines(report))]
    lines += ["", f"Gold ids missing from the corpus: {report.missing_gold_count} "
              f"(in {len(report.missing_gold)} queries)."]
    for qid, ids in report.missing_gold.items():
        lines.append(f"- {qid}: {', '.join(ids)}")
    return "\n".join(lines) + "\n"


def judgement_summary(report: EvalReport) -> dict[str, Any]:
    """What the judgements are: ``graded`` (some grade above 1), judged and relevant (grade at
    least the run's relevance level) (query, paper) pairs, relevant per query (mean, min, max),
    queries with none at that level, and the base rate (relevant share of the judged pairs)."""
    tasks = report.benchmark.tasks
    level = int(report.meta.get("relevance_level", 1))
    judged = sum(len(t.gold) for t in tasks)
    relevant = [sum(g >= level for g in t.gold.values()) for t in tasks]
    return {"graded": any(g > 1 for t in tasks for g in t.gold.values()), "relevance_level": level, "judged": judged,
            "relevant": sum(relevant), "relevant_per_query": {"mean": round(sum(relevant) / len(tasks), 2),
                                                              "min": min(relevant), "max": max(relevant)},
            "queries_without_relevant": sum(n == 0 for n in relevant),
            "base_rate": round(sum(relevant) / judged, 4) if judged else None}


ENGINE_KEYS = ("scorer", "scorer_training", "reranker", "retrieval")
"""The ``Session.engines`` entries the Notes name for each litnav system."""


def _ids(ids: Sequence[str], n: int = 10) -> str:
    return ", ".join(ids[:n]) + (f", ... ({len(ids)} in all)" if len(ids) > n else "")


def note_lines(report: EvalReport) -> list[str]:
    """What a reader must know to read the numbers: the judgements (graded or binary, base
    rate), queries left out (no relevant judgement; judged ids the queries file lacks), queries
    a system handed to its first stage (``SystemResult.fallbacks``) and papers a system left out
    on purpose (``SystemResult.left_out``) with how they were judged."""
    j = judgement_summary(report)
    lines = [f"Judgements: {'graded' if j['graded'] else 'binary'} ({'nDCG gains are the grades' if j['graded'] else 'gain 1'}; "
             f"Recall, F1, Hit and MRR count grade >= {j['relevance_level']} as relevant); {j['judged']} judged "
             f"(query, paper) pairs, {j['relevant']} relevant (base rate {j['base_rate']:.1%}), "
             f"{j['relevant_per_query']['mean']} relevant a query ({j['relevant_per_query']['min']}-"
             f"{j['relevant_per_query']['max']})"
             + (f"; {j['queries_without_relevant']} queries have none at that level (their binary metrics are 0)"
                if j["queries_without_relevant"] else "") + "."]
    b = report.benchmark
    if b.skipped_queries:
        lines.append(f"Skipped {len(b.skipped_queries)} queries without a relevant judgement: {_ids(b.skipped_queries)}.")
    if b.unmatched_qrels:
        lines.append(f"Left out the judgements of {len(b.unmatched_qrels)} query ids the queries file does not hold: "
                     f"{_ids(b.unmatched_qrels)}.")
    qrels = b.qrels()
    for name, res in report.systems.items():
        if res.engines:
            lines.append(f"{name} ran with " + "; ".join(f"{k} {res.engines[k]}" for k in ENGINE_KEYS if k in res.engines)
                         + ".")
        if res.fallbacks:
            shown = [f"{q} ({why if len(why) <= 90 else why[:90].rsplit(' ', 1)[0] + ' …'})"
                     for q, why in res.fallbacks.items()]
            lines.append(f"{name}: {len(res.fallbacks)} queries were ranked by its first stage alone (plain hybrid "
                         f"retrieval), since litnav reads no search in them: {_ids(shown, 5)}.")
        if res.left_out:
            grades = [qrels[q].get(cid) for q, ids in res.left_out.items() for cid in ids[:1]]
            judged = ", ".join(f"{n} {what}" for n, what in (
                (sum(g is None for g in grades), "unjudged"), (sum(g == 0 for g in grades), "judged not relevant"),
                (sum(bool(g) for g in grades), "judged relevant")) if n)
            lines.append(f"{name} left out the query's own paper (the corpus paper the query is quoted from; "
                         f"navigator.exclude_source) in {len(res.left_out)} of {len(b.tasks)} queries ({judged}); "
                         "a system that keeps it ranks it like any other paper (hybrid-no-source is hybrid without it).")
    return lines


def verdict_lines(report: EvalReport) -> list[str]:
    """One line per system that judged papers: how its verdicts agree with their quotes
    (``scorer.verdicts``) and how many positive verdicts quote a sentence stating their
    checkpoint."""
    lines = []
    for name, res in report.systems.items():
        v = res.verdicts
        if not v or not v["n"]:  # judged nothing (scorer off)
            continue
        support = f"{v['supported']} of {v['positive']}" + (f" ({v['supported'] / v['positive']:.1%})" if v["positive"] else "")
        lines.append(f"{name} verdicts: {v['agree']:.1%} of {v['n']} quoted judgements agree with their quote "
                     f"(boilerplate quote {v['boilerplate']}, not satisfied though the quote states it "
                     f"{v['unsatisfied_but_stated']}, exclusion respected though the quote violates it "
                     f"{v['respected_but_violated']}); {support} satisfied checkpoints and violated exclusions "
                     "quote a sentence stating every key phrase")
    return lines


def write_markdown(report: EvalReport, path: str | Path) -> Path:
    """Write :func:`to_markdown` (atomically); returns the path."""
    return write_text(path, to_markdown(report))


def _tables(report: EvalReport) -> list[tuple[str, str, list[str], list[tuple[str, list[str]]]]]:
    """The report's tables after the main one, for both renderings: ``(title, label column,
    columns, [(label, cells)])`` of the differences against each reference, recall per round,
    mean seconds per stage and nDCG@10 by query kind (each only when it has rows)."""
    names = list(report.systems)
    out = [(DELTA_TITLE.format(ref=ref), "metric", others, rows) for ref, others, rows in _delta_tables(report)]
    rounds = _round_rows(report)
    if rounds:
        out.append(("Recall per round (gain over the previous round)", "system, round",
                    [f"Recall@{k}" for k in report.ks], rounds))
    stages = sorted({s for r in report.systems.values() for s in r.stage_seconds})
    if stages:
        out.append(("Mean seconds per query by stage", "stage", names, [
            (s, [f"{report.systems[n].stage_seconds[s]:.3f}" if s in report.systems[n].stage_seconds else ""
                 for n in names]) for s in stages]))
    kinds = _kind_rows(report)
    if kinds:
        out.append(("nDCG@10 by query kind", "kind (queries)", names, kinds))
    return out


def _table(table_type: Any, title: str, first: str, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[str]]]):
    """A rich ``Table``: a bold label column ``first``, right-aligned ``columns``, one row per
    ``(label, cells)``."""
    table = table_type(title=title)
    table.add_column(first, style="bold")
    for c in columns:
        table.add_column(c, justify="right")
    for label, cells in rows:
        table.add_row(label, *cells)
    return table


def print_report(report: EvalReport, console: Any = None) -> None:
    """Print the comparison table, per-round recall, stage times and missing gold with rich."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    names = list(report.systems)
    table = Table(title=f"{report.benchmark.source} — {len(report.benchmark.tasks)} queries, mean [95% CI]")
    table.add_column("metric", style="bold")
    for n in names:
        table.add_column(n, justify="right")
    for metric, cells, best in _rows(report):
        table.add_row(metric, *[f"[bold green]{c}[/]" if i in best else c for i, c in enumerate(cells)])
    console.print(table)
    for title, first, columns, rows in _tables(report):
        console.print(_table(Table, title, first, columns, rows))
    for line in [*verdict_lines(report), *note_lines(report)]:
        console.print(line, markup=False, highlight=False)
    shown = {q: ids for q, ids in list(report.missing_gold.items())[:20]}
    console.print(
        f"Gold ids missing from the corpus: {report.missing_gold_count} (in {len(report.missing_gold)} queries)"
        + (f": {shown}" + (" ..." if len(report.missing_gold) > 20 else "") if shown else "")
    )


def plot_rounds(report: EvalReport, path: str | Path) -> Path:
    """Draw Recall@K after each round for every multi-round system (one panel per K) to a PNG.

    Raises ``ValueError`` when no system reported per-round rankings.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    series = {n: r.per_round for n, r in report.systems.items() if r.per_round}
    if not series:
        raise ValueError("no system reported per-round rankings; nothing to plot")
    fig, axes = plt.subplots(1, len(report.ks), figsize=(3.2 * len(report.ks), 3.2), squeeze=False, sharey=True)
    for ax, k in zip(axes[0], report.ks):
        for name, rows in series.items():
            ax.plot([r["round"] for r in rows], [r[f"Recall@{k}"] for r in rows], marker="o", label=name)
        ax.set_title(f"Recall@{k}")
        ax.set_xlabel("round")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("macro recall")
    axes[0][-1].legend(fontsize="small")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
