"""SciFact benchmark: litnav against BM25, dense and hybrid retrieval on the SciFact training
claims (BEIR-style ``queries_train.jsonl`` + ``qrels_train.tsv``) over its 5,183 abstracts.

Builds the corpus once into a cache folder (ingest's generic JSONL reader: ``doc_id`` is the
corpus id, ``abstract_sentences`` the abstract as a list of sentences), then runs
``litnav eval`` on it and writes JSON, Markdown, TREC run files and the per-round plot.

    python bench/scifact.py                                   # default systems, all 505 claims
    python bench/scifact.py --limit 100 --systems bm25,dense,hybrid,litnav,litnav-no-scorer

Reference point: published BM25 nDCG@10 on SciFact is about 0.67 (BEIR, test split).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "scifact-train"
sys.path.insert(0, str(ROOT))  # run from a checkout without `pip install -e .`
FIELD_MAP = {"id": "doc_id", "title": "title", "abstract": "abstract_sentences"}


def build_corpus(data: Path, corpus_dir: Path) -> None:
    """Build the SciFact corpus into ``corpus_dir`` unless a readable corpus is already there."""
    from corpus import Corpus, CorpusError

    if corpus_dir.is_dir():
        try:
            Corpus.open(corpus_dir).close()
            print(f"corpus cached at {corpus_dir}")
            return
        except CorpusError as exc:
            print(f"rebuilding {corpus_dir}: {exc}")
    import ingest

    print(f"building the SciFact corpus into {corpus_dir} ...", flush=True)
    report = ingest.build([data / "corpus.jsonl"], corpus_dir, fmt="jsonl", mapping=FIELD_MAP)
    print(f"built: {report.corpus} in {sum(report.seconds.values()):.1f} s", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Build (if needed) and evaluate; returns ``litnav eval``'s exit status."""
    parser = argparse.ArgumentParser(description="litnav vs baselines on SciFact (train claims).")
    parser.add_argument("--data", type=Path, default=DATA, help="Folder with corpus.jsonl, queries_train.jsonl, qrels_train.tsv.")
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "bench" / "scifact", help="Corpus cache folder.")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "scifact", help="Output folder.")
    parser.add_argument("--systems", default="bm25,dense,hybrid,litnav")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N claims.")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="Settings override group.field=value.")
    args = parser.parse_args(argv)
    if not (args.data / "corpus.jsonl").is_file():
        print(f"SciFact data not found in {args.data}; skipping", file=sys.stderr)
        return 0
    build_corpus(args.data, args.cache)
    out = args.out
    cmd = [
        sys.executable, "-m", "litnav.cli", "eval",
        "--corpus", str(args.cache),
        "--queries", str(args.data / "queries_train.jsonl"), "--qrels", str(args.data / "qrels_train.tsv"),
        "--systems", args.systems,
        "--json", str(out / "eval.json"), "--markdown", str(out / "eval.md"),
        "--run-dir", str(out / "runs"), "--plot", str(out / "rounds.png"),
    ]
    if args.limit:
        cmd += ["--limit", str(args.limit)]
    for item in args.overrides:
        cmd += ["--set", item]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
