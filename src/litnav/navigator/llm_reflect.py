"""LLM reflection: the model reads a compact digest of the round and returns edits to the
workflow and the checklist, each with a reason.

Digest: the round and its limit, the checklist with each checkpoint's coverage among the top
papers (how many score >= ``SATISFIED``, the best score and its quote), the top papers with
their per-checkpoint scores, the near misses (just below the cut or the threshold, with their
weakest checkpoint), and the queries and citation seeds already tried.

Edits (``ReflectionReply.edits``): ``add_query{query, channel}``, ``add_citation_seeds{ids,
direction}``, ``add_checkpoint{kind, text, terms, weight}``, ``drop_checkpoint{id}``,
``reweight{id, weight}``, ``stop{reason}``. Ids must name checkpoints of the checklist or papers
among the candidates or in the corpus; a reply naming others is sent back for repair. The edits
become the next round's workflow through ``navigator.planner.assemble`` and each one is recorded
as a ``Change`` with the model's reason. The loop's stopping rule (round limit; a round after
the first that adds no paper above the threshold) is applied before the model is asked.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from litnav.core.records import Change, Checklist, Checkpoint, Node, ScoredPaper
from litnav.core.settings import Settings
from litnav.llm import LLMError
from litnav.llm.checked import structured_checked
from litnav.llm.fallback import FallbackRecorder
from litnav.navigator.planner import LLM_QUERY_WEIGHT, assemble, content_query
from litnav.navigator.reflect import SATISFIED, Reflection, ReflectionState, reflect, stopping

TOP_N = 10
NEAR_MISSES = 5
QUOTE_CHARS = 200


class _Edit(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AddQuery(_Edit):
    """Run a new dense and/or BM25 query next round."""

    action: Literal["add_query"]
    query: str = Field(min_length=1)
    channel: Literal["semantic", "lexical", "both"]
    reason: str = Field(min_length=1)


class AddCitationSeeds(_Edit):
    """Expand along citations from these papers next round."""

    action: Literal["add_citation_seeds"]
    ids: list[str] = Field(min_length=1)
    direction: Literal["cited", "citing", "both"]
    reason: str = Field(min_length=1)


class AddCheckpoint(_Edit):
    """Add a content checkpoint (or exclusion) to the checklist."""

    action: Literal["add_checkpoint"]
    kind: Literal["topic", "method", "application", "data", "exclusion"]
    text: str = Field(min_length=1)
    terms: list[str]
    weight: float = Field(ge=0.0, le=1.0)
    reason: str = Field(min_length=1)


class DropCheckpoint(_Edit):
    """Remove a checkpoint from the checklist."""

    action: Literal["drop_checkpoint"]
    id: str
    reason: str = Field(min_length=1)


class Reweight(_Edit):
    """Change a checkpoint's weight."""

    action: Literal["reweight"]
    id: str
    weight: float = Field(ge=0.0, le=1.0)
    reason: str = Field(min_length=1)


class Stop(_Edit):
    """End the search after this round."""

    action: Literal["stop"]
    reason: str = Field(min_length=1)


Edit = Annotated[Union[AddQuery, AddCitationSeeds, AddCheckpoint, DropCheckpoint, Reweight, Stop],
                 Field(discriminator="action")]
"""One edit, told apart by ``action`` (so a validation error names only that edit's fields)."""


def _any_of(schema: dict) -> None:
    """Write the edit union as ``anyOf`` without ``discriminator``: guided decoders and strict
    structured-output modes accept it more widely than ``oneOf``."""
    items = schema["properties"]["edits"]["items"]
    items["anyOf"] = items.pop("oneOf")
    items.pop("discriminator", None)


