"""``litnav show``: everything the corpus holds about one paper."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from litnav.cli.common import fail, make_console, open_corpus
from litnav.core.text import visible_text
from litnav.session.paper import paper_view
from litnav.session.render import escape


def register(app: typer.Typer) -> None:
    """Add the ``show`` command to ``app``."""

    @app.command("show")
    def show_command(
        corpus_id: str = typer.Argument(..., help="The paper: corpus id, DOI, arXiv id or title (as --anchor takes)."),
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON object."),
    ) -> None:
        """Metadata, abstract, sections, chunks, citing and cited papers (with contexts)."""
        from litnav.navigator.anchor import AnchorError, resolve_anchor

        c = open_corpus(corpus, require_indexes=False)
        try:
            view = paper_view(c, corpus_id)
            if view is None:
                try:
                    view = paper_view(c, resolve_anchor(c, corpus_id))
                except AnchorError as exc:
                    fail(f"{corpus}: {exc}")
        finally:
            c.close()
        if as_json:
            typer.echo(json.dumps(view, indent=2, default=str))
            return

        con = make_console()
        p = view["paper"]
        con.print(f"[bold]{escape(p['title'])}[/bold]  ({escape(p['corpus_id'])})")
        con.print(escape(", ".join(a["name"] for a in p["authors"])))
        venue = p["venue"] or "unknown"
        raw = f" (raw: {p['venue_raw']})" if p["venue_raw"] and p["venue_raw"] != p["venue"] else ""
        con.print(escape(f"year {p['year'] or 'unknown'}  venue {venue}{raw}  types {p['publication_types'] or 'none listed'}"))
        con.print(escape(f"ids {p['external_ids']}  source {p['source_file']}:{p['source_line']}"))
        if view["abstract"]:
            con.print(f"\n[bold]Abstract[/bold]\n{escape(view['abstract'])}")
        shown = "" if len(view["chunks"]) <= 5 else " (the first 5; --json lists them all)"
        con.print(f"\n[bold]Sections[/bold] {escape(str(view['sections']))}\n[bold]Chunks[/bold] {len(view['chunks'])}{shown}")
        for ch in view["chunks"][:5]:
            con.print(escape(f"  [{ch['chunk_id']}] {ch['section']}: {ch['text'][:120]}"))
        unresolved = view["unresolved_references"]
        _edges(con, "Cites", view["references"], "cited_id", "->",
               f", and {len(unresolved)} references that matched no corpus paper" if unresolved else "")
        for r in unresolved[:10]:
            year = f" ({r['year']})" if r["year"] else ""
            con.print(visible_text(f"  -> (not in the corpus) {r['title'] or '(no title)'}{year}"), markup=False)
        _edges(con, "Cited by", view["citations"], "citing_id", "<-")


def _edges(con, label: str, edges: list[dict], other: str, arrow: str, extra: str = "") -> None:
    """One direction of a paper's citation edges (``paper_view``'s ``references`` or
    ``citations``): a count of the corpus papers, the edges to ids the corpus does not hold
    counted apart, then up to 20 edges, corpus papers first, with their first context."""
    held = sum(e["in_corpus"] for e in edges)
    con.print(f"\n[bold]{label}[/bold] {held} corpus papers"
              + (f", {len(edges) - held} papers by an id the corpus does not hold" if held < len(edges) else "")
              + extra)
    for e in sorted(edges, key=lambda e: not e["in_corpus"])[:20]:
        con.print(visible_text(f"  {arrow} {e[other]} {e['title'] or '(not in this corpus)'}  "
                               f"{('| ' + e['contexts'][0][:100]) if e['contexts'] else ''}"), markup=False)
