"""Time to first search of a staged build: when a corpus becomes searchable with BM25, and when
dense retrieval joins, counted from the start of ``litnav build``.

Runs ``litnav build SOURCE --corpus DIR`` as a subprocess and, from this process, probes the
corpus every ``--interval`` seconds the way a user would: open it read-only and run a BM25 search
(``Corpus.lexical_search``); once the build reports stage ``complete``, one dense search
(``Corpus.semantic_search``) confirms the vectors. Prints

    searchable after X s, dense after Y s

plus the build's own stage timings (its ``time ... (s)`` rows). The default source is the
26k-paper ACL file the issue names; any ``litnav build`` source works (``--map`` as for the CLI).

    python bench/staged_build.py --corpus /tmp/acl-staged                 # ACL 2016-2022, id=acl_id
    python bench/staged_build.py papers.jsonl.gz --map id=doc_id --corpus /tmp/x --json out.json

The corpus directory is removed first (a fresh build is what is timed). Exit status 1 when the
source is absent or the build fails.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_SOURCE = ROOT.parent / "shared" / "data" / "corpora" / "acl_2016-2022_with_abstracts_ccby4.jsonl.gz"
DEFAULT_MAP = ["id=acl_id"]
QUERY = "neural machine translation for low-resource languages"
TARGET_SEARCHABLE_S = 30.0
TARGET_DENSE_S = 600.0
"""The issue's targets on the ACL file: searchable (BM25) <= 30 s, abstract vectors <= 10 min."""


def probe(corpus: Path, query: str) -> tuple[str | None, int]:
    """``(build stage, BM25 hits for query)`` of the corpus, or ``(None, 0)`` when it cannot be opened yet."""
    from litnav.corpus import Corpus, CorpusError

    try:
        c = Corpus.open(corpus)
    except CorpusError:
        return None, 0
    try:
        stage = c.build_stage()
        hits = len(c.lexical_search(query, 10)) if stage in ("lexical", "complete") else 0
        return stage, hits
    except CorpusError:
        return None, 0
    finally:
        c.close()


def dense_hits(corpus: Path, query: str) -> int:
    """Number of dense hits for ``query`` (loads the encoder)."""
    from litnav.corpus import Corpus

    with Corpus.open(corpus) as c:
        return len(c.semantic_search(query, 10))


