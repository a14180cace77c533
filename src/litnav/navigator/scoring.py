"""The scoring stage of the loop: evidence for carried-over papers, judgements, final scores.

Papers scored in earlier rounds stay in the pool and are scored again under the current
checklist (cheap: evidence is cached per (paper, checkpoint)), so the ranking of every round
covers everything found so far and stays comparable across rounds.
"""

from __future__ import annotations

from litnav.librarians import EvidencePool, ScoredPool
from litnav.librarians.evidence import evidence_query, locatable, locate_evidence
from litnav.librarians.operators import RunContext
from litnav.core.records import Evidence, ScoredPaper


class ScoringStage:
    """Callable plugged into ``RunContext.score_fn``.

    ``student`` is a ``scorer`` student (None with ``scorer.enabled=false``: papers are then
    ranked by their fused retrieval score, normalised to [0, 1], with no judgements).
    ``carry`` bounds how many earlier papers are re-scored each round.
    """

    def __init__(self, corpus, student, *, teacher=None, carry: int = 120):
        self.corpus = corpus
        self.student = student
        self.teacher = teacher
        self.carry = carry
        self.evidence: dict[str, dict[str, list[Evidence]]] = {}
        self.retrieval_score: dict[str, float] = {}
        self.retrieval_rank: dict[str, int] = {}
        self.ranked: list[ScoredPaper] = []
        self.extra: dict[str, dict] = {}

    def _complete_evidence(self, ids: list[str], ctx: RunContext, k: int) -> None:
        cps = locatable(ctx.checklist.checkpoints)
        missing_by_cp: dict[str, list[str]] = {}
        for cid in ids:
            have = self.evidence.setdefault(cid, {})
            for c in cps:
                if c.id not in have:
                    missing_by_cp.setdefault(c.id, []).append(cid)
        if not missing_by_cp:
            return
        todo = [c for c in cps if c.id in missing_by_cp]
        ctx.encode_queries([evidence_query(c) for c in todo])
        papers = sorted({cid for v in missing_by_cp.values() for cid in v})
        found = locate_evidence(self.corpus, papers, todo, ctx.query_vectors, k)
        for cid, per in found.items():
            for cp_id, ev in per.items():
                self.evidence[cid].setdefault(cp_id, ev)

    def __call__(self, evpool: EvidencePool, ctx: RunContext) -> ScoredPool:
        top = max((s for _, s in evpool.pool.hits), default=1.0) or 1.0
        for rank, (cid, s) in enumerate(evpool.pool.hits, 1):
            self.retrieval_score.setdefault(cid, s / top)
            self.retrieval_rank[cid] = min(rank, self.retrieval_rank.get(cid, rank))
        for cid, per in evpool.evidence.items():
            self.evidence.setdefault(cid, {}).update(per)
        carried = [p.corpus_id for p in self.ranked[: self.carry]]
        ids = list(dict.fromkeys(evpool.pool.ids + carried))
        if self.student is None:
            scored = [ScoredPaper(corpus_id=cid, judgements=[], probability=self.retrieval_score.get(cid, 0.0),
                                  final_score=self.retrieval_score.get(cid, 0.0), probability_engine="none")
                      for cid in ids]
        else:
            k = ctx.settings.librarians.evidence_k
            self._complete_evidence(ids, ctx, k)
            scored = self._score(ids, ctx)
        return ScoredPool(evpool.pool, scored, {cid: self.evidence.get(cid, {}) for cid in ids})

    def _score(self, ids: list[str], ctx: RunContext) -> list[ScoredPaper]:
        from litnav.scorer import score_papers

        papers = self.corpus.papers(ids)
        present = [cid for cid in ids if cid in papers]
        evidence = {cid: self.evidence.get(cid, {}) for cid in present}
        if self.teacher is not None:
            return self.teacher.score_papers([papers[c] for c in present], ctx.checklist, evidence)
        self._complete_extra(present, papers, ctx.checklist)
        cps = locatable(ctx.checklist.checkpoints)
        vectors = {c.id: ctx.query_vectors[evidence_query(c)] for c in cps if evidence_query(c) in ctx.query_vectors}
        return score_papers([papers[c] for c in present], ctx.checklist, evidence, self.student,
                            checkpoint_vectors=vectors, extra=self.extra)

    def _complete_extra(self, ids: list[str], papers: dict, checklist) -> None:
        """Abstracts and title vectors (the student's title-similarity and coverage inputs),
        read and encoded once per paper, and each paper's best rank in the fused retrieval lists."""
        missing = [cid for cid in ids if cid not in self.extra]
        abstracts = self.corpus.abstracts(missing) if missing else {}
        titles = self.corpus.encode([papers[c].title for c in missing]) if missing else []
        found, docs = self.corpus.abstract_vectors(missing) if missing else ([], [])
        doc_vectors = dict(zip(found, docs))
        for cid, vec in zip(missing, titles):
            self.extra[cid] = {"abstract": abstracts.get(cid), "title_vector": vec,
                               "doc_vector": doc_vectors.get(cid)}
        for cid in ids:
            self.extra[cid]["retrieval_rank"] = self.retrieval_rank.get(cid)
        if hasattr(self.corpus, "lexical_relative"):
            from litnav.scorer.scoring import lexical_query

            for c in locatable(checklist.checkpoints):
                for cid, value in self.corpus.lexical_relative(lexical_query(c), ids).items():
                    self.extra[cid].setdefault("bm25", {})[c.id] = value
