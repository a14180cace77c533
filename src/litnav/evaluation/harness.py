"""Run systems over a benchmark and collect per-query and macro metrics with bootstrap CIs."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from litnav.core.progress import progress_bar
from litnav.corpus.records import Paper
from litnav.evaluation.benchmark import Benchmark
from litnav.evaluation.metrics import DEFAULT_KS, hallucinations, metric_names, per_query_metrics
from litnav.evaluation.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_ci
from litnav.evaluation.systems import System

REFERENCES = ("hybrid", "hybrid+filter", "hybrid-no-source", "bm25")
"""Baselines reported against, in order (see :meth:`EvalReport.references`)."""
HEADLINE = ("nDCG@10", "F1@20", "Recall@100", "MRR")
"""Metrics of the printed difference tables (every nDCG/F1/Recall@K difference is in the JSON)."""
COST_METRICS = ("hallucination_rate", "latency_s", "tokens", "cost_usd")
JUDGED_KS = (10, 20)
"""``Judged@K``: share of a system's top K that has a judgement (any grade) — how far the
pooled judgements cover what the system returns; low coverage biases its scores down."""
"""Per-query values besides the retrieval metrics: tokens = prompt + completion tokens."""


class CorpusLookup(Protocol):
    """What the harness needs from a corpus: record lookup by id (``corpus.Corpus.papers``)."""

    def papers(self, ids: Iterable[str]) -> dict[str, Paper]: ...


class EvaluationError(RuntimeError):
    """A system failed on a query; the message names the system and the qid."""


@dataclass
class SystemResult:
    """Everything measured for one system.

    ``metrics``: macro averages over queries (``nDCG@10``, ``Recall@20``, ..., ``MRR``,
    ``hallucination_rate``, ``latency_s``, ``tokens``, ``cost_usd``); ``ci``: metric ->
    (low, high) 95% bootstrap interval; ``per_query``: qid -> metric -> value;
    ``stage_seconds``: stage -> mean seconds per query; ``per_round``: for multi-round systems,
    one dict per round with macro ``Recall@K`` of that round's ranking (queries that stopped
    early keep their last ranking), else None; ``rankings``: qid -> [(corpus_id, score)];
    ``hallucinated``: qid -> problems (see ``metrics.hallucinations``); ``verdicts``: for
    systems that judge papers, the counts of ``scorer.verdicts.verdict_agreement`` summed over
    queries (``agree`` recomputed from the sums), else None; ``fallbacks``: qid -> why the
    system's first stage ranked that query (``SystemRun.fallback``); ``left_out``: qid -> corpus
    ids the system left out on purpose (``SystemRun.left_out``: a quoted passage's own paper);
    ``engines``: what produced the rankings (``SystemRun.engines`` of the first query that names
    them: litnav's scorer and reranker).
    """

    name: str
    metrics: dict[str, float]
    ci: dict[str, tuple[float, float]]
    per_query: dict[str, dict[str, float]]
    stage_seconds: dict[str, float]
    per_round: list[dict[str, float]] | None
    rankings: dict[str, list[tuple[str, float]]]
    hallucinated: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    verdicts: dict[str, float | int] | None = None
    fallbacks: dict[str, str] = field(default_factory=dict)
    left_out: dict[str, list[str]] = field(default_factory=dict)
    engines: dict[str, str] = field(default_factory=dict)


@dataclass
class EvalReport:
    """One evaluation run: the benchmark, cut-offs, missing gold and each system's result."""

    benchmark: Benchmark
    ks: list[int]
    missing_gold: dict[str, list[str]]
    systems: dict[str, SystemResult]
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    meta: dict[str, Any] = field(default_factory=dict)

    def reference(self) -> str | None:
        """The first of :meth:`references` (None when there is none)."""
        refs = self.references()
        return refs[0] if refs else None

    def references(self) -> list[str]:
        """Baselines every other system is compared against, in this order when evaluated:
        ``hybrid`` (litnav's own first stage), ``hybrid+filter`` (the same with the task's exact
        metadata filter), ``hybrid-no-source`` (the same without a quoted query's own paper) and
        ``bm25``. Empty when only one system ran."""
        if len(self.systems) < 2:
            return []
        return [r for r in REFERENCES if r in self.systems]

    def deltas(self, reference: str, metrics: Sequence[str] | None = None) -> dict[str, dict[str, tuple[float, float, float]]]:
        """Paired differences against ``reference``: system -> metric -> (mean difference, low, high).

        The interval is the paired bootstrap over queries (per-query differences resampled
        with this report's seed), so a low bound above 0 means the system beats the reference
        on that metric at the 95% level. ``metrics`` default to nDCG@K, F1@K, Recall@K and MRR.
        """
        names = list(metrics) if metrics else [*(f"{m}@{k}" for m in ("nDCG", "F1", "Recall") for k in self.ks), "MRR"]
        ref = self.systems[reference].per_query
        out: dict[str, dict[str, tuple[float, float, float]]] = {}
        for name, res in self.systems.items():
            if name == reference:
                continue
            out[name] = {}
            for m in names:
                diffs = [res.per_query[t.qid][m] - ref[t.qid][m] for t in self.benchmark.tasks]
                lo, hi = bootstrap_ci(diffs, resamples=self.resamples, seed=self.seed)
                out[name][m] = (sum(diffs) / len(diffs), lo, hi)
        return out

    @property
    def missing_gold_count(self) -> int:
        """Number of (query, gold id) pairs whose id is not a corpus record."""
        return sum(len(v) for v in self.missing_gold.values())


def _per_round_recall(
    qrels: dict[str, dict[str, int]], rounds: dict[str, list[list[str]]], ks: Sequence[int]
) -> list[dict[str, float]] | None:
    if not rounds:
        return None
    n_rounds = max(len(r) for r in rounds.values())
    if n_rounds == 0:
        return None
    out = []
    for i in range(n_rounds):
        ranking = {qid: (r[i] if i < len(r) else r[-1]) for qid, r in rounds.items() if r}
        sub = {qid: qrels[qid] for qid in ranking}
        values = per_query_metrics(sub, ranking, ks)
        row: dict[str, float] = {"round": i + 1}
        for k in ks:
            row[f"Recall@{k}"] = sum(v[f"Recall@{k}"] for v in values.values()) / len(values)
        out.append(row)
    return out


def evaluate_system(
    system: System,
    benchmark: Benchmark,
    corpus: CorpusLookup,
    ks: Sequence[int] = DEFAULT_KS,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    progress: bool = True,
    condensed: bool = False,
    relevance_level: int = 1,
) -> SystemResult:
    """Run ``system`` on every task and measure it (see :class:`SystemResult`).

    Latency is the wall-clock seconds of ``system.run`` per query. ``condensed=True`` scores
    condensed lists (Sakai 2007): unjudged ids are removed from each ranking before the metrics,
    so pooled judgements that a system's candidates were not drawn into do not count against
    it (``Judged@K`` is measured on the full ranking either way). Raises
    :class:`EvaluationError` when the system raises on a query.
    """
    ks = list(ks)
    qrels = benchmark.qrels()
    rankings: dict[str, list[tuple[str, float]]] = {}
    rounds: dict[str, list[list[str]]] = {}
    extra: dict[str, dict[str, float]] = {}
    stages: dict[str, float] = {}
    hallucinated: dict[str, list[dict[str, Any]]] = {}
    verdicts: dict[str, float | int] | None = None
    fallbacks: dict[str, str] = {}
    left_out: dict[str, list[str]] = {}
    engines: dict[str, str] = {}
    for task in progress_bar(benchmark.tasks, desc=system.name, unit="query", progress=progress):
        t0 = time.perf_counter()
        try:
            run = system.run_task(task) if hasattr(system, "run_task") else system.run(task.query)
        except Exception as exc:
            raise EvaluationError(f"system {system.name!r} failed on query {task.qid!r}: {exc}") from exc
        latency = time.perf_counter() - t0
        rankings[task.qid] = [(str(cid), float(score)) for cid, score in run.ranking]
        ids = [cid for cid, _ in rankings[task.qid]]
        if run.per_round is not None:
            rounds[task.qid] = [list(map(str, r)) for r in run.per_round]
        elif run.fallback:  # its first stage ranked it: that one round, kept in every round
            rounds[task.qid] = [ids]
        printed_ids = [str(p.get("corpus_id")) for p in run.printed]
        rate, problems = hallucinations(ids, run.printed, corpus.papers(list(dict.fromkeys(ids + printed_ids))))
        if problems:
            hallucinated[task.qid] = problems
        usage = run.usage
        extra[task.qid] = {
            "hallucination_rate": rate,
            "latency_s": latency,
            "tokens": float(usage.prompt_tokens + usage.completion_tokens) if usage else 0.0,
            "cost_usd": float(usage.cost_usd) if usage else 0.0,
            **{f"Judged@{k}": (sum(1 for c in ids[:k] if c in task.gold) / min(k, len(ids)) if ids else 0.0)
               for k in JUDGED_KS},
        }
        if run.fallback:
            fallbacks[task.qid] = run.fallback
        if run.left_out:
            left_out[task.qid] = list(run.left_out)
        if not engines and run.engines:
            engines = dict(run.engines)
        for stage, seconds in run.stage_seconds.items():
            stages[stage] = stages.get(stage, 0.0) + float(seconds)
        if getattr(run, "verdicts", None) is not None:
            verdicts = _add_verdicts(verdicts, run.verdicts)
    scored = {q: [c for c, _ in r if not condensed or c in qrels[q]] for q, r in rankings.items()}
    per_query = per_query_metrics(qrels, scored, ks, relevance_level)
    for qid, values in per_query.items():
        values.update(extra[qid])
    names = [*metric_names(ks), *COST_METRICS, *(f"Judged@{k}" for k in JUDGED_KS)]
    n = len(benchmark.tasks)
    metrics = {m: sum(per_query[t.qid][m] for t in benchmark.tasks) / n for m in names}
    ci = {m: bootstrap_ci([per_query[t.qid][m] for t in benchmark.tasks], resamples=resamples, seed=seed) for m in names}
    return SystemResult(
        name=system.name,
        metrics=metrics,
        ci=ci,
        per_query=per_query,
        stage_seconds={s: v / n for s, v in stages.items()},
        per_round=_per_round_recall(qrels, rounds, ks),
        rankings=rankings,
        hallucinated=hallucinated,
        verdicts=verdicts,
        fallbacks=fallbacks,
        left_out=left_out,
        engines=engines,
    )


def _add_verdicts(total: dict[str, float | int] | None, one: dict[str, float | int]) -> dict[str, float | int]:
    """Sum the counts of two ``verdict_agreement`` reports; ``agree`` from the summed counts."""
    from litnav.scorer.verdicts import REASONS

    summed = {k: int(v) + int((total or {}).get(k, 0)) for k, v in one.items() if k != "agree"}
    summed["agree"] = round(1.0 - sum(summed[r] for r in REASONS) / summed["n"], 4) if summed["n"] else 1.0
    return summed


def evaluate(
    benchmark: Benchmark,
    systems: Sequence[System],
    corpus: CorpusLookup,
    ks: Sequence[int] = DEFAULT_KS,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    progress: bool = True,
    meta: dict[str, Any] | None = None,
    condensed: bool = False,
    relevance_level: int = 1,
) -> EvalReport:
    """Evaluate every system on the same benchmark and corpus; system names must be unique.

    ``ks`` are the cut-offs (sorted, de-duplicated); ``resamples``/``seed`` drive the bootstrap.
    Gold ids that are not corpus records are reported in ``EvalReport.missing_gold`` and
    stay in the judgements (they count against recall for every system alike). ``condensed``:
    see :func:`evaluate_system`; recorded in ``meta["condensed"]``. ``relevance_level``: the least
    grade the binary metrics count as relevant (``metrics.per_query_metrics``), in ``meta``.
    """
    ks = sorted(set(ks))
    names = [s.name for s in systems]
    if len(set(names)) != len(names):
        raise ValueError(f"system names must be unique, got {names}")
    gold = sorted({cid for t in benchmark.tasks for cid in t.relevant})
    missing = benchmark.missing_gold(set(corpus.papers(gold)))
    results = {
        s.name: evaluate_system(s, benchmark, corpus, ks, resamples=resamples, seed=seed, progress=progress,
                                condensed=condensed, relevance_level=relevance_level)
        for s in systems
    }
    return EvalReport(benchmark, ks, missing, results, resamples, seed,
                      {**(meta or {}), "condensed": condensed, "relevance_level": relevance_level})
