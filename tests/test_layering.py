"""Imports point downward only, lazy (function-level) and relative imports included.

The layer order of ``litnav``'s subpackages, bottom first; a module may import its own
subpackage and any subpackage of a lower layer, nothing else of litnav. The package root
(``litnav/__init__.py``, the public API) sits above every subpackage but ``cli``, which is
built on it. ``from P import x`` counts as importing module ``P.x`` when that module exists.
There are no exceptions, and no import cycles between modules (lazy ones included)."""

from __future__ import annotations

import ast
from pathlib import Path

import litnav

PACKAGE = Path(litnav.__file__).resolve().parent

LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("llm",),
    ("corpus",),
    ("ingest", "web"),
    ("librarians", "scorer", "reranker"),
    ("navigator",),
    ("session",),
    ("training", "evaluation"),
    ("serve",),
    ("cli",),
)
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}
API = RANK["cli"] - 0.5
"""The rank of the package root (the public API): above everything but the CLI."""


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts).removesuffix(".__init__")


def _all_modules() -> set[str]:
    return {_module_name(p) for p in PACKAGE.rglob("*.py")}


MODULES = _all_modules()


def _imports(path: Path) -> set[str]:
    """Every litnav module imported anywhere in the file (module level or inside functions).

    ``from P import x`` counts as importing module ``P.x`` when that module exists (as Python
    does), else as importing ``P``."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module:
                target = node.module
            else:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
    return {m for m in found if m == "litnav" or m.startswith("litnav.")}


def _rank(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:
        return API
    if parts[1] not in RANK:
        raise AssertionError(f"{module}: subpackage {parts[1]!r} has no layer in LAYERS")
    return RANK[parts[1]]


def test_every_subpackage_has_a_layer():
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert subpackages == set(RANK), f"layers out of date: {sorted(subpackages ^ set(RANK))}"
    stray = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert not stray, f"modules outside a subpackage: {stray}"


def test_imports_point_downward():
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        own = _rank(module)
        own_sub = module.split(".")[:2]
        for target in sorted(_imports(path)):
            if target.split(".")[:2] == own_sub:
                continue
            if _rank(target) >= own:
                violations.append(f"{module} imports {target}")
    assert not violations, "\n".join(violations)


def _existing(module: str, modules: set[str]) -> str:
    while module not in modules and "." in module:
        module = module.rpartition(".")[0]
    return module


def test_no_import_cycles():
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {m: {_existing(t, set(files)) for t in _imports(p)} - {m} for m, p in files.items()}
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(path: list[str]) -> None:
        m = path[-1]
        state[m] = 1
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                cycles.append(" -> ".join(path[path.index(t):] + [t]))
            elif t in graph and not state.get(t):
                visit(path + [t])
        state[m] = 2

    for m in sorted(graph):
        if not state.get(m):
            visit([m])
    assert not cycles, "\n".join(cycles)
