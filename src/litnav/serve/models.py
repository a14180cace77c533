"""Request and response models of the HTTP API and the MCP tools (pydantic; the OpenAPI schema
is generated from them)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

HARD_MAX_CHARS = 20_000
"""Schema-level ceiling on any text field; the service's ``max_query_chars`` is the working limit."""
TOP_K_MAX = 100
"""The most results one request may ask for (``top_k``)."""
ROUNDS_MAX = 10
"""The most navigator rounds one request may ask for."""
CONSTRAINTS_MAX = 20
"""The most extra constraint phrases one search may add."""


def validation_message(errors: list[dict]) -> str:
    """One line for pydantic validation ``errors`` (``ValidationError.errors()``): the first three
    as ``field: message``, joined by ``; `` (the HTTP API's 422 detail and the MCP tool error)."""
    parts = []
    for err in errors[:3]:
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
        msg = err.get("msg")
        if not loc and err.get("type") in ("model_attributes_type", "dict_type", "model_type"):
            msg = "expected a JSON object (send it with Content-Type: application/json)"
        elif err.get("type") == "json_invalid":
            msg = f"not valid JSON ({(err.get('ctx') or {}).get('error', msg)})"
        parts.append(f"{loc or 'body'}: {msg}")
    return "invalid request: " + "; ".join(parts)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorBody(_Model):
    """Every error response of the HTTP API: ``{"detail": "<one clear sentence>"}``."""

    detail: str


class _Request(_Model):
    """A request body: no coercion (``"top_k": "5"`` or ``true`` is an error naming the field, as
    an unknown field is)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class SearchRequest(_Request):
    """A search: the intent in natural language, how many results, at most how many rounds, and
    extra constraint phrases appended to the intent (``"since 2018"``, ``"in ACL"``, ``"not surveys"``)."""

    intent: str = Field(..., min_length=1, max_length=HARD_MAX_CHARS, description="The search intent.")
    top_k: int = Field(10, ge=1, le=TOP_K_MAX, description="Results to return.")
    rounds: int | None = Field(None, ge=1, le=ROUNDS_MAX, description="Maximum navigator rounds (default: settings).")
    constraints: list[str] = Field(default_factory=list, max_length=CONSTRAINTS_MAX,
                                   description="Extra constraint phrases, appended to the intent.")


class RefineRequest(_Request):
    """One line of feedback on a stored session (``"drop #3"``, ``"only since 2019"``, ...)."""

    feedback: str = Field(..., min_length=1, max_length=HARD_MAX_CHARS)


class VerifyRequest(_Request):
    """A reference list as text; ``format`` None = detected from the content."""

    text: str = Field(..., min_length=1, description="BibTeX, RIS, CSL-JSON or one title per line.")
    format: Literal["bibtex", "ris", "csl-json", "csljson", "titles"] | None = None


class CheckpointOut(_Model):
    """One checkpoint of the final checklist."""

    id: str
    kind: str
    text: str
    weight: float


class JudgementOut(_Model):
    """A checkpoint's 0–5 score for one paper, its rationale and the verbatim evidence quote."""

    id: str
    kind: str
    score: float
    rationale: str
    quote: str | None = None


class ResultOut(_Model):
    """One ranked paper (metadata re-read from the corpus) with its scores; ``scored`` false and
    both scores null for a paper below the scored top N (``librarians.pool_size``), which was
    passed on in first-stage order without a judgement."""

    rank: int
    corpus_id: str
    title: str
    year: int | None = None
    venue: str | None = None
    authors: list[str] = Field(default_factory=list)
    scored: bool = True
    final_score: float | None
    probability: float | None
    checkpoints: list[JudgementOut]


class TurnOut(_Model):
    """The latest user turn of a refined session: the feedback, the edits it made, and what changed."""

    index: int
    feedback: str | None = None
    edits: list[str] = Field(default_factory=list)
    new: list[str] = Field(default_factory=list)
    dropped: list[str] = Field(default_factory=list)
    rerun: list[str] = Field(default_factory=list)
    reused: list[str] = Field(default_factory=list)


class SearchResponse(_Model):
    """A stored search or refinement: its ``session_id`` (for refine/audit/export), the checklist
    and the ranked results; ``seconds`` is the search's own wall time (not the wait for a slot)."""

    session_id: str
    intent: str
    stop_reason: str | None = None
    rounds: int
    seconds: float
    checklist: list[CheckpointOut]
    results: list[ResultOut]
    turn: TurnOut | None = None


class SessionInfo(_Model):
    """A stored session in the listing."""

    session_id: str
    intent: str
    created_at: datetime
    results: int
    turns: int


class Health(_Model):
    """The server's corpus (named by its folder, not the server's path to it)."""

    status: Literal["ok"] = "ok"
    corpus: str
    papers: int
    fingerprint: str
    refine_available: bool
