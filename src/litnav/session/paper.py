"""One paper as the corpus holds it, for people and API clients (``litnav show``, the servers), and
the citation edge that links an anchor search's result to its anchor."""

from __future__ import annotations

from typing import Any


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
    """For the results of an anchor search that follows citations (its first turn's direction
    ``successor`` or ``predecessor``), the citation edge that makes each one a neighbour:
    corpus id -> ``{"relation": "cites the anchor" | "cited by the anchor", "contexts": [the
    citing sentences the edge records, possibly none]}``. The edge, not the checklist, is why such
    a result is listed; its citing sentence is the evidence an auditor checks. Empty for any
    other search."""
    turn = session.turns[0] if getattr(session, "turns", None) else None
    if turn is None or not turn.anchor or turn.direction not in ("successor", "predecessor"):
        return {}
    ids = {r.corpus_id for r in session.results}
    if turn.direction == "successor":
        edges = {e.citing_id: e for e in corpus.citations(turn.anchor) if e.citing_id in ids}
        relation = "cites the anchor"
    else:
        edges = {e.cited_id: e for e in corpus.references(turn.anchor) if e.cited_id in ids}
        relation = "cited by the anchor"
    return {cid: {"relation": relation, "contexts": [c for c in e.contexts if c and c.strip()]}
            for cid, e in edges.items()}
