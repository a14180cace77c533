"""``litnav demo``: build the embedded demo corpus (once) and run the example intents."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.rule import Rule

from litnav.cli.common import SetOpt, SettingsOpt, clean_errors, make_console, open_corpus, settings_from


def demo_cmd(
    corpus: Path = typer.Option(Path("demo-corpus"), "--corpus", "-c", help="Where the demo corpus lives."),
    query: Optional[list[str]] = typer.Option(None, "--query", "-q", help="Run these intents instead."),
    out_dir: Path = typer.Option(Path("demo-sessions"), "--out", help="Session files are written here."),
    rationales: int = typer.Option(2, "--rationales", help="Results whose rationales are printed."),
    settings_file: Optional[Path] = SettingsOpt,
    overrides: Optional[list[str]] = SetOpt,
) -> None:
    """Build the demo corpus from the 250 ACL papers of `aclsum` and run three example intents."""
    from litnav.ingest.demo import build_demo_corpus
    from litnav.navigator import search
    from litnav.navigator.demo import DEMO_INTENTS
    from litnav.session.export import export_session
    from litnav.session.io import write_session, write_text_atomic
    from litnav.session.render import print_session
    from litnav.session.report import render_report

    console = make_console()
    settings = settings_from(settings_file, overrides)
    fresh = not corpus.exists()
    if fresh:
        console.print(Rule(f"building the demo corpus in {corpus} (once: 250 abstracts are embedded; evidence chunks are embedded when a search reads them)"))
    from litnav.corpus import CorpusError

    with clean_errors(CorpusError):  # e.g. a damaged demo-corpus: say so, and how to start again
        try:
            build_demo_corpus(corpus, settings=settings.corpus, progress=fresh)
        except CorpusError as exc:
            raise CorpusError(f"{exc} (remove {corpus} to build the demo corpus again)") from exc
    c = open_corpus(corpus, settings)
    stats = c.stats()
    console.print(f"demo corpus {corpus}: {stats['papers']} papers, {stats['chunks']} evidence chunks, "
                  f"{stats['citations']} citation edges")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for i, intent in enumerate(query or DEMO_INTENTS, 1):
        console.print(Rule(f"intent {i}"))
        session = search(intent, c, settings, top_k=8, progress=True)
        print_session(session, console, rationales=rationales)
        path = write_session(session, out_dir / f"session-{i}.json")
        console.print(f"session: {path}  (litnav audit {path})")
        written.append((path, export_session(session, c, "bibtex"), render_report(session, c)))
    console.print(Rule("results where you work"))
    for i, (path, bib, html) in enumerate(written, 1):
        bib_path = write_text_atomic(bib, path.with_suffix(".bib"))
        report_path = write_text_atomic(html, path.with_suffix(".html"))
        console.print(f"intent {i}: BibTeX {bib_path}  HTML report {report_path}", highlight=False)
    console.print("other formats: litnav export SESSION --format ris|csljson|csv|jsonl|trec", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``demo`` to ``app``."""
    app.command("demo")(demo_cmd)
