"""Evaluation harness: benchmarks, systems (baselines, litnav, ablations), metrics with
bootstrap CIs, and reports (rich table, JSON, Markdown, TREC run files, per-round plot).

Sits on top of the layering (like the CLI): it imports corpus, navigator and litnav records.
"""

from litnav.evaluation.benchmark import Benchmark, BenchmarkError, Task, load_beir, load_benchmark, load_tasks_jsonl
from litnav.evaluation.fusion import reciprocal_rank_fusion
from litnav.evaluation.harness import EvalReport, EvaluationError, SystemResult, evaluate, evaluate_system
from litnav.evaluation.metrics import DEFAULT_KS, hallucinations, metric_names, per_query_metrics
from litnav.evaluation.report import (
    plot_rounds,
    print_report,
    report_to_dict,
    to_markdown,
    write_json,
    write_markdown,
    write_run_files,
)
from litnav.evaluation.stats import bootstrap_ci
from litnav.evaluation.systems import DEFAULT_SYSTEMS, System, SystemRun, check_system_names, make_systems

__all__ = [
    "Benchmark", "BenchmarkError", "Task", "load_beir", "load_benchmark", "load_tasks_jsonl",
    "reciprocal_rank_fusion", "EvalReport", "EvaluationError", "SystemResult", "evaluate", "evaluate_system",
    "DEFAULT_KS", "hallucinations", "metric_names", "per_query_metrics", "plot_rounds", "print_report",
    "report_to_dict", "to_markdown", "write_json", "write_markdown", "write_run_files", "bootstrap_ci",
    "DEFAULT_SYSTEMS", "System", "SystemRun", "check_system_names", "make_systems",
]
