"""``litnav stats``: counts of a corpus."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from litnav.cli.common import make_console, open_corpus


def register(app: typer.Typer) -> None:
    """Add the ``stats`` command to ``app``."""

    @app.command("stats")
    def stats_command(
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON object."),
        rejects: int = typer.Option(0, "--rejects", min=0,
                                    help="Also list up to N rejected input records (file, line, reason)."),
        venues: int = typer.Option(0, "--venues", min=0,
                                   help="Also list the N venues with the most papers (the names venue "
                                   "constraints match) and the papers per year."),
    ) -> None:
        """Papers, abstracts, full texts, chunks, citations, rejects and model of a corpus."""
        c = open_corpus(corpus, require_indexes=False)
        try:
            stats = c.stats()
            rejected = c.rejects()[:rejects] if rejects else []
            top = sorted(c.venues().items(), key=lambda kv: (-kv[1], kv[0]))[:venues] if venues else []
            years = c.papers_per_year() if venues else {}
        finally:
            c.close()
        model = stats.get("model")
        if isinstance(model, dict):  # the name `--set corpus.encoder_backend=...` takes
            from litnav.corpus.encoder import BACKENDS

            said = (model.get("backend"), model.get("precision"))
            if setting := next((name for name, pair in BACKENDS.items() if pair == said), None):
                stats["model"] = {"encoder_backend": setting, **model}
        if venues:
            stats["venues"] = dict(top)
            stats["papers_per_year"] = years
        if as_json:
            if rejects:
                stats["rejected"] = [{"source_file": f, "line": line, "reason": r} for _, f, line, r in rejected]
            typer.echo(json.dumps(stats, indent=2, default=str))
            return
        from rich.table import Table

        if rejected:
            listing = Table(title=f"rejected records (first {len(rejected)})")
            for col in ("file", "line", "reason"):
                listing.add_column(col, overflow="fold")
            for _, f, line, r in rejected:
                listing.add_row(f, str(line), r)
            make_console().print(listing)

        table = Table(title=str(corpus))
        table.add_column("what")
        table.add_column("value", overflow="fold")
        for k, v in stats.items():
            table.add_row(k, _shown(v) if v or k != "venues" else "none: no paper of this corpus names a venue")
        make_console().print(table)


def _shown(value) -> str:
    """A stats value as a table cell: a mapping as "key: value" pairs (venues, papers per year,
    the model), a list comma-joined, anything else as text."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {json.dumps(v, default=str) if isinstance(v, (dict, list)) else v}"
                         for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)
