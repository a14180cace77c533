"""Prepare the corpora of the judged intent benchmark (``bench/intents/``) in a cache folder.

The ACL part is the ACL Anthology export of 2022-05 filtered to papers published before 2016
that have an abstract (5,868 papers); the file is written to ``.cache/bench/acl-pre2016.jsonl``
(gitignored: the data never enters the repository) and built into the corpus
``.cache/bench/acl-pre2016/`` with ``litnav build --map id=acl_id``. The SciFact part reuses
``bench/scifact.py``'s corpus (``.cache/bench/scifact``).

    python bench/intents/corpus.py              # write the JSONL and build the ACL corpus
    python bench/intents/corpus.py --no-build   # only write the JSONL

Corpus builds embed every abstract (minutes on 2 CPU cores): run them under
``flock /tmp/litnav-heavy.lock`` on a shared machine.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT.parent / "shared" / "data" / "corpora" / "acl_anthology_2022-05_papers.jsonl.gz"
CACHE = ROOT / ".cache" / "bench"
ACL_JSONL = CACHE / "acl-pre2016.jsonl"
ACL_CORPUS = CACHE / "acl-pre2016"
BEFORE_YEAR = 2016


def _has_abstract(value: object) -> bool:
    return isinstance(value, str) and value.strip() not in ("", "None")


def write_acl_subset(source: Path = SOURCE, out: Path = ACL_JSONL, before: int = BEFORE_YEAR) -> int:
    """Copy the records of ``source`` with a year < ``before`` and a non-empty abstract to
    ``out`` (JSONL, unchanged records, written atomically); returns the number written.

    Raises ``FileNotFoundError`` when ``source`` is absent.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    n = 0
    with gzip.open(source, "rt", encoding="utf-8") as src, os.fdopen(fd, "w", encoding="utf-8") as dst:
        for line in src:
            rec = json.loads(line)
            try:
                year = int(rec.get("year"))
            except (TypeError, ValueError):
                continue
            if year < before and _has_abstract(rec.get("abstract")):
                dst.write(json.dumps(rec, ensure_ascii=False) + "\n")
                n += 1
    os.replace(tmp, out)
    return n


def main(argv: list[str] | None = None) -> int:
    """Write the ACL subset and (unless ``--no-build``) build its corpus; returns an exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-build", action="store_true", help="Only write the JSONL subset.")
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="Settings override group.field=value.")
    args = ap.parse_args(argv)
    if not SOURCE.exists():
        print(f"data file {SOURCE} is absent; nothing to do", file=sys.stderr)
        return 1
    n = write_acl_subset()
    print(f"{ACL_JSONL}: {n} ACL papers before {BEFORE_YEAR} with abstracts", flush=True)
    if args.no_build:
        return 0
    cmd = [sys.executable, "-m", "litnav.cli", "build", str(ACL_JSONL), "--corpus", str(ACL_CORPUS),
           "--map", "id=acl_id", "--no-progress"]
    for item in args.overrides:
        cmd += ["--set", item]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
