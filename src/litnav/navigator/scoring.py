"""The scoring stage of the loop: the cumulative fused list, evidence and judgements for its top N.

Every round's fused (and hard-filtered) pool is added to one cumulative fused list (reciprocal
rank fusion scores summed over rounds, so later rounds' channels simply join the fusion). The top
``librarians.pool_size`` of that list are scored under the current checklist (cheap after round
1: evidence is cached per (paper, checkpoint)); every other fused candidate is passed on below,
unscored, in fused order, so the final ordering (``reranker.combine``) can never lose a
candidate the first stage ranked in the top M >= N.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from litnav.core.boilerplate import non_evidence_section
from litnav.core.records import Checkpoint, Evidence, ScoredPaper
from litnav.corpus.predicates import evaluate
from litnav.librarians import EvidencePool, ScoredPool
from litnav.librarians.evidence import evidence_query, locatable, locate_evidence
from litnav.librarians.operators import RunContext

UNSCORED_ENGINE = "none (below the scored top-N: fused order)"
RETRIEVAL_ENGINE = "none (retrieval score)"


_TITLE_CACHE: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()
_TITLE_LOCK = threading.Lock()
TITLE_CACHE_SIZE = 100_000
"""Title vectors kept across searches in this process, keyed by (corpus fingerprint, id, title)."""


def _title_vectors(corpus, papers: list) -> list[np.ndarray]:
    """Encoded titles of ``papers`` (L2-normalised, ``[dim]`` each), encoding only those not in
    the process-wide LRU (``_TITLE_CACHE``)."""
    if not hasattr(corpus, "fingerprint"):  # no stable identity (a test double): nothing to share
        return list(corpus.encode([p.title for p in papers])) if papers else []
    fp = corpus.fingerprint()
    keys = [(fp, p.corpus_id, p.title) for p in papers]
    with _TITLE_LOCK:
        have = {k: _TITLE_CACHE[k] for k in keys if k in _TITLE_CACHE}
    todo = [k for k in dict.fromkeys(keys) if k not in have]
    if todo:
        have.update(zip(todo, corpus.encode([k[2] for k in todo])))
    with _TITLE_LOCK:
        for k in keys:
            _TITLE_CACHE[k] = have[k]
            _TITLE_CACHE.move_to_end(k)
        while len(_TITLE_CACHE) > TITLE_CACHE_SIZE:
            _TITLE_CACHE.popitem(last=False)
    return [have[k] for k in keys]


class ScoringStage:
    """Callable plugged into ``RunContext.score_fn``.

    ``student`` is a ``scorer`` student (None with ``scorer.enabled=false``: every candidate is
    then unscored and keeps its fused order, its final score being the fused score normalised to
    [0, 1]). After a call: ``fused_rank[corpus_id]`` is the 1-based rank in the cumulative fused
    list, ``n_scored`` how many leading papers of the returned list were scored, and
    ``soft_failed[corpus_id]`` the summed weight of the soft metadata preferences (metadata
    checkpoints with weight < 1) a scored paper fails (unknown metadata does not fail).
    """

    def __init__(self, corpus, student, *, teacher=None):
        self.corpus = corpus
        self.student = student
        self.teacher = teacher
        self.evidence: dict[str, dict[str, list[Evidence]]] = {}
        self.fused: dict[str, float] = {}
        self.fused_rank: dict[str, int] = {}
        self.retrieval_rank: dict[str, int] = {}
        self.soft_failed: dict[str, float] = {}
        self.n_scored = 0
        self.ranked: list[ScoredPaper] = []
        self.extra: dict[str, dict] = {}
        self.stated: dict[tuple[str, str], Evidence | None] = {}
        self.chunks: dict[str, list] = {}

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
        for rank, (cid, score) in enumerate(evpool.pool.hits, 1):
            self.fused[cid] = self.fused.get(cid, 0.0) + score  # dict keeps first-seen order for ties
            self.retrieval_rank[cid] = min(rank, self.retrieval_rank.get(cid, rank))
        for cid, per in evpool.evidence.items():
            self.evidence.setdefault(cid, {}).update(per)
        first_seen = {cid: i for i, cid in enumerate(self.fused)}
        order = sorted(self.fused, key=lambda c: (-self.fused[c], first_seen[c]))
        self.fused_rank = {cid: i for i, cid in enumerate(order, 1)}
        top = self.fused[order[0]] if order and self.fused[order[0]] > 0 else 1.0
        n = 0 if self.student is None else ctx.settings.librarians.pool_size
        head, tail = order[:n], order[n:]
        scored: list[ScoredPaper] = []
        if head:
            self._complete_evidence(head, ctx, ctx.settings.librarians.evidence_k)
            scored = self._score(head, ctx)
            self._soft_failures(scored, ctx)
        self.n_scored = len(scored)
        engine = UNSCORED_ENGINE if n else RETRIEVAL_ENGINE
        scored += [ScoredPaper(corpus_id=cid, judgements=[], probability=0.0 if n else self.fused[cid] / top,
                               final_score=0.0 if n else self.fused[cid] / top, probability_engine=engine)
                   for cid in tail]
        return ScoredPool(evpool.pool, scored, {cid: self.evidence.get(cid, {}) for cid in head})

    def _soft_failures(self, scored: list[ScoredPaper], ctx: RunContext) -> None:
        soft = [c for c in ctx.checklist.checkpoints if c.kind == "metadata" and c.predicate and c.weight < 1.0]
        self.soft_failed = {}
        if not soft:
            return
        papers = self.corpus.papers([p.corpus_id for p in scored])
        for p in scored:
            paper = papers.get(p.corpus_id)
            failed = sum(c.weight for c in soft if paper is not None and evaluate(c.predicate, paper)[0] is False)
            if failed:
                self.soft_failed[p.corpus_id] = failed

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
        lexical = self._stated_chunks(present, ctx) if ctx.settings.scorer.stated_evidence else None
        return score_papers([papers[c] for c in present], ctx.checklist, evidence, self.student,
                            checkpoint_vectors=vectors, extra=self.extra,
                            stated_evidence=ctx.settings.scorer.stated_evidence, lexical_evidence=lexical)

    def _stated_chunks(self, ids: list[str], ctx: RunContext) -> dict[str, dict[str, list[Evidence]]]:
        """The lexical evidence channel: for each (paper, checkpoint) whose located evidence has
        no sentence stating every key phrase (``scorer.quote.states``), the paper's first chunk
        (text order, boilerplate skipped) that has one, with its cosine to the checkpoint (only
        these chunks are encoded). Cached per (paper, checkpoint)."""
        from litnav.scorer.features import checkpoint_terms
        from litnav.scorer.quote import stating_quote

        cps = locatable(ctx.checklist.checkpoints)
        phrases = {c.id: checkpoint_terms(c.text, c.terms)[1] for c in cps}
        todo: list[tuple[str, Checkpoint, Evidence]] = []
        for cid in ids:
            for c in cps:
                if (cid, c.id) in self.stated or not phrases[c.id]:
                    continue
                self.stated[(cid, c.id)] = None
                if stating_quote(self.evidence.get(cid, {}).get(c.id, []), phrases[c.id]) is not None:
                    continue
                if cid not in self.chunks:
                    self.chunks[cid] = [ch for ch in self.corpus.chunks(cid) if not non_evidence_section(ch.section)]
                for ch in self.chunks[cid]:
                    ev = Evidence(chunk_id=ch.chunk_id, corpus_id=cid, section=ch.section, char_start=ch.char_start,
                                  char_end=ch.char_end, text=ch.text, similarity=0.0)
                    if stating_quote([ev], phrases[c.id]) is not None:
                        todo.append((cid, c, ev))
                        break
        if todo:
            vectors = self.corpus.encode([ev.text for _, _, ev in todo])
            ctx.encode_queries([evidence_query(c) for _, c, _ in todo])
            for (cid, c, ev), vec in zip(todo, vectors):
                sim = float(np.dot(vec, ctx.query_vectors[evidence_query(c)]))
                self.stated[(cid, c.id)] = ev.model_copy(update={"similarity": sim})
        out: dict[str, dict[str, list[Evidence]]] = {}
        for (cid, cp_id), ev in self.stated.items():
            if ev is not None and cid in ids:
                out.setdefault(cid, {})[cp_id] = [ev]
        return out

    def _complete_extra(self, ids: list[str], papers: dict, checklist) -> None:
        """Abstracts and title vectors (the student's title-similarity and coverage inputs),
        read and encoded once per paper, and each paper's best rank in the fused retrieval lists."""
        missing = [cid for cid in ids if cid not in self.extra]
        abstracts = self.corpus.abstracts(missing) if missing else {}
        titles = _title_vectors(self.corpus, [papers[c] for c in missing]) if missing else []
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
