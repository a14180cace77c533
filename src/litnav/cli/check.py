"""``litnav check``: verify every tier of a corpus (checksums, counts) and optionally repair it."""

from __future__ import annotations

from pathlib import Path

import typer

from litnav.cli.common import clean_errors, fail, make_console


def register(app: typer.Typer) -> None:
    """Add the ``check`` command to ``app``."""

    @app.command("check")
    def check_command(
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
        repair: bool = typer.Option(False, "--repair", help="Rebuild damaged or missing indexes from the database."),
        no_progress: bool = typer.Option(False, "--no-progress", help="Hide the progress bars."),
    ) -> None:
        """Read every table, compare every index file with its recorded size and checksum, and compare
        counts across tiers; exit 1 when something is damaged (after --repair: when it could not be fixed)."""
        from litnav.corpus import CorpusError
        from litnav.corpus.integrity import repair_command
        from litnav.corpus.maintenance import check

        with clean_errors(CorpusError, OSError):
            report = check(corpus, repair=repair, progress=not no_progress)
        console = make_console()
        for what, detail in report.checked.items():
            console.print(f"ok-read  {what}: {detail}", highlight=False)
        for line in report.found:
            console.print(f"damaged  {line}", highlight=False)
        if report.repaired:
            console.print(f"repaired {corpus}: the indexes were rebuilt from the database and check clean")
        elif report.problems:
            fix = "" if repair else f"; repair with `{repair_command(corpus)}`"
            fail(f"{len(report.problems)} problem(s) in {corpus}: {report.problems[0]}{fix}")
        else:
            console.print(f"{corpus}: every tier checks clean")
