"""A citation-recommendation benchmark from the NeurIPS/ICML arXiv file: a paper's title is the
query, the papers it cites are its relevant set.

Relevance here is a proxy (an author cites a paper for many reasons, and leaves out relevant
ones), but it is judged by nobody working on litnav, it is large, and it comes from a third
field (machine learning) that no litnav stage was tuned on. Query papers are the papers from
``--since`` on that cite at least ``--min-cited`` papers of the file, ``--queries`` of them
sampled with ``--seed``; a query paper goes to the ``dev`` or the ``heldout`` split by a hash of
its id (stable whatever the sample). The corpus is every other paper, with its own citation
edges, so a query never finds itself; a cited paper that is itself a query paper leaves the
gold. Written to ``--out``: ``corpus.jsonl``, ``{dev,heldout}_queries.jsonl`` (``_id``,
``text``: the title), ``{dev,heldout}_doc_queries.jsonl`` (the same queries as title + abstract: a
long, query-by-document variant), ``{dev,heldout}_qrels.tsv`` (grade 1, shared by both),
``{dev,heldout}_facet_queries.jsonl`` + ``_facet_qrels.tsv`` (three queries per paper, the first,
middle and last third of its abstract's sentences, ids ``<id>#1..3``: a sentence-level variant in
the manner of CSFCube's facet queries, where position stands in for the background / method /
result facet, with the paper's cited papers relevant to each); the corpus is built into
``--out/corpus`` (abstract vectors included: about 10 minutes on 2 cores).

``--keep-query-papers`` keeps the query papers in the corpus, as CSFCube's candidate file holds its
query papers: each facet or document query is then quoted from a corpus paper that is not in its
gold (a query paper keeps its text and loses its reference list, so its citations cannot lead to
the gold); default ``--out`` then ``.cache/bench/citations-self``.

    python bench/citations.py
    litnav eval --corpus .cache/bench/citations/corpus \\
        --queries .cache/bench/citations/heldout_queries.jsonl \\
        --qrels .cache/bench/citations/heldout_qrels.tsv --systems bm25,dense,hybrid,litnav
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "corpora" / "neurips_icml_arxiv_citations.jsonl.gz"


def split_of(paper_id: str) -> str:
    """``dev`` or ``heldout``: the parity of the first byte of the id's SHA-1."""
    return "dev" if hashlib.sha1(paper_id.encode()).digest()[0] % 2 == 0 else "heldout"


def doc_query(paper: dict) -> str:
    """The query-by-document text of a query paper: its title, then its abstract (whitespace
    collapsed), as in CSFCube-style faceted query-by-example benchmarks."""
    title = " ".join(paper["title"].split()).rstrip(".")
    return f"{title}. {' '.join((paper.get('abstract') or '').split())}".strip()


def facet_queries(paper: dict) -> list[str]:
    """The abstract's sentences cut into three consecutive parts (first, middle and last third;
    an abstract of fewer than three sentences gives fewer parts)."""
    from litnav.core.text import split_sentences

    sentences = split_sentences(" ".join((paper.get("abstract") or "").split()))
    n = len(sentences)
    cuts = [0, round(n / 3), round(2 * n / 3), n]
    return [" ".join(sentences[a:b]) for a, b in zip(cuts, cuts[1:]) if b > a]


def main(argv: list[str] | None = None) -> int:
    """Write the benchmark files and build the corpus; returns the build's exit status."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=ROOT / ".cache" / "bench" / "citations")
    ap.add_argument("--queries", type=int, default=240)
    ap.add_argument("--min-cited", type=int, default=5)
    ap.add_argument("--since", type=int, default=2018)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-build", action="store_true", help="write the files only")
    ap.add_argument("--keep-query-papers", action="store_true",
                    help="query papers stay in the corpus, without their references (module doc)")
    args = ap.parse_args(argv)
    if args.keep_query_papers and args.out == ap.get_default("out"):
        args.out = ROOT / ".cache" / "bench" / "citations-self"
    if not args.data.is_file():
        print(f"{args.data} is missing (see ../shared/data/README.md)", file=sys.stderr)
        return 2
    with gzip.open(args.data, "rt", encoding="utf-8") as f:
        papers = [json.loads(line) for line in f if line.strip()]
    ids = {p["id"] for p in papers}
    cited = {p["id"]: [c for c in p.get("outbound_citations") or [] if c in ids and c != p["id"]] for p in papers}
    eligible = sorted(p["id"] for p in papers
                      if int(p.get("year") or 0) >= args.since and len(cited[p["id"]]) >= args.min_cited)
    chosen = set(random.Random(args.seed).sample(eligible, min(args.queries, len(eligible))))
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    corpus = [p for p in papers if args.keep_query_papers or p["id"] not in chosen]
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as f:
        for p in corpus:
            f.write(json.dumps({"id": p["id"], "arxiv_id": p["arxiv_id"], "title": p["title"],
                                "abstract": p["abstract"], "year": p["year"],
                                "outbound_citations": [c for c in cited[p["id"]] if c not in chosen]
                                if p["id"] not in chosen else []}) + "\n")
    by_id = {p["id"]: p for p in papers}
    for split in ("dev", "heldout"):
        qids = [q for q in sorted(chosen) if split_of(q) == split]
        qids = [q for q in qids if any(c not in chosen for c in cited[q])]
        (out / f"{split}_queries.jsonl").write_text(
            "".join(json.dumps({"_id": q, "text": by_id[q]["title"]}) + "\n" for q in qids), encoding="utf-8")
        (out / f"{split}_doc_queries.jsonl").write_text(  # query by document: title and abstract
            "".join(json.dumps({"_id": q, "text": doc_query(by_id[q])}) + "\n" for q in qids), encoding="utf-8")
        rows = [f"{q}\t{c}\t1" for q in qids for c in cited[q] if c not in chosen]
        (out / f"{split}_qrels.tsv").write_text("\n".join(["query-id\tcorpus-id\tscore", *rows]) + "\n",
                                               encoding="utf-8")
        facets = {f"{q}#{i}": text for q in qids for i, text in enumerate(facet_queries(by_id[q]), 1)}
        (out / f"{split}_facet_queries.jsonl").write_text(
            "".join(json.dumps({"_id": fid, "text": text}) + "\n" for fid, text in facets.items()), encoding="utf-8")
        facet_rows = [f"{fid}\t{c}\t1" for fid in facets for c in cited[fid.split("#")[0]] if c not in chosen]
        (out / f"{split}_facet_qrels.tsv").write_text("\n".join(["query-id\tcorpus-id\tscore", *facet_rows]) + "\n",
                                                     encoding="utf-8")
        print(f"{split}: {len(qids)} queries, {len(rows)} relevant (cited) papers", flush=True)
    print(f"corpus: {len(corpus)} papers -> {out / 'corpus.jsonl'}", flush=True)
    if args.no_build:
        return 0
    cmd = [sys.executable, "-m", "litnav.cli", "build", str(out / "corpus.jsonl"), "--corpus", str(out / "corpus"),
           "--format", "jsonl", "--no-progress", "--map", "id=id"]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
