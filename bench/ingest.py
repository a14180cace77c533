"""Corpus build speed on the ACL Anthology file (73,970 papers, 32,204 with abstracts).

Measures, in one run:

1. parsing + tier writes: ``ingest.build(..., finalize=False)`` -> records/s (wall clock, and
   process CPU seconds, which count the background writer thread too);
2. finalize, timed per stage as ``CorpusWriter.finalize`` reports them (title resolution,
   chunking, embedding, FAISS, chunk vectors, BM25) — on the first ``--finalize-limit`` records
   (default 2000; ``all`` for the whole corpus) in a second corpus, because embedding 74k
   titles+abstracts on 2 CPU cores takes hours;
3. embedding throughput (texts/s) of the corpus encoder on ``--embed-sample`` abstracts;
4. peak memory (max RSS of this process) and the corpus size on disk.

    python bench/ingest.py                              # full file; finalize on the first 2000
    python bench/ingest.py --limit 5000                 # quick run
    python bench/ingest.py --finalize-limit all --embed-sample 2000 --json out.json

Prints a table; ``--json OUT`` also writes the numbers. Exit status 1 when the data file is absent.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "corpora" / "acl_anthology_2022-05_papers.jsonl.gz"
TARGET_RECORDS_PER_S = 10_000
"""The issue's target for parsing + tier writes (no embedding) on 2 cores."""


def head(source: Path, n: int, folder: Path) -> Path:
    """The first ``n`` lines of ``source`` as a ``.jsonl.gz`` file in ``folder``."""
    out = folder / f"{source.name.split('.')[0]}_head{n}.jsonl.gz"
    with gzip.open(source, "rb") as src, gzip.open(out, "wb", compresslevel=1) as dst:
        for i, line in enumerate(src):
            if i >= n:
                break
            dst.write(line)
    return out


