"""Systems under evaluation: the ``System`` protocol, the plain baselines and litnav itself.

A system turns one query into a ranking over corpus ids. Baselines (``bm25``, ``dense``,
``hybrid``, ``hybrid+filter``, ``hybrid-no-source``) call the corpus search tools directly (a system with ``run_task``
is given the whole task, e.g. its exact metadata filter); ``litnav`` and its ablations call
``navigator.search`` with modified settings. :func:`make_systems` builds them by name.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from litnav.core.records import Usage
from litnav.core.settings import Settings
from litnav.evaluation.fusion import reciprocal_rank_fusion

if TYPE_CHECKING:
    from litnav.corpus import Corpus

BASELINES = ("bm25", "dense", "hybrid", "hybrid+filter", "hybrid-no-source")
ABLATIONS: dict[str, dict[str, dict[str, Any]]] = {
    "litnav": {},
    "litnav-no-citations": {"librarians": {"citation_expansion": False}},
    "litnav-no-reflection": {"navigator": {"rounds": 1}},
    "litnav-no-scorer": {"scorer": {"enabled": False}},
    "litnav-fusion-only": {"scorer": {"enabled": False}, "navigator": {"rounds": 1}},
    "litnav-score-order": {"reranker": {"order": "score"}},
    "litnav-fused-order": {"reranker": {"order": "fusion"}},
    "litnav-no-cross-encoder": {"reranker": {"cross_encoder_path": None}},
    "litnav-keep-source": {"navigator": {"exclude_source": False}},
    "litnav-no-example": {"librarians": {"source_weight": 0.0}},
}
"""litnav variants -> settings overrides; ``litnav-rounds-N`` sets ``navigator.rounds=N``."""
DEFAULT_SYSTEMS = ("bm25", "dense", "hybrid", "litnav")
_ROUNDS = re.compile(r"^litnav-rounds-(\d+)$")


@dataclass
class SystemRun:
    """What one system returned for one query.

    - ``ranking``: ``(corpus_id, score)``, best first; the order is authoritative, scores are
      whatever the system uses (higher better).
    - ``per_round``: the ranked ids after each round (multi-round systems), else None.
    - ``stage_seconds``: stage name -> seconds spent on this query.
    - ``usage``: LLM token accounting for this query (None: no LLM involved).
    - ``printed``: metadata the system showed the user, one dict per returned paper with
      ``corpus_id`` and any of ``title``/``year``/``venue``; empty when it printed ids only.
    - ``verdicts``: for systems that judge papers, ``scorer.verdicts.verdict_agreement`` over
      the returned papers' judgements; None otherwise.
    - ``fallback``: why the ranking is not the system's own (litnav refused the query as an
      intent, "the of and", and plain hybrid retrieval ranked it); None normally.
    - ``left_out``: corpus ids the system left out on purpose (litnav: the paper a quoted
      passage comes from, ``navigator.source``), which the baselines rank like any other paper.
    - ``engines``: what produced the ranking (litnav: ``Session.engines``: scorer, reranker,
      retrieval channels); empty for the baselines.
    """

    ranking: list[tuple[str, float]]
    per_round: list[list[str]] | None = None
    stage_seconds: dict[str, float] = field(default_factory=dict)
    usage: Usage | None = None
    printed: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, float | int] | None = None
    fallback: str | None = None
    left_out: list[str] = field(default_factory=list)
    engines: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class System(Protocol):
    """Anything with a ``name`` and ``run(query) -> SystemRun``."""

    name: str

    def run(self, query: str) -> SystemRun:
        """Rank the corpus for ``query``."""
        ...


class LexicalSystem:
    """``bm25``: ``Corpus.lexical_search(query, depth)``."""

    def __init__(self, corpus: Corpus, depth: int, name: str = "bm25") -> None:
        self.name, self.corpus, self.depth = name, corpus, depth

    def run(self, query: str) -> SystemRun:
        t0 = time.perf_counter()
        hits = self.corpus.lexical_search(query, self.depth)
        return SystemRun([(h.corpus_id, h.score) for h in hits], stage_seconds={"retrieve": time.perf_counter() - t0})


class DenseSystem:
    """``dense``: ``Corpus.semantic_search(query, depth)`` (cosine over abstract vectors)."""

    def __init__(self, corpus: Corpus, depth: int, name: str = "dense") -> None:
        self.name, self.corpus, self.depth = name, corpus, depth

    def run(self, query: str) -> SystemRun:
        t0 = time.perf_counter()
        hits = self.corpus.semantic_search(query, self.depth)
        return SystemRun([(h.corpus_id, h.score) for h in hits], stage_seconds={"retrieve": time.perf_counter() - t0})


class HybridSystem:
    """``hybrid``: reciprocal rank fusion (k = ``rrf_k``) of the top ``lexical_k`` BM25 hits and
    the top ``semantic_k`` dense hits, cut to ``depth``."""

    def __init__(
        self, corpus: Corpus, depth: int, *, lexical_k: int = 100, semantic_k: int = 100,
        rrf_k: int = 60, name: str = "hybrid",
    ) -> None:
        self.name, self.corpus, self.depth = name, corpus, depth
        self.lexical_k, self.semantic_k, self.rrf_k = max(lexical_k, depth), max(semantic_k, depth), rrf_k

    def run(self, query: str) -> SystemRun:
        run = self.fused(query)
        run.ranking = run.ranking[: self.depth]
        return run

    def fused(self, query: str) -> SystemRun:
        """The whole fused list (``lexical_k`` + ``semantic_k`` deep at most), not cut to ``depth``."""
        t0 = time.perf_counter()
        lexical = [h.corpus_id for h in self.corpus.lexical_search(query, self.lexical_k)]
        t1 = time.perf_counter()
        dense = [h.corpus_id for h in self.corpus.semantic_search(query, self.semantic_k)]
        t2 = time.perf_counter()
        fused = reciprocal_rank_fusion([lexical, dense], k=self.rrf_k)
        t3 = time.perf_counter()
        return SystemRun(fused, stage_seconds={"lexical": t1 - t0, "semantic": t2 - t1, "fuse": t3 - t2})


class HybridFilterSystem(HybridSystem):
    """``hybrid+filter``: the hybrid ranking followed by the task's exact metadata filter.

    For a task with stated metadata constraints (``Task.filters``, e.g. venue pattern and year
    range) the fusion runs over the top ``pool_depth`` hits of each channel, papers failing the
    filter are dropped (a paper without the constrained field fails) and the rest are cut to
    ``depth``. Without a filter the ranking is exactly ``hybrid``'s. This is the baseline
    litnav must match on metadata-constrained intents: the user's hard constraints applied
    exactly to plain first-stage retrieval.
    """

    def __init__(self, corpus: Corpus, depth: int, *, pool_depth: int = 1000, name: str = "hybrid+filter", **kw: Any) -> None:
        super().__init__(corpus, depth, name=name, **kw)
        self.pool_depth = pool_depth

    def run_task(self, task: Any) -> SystemRun:
        """Rank for ``task.query`` and apply ``task.filters`` (None: no filter)."""
        flt = getattr(task, "filters", None)
        if flt is None:
            return self.run(task.query)
        t0 = time.perf_counter()
        lexical = [h.corpus_id for h in self.corpus.lexical_search(task.query, max(self.lexical_k, self.pool_depth))]
        dense = [h.corpus_id for h in self.corpus.semantic_search(task.query, max(self.semantic_k, self.pool_depth))]
        fused = reciprocal_rank_fusion([lexical, dense], k=self.rrf_k)
        t1 = time.perf_counter()
        papers = self.corpus.papers([cid for cid, _ in fused])
        kept = [(cid, score) for cid, score in fused
                if cid in papers and flt.passes(papers[cid].year, papers[cid].venue_raw or papers[cid].venue)]
        return SystemRun(kept[: self.depth], stage_seconds={"retrieve": t1 - t0, "filter": time.perf_counter() - t1})


class HybridNoSourceSystem(HybridSystem):
    """``hybrid-no-source``: the hybrid ranking without the paper a quoted passage comes from
    (``navigator.source.find_source``, as litnav leaves it out): the fair baseline on a
    query-by-example suite whose query papers are in the corpus (CSFCube), where plain retrieval
    ranks the query's own paper first. Its ``left_out`` lists what it dropped."""

    def __init__(self, corpus: Corpus, depth: int, name: str = "hybrid-no-source", **kw: Any) -> None:
        super().__init__(corpus, depth, name=name, **kw)

    def run(self, query: str) -> SystemRun:
        from litnav.navigator.source import find_source

        t0 = time.perf_counter()
        source = set(find_source(query, self.corpus))
        seconds = time.perf_counter() - t0
        run = self.fused(query)  # the same fusion as hybrid's; the list below the cut refills the gap
        run.ranking = [(cid, score) for cid, score in run.ranking if cid not in source][: self.depth]
        run.left_out = sorted(source)
        run.stage_seconds["source"] = seconds
        return run


