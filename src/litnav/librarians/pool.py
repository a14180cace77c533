"""The values that flow along a workflow's edges.

``Pool``: an ordered candidate list with each candidate's channel score and provenance.
``EvidencePool``: a pool plus the located evidence chunks per (paper, checkpoint).
``ScoredPool``: scored papers (judgements, probability, final score), best first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from litnav.core.records import Evidence, FoundBy, ScoredPaper


@dataclass
class Pool:
    """Candidates best first: ``hits`` are ``(corpus_id, score)`` with higher scores better;
    ``found_by`` maps each corpus_id to how it was found (accumulated over upstream nodes)."""

    hits: list[tuple[str, float]] = field(default_factory=list)
    found_by: dict[str, list[FoundBy]] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        """Corpus ids in rank order."""
        return [cid for cid, _ in self.hits]

    def truncated(self, limit: int) -> Pool:
        """The first ``limit`` hits, with their provenance."""
        hits = self.hits[:limit]
        return Pool(hits, {cid: self.found_by.get(cid, []) for cid, _ in hits})


@dataclass
class EvidencePool:
    """A pool plus ``evidence[corpus_id][checkpoint_id]`` = top-k evidence chunks, best first;
    ``k`` and ``limit`` as the ``locate_evidence`` node asked (None: the settings decide), which
    the scorer keeps to when it completes evidence for the papers it judges."""

    pool: Pool
    evidence: dict[str, dict[str, list[Evidence]]] = field(default_factory=dict)
    k: int | None = None
    limit: int | None = None


@dataclass
class ScoredPool:
    """Scored candidates best first, with the pool they came from."""

    pool: Pool
    scored: list[ScoredPaper] = field(default_factory=list)
    evidence: dict[str, dict[str, list[Evidence]]] = field(default_factory=dict)
