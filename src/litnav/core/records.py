"""Query-side records: checklists, workflows, evidence, judgements, results and sessions.

Shared by librarians, scorer, reranker and navigator; they import only ``corpus.records``.
Every record serialises to JSON (``model_dump(mode="json")``) and back, so a session file
holds the whole search.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

CheckpointKind = Literal["topic", "method", "application", "data", "metadata", "exclusion"]
CONTENT_KINDS: tuple[str, ...] = ("topic", "method", "application", "data")
MetadataField = Literal["year", "venue", "venue_year", "publication_type", "author"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MetadataPredicate(_Record):
    """A machine-checkable constraint on tier-1 metadata.

    - ``year``: ``start``/``end`` are inclusive dates (``end=2025-10-31`` for "to Oct 2025");
      a paper with only a year passes when any day of that year lies in the range.
    - ``venue``: ``values`` are normalised venue names from the corpus vocabulary.
    - ``venue_year``: ``values`` as for ``venue``, ``start``/``end`` as for ``year``: a paper of one
      of those venues must lie in the period, a paper of another venue passes ("EMNLP 2019 or ACL
      2020": venue EMNLP or ACL, EMNLP papers from 2019, ACL papers from 2020).
    - ``publication_type``: ``values`` such as ``"survey"``, ``"empirical"``.
    - ``author``: ``values`` are author names (matched case-insensitively on surname).
    ``first_author`` (author only: "Smith et al.") requires the paper's first author to match.
    ``negate`` inverts the test ("not surveys", "excluding ACL"). ``main_track`` (venue only:
    "main ACL, EMNLP or NAACL") makes a paper of a satellite track of a matching venue fail: a
    raw venue naming system demonstrations, tutorials, a student research workshop, an industry
    track, Findings, shared tasks or a workshop (``corpus.predicates.SATELLITE_TRACK``).
    """

    field: MetadataField
    values: list[str] = Field(default_factory=list)
    start: date | None = None
    end: date | None = None
    negate: bool = False
    main_track: bool = False
    first_author: bool = False


class Checkpoint(_Record):
    """One verifiable requirement of the intent.

    ``weight`` scales the checkpoint in the mean score (see ``scorer``); ``terms`` are the
    key phrases used for retrieval and term coverage; ``predicate`` is set for ``metadata``.
    """

    id: str
    kind: CheckpointKind
    text: str
    weight: float = Field(1.0, ge=0.0)
    terms: list[str] = Field(default_factory=list)
    predicate: MetadataPredicate | None = None
    source: Literal["intent", "reflection", "user", "llm"] = "intent"
    any_of: bool = Field(False, description="The terms are alternatives ('X or Y'): a paper satisfies the "
                                            "checkpoint when it satisfies it for one of them.")


class Checklist(_Record):
    """The verification checklist of an intent."""

    intent: str
    checkpoints: list[Checkpoint] = Field(default_factory=list)
    source_ids: list[str] = Field(
        default_factory=list, description="Corpus ids of the paper a pasted passage is quoted from "
        "(``navigator.source``): the search's source, never one of its results.")
    not_judged: list[str] = Field(
        default_factory=list, description="Phrases of the intent that neither search nor judge: what the "
        "methods do without ('without labeled data'), which the papers that qualify name too.")

    def get(self, checkpoint_id: str) -> Checkpoint:
        """Return the checkpoint with that id; raises ``KeyError`` naming it."""
        for c in self.checkpoints:
            if c.id == checkpoint_id:
                return c
        raise KeyError(f"no checkpoint {checkpoint_id!r} in checklist")


class Node(_Record):
    """One operator invocation in a workflow: ``op`` names an operator of the library in
    ``librarians.operators``; ``params`` are validated against that operator's parameter model;
    ``inputs`` are ids of upstream nodes."""

    id: str
    op: str
    params: dict[str, Any] = Field(default_factory=dict)
    inputs: list[str] = Field(default_factory=list)
    note: str | None = Field(None, description="Why this node is here (shown to the user).")


class Workflow(_Record):
    """A retrieval strategy: an acyclic graph of typed operator nodes; ``output`` is the node
    whose result is the round's ranked list."""

    nodes: list[Node] = Field(default_factory=list)
    output: str

    def node(self, node_id: str) -> Node:
        """Return the node with that id; raises ``KeyError`` naming it."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(f"no node {node_id!r} in workflow")

    def top_k(self) -> int | None:
        """The number of results the workflow returns: its ``rerank`` node's integer ``top_k``, or
        None (no such node, or no integer there)."""
        rank = next((n for n in self.nodes if n.op == "rerank"), None)
        top = rank.params.get("top_k") if rank else None
        return top if isinstance(top, int) and not isinstance(top, bool) else None


class FoundBy(_Record):
    """How a candidate was found: channel (semantic, lexical, example, citation, web), round, node,
    the channel's score and rank, and for web hits the provider."""

    channel: str
    round: int
    node_id: str
    score: float | None = None
    rank: int | None = None
    provider: str | None = None


class Candidate(_Record):
    """A paper in the candidate pool."""

    corpus_id: str
    found_by: list[FoundBy] = Field(default_factory=list)


class Evidence(_Record):
    """A located evidence chunk for one (paper, checkpoint), with its cosine similarity.
    Offsets index into ``Corpus.full_text(corpus_id)``."""

    chunk_id: str
    corpus_id: str
    section: str
    char_start: int
    char_end: int
    text: str
    similarity: float


METADATA_UNKNOWN_SCORE = 2.5
"""The score of a metadata checkpoint whose field the paper's record lacks (no year, venue or
publication type): neither met nor failed. Met is 5, failed 0."""


class Judgement(_Record):
    """The scorer's verdict on one checkpoint for one paper.

    ``score`` is 0–5; ``quote`` is a verbatim substring of the evidence chunk ``quote_chunk_id``
    (None for metadata checkpoints, whose rationale names the field and value).
    ``engine`` names what produced it, e.g. ``"metadata"``, ``"student:logreg-scifact-v1"``,
    ``"llm:Qwen/Qwen3-8B"``. ``checkpoint_id`` is written as ``id`` in session files.
    """

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True, validate_by_name=True,
                              validate_by_alias=True)

    checkpoint_id: str = Field(alias="id")
    kind: CheckpointKind
    text: str
    score: float = Field(ge=0.0, le=5.0)
    rationale: str
    quote: str | None = None
    quote_chunk_id: str | None = None
    quote_start: int | None = Field(None, description="Offset into the full text.")
    quote_end: int | None = None
    evidence: list[Evidence] = Field(default_factory=list)
    engine: str

    @property
    def unknown(self) -> bool:
        """A metadata verdict on a field the record lacks (:data:`METADATA_UNKNOWN_SCORE`): shown
        as "?", never as a failed 0/5."""
        return self.kind == "metadata" and self.score == METADATA_UNKNOWN_SCORE


