"""Fusion functions for BM25 + dense against reciprocal rank fusion (k = 60), on one benchmark.

Variants (Bruch, Gai and Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", TOIS
2023): reciprocal rank fusion with k = 10 and 30, and convex combinations
``alpha * dense + (1 - alpha) * bm25`` of min-max (``mm``) or z-score (``z``) normalised scores,
alpha in {0.3, 0.5, 0.7}. Each channel contributes its top 200 (1,000 for a task with an exact
metadata filter, which is then applied as ``hybrid+filter`` does); ``condensed=1`` scores
condensed lists (judged ids only). Printed: nDCG@10 and the paired difference to RRF k = 60 with
its 95 % bootstrap interval (``report.print_deltas``).

    python bench/experiments/fusion_functions.py corpus=.cache/bench/acl-pre2016 \\
        bench=bench/intents/acl-pre2016 split=dev condensed=1
    python bench/experiments/fusion_functions.py corpus=.cache/bench/citations/corpus \\
        queries=.cache/bench/citations/dev_doc_queries.jsonl qrels=.cache/bench/citations/dev_qrels.tsv

Dev splits only: no variant beat k = 60 on every suite on 2026-12-02 (README), so the default
fusion did not change.
"""

from __future__ import annotations

import sys

import numpy as np
from report import print_deltas

from litnav.corpus import Corpus
from litnav.evaluation.benchmark import load_benchmark

DEPTH, FILTERED_DEPTH = 200, 1000


def rrf(channels: list[list[tuple[str, float]]], k: float) -> dict[str, float]:
    """Reciprocal rank fusion ``sum 1 / (k + rank)`` (Cormack, Clarke and Büttcher, SIGIR 2009)."""
    out: dict[str, float] = {}
    for hits in channels:
        for rank, (cid, _score) in enumerate(hits, 1):
            out[cid] = out.get(cid, 0.0) + 1.0 / (k + rank)
    return out


def convex(lexical: list[tuple[str, float]], dense: list[tuple[str, float]], alpha: float, norm: str) -> dict[str, float]:
    """``alpha * norm(dense) + (1 - alpha) * norm(bm25)``; a channel that missed a paper adds 0."""
    out: dict[str, float] = {}
    for hits, weight in ((lexical, 1 - alpha), (dense, alpha)):
        if not hits:
            continue
        v = np.array([s for _c, s in hits], dtype=float)
        n = (v - v.min()) / max(v.max() - v.min(), 1e-9) if norm == "mm" else (v - v.mean()) / max(v.std(), 1e-9)
        for (cid, _s), x in zip(hits, n):
            out[cid] = out.get(cid, 0.0) + weight * float(x)
    return out


def kept(order: list[str], task, papers: dict, condensed: bool, depth: int = 100) -> list[str]:
    """``order`` after the task's exact filter (as ``hybrid+filter``: a paper without the field
    fails), cut to ``depth``, judged ids only when ``condensed``."""
    if task.filters is not None:
        order = [c for c in order if c in papers and task.filters.passes(papers[c].year, papers[c].venue_raw or papers[c].venue)]
    return [c for c in order[:depth] if not condensed or c in task.gold]


def main(args: dict[str, str]) -> None:
    corpus = Corpus.open(args["corpus"])
    bench = load_benchmark(args.get("bench"), queries=args.get("queries"), qrels=args.get("qrels"), split=args.get("split"))
    condensed = args.get("condensed") == "1"
    runs: dict[str, dict[str, list[str]]] = {}
    for task in bench.tasks:
        depth = FILTERED_DEPTH if task.filters is not None else DEPTH
        lexical = [(h.corpus_id, h.score) for h in corpus.lexical_search(task.query, depth)]
        dense = [(h.corpus_id, h.score) for h in corpus.semantic_search(task.query, depth)]
        papers = corpus.papers({c for c, _ in lexical} | {c for c, _ in dense}) if task.filters is not None else {}
        fused = {f"rrf{k}": rrf([lexical, dense], k) for k in (60, 30, 10)}
        fused |= {f"cc-{n}-{a}": convex(lexical, dense, a, n) for a in (0.3, 0.5, 0.7) for n in ("mm", "z")}
        for name, scores in fused.items():
            runs.setdefault(name, {})[task.qid] = kept(sorted(scores, key=lambda c: -scores[c]), task, papers, condensed)
    print_deltas(bench.qrels(), runs, "rrf60")


if __name__ == "__main__":
    main(dict(a.split("=", 1) for a in sys.argv[1:]))
