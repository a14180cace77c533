"""What ``pip install .`` ships: one top-level package with its data files. Run against an
installed (non-editable) package by ``make test-installed``, these catch a data file the wheel
leaves out or a module that only works from the checkout."""

import fnmatch
import importlib.metadata
import importlib.util
import tomllib
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _package_data() -> dict[str, list[str]]:
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return doc["tool"]["setuptools"]["package-data"]


def test_declared_package_data_is_present_in_the_imported_package():
    for package, patterns in _package_data().items():
        folder = Path(str(resources.files(package)))
        for pattern in patterns:
            assert list(folder.glob(pattern)), f"{package}: no {pattern} in {folder}"


def test_every_data_file_in_the_source_tree_is_declared():
    src = ROOT / "src" / "litnav"
    if not src.is_dir():
        pytest.skip("source tree absent")
    declared = _package_data()
    missing = []
    for path in src.rglob("*"):
        if not path.is_file() or path.suffix in (".py", ".pyc", ".md") or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(src.parent)
        owners = [p for p in declared if rel.as_posix().startswith(p.replace(".", "/") + "/")]
        inside = [rel.relative_to(Path(*o.split("."))).as_posix() for o in owners]
        if not any(fnmatch.fnmatch(r, pat) for o, r in zip(owners, inside) for pat in declared[o]):
            missing.append(rel.as_posix())
    assert not missing, f"data files not in [tool.setuptools.package-data]: {missing}"


def test_one_top_level_package():
    top = importlib.metadata.distribution("litnav").read_text("top_level.txt")
    if top is not None:
        assert top.split() == ["litnav"]
    for name in ("corpus", "ingest", "librarians", "scorer", "reranker", "navigator"):
        assert importlib.util.find_spec(name) is None, f"a top-level {name!r} is importable"
