"""The self-refining search loop, plain code:

    plan -> retrieve (librarian fan-out) -> score -> rerank -> reflect -> (retrieve | stop)

Heavy objects (corpus, caches) live on the ``SearchRun``. Every round's checklist, workflow,
operator runs, ranking and the reasons for each change are kept in the ``Session``, which is
the whole persisted state: a later turn (``navigator.refine``) starts from the session file,
with ``checklist``/``cached`` given here, so no separate graph checkpoint store is needed.
"""

from __future__ import annotations

import copy
import json
import os
import re
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import date
from typing import Any, TypedDict

from litnav.core.progress import progress_bar
from litnav.core.records import Checklist, FoundBy, Round, ScoredPaper, Session, Workflow
from litnav.core.settings import Settings
from litnav.librarians import Pool, RunContext, ScoredPool, WorkflowError, run_workflow, validate_workflow
from litnav.librarians.operators import REGISTRY
from litnav.navigator.planner import TAIL_OPS, plan_workflow, rule_checklist, whole_intent_checkpoint, with_top_k
from litnav.navigator.reflect import ReflectionState, reflect
from litnav.navigator.results import build_results
from litnav.navigator.scoring import ScoringStage
from litnav.navigator.source import with_source
from litnav.navigator.workflow_check import check_workflow
from litnav.reranker import cross_encoder_rerank, rank_scored
from litnav.reranker.combine import Combination, combine, load_combination
from litnav.scorer.cross_encoder import pair_scorer

RANKING_KEPT = 100


class LoopState(TypedDict):
    round: int
    stop: bool


_USERINFO = re.compile(r"^(?P<scheme>[a-z][\w+.-]*://)[^/@\s]*@", re.I)
"""The ``user:password@`` of a URL."""
_SECRET_PARAM = re.compile(r"(?P<key>[?&][^=&#]*(?:token|key|secret|password|passwd|auth|sig|signature|credential)"
                           r"[^=&#]*=)[^&#]*", re.I)
"""A query parameter of a URL whose name says it holds a secret (``?token=...``, ``&api_key=...``)."""
_SECRET_NAME = re.compile(r"token|key|secret|password|passwd|auth|sig|signature|credential", re.I)
"""A field name that says its value is a secret (in an endpoint's ``extra_body``)."""


