"""Check an ``litnav eval --multi-turn --json`` report against the citation graph: every result of
a successor case cites its anchor, every result of a predecessor case is cited by it (all turns).

    python bench/multiturn/check_directions.py runs/multiturn.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from candidates import load


def main() -> None:
    report = json.loads(Path(sys.argv[1]).read_text())
    cases = {c["id"]: c for c in map(json.loads, (Path(__file__).parent / "cases.jsonl").read_text().splitlines())}
    by, citers = load()
    checked = bad = 0
    for case in report["cases"]:
        anchor = cases[case["id"]]["anchor"]
        allowed = (set(citers.get(anchor, [])) if case["direction"] == "successor" else
                   set(by[anchor]["outbound_citations"]) if case["direction"] == "predecessor" else None)
        if allowed is None:
            continue
        for turn in case["turns"]:
            for cid in turn["ranking"]:
                checked += 1
                if cid not in allowed:
                    bad += 1
                    print(f"{case['id']} turn {turn['turn']}: {cid} is not a {case['direction']} of {anchor}")
    print(f"{checked} successor/predecessor results checked, {bad} outside the anchor's citers/references")


if __name__ == "__main__":
    main()
