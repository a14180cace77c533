"""SciFact benchmark: litnav against BM25, dense and hybrid retrieval on the SciFact training
claims (BEIR-style ``queries_train.jsonl`` + ``qrels_train.tsv``) over its 5,183 abstracts.

Builds the corpus once into a cache folder (ingest's generic JSONL reader: ``doc_id`` is the
corpus id, ``abstract_sentences`` the abstract as a list of sentences), then runs
``litnav eval`` on it and writes JSON, Markdown, TREC run files and the per-round plot.

    python bench/scifact.py                                   # default systems, all 505 claims
    python bench/scifact.py --limit 100 --systems bm25,dense,hybrid,litnav,litnav-no-scorer
    python bench/scifact.py --split heldout --out runs/scifact-heldout   # claims the student never saw
    python bench/scifact.py --build-only      # the corpus only (.cache/bench/scifact), for bench/intents/scifact

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
    from litnav.corpus import Corpus, CorpusError

    if corpus_dir.is_dir():
        try:
            Corpus.open(corpus_dir).close()
            print(f"corpus cached at {corpus_dir}")
            return
        except CorpusError as exc:
            print(f"rebuilding {corpus_dir}: {exc}")
    import litnav.ingest

    print(f"building the SciFact corpus into {corpus_dir} ...", flush=True)
    report = litnav.ingest.build([data / "corpus.jsonl"], corpus_dir, fmt="jsonl", mapping=FIELD_MAP)
    print(f"built: {report.corpus} in {sum(report.seconds.values()):.1f} s", flush=True)


def heldout_split(queries: Path, qrels: Path, out: Path, heldout: float = 0.2, seed: int = 0,
                  keep: str = "heldout") -> tuple[Path, Path]:
    """Write the held-out claims of ``training.train_default`` (a claim is held out when
    sha256(f"{seed}:{claim_id}") falls below the fraction) as ``out/heldout_queries.jsonl`` and
    ``out/heldout_qrels.tsv``; returns their paths. ``keep="tune"`` writes the complement (the
    claims that may be tuned on) as ``out/tune_queries.jsonl`` and ``out/tune_qrels.tsv``."""
    import hashlib
    import json
    def held(claim_id: str) -> bool:
        return int(hashlib.sha256(f"{seed}:{claim_id}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < heldout

    lines = [line for line in queries.read_text().splitlines() if line.strip()]
    kept = [line for line in lines if held(str(json.loads(line)["_id"])) == (keep == "heldout")]
    ids = {str(json.loads(line)["_id"]) for line in kept}
    rel = qrels.read_text().splitlines()
    q_out, r_out = out / f"{keep}_queries.jsonl", out / f"{keep}_qrels.tsv"
    q_out.write_text("\n".join(kept) + "\n")
    r_out.write_text("\n".join([rel[0]] + [r for r in rel[1:] if r.split("\t")[0] in ids]) + "\n")
    print(f"{keep} split: {len(kept)} of {len(lines)} claims", flush=True)
    return q_out, r_out


def main(argv: list[str] | None = None) -> int:
    """Build (if needed) and evaluate; returns ``litnav eval``'s exit status."""
    parser = argparse.ArgumentParser(description="litnav vs baselines on SciFact (train claims).")
    parser.add_argument("--data", type=Path, default=DATA, help="Folder with corpus.jsonl, queries_train.jsonl, qrels_train.tsv.")
    parser.add_argument("--cache", type=Path, default=ROOT / ".cache" / "bench" / "scifact", help="Corpus cache folder.")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "scifact", help="Output folder.")
    parser.add_argument("--systems", default="bm25,dense,hybrid,litnav")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N claims.")
    parser.add_argument("--split", choices=("all", "heldout", "tune"), default="all",
                        help="heldout: only the claims the default student never saw in training "
                        "(training.train_default's split, seed 0, 20%%); tune: the other claims "
                        "(the only ones pipeline settings may be tuned on).")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="Settings override group.field=value.")
    parser.add_argument("--build-only", action="store_true",
                        help="Only build the corpus cache (e.g. for the judged intents of bench/intents/scifact).")
    args = parser.parse_args(argv)
    if not (args.data / "corpus.jsonl").is_file():
        print(f"SciFact data not found in {args.data}; skipping", file=sys.stderr)
        return 0
    build_corpus(args.data, args.cache)
    if args.build_only:
        return 0
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    queries, qrels = args.data / "queries_train.jsonl", args.data / "qrels_train.tsv"
    if args.split in ("heldout", "tune"):
        queries, qrels = heldout_split(queries, qrels, out, keep=args.split)
    cmd = [
        sys.executable, "-m", "litnav.cli", "eval",
        "--corpus", str(args.cache),
        "--queries", str(queries), "--qrels", str(qrels),
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
