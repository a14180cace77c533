"""Corpus-fitted post-processing of the dense vectors (no training), against the raw cosine.

Variants of the dense channel, each fused with BM25 by reciprocal rank fusion (k = 60) as
``litnav eval``'s ``hybrid`` and also reported alone (``dense-*``):

- ``center``: subtract the corpus mean vector from documents and query, renormalise;
- ``abtt-k``: centre, then remove the top ``k`` principal components ("all-but-the-top",
  Mu and Viswanath, ICLR 2018);
- ``white-k``: whitening to the top ``k`` components (Su et al., "Whitening sentence
  representations for better semantics and faster retrieval", 2021).

Printed: nDCG@10 and the paired difference to hybrid with its 95 % bootstrap interval.

    python bench/experiments/centering.py corpus=.cache/bench/citations/corpus \\
        queries=.cache/bench/citations/dev_doc_queries.jsonl qrels=.cache/bench/citations/dev_qrels.tsv
    python bench/experiments/centering.py corpus=.cache/bench/acl-2016 bench=bench/intents/acl-2016 split=dev condensed=1

Dev splits only: every variant tied or lost on 2026-12-02 (README), so the dense channel is
unchanged.
"""

from __future__ import annotations

import sys

import numpy as np
from fusion_functions import DEPTH, FILTERED_DEPTH, kept, rrf
from report import print_deltas

from litnav.corpus import Corpus
from litnav.evaluation.benchmark import load_benchmark


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=-1, keepdims=True), 1e-12)


def transforms(vecs: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (mean, projection [dim, k']) fitted on the corpus's vectors ``[n, dim]``."""
    mu = vecs.mean(0)
    cov = np.cov((vecs - mu).T)
    eigval, eigvec = np.linalg.eigh(cov)
    order = np.argsort(-eigval)
    eigval, eigvec = eigval[order], eigvec[:, order]
    dim = vecs.shape[1]
    out = {"center": (mu, np.eye(dim))}
    for k in (1, 2, 5, 10):
        top = eigvec[:, :k]
        out[f"abtt-{k}"] = (mu, np.eye(dim) - top @ top.T)
    for k in (128, 256, 384):
        out[f"white-{k}"] = (mu, eigvec[:, :k] / np.sqrt(eigval[:k] + 1e-6))
    return out


def main(args: dict[str, str]) -> None:
    corpus = Corpus.open(args["corpus"])
    bench = load_benchmark(args.get("bench"), queries=args.get("queries"), qrels=args.get("qrels"), split=args.get("split"))
    condensed = args.get("condensed") == "1"
    _index, all_ids, _rows = corpus._faiss()
    ids, vecs = corpus.abstract_vectors(all_ids)
    fitted = transforms(vecs)
    spaces = {name: _unit((vecs - mu) @ proj) for name, (mu, proj) in fitted.items()}
    runs: dict[str, dict[str, list[str]]] = {}
    for task in bench.tasks:
        depth = FILTERED_DEPTH if task.filters is not None else DEPTH
        lexical = [(h.corpus_id, h.score) for h in corpus.lexical_search(task.query, depth)]
        dense = [(h.corpus_id, h.score) for h in corpus.semantic_search(task.query, depth)]
        q = corpus._query_vector(task.query)
        channels = {"hybrid": dense}
        for name, (mu, proj) in fitted.items():
            s = spaces[name] @ _unit((q - mu) @ proj)
            top = np.argsort(-s)[:depth]
            channels[name] = [(ids[j], float(s[j])) for j in top]
        papers = corpus.papers({c for hits in channels.values() for c, _ in hits} | {c for c, _ in lexical}) if task.filters is not None else {}

        for name, hits in channels.items():
            fused = rrf([lexical, hits], 60)
            runs.setdefault(name, {})[task.qid] = kept(sorted(fused, key=lambda c: -fused[c]), task, papers, condensed)
            runs.setdefault("dense-" + name, {})[task.qid] = kept([c for c, _ in hits], task, papers, condensed)
    print_deltas(bench.qrels(), runs, "hybrid")


if __name__ == "__main__":
    main(dict(a.split("=", 1) for a in sys.argv[1:]))