class LitnavSystem:
    """``litnav`` (or an ablation): ``navigator.search(query, corpus, settings, top_k=depth)``.

    The ranking is ``session.results`` (final scores), ``per_round`` the ids of each
    ``session.rounds[i].ranking``, usage the sum over roles, printed metadata the results'
    title/year/venue.
    """

    def __init__(self, corpus: Corpus, settings: Settings, depth: int, name: str = "litnav") -> None:
        self.name, self.corpus, self.settings, self.depth = name, corpus, settings, depth
        lib = settings.librarians
        self.first_stage = HybridSystem(corpus, depth, lexical_k=lib.lexical_k, semantic_k=lib.semantic_k,
                                        rrf_k=lib.rrf_k, name=name)

    def run(self, query: str) -> SystemRun:
        """The session's ranking; for a query ``navigator.search`` refuses as an intent
        (``ValueError``: it names nothing to search for, "the of and"), litnav's first stage alone
        (plain hybrid retrieval of the text) with the reason in ``fallback``, so one odd query of a
        benchmark neither stops the evaluation nor scores as an empty ranking."""
        from litnav.navigator import search

        try:
            session = search(query, self.corpus, self.settings, top_k=self.depth)
        except ValueError as exc:
            run = self.first_stage.run(query)
            run.fallback = str(exc)
            return run
        source = session.rounds[0].checklist.source_ids if session.rounds else []
        usage = Usage()
        for role_usage in session.usage.values():
            usage = usage.add(role_usage)
        return SystemRun(
            ranking=[(r.corpus_id, r.final_score) for r in session.results],
            per_round=[[cid for cid, _ in rnd.ranking] for rnd in session.rounds],
            stage_seconds=dict(session.timings),
            usage=usage,
            printed=[{"corpus_id": r.corpus_id, "title": r.title, "year": r.year, "venue": r.venue} for r in session.results],
            verdicts=session_verdicts(session),
            left_out=list(source) if self.settings.navigator.exclude_source else [],
            engines={k: str(v) for k, v in session.engines.items()},
        )


