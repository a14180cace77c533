"""One paper as the corpus holds it, for people and API clients (``litnav show``, the servers)."""

from __future__ import annotations


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
