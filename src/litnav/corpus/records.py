"""Corpus-side records: what the corpus stores and returns.

These are the records shared below the query boundary. Every package may import them;
they import nothing from litnav's upper layers.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field

EXTERNAL_ID_KINDS = ("doi", "arxiv", "acl", "pubmed", "pmc", "mag", "s2")
"""Known external-id kinds, lower-case keys of :attr:`Paper.external_ids`."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Author(_Record):
    """One author: display name and, when the source has one, its S2 author id."""

    name: str
    author_id: str | None = None


class Paper(_Record):
    """Tier-1 metadata of one paper.

    ``corpus_id`` is a string: an S2 corpus id (``"18980380"``) where the source has one,
    else the source's own stable id (e.g. an ACL Anthology id ``"2020.acl-main.207"``).
    """

    corpus_id: str = Field(description="Primary key across all tiers.")
    title: str
    authors: list[Author] = Field(default_factory=list)
    year: int | None = None
    publication_date: date | None = None
    venue: str | None = Field(None, description="Normalised venue, e.g. 'ACL', 'EMNLP'.")
    venue_raw: str | None = Field(None, description="Venue string as the source printed it.")
    publication_types: list[str] = Field(
        default_factory=list, description="e.g. JournalArticle, Conference, Review."
    )
    fields_of_study: list[str] = Field(default_factory=list)
    external_ids: dict[str, str] = Field(
        default_factory=dict, description=f"Keys among {EXTERNAL_ID_KINDS}."
    )
    citation_count: int | None = None
    reference_count: int | None = None
    is_open_access: bool | None = None
    source_file: str | None = Field(None, description="Provenance: input file path.")
    source_line: int | None = Field(None, description="Provenance: 1-based line (or record) number.")


class Paragraph(_Record):
    """One paragraph of a paper's text before chunking: its section and its text."""

    section: str
    text: str


class BibReference(_Record):
    """A reference from a paper's bibliography.

    ``cited_id`` is set when the source links it to a corpus id; otherwise ``title``/``year``/
    ``authors`` are kept so the corpus can resolve it by normalised title.
    ``contexts`` are the citing sentences of the paper that cite this entry.
    """

    cited_id: str | None = None
    title: str | None = None
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    contexts: list[str] = Field(default_factory=list)


class Document(_Record):
    """Everything ingest knows about one paper, handed to the corpus writer in one piece.

    ``paragraphs`` hold the body text (not the abstract); ``abstract`` is kept apart.
    """

    paper: Paper
    abstract: str | None = None
    paragraphs: list[Paragraph] = Field(default_factory=list)
    references: list[BibReference] = Field(default_factory=list)


class Citation(_Record):
    """A citation edge ``citing_id -> cited_id`` with the citing sentences and intents."""

    citing_id: str
    cited_id: str
    contexts: list[str] = Field(default_factory=list)
    intents: list[str] = Field(default_factory=list)
    method: str = Field("source", description="'source' (linked by the dump) or 'title' (resolved).")


class Chunk(_Record):
    """A passage-level evidence chunk.

    ``char_start``/``char_end`` are offsets into the paper's full text as returned by
    ``Corpus.full_text(corpus_id)``, so ``full_text[char_start:char_end] == text``.
    ``section`` is ``"Abstract"`` for abstract sentences.
    """

    chunk_id: str = Field(description="'{corpus_id}:{ordinal}'.")
    corpus_id: str
    section: str
    paragraph: int = Field(description="0-based paragraph index within the full text.")
    char_start: int
    char_end: int
    text: str


class Reject(_Record):
    """An input record that could not be ingested, with where it came from and why."""

    source_file: str
    line: int
    reason: str


class Hit(_Record):
    """One search hit: a corpus id and the channel's score (higher is better)."""

    corpus_id: str
    score: float
