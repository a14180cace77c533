"""Imports point downward only: corpus at the bottom; ingest, scorer, librarians, reranker above
it; navigator on top; litnav's records/settings/predicates/llm low, its CLI and evaluation on top."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = {"corpus", "ingest", "scorer", "librarians", "reranker", "navigator", "litnav"}

LOW_SHARED = {"litnav", "litnav.records", "litnav.settings", "litnav.predicates", "litnav.llm"}
ALLOWED: dict[str, set[str]] = {
    "corpus": {"corpus"},
    "litnav.low": {"corpus"} | LOW_SHARED,
    "ingest": {"corpus", "ingest"} | LOW_SHARED,
    "scorer": {"corpus", "scorer"} | LOW_SHARED,
    "librarians": {"corpus", "librarians"} | LOW_SHARED,
    "reranker": {"corpus", "reranker"} | LOW_SHARED,
    "navigator": {"corpus", "ingest", "scorer", "librarians", "reranker", "navigator"} | LOW_SHARED,
}


def _layer(module: str) -> str | None:
    top = module.split(".")[0]
    if top != "litnav":
        return top if top in OURS else None
    if any(module == m or module.startswith(m + ".") for m in LOW_SHARED - {"litnav"}) or module == "litnav":
        return "litnav.low"
    return None  # litnav.cli, litnav.commands.*, litnav.evaluation.*: the top layer


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return {m for m in found if m.split(".")[0] in OURS}


def _allowed(target: str, allowed: set[str]) -> bool:
    return any(target == a or target.startswith(a + ".") for a in allowed)


def test_imports_point_downward():
    violations = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] not in OURS:
            continue
        module = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        layer = _layer(module)
        if layer is None:
            continue
        for target in _imports(path):
            if not _allowed(target, ALLOWED[layer]):
                violations.append(f"{rel}: imports {target} (layer {layer})")
    assert not violations, "\n".join(violations)
