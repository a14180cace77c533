"""The ``litnav`` command line: thin wrappers that parse arguments into settings and call the
same functions the Python API exposes. Each sub-command lives in ``litnav.cli.<name>`` and
registers itself with ``register(app)``."""

from __future__ import annotations

import importlib
import sys

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
    """Console-script entry point. A database error (a damaged ``corpus.duckdb``) is a one-line
    error that says how to find the damage, not a traceback."""
    _register()
    try:
        app()
    except Exception as exc:
        duckdb = sys.modules.get("duckdb")
        if duckdb is None or not isinstance(exc, duckdb.Error):
            raise
        from litnav.cli.common import fail

        try:
            fail(f"the corpus database cannot be read ({type(exc).__name__}: {str(exc).splitlines()[0]}); "
                 "`litnav check --corpus DIR` reports what is damaged")
        except typer.Exit as done:
            sys.exit(done.exit_code)


if __name__ == "__main__":
    main()
