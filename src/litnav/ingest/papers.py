"""Building ``corpus.records.Paper`` from whatever a source gives: external ids normalised,
venue normalised, year and venue derived from an ACL id when the record lacks them, and, when the
source has no types, the ``Review`` publication type derived from the title and ``JournalArticle``
from a journal name."""

from __future__ import annotations

from datetime import date
from typing import Any

from litnav.core.ids import normalise_external_id
from litnav.corpus.predicates import abstract_review_cue, abstract_trial_cue, looks_like_review
from litnav.corpus.records import Author, Document, Paper
from litnav.ingest.text import title_text
from litnav.ingest.venues import clean, normalise_venue, parse_acl_id, venue_kind

JOURNAL_ARTICLE = "JournalArticle"
"""Semantic Scholar's publication type of a journal article (what the exports read as ``article``)."""

ID_ALIASES: dict[str, str] = {
    "doi": "doi", "arxiv": "arxiv", "arxivid": "arxiv", "arxiv_id": "arxiv", "acl": "acl",
    "aclid": "acl", "acl_id": "acl", "pubmed": "pubmed", "pubmed_id": "pubmed", "pmid": "pubmed",
    "pubmedcentral": "pmc", "pmc": "pmc", "pmc_id": "pmc", "pmcid": "pmc", "mag": "mag",
    "mag_id": "mag", "corpusid": "s2", "s2": "s2", "s2_id": "s2",
}
"""Source spellings of external-id kinds (lower-cased) -> ``EXTERNAL_ID_KINDS``."""


def external_ids(raw: dict[str, Any] | None, **extra: Any) -> dict[str, str]:
    """Map a source's id dictionary (any spelling of the keys) plus keyword ids onto the known
    kinds; None/empty values and unknown kinds are dropped."""
    out: dict[str, str] = {}
    for key, value in list((raw or {}).items()) + list(extra.items()):
        kind = ID_ALIASES.get(key.lower())
        if kind and value not in (None, ""):
            if isinstance(value, list):
                value = value[0] if value else None
                if value is None:
                    continue
            out[kind] = normalise_external_id(kind, str(value))
    return out


def parse_date(value: str | None) -> date | None:
    """An ISO date (``2020-07-05``); partial or malformed dates give None."""
    if not value:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def make_paper(
    corpus_id: str,
    title: str,
    *,
    authors: list[Author] | list[dict[str, Any]] | None = None,
    year: int | None = None,
    publication_date: date | None = None,
    venue_raw: str | None = None,
    journal: str | None = None,
    publication_types: list[str] | None = None,
    fields_of_study: list[str] | None = None,
    ids: dict[str, str] | None = None,
    citation_count: int | None = None,
    reference_count: int | None = None,
    is_open_access: bool | None = None,
    source_file: str | None = None,
    source_line: int | None = None,
) -> Paper:
    """A ``Paper`` with the derivations of the ingest contract applied.

    - year: the given year, else the publication date's year, else the ACL id's year;
    - publication_date: dropped when it lies more than a year from the given year (a placeholder
      such as ``0001-01-01`` would otherwise decide every date constraint against the year);
    - venue: ``normalise_venue(venue_raw, acl id)``;
    - title: whitespace collapsed, a trailing footnote mark dropped (``text.title_text``);
    - publication_types: the given list, else ``["Review"]`` when ``looks_like_review(title)`` (a build
      also types a paper by its abstract: :func:`typed_by_abstract`), with ``"JournalArticle"``
      added when the source names a ``journal`` that ``venues.venue_kind`` does not read as a
      conference or a preprint server (S2ORC's ``journal`` field also holds "2016 IEEE
      International Conference on ..." and "arXiv: ...").

    ``authors`` may be ``Author`` records or ``{"name", "author_id"}`` dicts (cheaper: pydantic
    builds them in its compiled validator). The arguments come from a reader's validated input
    model; the ``Paper`` validation here is a compiled one-pass check (faster than
    ``model_construct``) that raises ``pydantic.ValidationError`` only on a reader bug.
    """
    ids = dict(ids or {})
    if year is not None and publication_date is not None and abs(publication_date.year - year) > 1:
        publication_date = None
    if year is None and publication_date is not None:
        year = publication_date.year
    if year is None:
        year = parse_acl_id(ids.get("acl"))[0]
    types = list(publication_types or [])
    if not types:
        types = ["Review"] if looks_like_review(title) else []
        if clean(journal) and venue_kind(journal) not in ("conference", "preprint"):
            types.append(JOURNAL_ARTICLE)
    return Paper.model_validate(dict(
        corpus_id=corpus_id,
        title=title_text(title),
        authors=authors or [],
        year=year,
        publication_date=publication_date,
        venue=normalise_venue(venue_raw, ids.get("acl")),
        venue_raw=clean(venue_raw),
        publication_types=types,
        fields_of_study=list(dict.fromkeys(fields_of_study or [])),
        external_ids=ids,
        citation_count=citation_count,
        reference_count=reference_count,
        is_open_access=is_open_access,
        source_file=source_file,
        source_line=source_line,
    ))


def typed_by_abstract(doc: Document) -> Document:
    """``doc`` typed by its abstract when its source gave no publication types (or only
    ``JournalArticle``, which a review or a trial also is): ``["Review"]``
    when it says it is a review or survey (``corpus.predicates.abstract_review_cue``: "This review
    summarizes ...", "Here, we review ..."), as :func:`make_paper` types one by its title;
    ``["ClinicalTrial"]`` when it reports a randomised trial of its own
    (``corpus.predicates.abstract_trial_cue``: "DESIGN Randomized, blinded, placebo-controlled
    trial."); else ``doc`` itself."""
    given = doc.paper.publication_types
    if set(given) - {JOURNAL_ARTICLE}:
        return doc
    types = (["Review"] if abstract_review_cue(doc.abstract)
             else ["ClinicalTrial"] if abstract_trial_cue(doc.abstract) else None)
    if types is None:
        return doc
    return doc.model_copy(update={"paper": doc.paper.model_copy(update={"publication_types": types + given})})
