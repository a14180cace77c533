"""Fit the weight of the final rank fusion (``reranker.combine``) on development data only.

Two steps, so several corpora/benchmarks can feed one fit:

    # 1. run litnav on dev queries and record, per query, the scored top-N (fused rank, final
    #    score, probability, soft failures), the unscored fused tail and the gold grades
    python -m litnav.evaluation.fit_combination collect --corpus .cache/bench/scifact \\
        --queries runs/scifact-tune/tune_queries.jsonl --qrels runs/scifact-tune/tune_qrels.tsv \\
        --out runs/fit/scifact.jsonl
    python -m litnav.evaluation.fit_combination collect --corpus .cache/bench/acl-pre2016 \\
        --bench bench/intents/acl-pre2016 --split dev --out runs/fit/acl.jsonl
    # 2. grid-search the scorer weight w_s (fusion weight 1) for the best macro-averaged nDCG@10;
    #    it is kept only if it also beats the fused order out of fold (else w_s = 0)
    python -m litnav.evaluation.fit_combination fit runs/fit/scifact.jsonl runs/fit/acl.jsonl \\
        --out src/litnav/reranker/models/combination.json
    # how well the fitted weight generalises within dev: leave-one-query-out cross-validation
    python -m litnav.evaluation.fit_combination cv runs/fit/scifact.jsonl runs/fit/acl.jsonl

The objective is the mean over record files of the mean per-query nDCG@10 (each benchmark
counts once, whatever its size); ties go to the smaller w_s (closer to the fused order). The
written file records the command, the files and the metrics of every grid point's winner and of
the two ends (w_s = 0: fused order; the largest w_s: nearly the scorer's order). Never pass
held-out queries to ``collect``.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import shlex
import sys
from pathlib import Path
from typing import Any

from litnav.core.io import atomic_path, json_lines
from litnav.core.records import ScoredPaper
from litnav.evaluation.metrics import per_query_metrics
from litnav.reranker.combine import Combination, combine, default_combination_path

log = logging.getLogger(__name__)

GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0, 5.0, 10.0)
"""Scorer weights tried (fusion weight 1)."""
METRICS = ("nDCG@10", "F1@20", "Recall@100")
TOP_NS = (20, 40, 60)
"""Smaller scored sets simulated from the records (logged, to choose ``librarians.pool_size``)."""


def collect(corpus, benchmark, settings, out: Path, depth: int = 100) -> int:
    """Run litnav (``settings``) on every task of ``benchmark`` and write one JSON record per
    query to ``out`` (atomically): ``qid``, ``gold``, ``head`` = ``[corpus_id, fused_rank,
    final_score, probability, soft_failed]`` of the scored top-N, ``tail`` = the other fused
    candidates in fused order. Tasks with exact metadata filters keep only papers passing them.
    Returns the number of records."""
    from litnav.navigator.loop import SearchRun
    from litnav.navigator.students import search_student

    student = search_student(settings, corpus)
    n = 0
    with atomic_path(out) as tmp, tmp.open("w") as fh:
        for task in benchmark.tasks:
            run = SearchRun(task.query, corpus, settings, top_k=depth, student=student)
            run.run()
            stage = run.stage
            head = stage.ranked[: stage.n_scored]
            tail = [p.corpus_id for p in stage.ranked[stage.n_scored:]]
            keep = None
            if task.filters is not None:
                papers = corpus.papers([p.corpus_id for p in head] + tail)
                keep = {cid for cid, p in papers.items() if task.filters.passes(p.year, p.venue_raw or p.venue)}
            rec = {
                "qid": task.qid, "gold": task.gold,
                "head": [[p.corpus_id, stage.fused_rank.get(p.corpus_id), p.final_score, p.probability,
                          stage.soft_failed.get(p.corpus_id, 0.0)] for p in head
                         if keep is None or p.corpus_id in keep],
                "tail": [cid for cid in tail if keep is None or cid in keep][: max(0, depth * 3)],
            }
            fh.write(json.dumps(rec) + "\n")
            n += 1
            log.info("collected %s (%d scored, %d tail)", task.qid, len(rec["head"]), len(rec["tail"]))
    return n


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of one ``collect`` file; raises ``ValueError`` naming the file and line."""
    out = []
    for i, rec in json_lines(path):
        try:
            rec["head"], rec["tail"], rec["gold"], rec["qid"]  # noqa: B018 (shape check)
        except KeyError as exc:
            raise ValueError(f"{path}:{i}: not a fit_combination record: missing {exc}") from exc
        out.append(rec)
    if not out:
        raise ValueError(f"{path}: no fit_combination records")
    return out


