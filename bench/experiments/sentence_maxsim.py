"""Sentence-level matching as a reranker of hybrid retrieval (Aspire-style, without training).

For each query: the hybrid top ``N`` (BM25 + dense, reciprocal rank fusion, as ``litnav eval``'s
``hybrid``); the query split into sentences and embedded; each candidate's abstract sentences and
title embedded (the corpus's cached chunk vectors). Scores per candidate:

- ``maxsim``: mean over query sentences of the best cosine to an abstract sentence
  (Mysore et al., "Multi-Vector Models with Textual Guidance", NAACL 2022: the ts-Aspire scorer);
- ``maxsim_t``: the same with the title as one more sentence;
- ``meanpool``: cosine of the mean sentence vectors;
- ``symm``: the mean of both directions' ``maxsim``;
- ``maxmax``: the single best sentence pair.

Each is reported alone and fused with the hybrid order (``+rrf``, k = 60), as nDCG@10 with the
paired difference to hybrid and its 95 % bootstrap interval (``report.print_deltas``).

    python bench/experiments/sentence_maxsim.py .cache/bench/citations/corpus \\
        .cache/bench/citations/dev_doc_queries.jsonl .cache/bench/citations/dev_qrels.tsv

Dev splits only: nothing here is a default (every variant lost or tied on 2026-12-02; README).
"""

from __future__ import annotations

import json
import sys

import numpy as np
from report import print_deltas

from litnav.core.text import split_sentences
from litnav.corpus import Corpus
from litnav.evaluation.benchmark import load_qrels_tsv
from litnav.evaluation.fusion import reciprocal_rank_fusion
from litnav.evaluation.systems import HybridSystem

VARIANTS = ("maxsim", "maxsim_t", "meanpool", "symm", "maxmax")


def _unit(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-12)


def candidate_scores(qv: np.ndarray, vecs: np.ndarray, title: np.ndarray | None) -> dict[str, float]:
    """The five scores of one candidate: ``qv`` query sentence vectors ``[nq, d]``, ``vecs`` its
    abstract sentence vectors ``[ns, d]``, ``title`` its title vector or None (all L2-normalised)."""
    doc = np.vstack([vecs, title[None]]) if title is not None else vecs
    if not len(doc):
        return dict.fromkeys(VARIANTS, -1.0)
    sim = qv @ doc.T
    return {"maxsim": float(sim[:, : len(vecs)].max(1).mean()) if len(vecs) else -1.0,
            "maxsim_t": float(sim.max(1).mean()),
            "meanpool": float(_unit(doc.mean(0)) @ _unit(qv.mean(0))),
            "symm": float(0.5 * sim.max(1).mean() + 0.5 * sim.max(0).mean()),
            "maxmax": float(sim.max())}


def main(corpus_dir: str, queries_file: str, qrels_file: str, depth: int = 100) -> None:
    corpus = Corpus.open(corpus_dir)
    qrels = load_qrels_tsv(qrels_file)
    queries = [q for q in map(json.loads, open(queries_file, encoding="utf-8")) if q["_id"] in qrels]
    hybrid = HybridSystem(corpus, depth, lexical_k=200, semantic_k=200)
    runs: dict[str, dict[str, list[str]]] = {"hybrid": {}}
    for q in queries:
        ranking = [cid for cid, _ in hybrid.run(q["text"]).ranking]
        runs["hybrid"][q["_id"]] = ranking
        qv = corpus.encoder.encode(split_sentences(q["text"]) or [q["text"]])
        chunks = corpus.chunk_vectors_many(ranking)
        papers = corpus.papers(ranking)
        titles = corpus.title_vectors({cid: papers[cid].title for cid in ranking if papers[cid].title})
        scores = {cid: candidate_scores(qv, chunks[cid][1], titles.get(cid)) for cid in ranking}
        for name in VARIANTS:
            order = sorted(ranking, key=lambda c: -scores[c][name])
            runs.setdefault(name, {})[q["_id"]] = order
            runs.setdefault(name + "+rrf", {})[q["_id"]] = [c for c, _ in reciprocal_rank_fusion([ranking, order], k=60)]
    print_deltas(qrels, runs, "hybrid")


if __name__ == "__main__":
    main(*sys.argv[1:4], *(int(x) for x in sys.argv[4:5]))