def _masked(value: Any) -> Any:
    """``value`` (an ``extra_body`` tree) with the value of every field named like a secret as ``***``."""
    if isinstance(value, dict):
        return {k: "***" if _SECRET_NAME.search(str(k)) and not isinstance(v, (dict, list)) else _masked(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return value


def _settings_snapshot(settings: Settings) -> dict[str, Any]:
    """The settings a session file records, without secrets: an endpoint's ``api_key`` as
    ``***``, the ``user:password@`` of its ``base_url`` as ``***@`` and the value of a query parameter
    named like a secret (``?token=``) as ``***``, and so the value of an ``extra_body`` field named
    like one (``{"api_token": ...}``) (session files are shared)."""
    data = settings.model_dump(mode="json")
    for ep in data.get("llm", {}).get("endpoints", {}).values():
        if ep.get("api_key"):
            ep["api_key"] = "***"
        if isinstance(ep.get("base_url"), str):
            ep["base_url"] = _SECRET_PARAM.sub(r"\g<key>***", _USERINFO.sub(r"\g<scheme>***@", ep["base_url"]))
        if ep.get("extra_body"):
            ep["extra_body"] = _masked(ep["extra_body"])
    return data


def replayable_settings(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The settings tree a session recorded (:func:`_settings_snapshot`), ready to run again: an
    endpoint's masked ``api_key`` is left out, so its key comes from ``api_key_env`` as a settings
    file without one would. Raises ``ValueError`` when an endpoint a role uses had credentials the
    snapshot masked and cannot be filled (a key with no ``api_key_env`` value, the ``user:password``
    of its URL, a secret of ``extra_body``): such a session is refined with ``--settings FILE``."""
    data = copy.deepcopy(snapshot or {})
    llm = data.get("llm", {})
    used = {llm.get(role) for role in ("navigator", "reflection", "scorer", "reranker")} - {None}
    for name, ep in llm.get("endpoints", {}).items():
        masked = ep.get("api_key") == "***" and not os.environ.get(ep.get("api_key_env") or "OPENAI_API_KEY")
        masked = masked or "***@" in str(ep.get("base_url") or "") or "***" in json.dumps(ep.get("extra_body") or {})
        if masked and name in used:
            raise ValueError(f"the session's LLM endpoint {name!r} had credentials that session files do not keep "
                             "(a key, the user:password of its URL or a secret of extra_body); refine with "
                             "--settings FILE that holds them")
        if ep.get("api_key") == "***":
            ep.pop("api_key")
    return data


class SearchRun:
    """One search: builds the graph, runs it, and assembles the ``Session``.

    ``planner(intent, corpus, settings) -> (Checklist, Workflow | None, engine_name)`` and
    ``reflector`` default to the rule-based ones; LLM variants plug in here. A ``reflector``,
    ``teacher`` or ``llm_reranker`` with an ``engine`` attribute names the engine recorded in
    ``Session.engines`` for its role (including any fallback it took).

    A refined turn passes ``checklist`` (used instead of parsing ``intent``) with ``workflow``,
    and ``cached``: node id -> value of retrieval nodes whose output an earlier turn already
    computed under the same parameters and inputs (they are not run again in round 1).
    """

    def __init__(
        self,
        intent: str,
        corpus,
        settings: Settings,
        *,
        workflow: Workflow | None = None,
        rounds: int | None = None,
        top_k: int | None = None,
        student=None,
        teacher=None,
        planner: Callable | None = None,
        reflector: Callable | None = None,
        llm_reranker=None,
        web_fn: Callable | None = None,
        engines: dict[str, str] | None = None,
        progress: bool = False,
        today: date | None = None,
        checklist: Checklist | None = None,
        cached: dict[str, Any] | None = None,
    ):
        if not intent or not intent.strip():
            raise ValueError("the search intent is empty")
        self.intent = intent.strip()
        self.corpus = corpus
        self.settings = settings
        self.user_workflow = workflow
        self.max_rounds = rounds or settings.navigator.rounds
        self.top_k = top_k or (workflow.top_k() if workflow is not None else None) or settings.navigator.top_k
        self.planner = planner
        self.reflector = reflector
        self.llm_reranker = llm_reranker
        self.web_fn = web_fn
        self.today = today
        self.given_checklist = checklist
        self.cached = dict(cached or {})
        self.stage = ScoringStage(corpus, student if settings.scorer.enabled else None, teacher=teacher)
        self.engines = dict(engines or {})
        self._ce_logits: dict[str, dict[str, float]] = {}  # query -> corpus_id -> logit
        self.progress = progress
        self.timings: dict[str, float] = defaultdict(float)
        self.found_by: dict[str, list[FoundBy]] = defaultdict(list)
        self.rounds: list[Round] = []
        self.reflection_state = ReflectionState()
        self.checklist: Checklist | None = None
        self.workflow: Workflow | None = None
        self.results: dict[str, Any] = {}
        self.ctx: RunContext | None = None
        self.above: set[str] = set()
        self.stop_reason: str | None = None
        self._combination_model: Combination | None = None
        self._bar = None

    # graph nodes -------------------------------------------------------------------------------
    def _timed(self, stage: str, fn: Callable[[], Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            self.timings[stage] += time.perf_counter() - t0

    def plan(self, state: LoopState) -> LoopState:
        def run() -> None:
            if self.given_checklist is not None:  # a refined turn: checklist and workflow are given
                checklist, workflow = self.given_checklist, None
            elif self.planner is not None:
                checklist, workflow, engine = self.planner(self.intent, self.corpus, self.settings)
                checklist = with_source(checklist, self.corpus, self.settings, text=self.intent)
                self.engines.setdefault("navigator", engine)
            else:
                checklist = rule_checklist(self.intent, self.corpus, self.settings, today=self.today)
                workflow = None
                self.engines.setdefault("navigator", "rules")
            if self.user_workflow is not None:
                if problems := check_workflow(self.user_workflow, checklist, self.corpus):
                    raise WorkflowError(None, "; ".join(problems))
                workflow = with_top_k(self.user_workflow, self.top_k)
            self.checklist = checklist
            self.workflow = workflow or plan_workflow(checklist, self.settings, self.top_k)
            validate_workflow(self.workflow)

        self._timed("plan", run)
        return {"round": 1, "stop": False}

    def _context(self, round_index: int) -> RunContext:
        ctx = RunContext(corpus=self.corpus, checklist=self.checklist, settings=self.settings, round=round_index,
                         score_fn=self.stage, rerank_fn=self._rerank, web_fn=self.web_fn)
        if self.ctx is not None:
            ctx.query_vectors = self.ctx.query_vectors
            ctx.within_cache = self.ctx.within_cache
        return ctx

    def retrieve(self, state: LoopState) -> LoopState:
        self.ctx = self._context(state["round"])
        retrieval = {n.id for n in self.workflow.nodes if n.op not in TAIL_OPS}
        cached = {k: v for k, v in self.cached.items() if k in retrieval} if state["round"] == 1 else {}
        self.results, runs = self._timed("retrieve", lambda: run_workflow(
            self.workflow, self.ctx, only=retrieval, results=cached,
            max_workers=self.settings.librarians.max_workers))
        for value in self.results.values():
            if isinstance(value, Pool):
                for cid, fbs in value.found_by.items():
                    for fb in fbs:
                        if fb.node_id in retrieval and fb.round == state["round"] and fb not in self.found_by[cid]:
                            self.found_by[cid].append(fb)
        self._current_round(state["round"]).operator_runs.extend(runs)
        return state

    def _run_ops(self, ops: tuple[str, ...], stage: str, round_index: int) -> None:
        only = {n.id for n in self.workflow.nodes if n.op in ops}
        self.results, runs = self._timed(stage, lambda: run_workflow(
            self.workflow, self.ctx, only=only, results=self.results,
            max_workers=self.settings.librarians.max_workers))
        self._current_round(round_index).operator_runs.extend(runs)

    def score(self, state: LoopState) -> LoopState:
        self._run_ops(("locate_evidence", "score"), "score", state["round"])
        return state

    def _rerank(self, scored: ScoredPool, params, ctx: RunContext) -> ScoredPool:
        """Order the scored top-N (``reranker.order``), then append the unscored fused tail."""
        n = self.stage.n_scored
        head, tail = list(scored.scored[:n]), list(scored.scored[n:])
        order = self.settings.reranker.order
        if head and order == "combined":
            head = [p for p, _ in combine(head, self.stage.fused_rank, self._combination(), self.stage.soft_failed)]
        elif head and order == "score":
            head = rank_scored(head, self.stage.fused_rank)
        diversity = params.diversity or self.settings.reranker.diversity
        if head and diversity:
            relevance = {p.corpus_id: 1.0 - i / len(head) for i, p in enumerate(head)}
            head = rank_scored(head, self.stage.fused_rank, diversity=diversity, vectors=self._vectors(head),
                               relevance=relevance)
        rs = self.settings.reranker
        if head and rs.cross_encoder_path:
            whole = whole_intent_checkpoint(ctx.checklist) if ctx.checklist is not None else None
            query = whole.text if whole is not None else self.intent
            cache = self._ce_logits.setdefault(query, {})  # papers scored in an earlier round are not re-read
            papers = self.corpus.papers([p.corpus_id for p in head[:rs.cross_encoder_top_n] if p.corpus_id not in cache])
            texts = {cid: f"{p.title}. {self.corpus.abstract(cid) or ''}" for cid, p in papers.items()}
            score_pairs = pair_scorer(rs.cross_encoder_path, self.settings.scorer.device, rs.cross_encoder_precision)
            head = cross_encoder_rerank(query, head, texts, score_pairs, top_n=rs.cross_encoder_top_n,
                                        weight=rs.cross_encoder_weight, cache=cache)
            self.engines["reranker"] = f"cross-encoder:{rs.cross_encoder_path}"
        if head and self.llm_reranker is not None:
            head = self.llm_reranker(self.intent, ctx.checklist, head, self.corpus)
        ranked = head + tail
        self.stage.ranked = ranked
        top_k = params.top_k or len(ranked)
        return ScoredPool(scored.pool, ranked[:top_k], scored.evidence)

    def _combination(self) -> Combination:
        if self._combination_model is None:
            self._combination_model = load_combination(self.settings.reranker.combination)
        return self._combination_model

    def _vectors(self, scored: list[ScoredPaper]) -> dict[str, Any]:
        ids = [p.corpus_id for p in scored]
        papers = self.corpus.papers(ids)
        texts = [f"{papers[c].title}. {self.corpus.abstract(c) or ''}" for c in ids if c in papers]
        vecs = self.corpus.encode(texts)
        return dict(zip([c for c in ids if c in papers], vecs))

    def rerank(self, state: LoopState) -> LoopState:
        self._run_ops(("rerank",), "rerank", state["round"])
        rnd = self._current_round(state["round"])
        ranked = self.stage.ranked
        rnd.ranking = [(p.corpus_id, round(p.final_score, 6)) for p in ranked[:RANKING_KEPT]]
        rnd.candidates = len(ranked)
        threshold = self.settings.navigator.new_paper_threshold
        now_above = {p.corpus_id for p in ranked if p.final_score >= threshold}
        rnd.new_above_threshold = sorted(now_above - self.above)
        self.above |= now_above
        return state

    def reflect(self, state: LoopState) -> LoopState:
        rnd = self._current_round(state["round"])
        reflector = self.reflector or reflect
        outcome = self._timed("reflect", lambda: reflector(
            self.checklist, self.stage.ranked, state["round"], rnd.new_above_threshold,
            self.reflection_state, self.settings, self.top_k, self.max_rounds))
        self.engines.setdefault("reflection", "rules")
        rnd.changes.extend(outcome.changes)
        rnd.seconds = round(sum(r.seconds for r in rnd.operator_runs), 6)
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix(candidates=rnd.candidates, new=len(rnd.new_above_threshold))
        if outcome.workflow is None:
            self.stop_reason = outcome.stop_reason
            return {"round": state["round"], "stop": True}
        validate_workflow(outcome.workflow)
        self.checklist, self.workflow = outcome.checklist, outcome.workflow
        return {"round": state["round"] + 1, "stop": False}

    def _current_round(self, index: int) -> Round:
        if len(self.rounds) < index:
            self.rounds.append(Round(index=index, checklist=self.checklist, workflow=self.workflow))
        return self.rounds[index - 1]

    # driver -------------------------------------------------------------------------------------
    def loop(self) -> None:
        """plan, then retrieve -> score -> rerank -> reflect until reflection stops (at the
        latest at the round limit)."""
        state = self.plan({"round": 0, "stop": False})
        while True:
            for step in (self.retrieve, self.score, self.rerank):
                state = step(state)
            state = self.reflect(state)
            if state["stop"]:
                return

    def run(self) -> Session:
        """Run the loop to its stopping rule and return the session (results re-read from the corpus)."""
        t0 = time.perf_counter()
        self._bar = progress_bar(total=self.max_rounds, desc="search rounds", unit="round", progress=self.progress,
                                  leave=False)
        try:
            self.loop()
        finally:
            self._bar.close()
        results = build_results(self.corpus, self.stage.ranked, self.found_by, self.top_k)
        self.timings["total"] = time.perf_counter() - t0
        for role, hook in (("reflection", self.reflector), ("reranker", self.llm_reranker),
                           ("scorer", self.stage.teacher if self.stage.student else None)):
            if getattr(hook, "engine", None):  # LLM hooks name their engine, and any fallback taken
                self.engines[role] = hook.engine
        self.engines.setdefault("scorer", getattr(self.stage.student, "name", "none") if self.stage.student
                                else "none (retrieval score)")
        if self.stage.student is not None and self.engines["scorer"] == getattr(self.stage.student, "name", None):
            from litnav.scorer.student import calibration

            data, kinds = calibration(self.stage.student)
            self.engines["scorer_training"] = f"{data}; calibrated for {', '.join(kinds) or 'unknown'} checkpoints"
        scored = self.stage.student is not None
        weight = self._combination().scorer_weight if scored and self.settings.reranker.order == "combined" else None
        self.engines.setdefault("reranker", _order_label(self.settings, scored, weight))
        self.engines.setdefault("retrieval", retrieval_channels(self.corpus))
        if self.user_workflow is not None:  # what ran: the user's round 1, then what reflection planned
            later = len(self.rounds) - 1
            self.engines.setdefault("workflow", "given (round 1)" + (
                f"; rounds 2-{len(self.rounds)} planned by reflection" if later > 1 else
                "; round 2 planned by reflection" if later == 1 else ""))
        return Session(
            intent=self.intent, corpus=_absolute(getattr(self.corpus, "directory", None)),
            corpus_fingerprint=self.corpus.fingerprint(), settings=_settings_snapshot(self.settings),
            rounds=self.rounds, results=results, engines=self.engines,
            timings={k: round(v, 6) for k, v in self.timings.items()}, stop_reason=self.stop_reason,
        )


def retrieval_channels(corpus) -> str:
    """What ``Session.engines["retrieval"]`` records: the corpus's retrieval channels, and why any
    is missing (a first build in stage ``lexical`` searches with BM25 only) or partial (papers
    added to a complete corpus wait for their vectors)."""
    from litnav.librarians.operators.base import missing_channels, partial_channels

    missing, partial = missing_channels(corpus), partial_channels(corpus)
    have = [name for name in ("semantic", "lexical") if name not in missing]
    text = " + ".join(f"{n} (dense)" if n == "semantic" else f"{n} (bm25)" for n in have)
    if missing:
        text += "; missing: " + "; ".join(f"{n}: {why}" for n, why in sorted(missing.items()))
    if partial:
        text += "; partial: " + "; ".join(f"{n}: {why}" for n, why in sorted(partial.items()))
    return text


def operator_library() -> dict[str, dict[str, Any]]:
    """The operator library as JSON-ready data: name, channel, edge types and parameter schema."""
    return {name: {"channel": s.channel, "input": s.input_type, "inputs": [s.min_inputs, s.max_inputs],
                   "output": s.output, "doc": s.doc, "params": s.params.model_json_schema()}
            for name, s in sorted(REGISTRY.items())}


def _absolute(directory) -> str:
    """The corpus directory as an absolute path ("" without one), so a session file still finds
    its corpus when it is read from another working directory."""
    from pathlib import Path

    return str(Path(directory).resolve()) if directory else ""


def _order_label(settings: Settings, scored: bool, scorer_weight: float | None = None) -> str:
    """The no-LLM reranker engine as the session reports it: which final ordering ran
    (``scorer_weight``: the combination's, for ``reranker.order = "combined"``)."""
    if not scored or settings.reranker.order == "fusion":
        return "fused retrieval order"
    if settings.reranker.order == "score":
        return "scorer final score"
    if scorer_weight == 0:
        return "fused retrieval order, soft preferences re-weighting (reranker.combine, scorer weight 0)"
    fitted = f" of {settings.reranker.combination}" if settings.reranker.combination else ""
    weight = f", scorer weight {scorer_weight:g}" if scorer_weight is not None else ""
    return f"rank fusion of fused and scorer order (reranker.combine{fitted}{weight})"
