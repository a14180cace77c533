"""Load test of ``litnav serve`` (bounded, loopback only): start the real server on 127.0.0.1 at a
free port over a corpus, send N searches at once, and report latency percentiles and errors.

    flock /tmp/litnav-heavy.lock .venv/bin/python bench/serve_load.py --corpus demo-corpus \
        --requests 50 --out bench/results/serve_load.json

The requests cycle through the demo's three intents (``--extra-intents`` adds seven more).
Every request must answer 200 with results; the script exits 1 otherwise. Latency is measured
per request from send to the complete response (so it includes queueing behind the server's
``--max-concurrent`` search slots); p50/p95 are nearest-rank percentiles.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from litnav.navigator.demo import DEMO_INTENTS

EXTRA_INTENTS = (
    "neural machine translation with attention",
    "word sense disambiguation with knowledge bases",
    "dependency parsing of morphologically rich languages",
    "sentiment analysis of product reviews",
    "named entity recognition in social media text",
    "summarization of scientific articles",
    "question answering over knowledge graphs",
)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(values)
    return s[max(0, math.ceil(q / 100 * len(s)) - 1)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path("demo-corpus"))
    ap.add_argument("--requests", type=int, default=50, help="searches sent at once")
    ap.add_argument("--top-k", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=None, help="navigator rounds per search (default: settings)")
    ap.add_argument("--max-concurrent", type=int, default=2, help="the server's search slots")
    ap.add_argument("--extra-intents", action="store_true",
                    help="cycle through 7 more intents besides the demo's three (on a lazily embedded corpus their "
                         "first searches embed new chunks, which makes the run much longer)")
    ap.add_argument("--startup-timeout", type=float, default=300)
    ap.add_argument("--request-timeout", type=float, default=1800)
    ap.add_argument("--out", type=Path, default=None, help="write the numbers as JSON here")
    args = ap.parse_args()
    if not args.corpus.is_dir():
        print(f"error: corpus {args.corpus} does not exist (run `litnav demo` or pass --corpus)", file=sys.stderr)
        return 2

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    exe = Path(sys.executable).with_name("litnav")
    with tempfile.TemporaryDirectory(prefix="litnav-load-") as tmp:
        log = Path(tmp) / "server.log"
        cmd = [str(exe), "serve", "--corpus", str(args.corpus), "--host", "127.0.0.1", "--port", str(port),
               "--sessions", str(Path(tmp) / "sessions"), "--max-concurrent", str(args.max_concurrent)]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT)
        try:
            while True:
                if proc.poll() is not None:
                    print(log.read_text()[-3000:], file=sys.stderr)
                    return 1
                try:
                    if httpx.get(base + "/health", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.perf_counter() - t0 > args.startup_timeout:
                    print("error: server did not start", file=sys.stderr)
                    return 1
                time.sleep(0.5)
            startup = time.perf_counter() - t0
            pool_of = DEMO_INTENTS + (EXTRA_INTENTS if args.extra_intents else ())
            intents = [pool_of[i % len(pool_of)] for i in range(args.requests)]

            def one(intent: str) -> dict:
                t = time.perf_counter()
                try:
                    r = httpx.post(base + "/search", json={"intent": intent, "top_k": args.top_k, "rounds": args.rounds},
                                   timeout=args.request_timeout)
                    ok = r.status_code == 200 and bool(r.json().get("results"))
                    detail = "" if ok else f"{r.status_code}: {r.text[:200]}"
                    server_s = r.json().get("seconds") if r.status_code == 200 else None
                except httpx.HTTPError as exc:
                    ok, detail, server_s = False, f"{type(exc).__name__}: {exc}", None
                return {"intent": intent, "ok": ok, "seconds": time.perf_counter() - t, "server_seconds": server_s,
                        "error": detail}

            t1 = time.perf_counter()
            with ThreadPoolExecutor(args.requests) as pool:
                rows = list(pool.map(one, intents))
            wall = time.perf_counter() - t1
        finally:
            proc.terminate()
            proc.wait(timeout=60)

    lat = [r["seconds"] for r in rows]
    work = [r["server_seconds"] for r in rows if r["server_seconds"] is not None]
    errors = [r for r in rows if not r["ok"]]
    summary = {
        "corpus": str(args.corpus), "requests": args.requests, "concurrent_clients": args.requests,
        "server_max_concurrent": args.max_concurrent, "top_k": args.top_k, "rounds": args.rounds, "distinct_intents": len(set(intents)),
        "errors": len(errors),
        "startup_seconds": round(startup, 2), "wall_seconds": round(wall, 2),
        "throughput_per_minute": round(60 * args.requests / wall, 2),
        "latency_p50_s": round(percentile(lat, 50), 2), "latency_p95_s": round(percentile(lat, 95), 2),
        "latency_max_s": round(max(lat), 2),
        "search_work_p50_s": round(percentile(work, 50), 2) if work else None,
        "search_work_p95_s": round(percentile(work, 95), 2) if work else None,
        "cpu_count": os.cpu_count(),
    }
    print(json.dumps(summary, indent=2))
    for e in errors[:5]:
        print(f"error: {e['intent']!r}: {e['error']}", file=sys.stderr)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"summary": summary, "requests": rows}, indent=2))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