def ranking(rec: dict[str, Any], model: Combination, top_n: int | None = None) -> list[str]:
    """The final ranking of one record under ``model``: combined head, then the fused tail.
    ``top_n`` simulates a smaller scored set: head papers past fused rank ``top_n`` join the tail,
    which keeps fused order."""
    rows = [r for r in rec["head"] if top_n is None or (r[1] is not None and r[1] <= top_n)]
    moved = sorted((r for r in rec["head"] if r not in rows), key=lambda r: r[1] or 1 << 30)
    head = [ScoredPaper(corpus_id=cid, judgements=[], probability=min(1.0, max(0.0, p)),
                        final_score=min(1.0, max(0.0, f)))
            for cid, _r, f, p, _s in rows]
    fused = {cid: r for cid, r, *_ in rows if r is not None}
    soft = {cid: s for cid, _r, _f, _p, s in rows if s}
    return [p.corpus_id for p, _ in combine(head, fused, model, soft)] + [r[0] for r in moved] + list(rec["tail"])


def evaluate_weight(sources: list[list[dict[str, Any]]], model: Combination,
                    top_n: int | None = None) -> dict[str, float]:
    """Macro mean (over sources) of the per-source mean of ``METRICS`` under ``model``."""
    totals = dict.fromkeys(METRICS, 0.0)
    for records in sources:
        qrels = {r["qid"]: {k: int(v) for k, v in r["gold"].items()} for r in records}
        per = per_query_metrics(qrels, {r["qid"]: ranking(r, model, top_n) for r in records}, (10, 20, 100))
        for m in METRICS:
            totals[m] += sum(v[m] for v in per.values()) / max(1, len(per))
    return {m: round(v / max(1, len(sources)), 4) for m, v in totals.items()}


def fit(paths: list[Path], grid: tuple[float, ...] = GRID, command: str = "") -> Combination:
    """Grid-search the scorer weight (module docstring) and return the fitted ``Combination``.

    The in-sample winner is kept only if the fit earns its place out of sample: the
    leave-one-query-out nDCG@10 of the whole procedure (:func:`cross_validate`: each query ranked
    with the weight fitted without it), macro-averaged over the files, must beat the fused order's
    (``w_s = 0``). Otherwise the scorer gets weight 0: it still judges (verdicts, reflection) but
    the final order is the fused one, soft preferences re-weighting it. Raises ``ValueError``
    naming the file and line of a malformed record."""
    sources = [read_records(p) for p in paths]
    base = Combination()
    scores = {w: evaluate_weight(sources, Combination(scorer_weight=w, k=base.k, soft_penalty=base.soft_penalty))
              for w in grid}
    for w, s in scores.items():
        log.info("w_s=%-5g %s", w, s)
        for n in TOP_NS:
            log.info("   top_n=%-4d %s", n, evaluate_weight(sources, Combination(scorer_weight=w), n))
    best = max(grid, key=lambda w: (scores[w]["nDCG@10"], -w))
    metrics = {f"{m} (w_s={w:g})": scores[w][m] for w in (0.0, best, grid[-1]) for m in METRICS}
    if best > 0:
        metrics["in-sample best w_s"] = best
        files = cross_validate(paths, grid)["files"].values()
        gain = sum(f["nDCG@10"]["delta"] for f in files) / len(files)
        metrics["nDCG@10 out-of-fold - fused (macro)"] = round(gain, 4)
        if gain <= 0:
            log.info("w_s=%g does not beat the fused order out of fold (%+.4f): weight 0", best, gain)
            best = 0.0
    return Combination(fusion_weight=1.0, scorer_weight=best, k=base.k, soft_penalty=base.soft_penalty,
                       fitted_on=", ".join(str(p) for p in paths) + f" ({sum(map(len, sources))} dev queries)",
                       command=command, metrics=metrics)


