"""``litnav stats``: counts of a corpus."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from litnav.commands.common import open_corpus


def register(app: typer.Typer) -> None:
    """Add the ``stats`` command to ``app``."""

    @app.command("stats")
    def stats_command(
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON object."),
    ) -> None:
        """Papers, abstracts, full texts, chunks, citations, rejects and model of a corpus."""
        c = open_corpus(corpus)
        try:
            stats = c.stats()
        finally:
            c.close()
        if as_json:
            typer.echo(json.dumps(stats, indent=2, default=str))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table(title=str(corpus))
        table.add_column("what")
        table.add_column("value", justify="right")
        for k, v in stats.items():
            table.add_row(k, json.dumps(v, default=str) if isinstance(v, (dict, list)) else str(v))
        Console().print(table)
