"""A small SciFact corpus for quick pipeline measurements on a shared CPU.

Embedding all 5,183 SciFact abstracts and their ~47k sentences takes hours on a contended 2-core
machine, so pipeline work is measured on a subset: the gold abstracts of the first ``--tune``
tune-split claims and the first ``--heldout`` held-out claims (``bench/scifact.py``'s split),
plus each claim's top ``--negatives`` BM25 abstracts that are not gold (hard negatives, found
over the whole SciFact corpus without embeddings), plus ``--random`` random abstracts (seeded).
Every claim keeps all of its gold. The claims, qrels and the corpus JSONL land in ``--out``; the
corpus is built into ``--out/corpus``. Numbers on it are NOT SciFact benchmark numbers: the
corpus is small and lexically hard, so compare systems only within one run.

    python bench/scifact_subset.py --out .cache/bench/scifact-subset
    litnav eval --corpus .cache/bench/scifact-subset/corpus \\
        --queries .cache/bench/scifact-subset/tune_queries.jsonl \\
        --qrels .cache/bench/scifact-subset/tune_qrels.tsv --systems hybrid,litnav
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from scifact import DATA, FIELD_MAP, heldout_split  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Write the subset and build its corpus; returns the build's exit status."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=ROOT / ".cache" / "bench" / "scifact-subset")
    ap.add_argument("--tune", type=int, default=60)
    ap.add_argument("--heldout", type=int, default=40)
    ap.add_argument("--negatives", type=int, default=5)
    ap.add_argument("--random", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    import bm25s
    import Stemmer

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    docs = [json.loads(line) for line in (args.data / "corpus.jsonl").read_text().splitlines() if line.strip()]
    texts = [d["title"] + " " + " ".join(d["abstract_sentences"]) for d in docs]
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    keep: set[str] = set()
    for split, n in (("tune", args.tune), ("heldout", args.heldout)):
        q_path, r_path = heldout_split(args.data / "queries_train.jsonl", args.data / "qrels_train.tsv", out, keep=split)
        queries = [json.loads(line) for line in q_path.read_text().splitlines() if line.strip()][:n]
        ids = {str(q["_id"]) for q in queries}
        rel = r_path.read_text().splitlines()
        rows = [r for r in rel[1:] if r.split("\t")[0] in ids]
        gold: dict[str, set[str]] = {}
        for r in rows:
            qid, doc, *_ = r.split("\t")
            gold.setdefault(qid, set()).add(doc)
        q_path.write_text("".join(json.dumps(q) + "\n" for q in queries))
        r_path.write_text("\n".join([rel[0], *rows]) + "\n")
        for q in queries:
            keep |= gold.get(str(q["_id"]), set())
            tokens = bm25s.tokenize([q["text"]], stopwords="en", stemmer=stemmer, show_progress=False)
            hits, _ = retriever.retrieve(tokens, k=args.negatives + len(gold.get(str(q["_id"]), ())) + 1,
                                         show_progress=False)
            negs = [docs[i]["doc_id"] for i in hits[0] if str(docs[i]["doc_id"]) not in gold.get(str(q["_id"]), set())]
            keep |= {str(d) for d in negs[: args.negatives]}
    rest = [str(d["doc_id"]) for d in docs if str(d["doc_id"]) not in keep]
    keep |= set(random.Random(args.seed).sample(rest, min(args.random, len(rest))))
    jsonl = out / "corpus.jsonl"
    jsonl.write_text("".join(json.dumps(d) + "\n" for d in docs if str(d["doc_id"]) in keep))
    print(f"subset: {len(keep)} abstracts -> {jsonl}", flush=True)
    mapping = [f"--map {k}={v}" for k, v in FIELD_MAP.items()]
    cmd = [sys.executable, "-m", "litnav.cli", "build", str(jsonl), "--corpus", str(out / "corpus"),
           "--format", "jsonl", "--no-progress", *" ".join(mapping).split()]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
