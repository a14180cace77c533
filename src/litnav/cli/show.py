"""``litnav show``: everything the corpus holds about one paper."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from litnav.cli.common import fail, make_console, open_corpus
from litnav.session.paper import paper_view


def register(app: typer.Typer) -> None:
    """Add the ``show`` command to ``app``."""

    @app.command("show")
    def show_command(
        corpus_id: str = typer.Argument(..., help="Corpus id of the paper."),
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON object."),
    ) -> None:
        """Metadata, abstract, sections, chunks, citing and cited papers (with contexts)."""
        c = open_corpus(corpus, require_indexes=False)
        try:
            view = paper_view(c, corpus_id)
        finally:
            c.close()
        if view is None:
            fail(f"no paper {corpus_id!r} in {corpus}")
        if as_json:
            typer.echo(json.dumps(view, indent=2, default=str))
            return

        con = make_console()
        p = view["paper"]
        con.print(f"[bold]{p['title']}[/bold]  ({p['corpus_id']})")
        con.print(f"{', '.join(a['name'] for a in p['authors'])}")
        con.print(f"year {p['year']}  venue {p['venue']} (raw: {p['venue_raw']})  types {p['publication_types']}")
        con.print(f"ids {p['external_ids']}  source {p['source_file']}:{p['source_line']}")
        if view["abstract"]:
            con.print(f"\n[bold]Abstract[/bold]\n{view['abstract']}")
        con.print(f"\n[bold]Sections[/bold] {view['sections']}\n[bold]Chunks[/bold] {len(view['chunks'])}")
        for ch in view["chunks"][:5]:
            con.print(f"  [{ch['chunk_id']}] {ch['section']}: {ch['text'][:120]}")
        unresolved = view["unresolved_references"]
        refs, cites = view["references"], view["citations"]
        held = sum(r["in_corpus"] for r in refs)
        con.print(f"\n[bold]Cites[/bold] {held} corpus papers"
                  + (f", {len(refs) - held} papers by an id the corpus does not hold" if held < len(refs) else "")
                  + (f", and {len(unresolved)} references that matched no corpus paper" if unresolved else ""))
        for r in sorted(refs, key=lambda r: not r["in_corpus"])[:20]:
            con.print(f"  -> {r['cited_id']} {r['title'] or '(not in this corpus)'}  "
                      f"{('| ' + r['contexts'][0][:100]) if r['contexts'] else ''}", markup=False)
        for r in unresolved[:10]:
            year = f" ({r['year']})" if r["year"] else ""
            con.print(f"  -> (not in the corpus) {r['title'] or '(no title)'}{year}", markup=False)
        held = sum(x["in_corpus"] for x in cites)
        con.print(f"\n[bold]Cited by[/bold] {held} corpus papers"
                  + (f", {len(cites) - held} papers by an id the corpus does not hold" if held < len(cites) else ""))
        for x in sorted(cites, key=lambda x: not x["in_corpus"])[:20]:
            con.print(f"  <- {x['citing_id']} {x['title'] or '(not in this corpus)'}  "
                      f"{('| ' + x['contexts'][0][:100]) if x['contexts'] else ''}", markup=False)
