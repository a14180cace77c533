"""The ``litnav`` command line: thin wrappers that parse arguments into settings and call the
same functions the Python API exposes. Each sub-command lives in ``litnav.cli.<name>`` and
registers itself with ``register(app)``."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="litnav",
    help="Agentic, checklist-driven literature search over a local S2ORC corpus.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

COMMANDS: tuple[str, ...] = ("build", "stats", "show", "search", "demo", "verify", "eval", "scorer", "reindex", "export", "refine", "check", "serve")


def _register() -> None:
    for name in COMMANDS:
        importlib.import_module(f"litnav.cli.{name}").register(app)


def main() -> None:
    """Console-script entry point."""
    _register()
    app()


if __name__ == "__main__":
    main()
