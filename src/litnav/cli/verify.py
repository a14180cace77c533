"""``litnav verify``: audit a reference list (BibTeX, RIS, CSL-JSON or titles) against a corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from litnav.cli.common import SetOpt, SettingsOpt, clean_errors, fail, make_console, open_corpus, settings_from

_STATUS = {"verified": "[green]verified[/green]", "metadata_mismatch": "[yellow]metadata mismatch[/yellow]",
           "not_found": "[red]not in corpus[/red]"}


def register(app: typer.Typer) -> None:
    """Add the ``verify`` command to ``app``."""

    @app.command("verify")
    def verify_command(
        refs: Path = typer.Argument(..., help="Reference list: .bib, .ris, CSL-JSON (.json) or titles (.txt)."),
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the audit as JSON here."),
        strict: bool = typer.Option(False, "--strict", help="Exit with status 1 when any reference is not "
                                    "verified (not in the corpus or a metadata mismatch), as a check in a "
                                    "build or CI step would need; the table and --json are written first."),
        set_: Optional[list[str]] = SetOpt,
        settings_file: Optional[Path] = SettingsOpt,
    ) -> None:
        """Match every reference to the corpus: which are real corpus records, which are not in
        the corpus (possibly fabricated), which disagree on year or authors. Exit status 0, or
        with --strict 1 when any reference is not verified."""
        from rich.table import Table

        from litnav.web import ReferenceParseError, verify_references

        settings = settings_from(settings_file, set_)
        c = open_corpus(corpus, settings)
        if json_out is not None:
            from litnav.session.io import check_output

            with clean_errors(ValueError):  # before the matching, not after it
                check_output(json_out, "export", inputs=[refs], corpus=c)
        try:
            with clean_errors(ReferenceParseError):
                report = verify_references(refs, c, settings.web)
        finally:
            c.close()
        if not report.references:
            fail(f"{refs}: no references found (read as {report.format}); nothing was verified")
        console = make_console()
        from litnav.session.render import escape

        table = Table(title=escape(f"litnav verify {refs} ({report.format}) against {corpus}"))
        for col in ("#", "reference", "status", "corpus_id", "corpus title", "year", "how / why"):
            table.add_column(col, overflow="fold")
        for i, r in enumerate(report.references, start=1):
            where = f"{r.key}" + (f" (line {r.line})" if r.line and not r.key.startswith("line") else "")
            if r.status == "verified":
                how = f"{r.method}, confidence {r.confidence:.2f}"
            elif r.status == "metadata_mismatch":
                how = f"{r.method}: " + "; ".join(r.mismatches)
            else:
                how = r.reason or ""
            if r.unchecked:
                how += "; not checked: " + ", ".join(u if " " in u else f"{u} (the corpus record has none)"
                                                    for u in r.unchecked)
            if r.notes:
                how += "; " + "; ".join(r.notes)
            table.add_row(str(i), escape(f"{where}\n{r.title}" + (f" ({r.year})" if r.year else "")), _STATUS[r.status],
                          escape(r.corpus_id or ""), escape(r.corpus_title or ""), str(r.corpus_year or ""), escape(how))
        console.print(table)
        t = report.totals
        console.print(f"{t['references']} references: {t['verified']} verified, "
                      f"{t['metadata_mismatch']} metadata mismatch, {t['not_found']} not in corpus")
        if json_out is not None:
            from litnav.session.io import write_text_atomic

            with clean_errors(OSError, ValueError):
                write_text_atomic(report.model_dump_json(indent=2), json_out)
            console.print(f"wrote {json_out}")
        unverified = t["references"] - t["verified"]
        if strict and unverified:
            console.print(f"--strict: {unverified} of {t['references']} references not verified")
            raise typer.Exit(1)
