"""Prepare the corpora of the judged intent benchmark (``bench/intents/``) in a cache folder.

Two ACL suites, each written to ``.cache/bench/<suite>.jsonl`` (gitignored: the data never enters
the repository) and built into the corpus ``.cache/bench/<suite>/`` with
``litnav build --map id=acl_id``:

- ``acl-pre2016``: the ACL Anthology export of 2022-05 filtered to papers published before 2016
  that have an abstract (5,868 papers);
- ``acl-2016``: the 26,336 ACL papers of 2016-2022 with abstracts (CC-BY 4.0), unchanged.

The SciFact suite reuses ``bench/scifact.py``'s corpus (``.cache/bench/scifact``).

    python bench/intents/corpus.py                      # acl-pre2016: write the JSONL, build the corpus
    python bench/intents/corpus.py --suite acl-2016     # the 2016-2022 suite (about 6 min on 2 cores)
    python bench/intents/corpus.py --no-build           # only write the JSONL

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
DATA = ROOT.parent / "shared" / "data" / "corpora"
SOURCE = DATA / "acl_anthology_2022-05_papers.jsonl.gz"
CACHE = ROOT / ".cache" / "bench"
ACL_JSONL = CACHE / "acl-pre2016.jsonl"
ACL_CORPUS = CACHE / "acl-pre2016"
BEFORE_YEAR = 2016
SUITES = {
    "acl-pre2016": (SOURCE, BEFORE_YEAR),
    "acl-2016": (DATA / "acl_2016-2022_with_abstracts_ccby4.jsonl.gz", 10_000),
}
"""suite -> (source file, first year left out)."""


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
    ap.add_argument("--suite", choices=sorted(SUITES), default="acl-pre2016", help="Which ACL suite's corpus.")
    ap.add_argument("--no-build", action="store_true", help="Only write the JSONL subset.")
    ap.add_argument("--set", dest="overrides", action="append", default=[], help="Settings override group.field=value.")
    args = ap.parse_args(argv)
    source, before = SUITES[args.suite]
    out, corpus = CACHE / f"{args.suite}.jsonl", CACHE / args.suite
    if not source.exists():
        print(f"data file {source} is absent; nothing to do", file=sys.stderr)
        return 1
    n = write_acl_subset(source, out, before)
    print(f"{out}: {n} ACL papers before {before} with abstracts", flush=True)
    if args.no_build:
        return 0
    cmd = [sys.executable, "-m", "litnav.cli", "build", str(out), "--corpus", str(corpus),
           "--map", "id=acl_id", "--no-progress"]
    for item in args.overrides:
        cmd += ["--set", item]
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
