"""One paper as the corpus holds it, for people and API clients (``litnav show``, the servers), and
the citation edge that links an anchor search's result to its anchor."""

from __future__ import annotations

from typing import Any

from litnav.navigator.results import link_to_anchor


def paper_view(c, corpus_id: str) -> dict | None:
    """JSON-ready view of one paper: metadata, abstract, sections, chunks, references and
    citations (with contexts, the other paper's title and ``in_corpus``: an edge of a citation
    graph may name a paper the corpus does not hold), and the bibliography entries that matched
    no corpus paper (``unresolved_references``); None when absent."""
    paper = c.paper(corpus_id)
    if paper is None:
        return None
    chunks = c.chunks(corpus_id)
    refs = c.references(corpus_id)
    cites = c.citations(corpus_id)
    titles = {pid: p.title for pid, p in c.papers([r.cited_id for r in refs] + [x.citing_id for x in cites]).items()}
    sections = list(dict.fromkeys(ch.section for ch in chunks))
    return {
        "paper": paper.model_dump(mode="json"),
        "abstract": c.abstract(corpus_id),
        "sections": sections,
        "chunks": [ch.model_dump(mode="json") for ch in chunks],
        "references": [r.model_dump(mode="json") | {"title": titles.get(r.cited_id), "in_corpus": r.cited_id in titles}
                       for r in refs],
        "citations": [x.model_dump(mode="json") | {"title": titles.get(x.citing_id), "in_corpus": x.citing_id in titles}
                      for x in cites],
        "unresolved_references": c.unresolved_references(corpus_id),
    }


def anchor_links(session, corpus) -> dict[str, dict[str, Any]]:
    """For the results of an anchor search (any direction), the citation edge to the anchor that
    makes each one a neighbour (a sibling, survey or benchmark may have none):
    corpus id -> ``{"relation": "cites the anchor" | "cited by the anchor", "contexts": [the
    citing sentences the edge records, possibly none]}``. The edge, not the checklist, is why such
    a result is listed; its citing sentence is the evidence an auditor checks. Read from the
    results (``Result.anchor_link``, recorded by the search); for a session written before they
    were recorded, from ``corpus`` (None: no links). Empty for any other search."""
    turn = session.turns[0] if getattr(session, "turns", None) else None
    if turn is None or not turn.anchor or not turn.direction:
        return {}
    results = session.results
    if corpus is not None and not any(r.anchor_link for r in results):  # a session written before links were kept
        results = link_to_anchor(results, corpus, turn.anchor, turn.direction)
    return {r.corpus_id: r.anchor_link.model_dump() for r in results if r.anchor_link is not None}