def session_verdicts(session) -> dict[str, float | int]:
    """``verdict_agreement`` over ``session``'s results, each judgement read against the latest
    round's checklist that holds its checkpoint."""
    from litnav.core.records import Checklist
    from litnav.scorer.verdicts import verdict_agreement

    checkpoints = {c.id: c for rnd in session.rounds for c in rnd.checklist.checkpoints}
    checklist = Checklist(intent=session.intent, checkpoints=list(checkpoints.values()))
    return verdict_agreement((r.checkpoints, checklist) for r in session.results)


def _with_overrides(settings: Settings, overrides: dict[str, dict[str, Any]]) -> Settings:
    tree = settings.model_dump()
    for group, fields in overrides.items():
        tree[group].update(fields)
    return Settings.model_validate(tree)


def litnav_overrides(name: str) -> dict[str, dict[str, Any]] | None:
    """Settings overrides of a litnav variant name, or None when the name is not one."""
    if name in ABLATIONS:
        return ABLATIONS[name]
    m = _ROUNDS.match(name)
    if m:
        return {"navigator": {"rounds": int(m.group(1))}}
    return None


def check_system_names(names: Sequence[str]) -> list[str]:
    """Validate names; returns them de-duplicated in order. Raises ``ValueError`` naming an
    unknown one and listing the known names."""
    out: list[str] = []
    for name in names:
        name = name.strip()
        if not name:
            continue
        if name not in BASELINES and litnav_overrides(name) is None:
            known = ", ".join([*BASELINES, *ABLATIONS, "litnav-rounds-N"])
            raise ValueError(f"unknown system {name!r}; known: {known}")
        if name.startswith("litnav-rounds-") and int(name.rsplit("-", 1)[1]) < 1:
            raise ValueError(f"{name!r}: rounds must be >= 1")
        if name not in out:
            out.append(name)
    if not out:
        raise ValueError("no system selected")
    return out


def make_systems(names: Sequence[str], corpus: Corpus, settings: Settings, depth: int) -> list[System]:
    """Build the named systems over one corpus; each returns up to ``depth`` results.

    ``hybrid`` fuses ``settings.librarians.lexical_k``/``semantic_k`` hits with
    ``settings.librarians.rrf_k``. litnav variants apply their overrides on top of ``settings``.
    """
    systems: list[System] = []
    lib = settings.librarians
    for name in check_system_names(names):
        if name == "bm25":
            systems.append(LexicalSystem(corpus, depth))
        elif name == "dense":
            systems.append(DenseSystem(corpus, depth))
        elif name == "hybrid":
            systems.append(HybridSystem(corpus, depth, lexical_k=lib.lexical_k, semantic_k=lib.semantic_k, rrf_k=lib.rrf_k))
        elif name == "hybrid-no-source":
            systems.append(HybridNoSourceSystem(corpus, depth, lexical_k=lib.lexical_k, semantic_k=lib.semantic_k,
                                                rrf_k=lib.rrf_k))
        elif name == "hybrid+filter":
            systems.append(HybridFilterSystem(corpus, depth, lexical_k=lib.lexical_k, semantic_k=lib.semantic_k,
                                              rrf_k=lib.rrf_k))
        else:
            variant = _with_overrides(settings, litnav_overrides(name) or {})
            systems.append(LitnavSystem(corpus, variant, depth, name=name))
    return systems
