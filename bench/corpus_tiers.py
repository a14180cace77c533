"""Corpus write/read/embedding throughput on the ACL Anthology metadata (74k records).

Usage: .venv/bin/python bench/corpus_tiers.py [--batch 5000] [--embed 2000]
Reads ../shared/data/corpora/acl_anthology_2022-05_papers.jsonl.gz with a quick inline loader
(the real readers live in ingest/). Prints records/s of tier writes (no embedding), point-lookup
latency, and encoder throughput (texts/s) on abstracts.
"""

from __future__ import annotations

import argparse
import gzip
import random
import shutil
import tempfile
import time
from pathlib import Path

import orjson

from litnav.corpus import Corpus, CorpusWriter, Encoder
from litnav.corpus.records import Author, Document, Paper

SRC = Path(__file__).resolve().parents[2] / "shared/data/corpora/acl_anthology_2022-05_papers.jsonl.gz"


def load(src: Path) -> list[Document]:
    docs = []
    with gzip.open(src, "rb") as f:
        for i, line in enumerate(f, 1):
            r = orjson.loads(line)
            ext = {"acl": r["acl_id"], **({"doi": r["doi"]} if r["doi"] else {})}
            docs.append(Document(
                paper=Paper(corpus_id=r["acl_id"], title=r["title"] or "", year=r["year"], venue_raw=r["venue"],
                            authors=[Author(name=a) for a in r["authors"] or []], external_ids=ext,
                            source_file=str(src), source_line=i),
                abstract=r["abstract"]))
    return docs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--embed", type=int, default=2000)
    args = ap.parse_args()
    t = time.perf_counter()
    docs = load(SRC)
    print(f"records built: {len(docs)} in {time.perf_counter() - t:.1f}s")
    tmp = Path(tempfile.mkdtemp())
    try:
        for label in ("insert", "upsert (all ids exist)"):
            with CorpusWriter.open(tmp / "c") as w:
                t = time.perf_counter()
                with w.source(label, 1, "x") as tx:
                    for i in range(0, len(docs), args.batch):
                        tx.add_documents(docs[i:i + args.batch])
                dt = time.perf_counter() - t
            print(f"tier writes, {label}: {len(docs) / dt:,.0f} records/s ({dt / len(docs) * 1e6:.1f} us/record, "
                  f"incl. commit)")
        with Corpus.open(tmp / "c") as c:
            ids = random.Random(0).sample(c.all_ids(), 60)
            t = time.perf_counter()
            for cid in ids:
                c.paper(cid)
                c.abstract(cid)
            print(f"paper()+abstract() point lookups: {(time.perf_counter() - t) / 60 * 1e3:.2f} ms/paper")
            t = time.perf_counter()
            c.papers(ids)
            print(f"papers(60 ids): {(time.perf_counter() - t) * 1e3:.1f} ms")
        enc = Encoder()
        texts = [f"{d.paper.title}\n{d.abstract}" for d in docs if d.abstract][: args.embed]
        enc.encode(texts[:32])
        t = time.perf_counter()
        enc.encode(texts)
        dt = time.perf_counter() - t
        print(f"encoder: {len(texts) / dt:,.0f} texts/s (title+abstract, batch {enc.batch_size}, {enc.device})")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
