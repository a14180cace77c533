"""``litnav export`` (BibTeX, RIS, CSL-JSON, CSV, JSONL, TREC run) and ``litnav report`` (one
self-contained HTML audit report) of a session file."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from litnav.cli.common import clean_errors, err_console, fail

FORMAT_HELP = "bibtex | ris | csljson | csv | jsonl | trec"


def export_cmd(
    session_file: Path = typer.Argument(..., help="A session file written by `litnav search --json`."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f",
                                      help=FORMAT_HELP + " (default: from the --out extension, as search --export)"),
    top: Optional[int] = typer.Option(None, "--top", "-k", min=1, help="Only the first K results."),
    min_score: Optional[float] = typer.Option(None, "--min-score", min=0.0, max=1.0,
                                              help="Only results with final score >= X (0-1)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write here (default: standard output)."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", "-c",
                                          help="Corpus to read the records from (default: the session's)."),
) -> None:
    """Export a session's results; every bibliographic field is re-read from the corpus record."""
    from litnav.session.export import (
        FORMAT_ALIASES,
        FORMATS,
        ExportError,
        export_session,
        format_for_path,
        open_session_corpus,
        select_results,
    )
    from litnav.session.io import SessionFileError, check_output, read_session, write_text_atomic

    if fmt is None:
        if out is None:
            fail(f"give --format ({FORMAT_HELP}) to print an export; with --out FILE it follows the extension", code=2)
        with clean_errors(ExportError):
            fmt = format_for_path(out)
    fmt = FORMAT_ALIASES.get(fmt, fmt)
    if fmt not in FORMATS:
        fail(f"unknown --format {fmt!r}; use one of {', '.join(FORMATS)}", code=2)
    with clean_errors(SessionFileError, ExportError):
        session = read_session(session_file)
        c = open_session_corpus(session, corpus)
    if out is not None:
        with clean_errors(ValueError):
            check_output(out, "export", inputs=[session_file], corpus=c)
    if not select_results(session, top, min_score):
        why = f" with final score >= {min_score}" if min_score is not None and session.results else ""
        err_console.print(f"note: {session_file} has no results{why}: the {fmt} export is empty", highlight=False)
    try:
        with clean_errors(ExportError):
            text = export_session(session, c, fmt, top=top, min_score=min_score)  # type: ignore[arg-type]
    finally:
        c.close()
    if out is None:
        typer.echo(text, nl=False)
        return
    with clean_errors(OSError, ValueError):
        write_text_atomic(text, out)
    err_console.print(f"{fmt} written to {out}")


def report_cmd(
    session_file: Path = typer.Argument(..., help="A session file written by `litnav search --json`."),
    out: Path = typer.Option(Path("report.html"), "--out", "-o", help="The HTML file to write."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", "-c",
                                          help="Corpus to show evidence in context (default: the session's)."),
) -> None:
    """Write one self-contained HTML audit report (no network): checklist, score matrix,
    evidence in context, round history, clarifications, cost and timing."""
    from litnav.session.io import SessionFileError, check_output, read_session, write_text_atomic
    from litnav.session.report import render_report

    with clean_errors(SessionFileError):
        session = read_session(session_file)
    c = _optional_corpus(session, corpus)
    with clean_errors(ValueError):
        check_output(out, "export", inputs=[session_file], corpus=c)
    try:
        html = render_report(session, c)
    finally:
        if c is not None:
            c.close()
    with clean_errors(OSError, ValueError):
        write_text_atomic(html, out)
    err_console.print(f"report written to {out}")


def _optional_corpus(session, corpus: Path | None):
    """The session's corpus (or ``corpus``) when it opens, else None with a note: the report
    then shows evidence without its surrounding text. Another corpus than the session's (another
    directory and other contents) is an error, as for an export."""
    from litnav.navigator.refine import check_same_corpus
    from litnav.session.export import ExportError, open_session_corpus

    try:
        c = open_session_corpus(session, corpus)
    except ExportError as exc:
        if corpus is not None:
            fail(str(exc))
        err_console.print(f"note: {exc}; evidence is shown without its surrounding text", highlight=False)
        return None
    try:
        check_same_corpus(session, c, "a report shows its evidence in that corpus's text")
    except ValueError as exc:
        c.close()
        fail(str(exc))
    return c


def register(app: typer.Typer) -> None:
    """Add ``export`` and ``report`` to ``app``."""
    app.command("export")(export_cmd)
    app.command("report")(report_cmd)
