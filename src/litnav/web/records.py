"""Records of the web channel: what a provider returns, how it maps to the corpus, and what
``web_search`` hands back to the caller."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

MatchMethod = Literal["corpus_id", "doi", "arxiv", "s2", "acl", "pubmed", "title_exact", "title_fuzzy", "title_main"]
"""How a record was mapped: an exact external id kind, or a title rule
(``title_main``: one title is the other with its subtitle dropped)."""

MatchStatus = Literal["verified", "metadata_mismatch", "not_found"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExternalRecord(_Record):
    """One paper as an external service (or a bibliography entry) describes it.

    ``external_ids`` keys are lower-case kinds among ``doi``, ``arxiv``, ``s2`` (S2 corpus id),
    ``acl``, ``pubmed``; values are as the source printed them (the matcher normalises).
    ``authors`` are display names ("Ada Lovelace" or "Lovelace, Ada").
    """

    title: str
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    external_ids: dict[str, str] = Field(default_factory=dict)
    provider: str = Field(description="'semantic_scholar', 'openalex', 'crossref', 'arxiv' or 'bibliography'.")
    provider_id: str | None = Field(None, description="The provider's own id (S2 paperId, OpenAlex W..., ...).")


class Match(_Record):
    """The matcher's verdict on one external record.

    ``status``: ``verified`` (maps to ``corpus_id`` with ``confidence`` at or above the
    threshold), ``metadata_mismatch`` (the title or id points at ``corpus_id`` but the fields in
    ``mismatches`` disagree, e.g. ``"year: 2017 vs corpus 2019"``), or ``not_found``
    (``corpus_id`` then holds the closest candidate, if any, for the report, never as a result).
    ``title_score`` is the title similarity in [0, 1]; ``confidence`` in [0, 1].
    """

    status: MatchStatus
    corpus_id: str | None = None
    method: MatchMethod | None = None
    confidence: float = Field(0.0, ge=0.0, le=1.0)
    title_score: float = Field(0.0, ge=0.0, le=1.0)
    mismatches: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="Author differences that do not decide the "
                                                               "status: order, names the record lacks.")
    reason: str | None = None


class WebHit(_Record):
    """A verified corpus paper found through an external provider: what the ``web_search``
    operator puts in the candidate pool (``found_by`` channel ``"web"``, ``provider``)."""

    corpus_id: str
    provider: str
    rank: int = Field(description="1-based rank in the merged list (provider order, first seen).")
    score: float = Field(description="Match confidence in [0, 1]; the channel score.")
    method: MatchMethod
    confidence: float = Field(ge=0.0, le=1.0)
    provider_rank: int = Field(description="1-based rank in that provider's result list.")
    external: ExternalRecord


class UnverifiedRecord(_Record):
    """An external record that did not map to a corpus paper, with the matcher's verdict."""

    external: ExternalRecord
    match: Match


class ProviderFailure(_Record):
    """A provider that failed during a search: its name, the URL, and the error message."""

    provider: str
    url: str | None = None
    error: str


class WebSearchOutcome(_Record):
    """What ``web_search`` returns.

    ``hits`` are verified corpus papers (deduplicated, best confidence first within provider
    order); ``unverified`` the records that did not map; ``skipped_reason`` is set (and the
    lists empty) when the channel did not run, e.g. no provider enabled; ``errors`` lists
    providers that failed while the others still answered.
    """

    hits: list[WebHit] = Field(default_factory=list)
    unverified: list[UnverifiedRecord] = Field(default_factory=list)
    skipped_reason: str | None = None
    errors: list[ProviderFailure] = Field(default_factory=list)
