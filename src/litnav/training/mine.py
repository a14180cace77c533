"""Supervision mined from a corpus itself: (query, passage) pairs with hard negatives.

No human labels: the structure of scientific papers supplies them.

- ``title``: a paper's title is a query its own abstract satisfies (label 5); the title is not
  shown with the passage (it would give the answer away), for positives and negatives alike.
- ``sentence``: one abstract sentence (not the first) is a query that the rest of its abstract
  satisfies (label 5); the sentence itself is removed from the passage.

Negatives (label 0) for every query: the ``n_bm25`` best other papers by BM25 over title +
abstract and the ``n_dense`` best other papers by cosine of the bundled MiniLM encoder (hard
negatives: what a first-stage retriever returns), plus ``n_random`` random others. A near
duplicate of the source (cosine >= ``dup_cosine``) is never a negative.

Rows use ``training.data.TrainingRow`` with ``source="mined"``; ``group`` is
``"mined-{kind}-{paper id}:{candidate id}"`` so that held-out splits keep a query's rows together.
Citing sentence -> cited abstract and section heading -> paragraph need full texts with citation
contexts; the corpora shipped with the project have none, so they are not mined here.

    python -m litnav.training.mine --jsonl ../shared/data/corpora/acl_2016-2022_with_abstracts_ccby4.jsonl.gz \\
        --papers 600 --out /tmp/mined-acl.jsonl
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from litnav.core.io import json_lines
from litnav.core.text import sentence_spans
from litnav.training.data import Encoder, RowCheckpoint, RowEvidence, RowPaper, TrainingRow, default_encoder, write_rows

log = logging.getLogger(__name__)


def read_papers(path: str | Path, *, id_field: str = "", limit: int | None = None, seed: int = 0,
                min_sentences: int = 3) -> list[dict]:
    """Papers ``{"id", "title", "sentences"}`` from a JSONL(.gz) file with ``title`` and
    ``abstract`` fields (the id is ``id_field``, else the first of ``id``, ``acl_id``,
    ``doc_id``, ``corpus_id``); papers with fewer than ``min_sentences`` abstract sentences are
    skipped; ``limit`` draws a seeded sample. Raises ``ValueError`` naming ``path:line`` on a
    line that is not a JSON object with a title and an abstract."""
    out: list[dict] = []
    for lineno, d in json_lines(path):
        try:
            abstract = d.get("abstract")
            if isinstance(abstract, list):
                abstract = " ".join(abstract)
            title = d["title"]
            pid = str(d[id_field] if id_field else next(d[k] for k in ("id", "acl_id", "doc_id", "corpus_id") if k in d))
        except (KeyError, StopIteration, TypeError) as exc:
            raise ValueError(f"{path}:{lineno}: not a paper with an id, title and abstract ({exc!r})") from exc
        if not title or not abstract:
            continue
        sents = [abstract[a:b].strip() for a, b in sentence_spans(abstract)]
        sents = [s for s in sents if len(s) > 20]
        if len(sents) >= min_sentences:
            out.append({"id": pid, "title": str(title).strip(), "sentences": sents})
    if limit is not None and limit < len(out):
        out = random.Random(seed).sample(out, limit)
    return out


def mine_rows(papers: list[dict], *, n_queries: int | None = None, n_bm25: int = 2, n_dense: int = 1,
              n_random: int = 1, evidence_k: int = 3, kinds: tuple[str, ...] = ("title", "sentence"),
              encoder: Encoder | None = None, dup_cosine: float = 0.95, seed: int = 0,
              tag: str = "corpus") -> Iterator[TrainingRow]:
    """Mined training rows over ``papers`` (see the module docstring); every paper is a source
    unless ``n_queries`` limits them (seeded sample). Evidence of a row: the ``evidence_k``
    passage sentences most cosine-similar to the query, as the evidence locator returns them.
    ``tag`` names the corpus in each row's group. Deterministic given ``seed``."""
    import bm25s
    import Stemmer

    if len(papers) < 2 + n_bm25 + n_dense + n_random:
        raise ValueError(f"need more papers to mine from than {len(papers)}")
    enc = encoder or default_encoder()
    rng = random.Random(seed)
    stemmer = Stemmer.Stemmer("english")
    texts = [f"{p['title']} {' '.join(p['sentences'])}" for p in papers]
    bm = bm25s.BM25()
    bm.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    doc_vec = enc(texts)
    sources = list(range(len(papers)))
    if n_queries is not None and n_queries < len(sources):
        sources = sorted(rng.sample(sources, n_queries))
    queries: list[tuple[str, int, str, int | None]] = []  # (kind, paper index, query, dropped sentence)
    for i in sources:
        p = papers[i]
        if "title" in kinds:
            queries.append(("title", i, p["title"], None))
        if "sentence" in kinds and len(p["sentences"]) >= 3:
            j = rng.randrange(1, len(p["sentences"]))
            queries.append(("sentence", i, p["sentences"][j], j))
    q_vec = enc([q for _k, _i, q, _j in queries])
    sent_cache: dict[int, np.ndarray] = {}

    def sentence_vectors(i: int) -> np.ndarray:
        if i not in sent_cache:
            sent_cache[i] = enc(papers[i]["sentences"])
        return sent_cache[i]

    def row(kind: str, qi: int, src: int, cand: int, label: int, drop: int | None) -> TrainingRow:
        p = papers[cand]
        keep = [k for k in range(len(p["sentences"])) if not (cand == src and k == drop)]
        sims = sentence_vectors(cand)[keep] @ q_vec[qi]
        order = np.argsort(-sims, kind="stable")[:evidence_k]
        title = "" if kind == "title" else p["title"]
        return TrainingRow(
            checkpoint=RowCheckpoint(kind="topic", text=queries[qi][2]),
            paper=RowPaper(corpus_id=p["id"], title=title, abstract=" ".join(p["sentences"][k] for k in keep),
                           doc_similarity=float(doc_vec[cand] @ q_vec[qi])),
            evidence=[RowEvidence(text=p["sentences"][keep[o]], similarity=float(sims[o])) for o in order],
            label_score=5.0 * label, label_relevant=label, source="mined",
            group=f"mined-{tag}-{kind}-{papers[src]['id']}:{p['id']}")

    for qi, (kind, src, query, drop) in enumerate(queries):
        dense = doc_vec @ q_vec[qi]
        near_dup = set(np.flatnonzero(doc_vec @ doc_vec[src] >= dup_cosine).tolist()) | {src}
        toks = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False, return_ids=False)[0]
        toks = [t for t in toks if t in bm.vocab_dict]
        lex = bm.get_scores(toks) if toks else np.zeros(len(papers))
        chosen: list[int] = []
        for scores, n in ((lex, n_bm25), (dense, n_dense)):
            for j in np.argsort(-np.asarray(scores), kind="stable"):
                if n <= 0:
                    break
                if int(j) not in near_dup and int(j) not in chosen:
                    chosen.append(int(j))
                    n -= 1
        pool = [j for j in range(len(papers)) if j not in near_dup and j not in chosen]
        chosen += rng.sample(pool, min(n_random, len(pool)))
        yield row(kind, qi, src, src, 1, drop)
        for j in chosen:
            yield row(kind, qi, src, j, 0, drop)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: mine rows from a JSONL(.gz) corpus file into a JSONL of rows."""
    ap = argparse.ArgumentParser(prog="python -m litnav.training.mine", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jsonl", required=True, type=Path, action="append", help="corpus file(s) with title + abstract")
    ap.add_argument("--papers", type=int, default=800, help="papers sampled per file (the retrieval pool)")
    ap.add_argument("--queries", type=int, default=300, help="source papers per file that give queries")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from litnav.core.tool import tool_errors

    rows: list[TrainingRow] = []
    with tool_errors(ap):
        corpora = [(f, read_papers(f, limit=args.papers, seed=args.seed)) for f in args.jsonl]  # bad input fails first
        enc = default_encoder()
        for f, papers in corpora:
            tag = re.sub(r"\W+", "-", f.name.split(".")[0])[:24]
            rows += list(mine_rows(papers, n_queries=args.queries, encoder=enc, seed=args.seed, tag=tag))
        n = write_rows(rows, args.out)
    print(json.dumps({"rows": n, "positives": sum(r.label_score >= 2.5 for r in rows), "out": str(args.out)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