class ScoredPaper(_Record):
    """A candidate with all its judgements, its holistic probability and final score."""

    corpus_id: str
    judgements: list[Judgement]
    probability: float = Field(ge=0.0, le=1.0)
    final_score: float = Field(ge=0.0, le=1.0)
    probability_engine: str = "student"


class AnchorLink(_Record):
    """Why a result of an anchor search that follows citations is listed: the citation edge to
    the anchor (``relation``) and the citing sentences the corpus records for it (possibly none)."""

    relation: Literal["cites the anchor", "cited by the anchor"]
    contexts: list[str] = Field(default_factory=list)


class Result(_Record):
    """One returned paper. Every metadata field is re-read from the corpus before output;
    ``anchor_link`` is set for the results of an anchor search that follows citations."""

    rank: int
    corpus_id: str
    title: str
    year: int | None = None
    venue: str | None = None
    authors: list[str] = Field(default_factory=list)
    final_score: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    probability: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    checkpoints: list[Judgement]
    found_by: list[FoundBy] = Field(default_factory=list)
    anchor_link: AnchorLink | None = None


class Change(_Record):
    """One edit made by reflection or by the user, with its reason."""

    target: Literal["checklist", "workflow", "stop"]
    action: str
    detail: str
    reason: str


class OperatorRun(_Record):
    """The record of one node's execution: inputs, outputs with channel scores, time."""

    node_id: str
    op: str
    params: dict[str, Any]
    inputs: list[str]
    outputs: list[tuple[str, float]] = Field(default_factory=list, description="(corpus_id, score)")
    seconds: float
    engine: str = "local"
    note: str | None = None