def shard_rate(corpus: Path, wall: float, t0_wall: float) -> dict:
    """What a killed build's dense phase had done, from the files in ``DIR/embed/`` (written when
    each piece finished): when chunking and the phrase table finished, abstracts embedded of those
    to embed, texts/s between the first and last vector shard, and the dense time that rate gives
    (seconds from the build's start: the first shard's end plus the rest at that rate)."""
    import pyarrow.parquet as pq

    embed = corpus / "embed"
    out: dict = {}
    todo = embed / "abstracts.todo.parquet"
    total = pq.read_metadata(todo).num_rows if todo.is_file() else None
    shards = sorted(embed.glob("abstracts-*.npz"), key=lambda p: p.stat().st_mtime)
    ends = [p.stat().st_mtime - t0_wall for p in shards]
    sizes = []
    import numpy as np
    for p in shards:
        with np.load(p) as z:
            sizes.append(len(z["corpus_id"]))
    for name, pattern in (("phrases done at s", "phrases.json.gz"), ("chunking done at s", "chunked-*.parquet")):
        files = sorted(embed.glob(pattern), key=lambda p: p.stat().st_mtime)
        if files:
            out[name] = round(files[-1].stat().st_mtime - t0_wall, 1)
    out["abstracts to embed"] = total
    out["abstracts embedded"] = sum(sizes)
    out["vector shards"] = len(shards)
    if len(shards) >= 2:
        rate = sum(sizes[1:]) / (ends[-1] - ends[0])
        out["texts/s (shard 2..last)"] = round(rate, 2)
        if total:
            out["estimated dense after s (at that rate, + FAISS/publish not counted)"] = round(
                ends[0] + (total - sizes[0]) / rate, 0)
    out["shard ends at s"] = [round(e, 1) for e in ends]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    ap.add_argument("--corpus", type=Path, required=True, help="Corpus directory (removed first).")
    ap.add_argument("--map", action="append", default=None, help="--map for litnav build (default id=acl_id "
                    "for the default source, none otherwise).")
    ap.add_argument("--set", action="append", default=[], help="--set for litnav build (repeatable).")
    ap.add_argument("--interval", type=float, default=0.5, help="Seconds between probes.")
    ap.add_argument("--query", default=QUERY)
    ap.add_argument("--json", type=Path, default=None, help="Also write the numbers here.")
    ap.add_argument("--stop-after-s", type=float, default=None,
                    help="Kill the build (SIGKILL) after this many seconds when it has not finished; the "
                    "embedding rate is then read from the shards it wrote (rerun the same build to resume).")
    args = ap.parse_args(argv)
    if not args.source.exists():
        print(f"source {args.source} is absent", file=sys.stderr)
        return 1
    maps = args.map if args.map is not None else (DEFAULT_MAP if args.source == DEFAULT_SOURCE else [])
    shutil.rmtree(args.corpus, ignore_errors=True)
    import litnav.corpus  # noqa: F401  (imported before the clock starts: the probe's own start-up is not timed)

    cmd = [sys.executable, "-m", "litnav.cli", "build", str(args.source), "--corpus", str(args.corpus), "--no-progress"]
    cmd += [x for m in maps for x in ("--map", m)] + [x for s in args.set for x in ("--set", s)]
    log = args.corpus.parent / (args.corpus.name + ".build.log")
    args.corpus.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        searchable = dense = None
        killed = False
        stages: list[tuple[float, str | None]] = []
        while True:
            done = proc.poll() is not None
            stage, hits = probe(args.corpus, args.query)
            now = time.perf_counter() - t0
            if not stages or stages[-1][1] != stage:
                stages.append((round(now, 1), stage))
            if searchable is None and hits:
                searchable = now
            if stage == "complete" and dense is None:
                dense = now
            if done:
                break
            if args.stop_after_s is not None and now > args.stop_after_s:
                proc.kill()
                proc.wait()
                killed = True
                break
            time.sleep(args.interval)
    wall = time.perf_counter() - t0
    text = log.read_text()
    if killed:
        est = shard_rate(args.corpus, wall, t0_wall=time.time() - wall)
        result = {"source": str(args.source), "command": " ".join(cmd), "searchable_s": searchable, "dense_s": None,
                  "killed_after_s": wall, "probe_stages": stages, "embedding": est}
        print(f"searchable after {searchable:.1f} s; dense not reached: build killed after {wall:.0f} s"
              if searchable else f"not searchable within {wall:.0f} s (build killed)")
        print("probe stages:", ", ".join(f"{t} s {s}" for t, s in stages))
        for k, v in est.items():
            print(f"  {k}: {v}")
        if args.json:
            args.json.write_text(json.dumps(result, indent=2))
        return 0
    if proc.returncode != 0:
        print(text[-3000:], file=sys.stderr)
        print(f"build failed (exit {proc.returncode}); log {log}", file=sys.stderr)
        return 1
    n_dense = dense_hits(args.corpus, args.query)
    own = {m.group(1): float(m.group(2)) for m in re.finditer(r"time (\S+) \(s\)\s*│?\s*([0-9.]+)", text)}
    said = re.search(r"searchable with BM25 after ([0-9.]+) s", text)
    result = {
        "source": str(args.source), "command": " ".join(cmd), "searchable_s": searchable, "dense_s": dense,
        "build_wall_s": wall, "build_says_searchable_s": float(said.group(1)) if said else None,
        "dense_hits": n_dense, "probe_stages": stages, "build_seconds": own,
    }
    print(f"searchable after {searchable:.1f} s, dense after {dense:.1f} s" if searchable and dense else
          f"searchable after {searchable} s, dense after {dense} s")
    print(f"(build wall {wall:.1f} s; the build itself printed searchable after {result['build_says_searchable_s']} s; "
          f"targets {TARGET_SEARCHABLE_S:.0f} s / {TARGET_DENSE_S:.0f} s)")
    print("probe stages:", ", ".join(f"{t} s {s}" for t, s in stages))
    for k, v in own.items():
        print(f"  build time {k}: {v:.2f} s")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
