"""Single entry point for litnav's benchmarks (``make bench``).

Runs each benchmark script of this folder that exists, in order, with this Python, and lets
their tables print as they come; then prints one line per script with its exit status and
wall time. Exit status: 0 when every script that ran succeeded, else 1.

    python bench/run.py                     # every benchmark present
    python bench/run.py --only scifact      # a subset, by script name
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ("ingest", "search", "scifact")
"""Scripts ``bench/<name>.py`` in the order they run: corpus build speed, search quality and
speed, then the SciFact evaluation against the baselines."""


def main(argv: list[str] | None = None) -> int:
    """Run the selected benchmark scripts; returns the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(BENCHMARKS), help="Comma-separated script names.")
    args = parser.parse_args(argv)
    chosen = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {unknown}; known: {', '.join(BENCHMARKS)}")
    summary: list[str] = []
    failed = False
    for name in chosen:
        script = HERE / f"{name}.py"
        if not script.is_file():
            summary.append(f"{name:8s} skipped ({script.name} not present)")
            continue
        print(f"\n=== bench/{script.name} ===", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.run([sys.executable, str(script)], cwd=HERE.parent).returncode
        failed |= rc != 0
        summary.append(f"{name:8s} {'ok' if rc == 0 else f'FAILED (exit {rc})'} in {time.perf_counter() - t0:.1f} s")
    print("\n=== summary ===")
    print("\n".join(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