class Usage(_Record):
    """Token accounting for LLM calls (per call, per role, per query)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_hits: int = 0
    cost_usd: float = 0.0

    def add(self, other: Usage) -> Usage:
        """Return the field-wise sum."""
        return Usage(**{k: getattr(self, k) + getattr(other, k) for k in Usage.model_fields})


class Round(_Record):
    """One navigator round: the plan it ran, what it found, and what changed after it."""

    index: int
    checklist: Checklist
    workflow: Workflow
    operator_runs: list[OperatorRun] = Field(default_factory=list)
    candidates: int = 0
    new_above_threshold: list[str] = Field(default_factory=list)
    ranking: list[tuple[str, float]] = Field(
        default_factory=list, description="(corpus_id, final_score) after this round, best first."
    )
    changes: list[Change] = Field(default_factory=list)
    seconds: float = 0.0


class Clarification(_Record):
    """A question the navigator asked, the options, and the answer taken."""

    question: str
    options: list[str]
    answer: str
    interactive: bool


EditAction = Literal[
    "add_node", "modify_node", "remove_node", "set_param",
    "add_checkpoint", "drop_checkpoint", "reweight_checkpoint", "pin", "ban",
]


class Edit(_Record):
    """One typed edit of a turn's workflow or checklist, made from user feedback.

    ``target`` is a node id (node edits, ``set_param``), a checkpoint id (checkpoint edits) or a
    corpus id (``pin``/``ban``); ``detail`` holds the edit's data (the new node, the parameter
    and its old/new value, the checkpoint ...); ``reason`` quotes what in the feedback asked for it.
    """

    action: EditAction
    target: str
    detail: dict[str, Any] = Field(default_factory=dict)
    reason: str


class ResultDiff(_Record):
    """How a turn's result list differs from the previous turn's: ids that are ``new``,
    ``dropped``, and ``moved`` as ``(corpus_id, old_rank, new_rank)`` (1-based)."""

    new: list[str] = Field(default_factory=list)
    dropped: list[str] = Field(default_factory=list)
    moved: list[tuple[str, int, int]] = Field(default_factory=list)


class Turn(_Record):
    """One user turn: the first search, or a refinement from feedback.

    ``rounds`` are the indices (into ``Session.rounds``) of the rounds this turn ran;
    ``rerun`` the workflow nodes executed in this turn and ``reused`` those whose cached output
    (same operator, parameters, inputs and checklist dependency) was taken from an earlier turn.
    ``pins`` are corpus ids placed first in the results (in order); ``bans`` never appear.
    """

    index: int
    feedback: str | None = None
    anchor: str | None = Field(None, description="Anchor paper corpus_id of an anchor search.")
    direction: str | None = Field(None, description="Anchor direction (successor, predecessor ...).")
    anchor_title: str | None = Field(None, description="The anchor paper's title, as the corpus holds it.")
    intent_given: bool = Field(True, description="False for an anchor search without an intent: c1 is then "
                                                 "the anchor's title.")
    asked_direction: str | None = Field(None, description="The direction the intent asked for when another ran "
                                                          "(no citation edges in the corpus: sibling).")
    anchor_linked: int | None = Field(None, description="Corpus papers linked to the anchor in its direction "
                                                       "(citing it for successor, cited by it for predecessor).")
    anchor_unresolved: int | None = Field(None, description="Predecessor: the anchor's bibliography entries "
                                                           "that match no corpus paper.")
    paper_not_found: str | None = Field(None, description="The paper an intent asked the citing, cited or "
                                                          "similar papers of, when no corpus paper is it: its "
                                                          "words were searched as a topic instead.")
    edits: list[Edit] = Field(default_factory=list)
    checklist: Checklist
    workflow: Workflow
    rounds: list[int] = Field(default_factory=list)
    rerun: list[str] = Field(default_factory=list)
    reused: list[str] = Field(default_factory=list)
    pins: list[str] = Field(default_factory=list)
    bans: list[str] = Field(default_factory=list)
    results: list[Result] = Field(default_factory=list)
    diff: ResultDiff | None = None
    clarification: Clarification | None = None
    engine: str = Field("rules", description="What turned the feedback into edits: 'rules' or 'llm:MODEL'.")
    corpus_fingerprint: str | None = Field(None, description="The corpus version this turn searched "
                                                             "(Corpus.fingerprint); None in sessions written "
                                                             "before it was recorded: Session.corpus_fingerprint.")
    engines: dict[str, str] = Field(default_factory=dict, description="role -> engine that judged and ordered "
                                    "this turn (scorer, reranker, retrieval); empty for the first search and in "
                                    "sessions written before it was recorded: Session.engines.")


class Session(_Record):
    """Everything needed to audit or replay one search (the session file).

    ``turns`` holds one entry per user turn (the first search included) once a session has
    been refined or started as an anchor search; ``results`` are always the latest turn's.
    """

    version: int = 1
    intent: str
    corpus: str
    corpus_fingerprint: str | None = None
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    settings: dict[str, Any] = Field(default_factory=dict)
    clarifications: list[Clarification] = Field(default_factory=list)
    rounds: list[Round] = Field(default_factory=list)
    results: list[Result] = Field(default_factory=list)
    engines: dict[str, str] = Field(default_factory=dict, description="role -> engine")
    usage: dict[str, Usage] = Field(default_factory=dict, description="role -> usage")
    timings: dict[str, float] = Field(default_factory=dict, description="stage -> seconds")
    stop_reason: str | None = None
    turns: list[Turn] = Field(default_factory=list)

    def is_scored(self, result: Result) -> bool:
        """True when ``result``'s final score and probability mean something: the scorer judged it
        (it has judgements; every scored paper has c1's), or no scorer ran and both are the fused
        retrieval score (``engines["scorer"]`` starts with "none"). False for a result passed on
        below the scored top N (``librarians.pool_size``) in first-stage order, whose 0.0 scores
        are placeholders, not a judgement of irrelevance."""
        return bool(result.checkpoints) or str(self.engines.get("scorer", "")).startswith("none")

    def shown_scores(self, result: Result) -> tuple[float | None, float | None]:
        """``(final_score, probability)`` of ``result`` as outputs show them: ``(None, None)``
        when it was not scored (:meth:`is_scored`), so no output reads a placeholder as a verdict."""
        return (result.final_score, result.probability) if self.is_scored(result) else (None, None)
