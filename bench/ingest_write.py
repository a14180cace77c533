"""Ingest-only build with CPU seconds and per-call timings of the write path (issue #13).

Builds INPUT into CORPUS (removed first) with ``corpus.abstract_embeddings=false`` and without
finalize, in this process, and prints wall and CPU seconds (``getrusage``: user + system, all
threads, imports excluded), papers per CPU second, and for each write-path method the number of
calls and their summed wall time, with the mean of the first and last quarter of the calls (a
cost that grows with the corpus shows as a last quarter slower than the first).

``--prefill DIR`` copies the corpus DIR in first, so the input is written into a corpus that
already holds papers; ``make-prefill`` makes such a corpus from a built one by copying its
papers, external ids, abstracts, refs and citations ``--copies`` times with corpus ids shifted
by ``k * --shift`` (k = 1..copies): ingesting a 100k input into a copy of a 100k corpus copied
9 times times the last tenth of a 1M build's write path without building 1M papers.

    python bench/ingest_write.py run /work/scratch/scale/n100k/input /tmp/c100k --json out.json
    python bench/ingest_write.py make-prefill /tmp/c100k /tmp/prefill900k --copies 9
    python bench/ingest_write.py run /work/scratch/scale/n100k/input /tmp/c1m --prefill /tmp/prefill900k
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

TIMED = {"litnav.corpus.writer:SourceTransaction": ("add_documents", "add_citations", "add_rejects", "drop_rejects",
                                                    "_id_collisions", "_insert", "_finish"),
         "litnav.ingest.join:ContentStore": ("add_file", "take", "taken_lines", "leftovers")}


def _timed(calls: dict[str, list[float]]) -> None:
    """Wrap the methods in ``TIMED`` so that each call's wall seconds go to ``calls``."""
    import importlib

    for target, names in TIMED.items():
        module, cls_name = target.split(":")
        cls = getattr(importlib.import_module(module), cls_name)
        for name in (n for n in names if hasattr(cls, n)):  # older sources lack some
            def wrapper(*a: Any, __f=getattr(cls, name), __k=f"{cls_name}.{name}", **k: Any) -> Any:
                t = time.perf_counter()
                try:
                    return __f(*a, **k)
                finally:
                    calls[__k].append(time.perf_counter() - t)
            setattr(cls, name, wrapper)


def run(args: argparse.Namespace) -> dict:
    """Ingest ``args.input`` into ``args.corpus``; returns the numbers printed."""
    from litnav import build
    from litnav.core.settings import load_settings

    shutil.rmtree(args.corpus, ignore_errors=True)
    if args.prefill:
        shutil.copytree(args.prefill, args.corpus)
    calls: dict[str, list[float]] = defaultdict(list)
    _timed(calls)
    settings = load_settings(None, ["corpus.abstract_embeddings=false"])
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    report = build([args.input], args.corpus, settings=settings, progress=False, finalize=False)
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    out = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "papers": report.read.papers,
           "papers_per_cpu_s": round(report.read.papers / cpu, 1), "max_rss_gib": round(r1.ru_maxrss / 2**20, 3),
           "stages": {k: round(v, 2) for k, v in report.seconds.items()}, "calls": {}}
    for name, times in calls.items():
        q = max(1, len(times) // 4)
        out["calls"][name] = {"n": len(times), "wall_s": round(sum(times), 2),
                              "first_quarter_mean_s": round(sum(times[:q]) / q, 4),
                              "last_quarter_mean_s": round(sum(times[-q:]) / q, 4)}
    return out


def make_prefill(args: argparse.Namespace) -> dict:
    """Write the prefilled corpus ``args.out`` from the built corpus ``args.source``."""
    import duckdb

    from litnav.core.settings import load_settings
    from litnav.corpus import CorpusWriter
    from litnav.corpus.schema import DB_NAME

    shutil.rmtree(args.out, ignore_errors=True)
    with CorpusWriter.open(args.out, load_settings(None, ["corpus.abstract_embeddings=false"]).corpus):
        pass
    con = duckdb.connect(str(Path(args.out) / DB_NAME))
    try:
        con.execute(f"ATTACH '{Path(args.source) / DB_NAME}' AS s (READ_ONLY)")
        ks = f"range(1, {args.copies + 1}) k(k)"

        def shift(col: str) -> str:
            return f"CAST(CAST({col} AS BIGINT) + k * {args.shift} AS VARCHAR)"

        con.execute(f"INSERT INTO papers SELECT x.* REPLACE ({shift('corpus_id')} AS corpus_id, "
                    f"source_file || '.' || k AS source_file) FROM s.papers x, {ks}")
        con.execute(f"INSERT INTO external_ids SELECT {shift('corpus_id')}, kind, CASE WHEN kind = 's2' "
                    f"THEN {shift('value')} ELSE value || '.' || k END FROM s.external_ids, {ks}")
        con.execute(f"INSERT INTO abstracts SELECT {shift('corpus_id')}, abstract FROM s.abstracts, {ks}")
        con.execute(f"INSERT INTO refs SELECT x.* REPLACE ({shift('citing_id')} AS citing_id) FROM s.refs x, {ks}")
        con.execute(f"INSERT INTO citations SELECT x.* REPLACE ({shift('citing_id')} AS citing_id, "
                    f"{shift('cited_id')} AS cited_id) FROM s.citations x, {ks}")
        con.execute("DETACH s")
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("papers", "external_ids", "abstracts", "refs", "citations")}
    finally:
        con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="ingest-only build, timed")
    r.add_argument("input")
    r.add_argument("corpus")
    r.add_argument("--prefill", help="corpus directory copied in first")
    r.add_argument("--json", type=Path, help="write the numbers here too")
    m = sub.add_parser("make-prefill", help="a corpus holding shifted copies of a built corpus's rows")
    m.add_argument("source")
    m.add_argument("out")
    m.add_argument("--copies", type=int, default=9)
    m.add_argument("--shift", type=int, default=100_000, help="corpus-id shift per copy (at least the input's id range)")
    args = ap.parse_args()
    out = run(args) if args.cmd == "run" else make_prefill(args)
    print(json.dumps(out, indent=1))
    if getattr(args, "json", None):
        args.json.write_text(json.dumps(out))


if __name__ == "__main__":
    main()