class ReflectionReply(BaseModel):
    """The reflection's reply: edits, each with its reason (empty = nothing worth changing)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_any_of)

    edits: list[Edit]


SYSTEM = (
    "You are the reflection step of an iterative literature search. Read the digest of the round "
    "and decide what to change for the next round: new queries for uncovered checkpoints or missing "
    "vocabulary, citation seeds among the best papers, checkpoints to add, drop or reweight, or stop "
    "when the results are complete. Give every edit a short reason grounded in the digest. Name only "
    "checkpoint ids of the checklist and paper ids shown in the digest. Reply with one JSON object only."
)


def digest(checklist: Checklist, ranked: list[ScoredPaper], round_index: int, max_rounds: int,
           new_above: list[str], state: ReflectionState, settings: Settings, top_k: int, titles: dict[str, str]) -> str:
    """The compact text the model reads (coverage, top papers, near misses, what was tried)."""
    threshold = settings.navigator.new_paper_threshold
    top = ranked[:TOP_N]
    lines = [f"Search intent: {checklist.intent}",
             f"Round {round_index} of at most {max_rounds}; {len(ranked)} candidates scored; "
             f"{len(new_above)} new paper(s) reached final score >= {threshold} this round.", "",
             f"Checklist and coverage among the top {len(top)} papers (satisfied = score >= {SATISFIED}):"]
    for c in checklist.checkpoints:
        js = [(p.corpus_id, j) for p in top for j in p.judgements if j.checkpoint_id == c.id]
        sat = sum(1 for _, j in js if j.score >= SATISFIED)
        line = f"[{c.id}] {c.kind}, weight {c.weight:g}: {c.text} -- satisfied by {sat}/{len(top)}"
        if js:
            cid, best = max(js, key=lambda t: t[1].score)
            line += f"; best {best.score:.1f} ({cid})"
            if best.quote:
                line += f': "{best.quote[:QUOTE_CHARS]}"'
        lines.append(line)
    lines += ["", "Top papers (id, final score, checkpoint scores, title):"]
    for p in top:
        scores = ", ".join(f"{j.checkpoint_id} {j.score:.1f}" for j in p.judgements)
        lines.append(f"- {p.corpus_id} {p.final_score:.2f} [{scores}] {titles.get(p.corpus_id, '')}")
    near = [p for p in ranked[top_k:] if p.final_score >= threshold - 0.15][:NEAR_MISSES]
    near = near or ranked[len(top):len(top) + NEAR_MISSES]
    if near:
        lines += ["", "Near misses (weakest checkpoint):"]
        for p in near:
            weak = min(p.judgements, key=lambda j: j.score, default=None)
            w = f"{weak.checkpoint_id} {weak.score:.1f}" if weak else "no judgement"
            lines.append(f"- {p.corpus_id} {p.final_score:.2f} ({w}) {titles.get(p.corpus_id, '')}")
    lines += ["", f"Queries already run by reflection: {sorted(state.queries) or 'none'}",
              f"Citation seeds already used: {sorted(state.seeds) or 'none'}"]
    return "\n".join(lines)


def check_edits(reply: ReflectionReply, checklist: Checklist, candidates: set[str], corpus) -> list[str]:
    """Problems of a reply: checkpoint ids not in the checklist, paper ids in neither the
    candidates nor the corpus, drops that would leave no checkpoint, and a drop or reweight of
    what the user asked for: the whole intent ``c1`` and every metadata constraint and exclusion
    not added by reflection (a trial's reflection dropped "since 2018" and "not surveys" and set
    c1's weight to 0)."""
    ids = {c.id for c in checklist.checkpoints}
    stated = {c.id for c in checklist.checkpoints
              if c.id == "c1" or (c.kind in ("metadata", "exclusion") and c.source != "reflection")}
    problems: list[str] = []
    dropped: set[str] = set()
    for e in reply.edits:
        if isinstance(e, (DropCheckpoint, Reweight)) and e.id not in ids:
            problems.append(f"{e.action}: {e.id!r} is not a checkpoint id; ids are {sorted(ids)}")
        elif isinstance(e, (DropCheckpoint, Reweight)) and e.id in stated:
            problems.append(f"{e.action}: {e.id!r} is what the user asked for (the whole intent or a stated "
                            "constraint); reflection may change only the concept checkpoints and its own")
        if isinstance(e, DropCheckpoint):
            dropped.add(e.id)
        if isinstance(e, AddCitationSeeds):
            unknown = [i for i in e.ids if i not in candidates]
            unknown = sorted(set(unknown) - set(corpus.papers(unknown))) if unknown else []
            if unknown:
                problems.append(f"add_citation_seeds: {unknown} are not papers of the corpus; use ids from the digest")
    if ids and dropped >= ids and not any(isinstance(e, AddCheckpoint) for e in reply.edits):
        problems.append("drop_checkpoint: the edits would leave the checklist empty")
    return problems


def apply_edits(reply: ReflectionReply, checklist: Checklist, round_index: int, state: ReflectionState,
                settings: Settings, top_k: int) -> Reflection:
    """The next round from checked edits: checklist edits first, then the new retrieval nodes
    wired by ``assemble``. Queries already run are skipped. Without any edit, or when only
    repeated queries remain, the loop stops."""
    stops = [e for e in reply.edits if isinstance(e, Stop)]
    if stops:
        change = Change(target="stop", action="stop", detail=f"round {round_index}", reason=stops[0].reason)
        return Reflection(None, checklist, [change], stops[0].reason)
    lib = settings.librarians
    nxt = round_index + 1
    changes: list[Change] = []
    checkpoints = list(checklist.checkpoints)
    nodes: list[Node] = []
    for e in reply.edits:
        if isinstance(e, DropCheckpoint):
            checkpoints = [c for c in checkpoints if c.id != e.id]
            changes.append(Change(target="checklist", action="drop_checkpoint", detail=e.id, reason=e.reason))
        elif isinstance(e, Reweight):
            checkpoints = [c.model_copy(update={"weight": e.weight}) if c.id == e.id else c for c in checkpoints]
            changes.append(Change(target="checklist", action="reweight", detail=f"{e.id}: {e.weight:g}",
                                  reason=e.reason))
        elif isinstance(e, AddCheckpoint):
            taken = {c.id for c in checkpoints}
            k = 1
            while f"r{k}" in taken:
                k += 1
            cp = Checkpoint(id=f"r{k}", kind=e.kind, text=e.text, terms=[t for t in e.terms if t.strip()],
                            weight=e.weight, source="reflection")
            checkpoints.append(cp)
            changes.append(Change(target="checklist", action="add_checkpoint", detail=f"{cp.id}: {cp.text}",
                                  reason=e.reason))
    new_checklist = checklist.model_copy(update={"checkpoints": checkpoints})
    for i, e in enumerate(reply.edits, 1):
        if isinstance(e, AddQuery):
            if e.query in state.queries:
                continue
            state.queries.add(e.query)
            for op, channel in (("semantic_search", "semantic"), ("lexical_search", "lexical")):
                if e.channel in (channel, "both"):
                    k = lib.semantic_k if channel == "semantic" else lib.lexical_k
                    nodes.append(Node(id=f"{channel}_r{nxt}_q{i}", op=op, params={"query": e.query, "k": k},
                                      note=e.reason))
            changes.append(Change(target="workflow", action="add_query", detail=f"{e.channel}: {e.query}",
                                  reason=e.reason))
        elif isinstance(e, AddCitationSeeds):
            seeds = list(dict.fromkeys(e.ids))
            state.seeds.update(seeds)
            nodes.append(Node(id=f"citation_r{nxt}_s{i}", op="citation_expand",
                              params={"direction": e.direction, "depth": 1, "k": lib.citation_k, "seeds": 0,
                                      "seed_ids": seeds, "query": content_query(new_checklist)},
                              note=e.reason))
            changes.append(Change(target="workflow", action="add_citation_seeds", detail=", ".join(seeds),
                                  reason=e.reason))
    if not nodes and changes:
        query = content_query(new_checklist)
        nodes = [Node(id=f"semantic_r{nxt}_rescore", op="semantic_search", params={"query": query, "k": lib.semantic_k},
                      note="checklist changed: re-score the pool"),
                 Node(id=f"lexical_r{nxt}_rescore", op="lexical_search", params={"query": query, "k": lib.lexical_k},
                      note="checklist changed: re-score the pool")]
        changes.append(Change(target="workflow", action="rescore", detail=query,
                              reason="the checklist changed; the pool is re-scored under the new checklist"))
    if not nodes:
        reason = "reflection proposed nothing new (no edit, or only queries already run)"
        return Reflection(None, new_checklist, changes + [Change(target="stop", action="stop", detail="",
                                                                 reason=reason)], reason)
    return Reflection(assemble(nodes, new_checklist, settings, top_k, query_weight=LLM_QUERY_WEIGHT), new_checklist,
                      changes)


class LLMReflector(FallbackRecorder):
    """``reflector`` hook of the search loop (same signature as ``navigator.reflect.reflect``).

    ``engine`` is the ``llm.reflection`` engine and ``corpus`` the searched corpus (titles for
    the digest, id checks). On ``LLMError``: with ``fallback`` the rule-based reflection
    decides this round and a ``Change`` records the cause; otherwise the error propagates.
    """

    fallback_to, fallback_unit = "rules", "round"

    def __init__(self, engine, corpus, *, fallback: bool = False):
        self.llm = engine
        self.corpus = corpus
        self.fallback = fallback
        self.fallbacks: list[str] = []


    def __call__(self, checklist: Checklist, ranked: list[ScoredPaper], round_index: int, new_above: list[str],
                 state: ReflectionState, settings: Settings, top_k: int, max_rounds: int) -> Reflection:
        stop = stopping(checklist, round_index, new_above, settings, max_rounds)
        if stop is not None:
            return stop
        try:
            return self.reflect(checklist, ranked, round_index, new_above, state, settings, top_k, max_rounds)
        except LLMError as exc:
            if not self.fallback:
                raise
            self.record_fallback(f"round {round_index}: {exc}")
            out = reflect(checklist, ranked, round_index, new_above, state, settings, top_k, max_rounds)
            note = Change(target="workflow", action="engine_fallback", detail="rules", reason=str(exc))
            return Reflection(out.workflow, out.checklist, [note] + out.changes, out.stop_reason)

    def reflect(self, checklist: Checklist, ranked: list[ScoredPaper], round_index: int, new_above: list[str],
                state: ReflectionState, settings: Settings, top_k: int, max_rounds: int) -> Reflection:
        """Ask the model and apply its edits (no stopping rule, no fallback). Raises ``LLMError``."""
        shown = ranked[:TOP_N] + ranked[top_k:top_k + NEAR_MISSES * 3]
        papers = self.corpus.papers([p.corpus_id for p in shown])
        titles = {cid: p.title for cid, p in papers.items()}
        text = digest(checklist, ranked, round_index, max_rounds, new_above, state, settings, top_k, titles)
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
        candidates = {p.corpus_id for p in ranked}
        reply, _ = structured_checked(self.llm, messages, ReflectionReply,
                                      lambda r: check_edits(r, checklist, candidates, self.corpus),
                                      role="reflection", what=f"reflection edits of round {round_index}")
        return apply_edits(reply, checklist, round_index, state, settings, top_k)
