"""Turning the final ranking into results: every field re-read from the corpus."""

from __future__ import annotations

from litnav.core.records import AnchorLink, FoundBy, Result, ScoredPaper


class ProvenanceError(RuntimeError):
    """A ranked id is not a record of the corpus (never returned as a result)."""


def build_results(corpus, ranked: list[ScoredPaper], found_by: dict[str, list[FoundBy]], top_k: int) -> list[Result]:
    """The first ``top_k`` of ``ranked`` as ``Result`` records whose title, year, venue and authors
    come from a fresh corpus read. Ids the corpus does not hold are dropped, never printed."""
    head = ranked[:top_k]
    papers = corpus.papers([p.corpus_id for p in head])
    results: list[Result] = []
    for sp in head:
        paper = papers.get(sp.corpus_id)
        if paper is None:
            continue
        results.append(Result(
            rank=len(results) + 1, corpus_id=paper.corpus_id, title=paper.title, year=paper.year,
            venue=paper.venue or paper.venue_raw, authors=[a.name for a in paper.authors],
            final_score=round(sp.final_score, 6), probability=round(sp.probability, 6),
            checkpoints=sp.judgements, found_by=found_by.get(sp.corpus_id, []),
        ))
    return results


def link_to_anchor(results: list[Result], corpus, anchor: str | None, direction: str | None) -> list[Result]:
    """``results`` of an anchor search that follows citations (``direction`` "successor" or
    "predecessor"), each with the citation edge to ``anchor`` that makes it a neighbour and the
    edge's citing sentences (``Result.anchor_link``), recorded so an audit shows why it is listed
    without reading the corpus again; other searches' results unchanged."""
    if not anchor or direction not in ("successor", "predecessor"):
        return results
    ids = {r.corpus_id for r in results}
    if direction == "successor":
        edges = {e.citing_id: e for e in corpus.citations(anchor) if e.citing_id in ids}
        relation = "cites the anchor"
    else:
        edges = {e.cited_id: e for e in corpus.references(anchor) if e.cited_id in ids}
        relation = "cited by the anchor"
    return [r.model_copy(update={"anchor_link": AnchorLink(relation=relation, contexts=[
        c for c in edges[r.corpus_id].contexts if c and c.strip()])}) if r.corpus_id in edges else r for r in results]