def cross_validate(paths: list[Path], grid: tuple[float, ...] = GRID) -> dict[str, Any]:
    """Leave-one-query-out cross-validation of :func:`fit`: each query is ranked with the weight
    fitted (same objective and tie rule) on every other record of every file, so its score is
    out of sample. Returns, per file and metric, the mean out-of-fold value, the fused order's
    (``w_s = 0``) and the paired out-of-fold − fused delta with its 95 % bootstrap CI
    (``evaluation.stats.bootstrap_ci``), plus how often each weight was chosen."""
    from collections import Counter

    from litnav.evaluation.stats import bootstrap_ci

    sources = [read_records(p) for p in paths]
    base = Combination()
    models = {w: Combination(scorer_weight=w, k=base.k, soft_penalty=base.soft_penalty) for w in grid}
    per: dict[float, list[dict[str, dict[str, float]]]] = {}
    for w, model in models.items():  # per-query metrics of every record under every weight, once
        per[w] = []
        for records in sources:
            qrels = {r["qid"]: {k: int(v) for k, v in r["gold"].items()} for r in records}
            per[w].append(per_query_metrics(qrels, {r["qid"]: ranking(r, model) for r in records}, (10, 20, 100)))
    chosen: Counter[float] = Counter()
    out: dict[str, Any] = {"files": {}}
    for si, (path, records) in enumerate(zip(paths, sources)):
        oof: dict[str, list[float]] = {m: [] for m in METRICS}
        fused: dict[str, list[float]] = {m: [] for m in METRICS}
        for rec in records:
            def objective(w: float, left_out: str = rec["qid"], source: int = si) -> float:
                means = []
                for sj, table in enumerate(per[w]):
                    vals = [v["nDCG@10"] for q, v in table.items() if not (sj == source and q == left_out)]
                    if vals:
                        means.append(sum(vals) / len(vals))
                return sum(means) / len(means)
            w = max(grid, key=lambda g: (objective(g), -g))
            chosen[w] += 1
            for m in METRICS:
                oof[m].append(per[w][si][rec["qid"]][m])
                fused[m].append(per[0.0 if 0.0 in per else grid[0]][si][rec["qid"]][m])
        row = {}
        for m in METRICS:
            delta = [a - b for a, b in zip(oof[m], fused[m])]
            lo, hi = bootstrap_ci(delta)
            row[m] = {"out_of_fold": round(sum(oof[m]) / len(oof[m]), 4),
                      "fused": round(sum(fused[m]) / len(fused[m]), 4),
                      "delta": round(sum(delta) / len(delta), 4), "ci95": [round(lo, 4), round(hi, 4)]}
        out["files"][str(path)] = {"queries": len(records), **row}
    out["weights_chosen"] = {f"{w:g}": n for w, n in sorted(chosen.items())}
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m litnav.evaluation.fit_combination", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="step", required=True)
    c = sub.add_parser("collect", help="run litnav on dev queries and record what the fit needs")
    c.add_argument("--corpus", required=True)
    c.add_argument("--bench", help="litnav JSONL or judged-intents folder")
    c.add_argument("--queries")
    c.add_argument("--qrels")
    c.add_argument("--split", choices=("dev",), help="judged-intents split (dev only, the default for a judged-intents "
                   "folder: never fit on held-out)")
    c.add_argument("--limit", type=int)
    c.add_argument("--set", dest="overrides", action="append", default=[])
    c.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit", help="grid-search the scorer weight on collected records")
    f.add_argument("records", type=Path, nargs="+")
    f.add_argument("--out", type=Path, default=default_combination_path())
    v = sub.add_parser("cv", help="leave-one-query-out cross-validation of the fit")
    v.add_argument("records", type=Path, nargs="+")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from litnav.core.tool import tool_errors
    from litnav.corpus.errors import CorpusError

    with tool_errors(parser, CorpusError):
        return _run(parser, args, argv)


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: list[str] | None) -> int:
    if args.step == "collect":
        from litnav.core.settings import load_settings
        from litnav.corpus import Corpus
        from litnav.evaluation.benchmark import load_benchmark

        if args.queries and "heldout" in str(args.queries):
            parser.error("refusing held-out queries: fit on development data only")
        if args.bench and Path(args.bench).is_dir() and args.split is None:
            args.split = "dev"  # a judged-intents folder holds held-out intents too: never fit on them
            print(f"collecting the dev split of {args.bench} (--split dev)", file=sys.stderr)
        bench = load_benchmark(args.bench, queries=args.queries, qrels=args.qrels, split=args.split).limit(args.limit)
        settings = load_settings(None, args.overrides)
        with Corpus.open(args.corpus) as corpus:
            n = collect(corpus, bench, settings, args.out)
        print(f"{n} records -> {args.out}")
        return 0
    if args.step == "cv":
        print(json.dumps(cross_validate(args.records), indent=2))
        return 0
    command = "python -m litnav.evaluation.fit_combination " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    model = fit(args.records, command=command)
    model.save(args.out)
    print(json.dumps({"scorer_weight": model.scorer_weight, **model.metrics}, indent=2))
    return 0 if not math.isnan(model.scorer_weight) else 1


if __name__ == "__main__":
    sys.exit(main())
