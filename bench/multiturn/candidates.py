"""Print the judging pool of an (anchor, direction) case from the NeurIPS/ICML citation JSONL:
the anchor's citers (successor), references (predecessor), co-cited/coupled papers (sibling),
or the union of references and citers (benchmark, survey). Used to judge gold by hand
(see README.md); reads only the JSONL, no corpus needed.

    python bench/multiturn/candidates.py ANCHOR_ID DIRECTION [--abstracts]
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import math
from pathlib import Path

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "corpora" / "neurips_icml_arxiv_citations.jsonl.gz"


def load(path: Path = DATA) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """Papers by id and citers by cited id."""
    with gzip.open(path, "rt") as fh:
        by = {r["id"]: r for r in map(json.loads, fh)}
    citers: dict[str, list[str]] = collections.defaultdict(list)
    for r in by.values():
        for c in r["outbound_citations"]:
            citers[c].append(r["id"])
    return by, citers


def pool(anchor: str, direction: str, by: dict, citers: dict, limit: int = 60) -> list[str]:
    """The judging pool of a case (graph neighbourhood of the anchor for its direction)."""
    refs = list(by[anchor]["outbound_citations"])
    cits = list(citers.get(anchor, []))
    if direction == "successor":
        return cits
    if direction == "predecessor":
        return refs
    if direction == "sibling":
        score: dict[str, float] = collections.defaultdict(float)
        for h in cits:  # co-citation
            for o in by[h]["outbound_citations"]:
                if o != anchor:
                    score[o] += 1 / math.sqrt(max(1, len(cits)) * max(1, len(citers.get(o, []))))
        for h in refs:  # bibliographic coupling
            for o in citers.get(h, []):
                if o != anchor:
                    score[o] += 1 / math.sqrt(max(1, len(refs)) * max(1, len(by[o]["outbound_citations"])))
        return [c for c, _ in sorted(score.items(), key=lambda kv: -kv[1])[:limit]]
    return list(dict.fromkeys(refs + cits))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("anchor")
    ap.add_argument("direction")
    ap.add_argument("--abstracts", action="store_true")
    args = ap.parse_args()
    by, citers = load()
    print(f"ANCHOR {args.anchor} {by[args.anchor]['year']} {by[args.anchor]['title']}")
    for cid in pool(args.anchor, args.direction, by, citers):
        r = by[cid]
        print(f"{cid}\t{r['year']}\t{r['title'][:110]}")
        if args.abstracts:
            print("\t" + r["abstract"][:400])


if __name__ == "__main__":
    main()
