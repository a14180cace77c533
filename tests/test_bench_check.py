"""bench/check.py: pinned scores are re-measured by running their command; a drift beyond the
tolerance fails; --record takes values only from a run."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_check", ROOT / "bench" / "check.py")
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

REPORT = {"systems": {"hybrid": {"nDCG@10": 0.5}, "litnav": {"nDCG@10": 0.6, "delta_vs_hybrid": {"nDCG@10": [0.1, 0.02, 0.2]}}}}


def _toml(tmp_path: Path, value: float, metric: str = "nDCG@10", system: str = "litnav") -> Path:
    src = tmp_path / "report.json"
    src.write_text(json.dumps(REPORT))
    command = f"python -c \"import shutil,sys; shutil.copy(sys.argv[1], sys.argv[2])\" {src} {{out}}/eval.json"
    path = tmp_path / "expected.toml"
    path.write_text("# pinned\n\n[[expected]]\n" + "\n".join(
        f"{k} = {json.dumps(v)}" for k, v in
        [("command", command), ("suite", "fake"), ("system", system), ("metric", metric), ("value", value),
         ("tolerance", 0.01)]) + "\n")
    return path


def test_reproduced_value_passes_and_drift_fails(tmp_path):
    assert check.main(["--file", str(_toml(tmp_path, 0.605))]) == 0
    assert check.main(["--file", str(_toml(tmp_path, 0.65))]) == 1
    assert check.main(["--file", str(_toml(tmp_path, 0.1, metric="delta_vs_hybrid:nDCG@10"))]) == 0


def test_record_takes_the_measured_value(tmp_path):
    path = _toml(tmp_path, 0.0)
    assert check.main(["--file", str(path), "--record", "--tolerance", "0.002"]) == 0
    (entry,) = check.load(path)
    assert entry["value"] == 0.6 and entry["tolerance"] == 0.002
    assert path.read_text().startswith("# pinned")


def test_malformed_entry_is_named(tmp_path):
    path = tmp_path / "expected.toml"
    path.write_text('[[expected]]\ncommand = "python x.py"\n')
    with pytest.raises(check.CheckError, match="entry 1"):
        check.load(path)
