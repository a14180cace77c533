"""Pseudo-relevance feedback on the hybrid's top papers, against plain hybrid retrieval.

Variants, each fused with the other channel by reciprocal rank fusion (k = 60) as ``hybrid``:

- ``rocchio-kK-bB``: the dense query vector moved towards the mean vector of the hybrid's top
  ``K`` papers, ``q + B * mean(d_1..d_K)`` renormalised (Rocchio 1971; as a dense PRF in Li et
  al., "Pseudo relevance feedback with deep language models and dense retrievers", TOIS 2023);
- ``rm3-kK-tT``: BM25 with the query's terms plus the ``T`` terms of the hybrid's top ``K``
  papers with the highest summed ``tf / |d| * idf``, each added at weight 0.5 times its share
  (RM3-like, Lavrenko and Croft 2001; Abdul-Jaleel et al. 2004);
- ``both-kK``: the two together.

Printed: nDCG@10 and the paired difference to hybrid with its 95 % bootstrap interval. Run on
dev splits only; no variant is adopted (README, "Tried on dev splits, not adopted").

    python bench/experiments/feedback.py corpus=.cache/bench/scifact \\
        queries=.cache/bench/scifact-subset/tune_queries.jsonl qrels=.cache/bench/scifact-subset/tune_qrels.tsv
    python bench/experiments/feedback.py corpus=.cache/bench/acl-2016 bench=bench/intents/acl-2016 split=dev condensed=1
"""

from __future__ import annotations

import math
import sys
from collections import Counter

import numpy as np
from fusion_functions import DEPTH, FILTERED_DEPTH, kept, rrf
from report import print_deltas

from litnav.corpus import Corpus
from litnav.evaluation.benchmark import load_benchmark


def _unit(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-12)


def expanded_bm25(lex, query: str, feedback: list[str], terms: int, depth: int) -> list[tuple[str, float]]:
    """BM25 of ``query`` plus its ``terms`` best feedback terms at weight 0.5 x share."""
    base = lex.query_terms(query)
    weights: Counter = Counter()
    for text in feedback:
        toks = lex.query_terms(text)
        if not toks:
            continue
        for t, n in Counter(toks).items():
            col = lex.vocab[t]
            df = int(lex.indptr[col + 1]) - int(lex.indptr[col])
            weights[t] += n / len(toks) * math.log(lex.num_docs / max(df, 1))
    extra = [(t, w) for t, w in weights.most_common() if t not in base][:terms]
    total = sum(w for _t, w in extra) or 1.0
    scores = np.zeros(lex.num_docs, dtype=np.float64)
    for t, w in [(t, 1.0) for t in base] + [(t, 0.5 * len(base) * w / total) for t, w in extra]:
        col = lex.vocab[t]
        start, end = int(lex.indptr[col]), int(lex.indptr[col + 1])
        np.add.at(scores, lex.indices[start:end], w * lex.data[start:end].astype(np.float64))
    top = np.argsort(-scores)[:depth]
    return [(lex.ids[i], float(scores[i])) for i in top if scores[i] > 0]


def main(args: dict[str, str]) -> None:
    corpus = Corpus.open(args["corpus"])
    bench = load_benchmark(args.get("bench"), queries=args.get("queries"), qrels=args.get("qrels"), split=args.get("split"))
    condensed = args.get("condensed") == "1"
    lex = corpus._lexical()
    runs: dict[str, dict[str, list[str]]] = {}
    for task in bench.tasks:
        depth = FILTERED_DEPTH if task.filters is not None else DEPTH
        lexical = [(h.corpus_id, h.score) for h in corpus.lexical_search(task.query, depth)]
        qvec = corpus.encode([task.query])[0]
        dense = [(h.corpus_id, h.score) for h in corpus.semantic_search(qvec, depth)]
        hybrid = rrf([lexical, dense], 60)
        order = sorted(hybrid, key=lambda c: -hybrid[c])
        if task.filters is not None:
            order = kept(order, task, corpus.papers(set(hybrid)), False, depth=len(order))
        fused = {"hybrid": hybrid}
        for k in (3, 5, 10):
            ids, vecs = corpus.abstract_vectors(order[:k])
            texts = corpus.abstracts(order[:k])
            fb = [f"{p.title} {texts.get(c, '')}" for c, p in corpus.papers(order[:k]).items()]
            for beta in (0.5, 1.0):
                moved = _unit(qvec + beta * vecs.mean(0))
                d2 = [(h.corpus_id, h.score) for h in corpus.semantic_search(moved, depth)]
                fused[f"rocchio-k{k}-b{beta}"] = rrf([lexical, d2], 60)
            for t in (10, 20):
                l2 = expanded_bm25(lex, task.query, fb, t, depth)
                fused[f"rm3-k{k}-t{t}"] = rrf([l2, dense], 60)
            moved = _unit(qvec + 0.5 * vecs.mean(0))
            fused[f"both-k{k}"] = rrf([expanded_bm25(lex, task.query, fb, 10, depth),
                                       [(h.corpus_id, h.score) for h in corpus.semantic_search(moved, depth)]], 60)
        papers = corpus.papers({c for f in fused.values() for c in f}) if task.filters is not None else {}
        for name, scores in fused.items():
            runs.setdefault(name, {})[task.qid] = kept(sorted(scores, key=lambda c: -scores[c]), task, papers, condensed)
    print_deltas(bench.qrels(), runs, "hybrid")


if __name__ == "__main__":
    main(dict(a.split("=", 1) for a in sys.argv[1:]))
