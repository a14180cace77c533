"""Re-run the pinned evaluations of ``bench/expected.toml`` and verify their scores
(two-click reproductions in the style of pyserini's regression tables).

Each ``[[expected]]`` entry names a ``command`` (run from the repository root; ``{out}`` is
replaced by a fresh output folder and the command must write ``{out}/eval.json``, the JSON of
``litnav eval --json``), the ``suite`` it measures, and one ``system``/``metric`` pair with its
pinned ``value`` and ``tolerance``. Commands shared by several entries run once.

    python bench/check.py                      # run every command, compare, exit 1 on a mismatch
    python bench/check.py --only intents       # entries whose suite contains "intents"
    python bench/check.py --dry-run            # list the commands without running them
    python bench/check.py --record --tolerance 0.005   # rewrite the values from fresh runs
    python bench/check.py --record --reports made.json # ... or from runs of the same commands already made

``--record`` keeps the entries (command, suite, system, metric) and replaces only ``value``
(and ``tolerance`` when given): the numbers always come from a run, never from an editor.
Commands are heavy (corpus search over thousands of papers): run the check under
``flock /tmp/litnav-heavy.lock`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = ROOT / "bench" / "expected.toml"
FIELDS = ("command", "suite", "system", "metric", "value", "tolerance")


class CheckError(ValueError):
    """expected.toml is malformed; the message names the entry."""


def load(path: Path = EXPECTED) -> list[dict]:
    """The ``[[expected]]`` entries of ``path``, validated (every field present and typed)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CheckError(f"{path}: {exc}") from exc
    entries = data.get("expected", [])
    if not isinstance(entries, list) or not entries:
        raise CheckError(f"{path}: no [[expected]] entries")
    for i, e in enumerate(entries, 1):
        missing = [f for f in FIELDS if f not in e]
        if missing:
            raise CheckError(f"{path}: entry {i} lacks {missing}")
        if "{out}" not in e["command"]:
            raise CheckError(f"{path}: entry {i}: command must write {{out}}/eval.json")
        if not all(isinstance(e[f], (int, float)) for f in ("value", "tolerance")) or e["tolerance"] < 0:
            raise CheckError(f"{path}: entry {i}: value and tolerance must be numbers, tolerance >= 0")
    return entries


def run(command: str, out: Path) -> dict:
    """Run one command with ``{out}`` substituted and return its ``eval.json``."""
    argv = [a.replace("{out}", str(out)) for a in shlex.split(command)]
    if argv[0] == "python":
        argv[0] = sys.executable
    print("$", " ".join(argv), flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT)
    print(f"  exit {proc.returncode} in {time.perf_counter() - t0:.0f} s", flush=True)
    result = out / "eval.json"
    if proc.returncode != 0 or not result.is_file():
        raise RuntimeError(f"command failed (exit {proc.returncode}) or wrote no {result}: {command}")
    return json.loads(result.read_text(encoding="utf-8"))


def measured(report: dict, system: str, metric: str) -> float:
    """``report["systems"][system][metric]``; ``delta_vs_X:metric`` reads a paired mean difference."""
    res = report["systems"][system]
    if metric.startswith("delta_vs_"):
        key, _, name = metric.partition(":")
        return float(res[key][name][0])
    return float(res[metric])


def write(entries: list[dict], path: Path = EXPECTED) -> None:
    """Write entries back as TOML (header comment kept), one ``[[expected]]`` table each."""
    head = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("[[expected]]"):
            break
        head.append(line)
    lines = [*head]
    for e in entries:
        lines += ["[[expected]]"] + [f"{k} = {json.dumps(e[k])}" for k in FIELDS] + [""]
    tmp = path.with_suffix(".toml.tmp")
    tmp.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    """Verify (or ``--record``) the pinned scores; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=EXPECTED)
    ap.add_argument("--only", default=None, help="Substring of the suite to select.")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--record", action="store_true", help="Replace the values with freshly measured ones.")
    ap.add_argument("--tolerance", type=float, default=None, help="With --record: set every tolerance.")
    ap.add_argument("--reports", type=Path, default=None,
                    help="JSON object command -> eval.json of a run of exactly that command already made "
                    "(used instead of re-running it; e.g. to record from a run made under the heavy lock).")
    args = ap.parse_args(argv)
    entries = load(args.file)
    chosen = [e for e in entries if args.only is None or args.only in e["suite"]]
    commands = list(dict.fromkeys(e["command"] for e in chosen))
    if args.dry_run:
        print("\n".join(commands))
        return 0
    reports: dict[str, dict] = {}
    if args.reports:
        for command, path in json.loads(args.reports.read_text(encoding="utf-8")).items():
            if command in commands:
                reports[command] = json.loads(Path(path).read_text(encoding="utf-8"))
    for command in [c for c in commands if c not in reports]:
        with tempfile.TemporaryDirectory(prefix="litnav-check-") as tmp:
            reports[command] = run(command, Path(tmp))
    failures = 0
    for e in chosen:
        got = measured(reports[e["command"]], e["system"], e["metric"])
        if args.record:
            e["value"] = round(got, 4)
            if args.tolerance is not None:
                e["tolerance"] = args.tolerance
            continue
        ok = abs(got - e["value"]) <= e["tolerance"] + 1e-12
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {e['suite']:40s} {e['system']:22s} {e['metric']:24s} "
              f"expected {e['value']:.4f} ± {e['tolerance']:.4f}, got {got:.4f}")
    if args.record:
        write(entries, args.file)
        print(f"recorded {len(chosen)} values into {args.file}")
        return 0
    print(f"{len(chosen) - failures} of {len(chosen)} pinned scores reproduced")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
