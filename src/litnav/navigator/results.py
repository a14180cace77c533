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
    """``results`` of an anchor search (any ``direction``), each that cites ``anchor`` or is cited by
    it with that citation edge and the edge's citing sentences (``Result.anchor_link``), recorded
    so an audit shows why it is listed without reading the corpus again: a successor cites the
    anchor, a predecessor is cited by it, and a sibling, survey or benchmark may be either (the
    edge then says so; a trial found none of 468 such results saying why it was listed). Other
    searches' results (no anchor) unchanged."""
    if not anchor or not direction:
        return results
    ids = {r.corpus_id for r in results}
    links: dict[str, tuple[str, object]] = {}
    if direction != "successor":
        links |= {e.cited_id: ("cited by the anchor", e) for e in corpus.references(anchor) if e.cited_id in ids}
    if direction != "predecessor":
        links |= {e.citing_id: ("cites the anchor", e) for e in corpus.citations(anchor) if e.citing_id in ids}
    return [r.model_copy(update={"anchor_link": AnchorLink(relation=links[r.corpus_id][0], contexts=[
        c for c in links[r.corpus_id][1].contexts if c and c.strip()])}) if r.corpus_id in links else r for r in results]
