"""The dev/held-out split of the judged intent benchmark: one third of each suite's intents,
drawn with ``random.Random(SEED)`` before any judging or tuning, written to ``split.json``.

    python bench/intents/split.py            # (re)write split.json; the same seed gives the same split
    python bench/intents/split.py --check    # exit 1 when split.json differs from the seeded draw

Nobody tunes on the held-out intents: they are looked at only to report.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261201
HELDOUT_FRACTION = 1 / 3
SUITES = ("acl-pre2016", "scifact", "acl-2016")


def draw(seed: int = SEED) -> dict:
    """``{"seed", "fraction", "heldout": {suite: [qid...]}, "dev": {suite: [qid...]}}``: per suite,
    ``round(n * fraction)`` qids sampled from the file-ordered qids with ``random.Random(seed)``."""
    rng = random.Random(seed)
    out: dict = {"seed": seed, "fraction": HELDOUT_FRACTION, "heldout": {}, "dev": {}}
    for suite in SUITES:
        qids = [json.loads(line)["qid"] for line in (HERE / suite / "intents.jsonl").read_text().splitlines() if line.strip()]
        held = set(rng.sample(qids, round(len(qids) * HELDOUT_FRACTION)))
        out["heldout"][suite] = [q for q in qids if q in held]
        out["dev"][suite] = [q for q in qids if q not in held]
    return out


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check`` verify) ``split.json``; returns an exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    split = draw()
    path = HERE / "split.json"
    if args.check:
        ok = path.is_file() and json.loads(path.read_text()) == split
        print("split.json matches the seeded draw" if ok else "split.json differs from the seeded draw")
        return 0 if ok else 1
    path.write_text(json.dumps(split, indent=1) + "\n")
    print(json.dumps(split))
    return 0


if __name__ == "__main__":
    sys.exit(main())