def dir_size(path: Path) -> int:
    """Bytes of all files under ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def peak_rss_mib() -> float:
    """Max resident set size of this process so far, MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_ingest(source: Path, corpus: Path) -> dict:
    """Parse + write ``source`` into ``corpus`` without finalize."""
    from litnav.ingest import build

    wall, cpu = time.perf_counter(), time.process_time()
    report = build([source], corpus, progress=False, finalize=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = report.read.papers + report.read.rejects
    return {
        "records": n, "papers": report.read.papers, "abstracts": report.read.abstracts,
        "rejects": report.read.rejects, "wall_s": wall, "cpu_s": cpu,
        "records_per_s": n / wall, "records_per_cpu_s": n / cpu,
        "db_bytes": dir_size(corpus), "peak_rss_mib": peak_rss_mib(),
    }


def bench_finalize(corpus: Path, source: Path | None = None) -> dict:
    """Finalize ``corpus`` (after ingesting ``source`` into it, when given), timing each stage."""
    from litnav.corpus import Corpus, CorpusWriter
    from litnav.ingest import build

    if source is not None:
        build([source], corpus, progress=False, finalize=False)
    t0 = time.perf_counter()
    with CorpusWriter.open(corpus) as w:
        stages = w.finalize(progress=False)
    wall = time.perf_counter() - t0
    c = Corpus.open(corpus)
    try:
        stats = {k: v for k, v in c.stats().items() if isinstance(v, int)}
    finally:
        c.close()
    return {"stages_s": {k: float(v) for k, v in stages.items()}, "wall_s": wall, "stats": stats,
            "corpus_bytes": dir_size(corpus)}


def bench_embedding(source: Path, n: int) -> dict:
    """Texts/s of the corpus encoder over the first ``n`` abstracts of ``source`` (model load
    excluded: one warm-up batch first)."""
    import orjson

    from litnav.corpus import Encoder

    texts: list[str] = []
    with gzip.open(source, "rb") as fh:
        for line in fh:
            rec = orjson.loads(line)
            if isinstance(rec.get("abstract"), str) and rec["abstract"].strip():
                texts.append(f"{rec['title']}\n{rec['abstract']}")
                if len(texts) >= n:
                    break
    enc = Encoder()
    enc.encode(texts[:8])
    t0 = time.perf_counter()
    vecs = enc.encode(texts)
    dt = time.perf_counter() - t0
    return {"texts": len(texts), "seconds": dt, "texts_per_s": len(texts) / dt, "dim": int(vecs.shape[1])}


def table(result: dict) -> str:
    """The human-readable summary."""
    ing = result["ingest"]
    rows = [
        ("source", result["source"]),
        ("records (papers + rejects)", f"{ing['records']:,} ({ing['papers']:,} papers, {ing['abstracts']:,} abstracts, {ing['rejects']} rejects)"),
        ("parse + tier writes, wall", f"{ing['wall_s']:.2f} s = {ing['records_per_s']:,.0f} records/s (target {TARGET_RECORDS_PER_S:,})"),
        ("parse + tier writes, CPU", f"{ing['cpu_s']:.2f} s = {ing['records_per_cpu_s']:,.0f} records per CPU-second"),
        ("tier-1/2 database size", f"{ing['db_bytes'] / 2**20:.1f} MiB"),
        ("peak memory after ingest", f"{ing['peak_rss_mib']:.0f} MiB (max RSS)"),
    ]
    fin = result.get("finalize")
    if fin:
        rows.append(("finalize on", f"{fin['stats'].get('papers', 0):,} papers -> {fin['wall_s']:.1f} s"))
        rows += [(f"  finalize.{k}", f"{v:.2f} s") for k, v in fin["stages_s"].items()]
        rows.append(("  corpus after finalize", ", ".join(f"{k}={v:,}" for k, v in fin["stats"].items())))
        rows.append(("  corpus size on disk", f"{fin['corpus_bytes'] / 2**20:.1f} MiB"))
    emb = result.get("embedding")
    if emb:
        rows.append(("embedding throughput", f"{emb['texts_per_s']:.1f} texts/s ({emb['texts']} title+abstract texts, dim {emb['dim']})"))
    rows.append(("peak memory, whole run", f"{result['peak_rss_mib']:.0f} MiB (max RSS; encoder included)"))
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="Input JSONL(.gz) file.")
    ap.add_argument("--limit", type=int, default=None, help="Use only the first N records (quick run).")
    ap.add_argument("--corpus", type=Path, default=None, help="Corpus directory (default: a temp dir).")
    ap.add_argument("--finalize-limit", type=lambda v: None if v == "all" else int(v), default=2000,
                    help="Finalize a second corpus of the first N records (default 2000; 'all' = finalize "
                    "the full corpus, hours on 2 CPU cores; 0 = skip).")
    ap.add_argument("--embed-sample", type=int, default=1000,
                    help="Abstracts for the embedding-throughput measurement (0 = skip).")
    ap.add_argument("--json", type=Path, default=None, help="Also write the results as JSON here.")
    args = ap.parse_args(argv)
    if not args.source.is_file():
        print(f"data file {args.source} is absent (it lives in ../shared/data)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="litnav-bench-") as tmp:
        tmp_dir = Path(tmp)
        source = head(args.source, args.limit, tmp_dir) if args.limit else args.source
        corpus = args.corpus or tmp_dir / "corpus"
        if corpus.exists() and any(corpus.iterdir()):
            print(f"{corpus} is not empty: the bench needs a fresh corpus directory", file=sys.stderr)
            return 1
        result: dict = {"source": str(args.source) + (f" (first {args.limit})" if args.limit else "")}
        result["ingest"] = bench_ingest(source, corpus)
        fin_n = args.finalize_limit
        if fin_n != 0:
            result["finalize"] = (bench_finalize(tmp_dir / "finalized", head(source, fin_n, tmp_dir))
                                  if fin_n else bench_finalize(corpus))
        if args.embed_sample:
            result["embedding"] = bench_embedding(source, args.embed_sample)
        result["peak_rss_mib"] = peak_rss_mib()
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
