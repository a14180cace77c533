"""Audit a reference list against the corpus: which entries are real corpus records, which
are not in the corpus (possibly fabricated), and which disagree on year or authors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from litnav.core.settings import WebSettings

from .matcher import CorpusLookup, Matcher
from .records import Match, MatchStatus
from .references import RefFormat, read_references
from .search import matcher_config


class VerifiedReference(BaseModel):
    """One audited entry: the reference as written, the verdict, and the corpus record it
    matched (``corpus_*`` fields, empty when not found)."""

    model_config = ConfigDict(extra="forbid")

    key: str
    line: int | None = None
    title: str
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    status: MatchStatus
    corpus_id: str | None = None
    corpus_title: str | None = None
    corpus_year: int | None = None
    method: str | None = None
    confidence: float = 0.0
    mismatches: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list, description="Author differences that do not decide the status.")
    unchecked: list[str] = Field(default_factory=list, description="Fields the reference gives but the "
                                                                   "matched corpus record lacks: not compared.")
    reason: str | None = None


class VerifyReport(BaseModel):
    """The audit of one reference file: every entry in file order and the totals per status."""

    model_config = ConfigDict(extra="forbid")

    file: str
    format: RefFormat
    references: list[VerifiedReference]
    totals: dict[str, int]


def verify_references(path: str | Path, corpus: CorpusLookup, settings: WebSettings | None = None) -> VerifyReport:
    """Read ``path`` (see ``read_references``) and match every entry to ``corpus``.

    A ``not_found`` entry keeps no corpus record (its closest candidate is only described in
    ``reason``). Raises ``ReferenceParseError`` for unreadable files.
    """
    settings = settings or WebSettings()
    fmt, refs = read_references(path)
    matcher = Matcher.for_corpus(corpus, matcher_config(settings))
    matches: list[Match] = [matcher.match(r.record) for r in refs]
    shown = {m.corpus_id for m in matches if m.status != "not_found" and m.corpus_id}
    papers = corpus.papers(sorted(shown)) if shown else {}
    rows = []
    for ref, m in zip(refs, matches):
        paper = papers.get(m.corpus_id) if m.status != "not_found" and m.corpus_id else None
        rows.append(VerifiedReference(
            key=ref.key, line=ref.line, title=ref.record.title, year=ref.record.year,
            authors=ref.record.authors, status=m.status,
            corpus_id=paper.corpus_id if paper else None,
            corpus_title=paper.title if paper else None,
            corpus_year=paper.year if paper else None,
            method=m.method if paper else None, confidence=m.confidence if paper else 0.0,
            mismatches=m.mismatches if paper else [], notes=m.notes if paper else [], reason=m.reason,
            unchecked=[field for field, given, held in (("authors", ref.record.authors, paper.authors if paper else 1),
                                                         ("year", ref.record.year, paper.year if paper else 1))
                       if given and not held] + [f"{u} (not a year)" for u in ref.unreadable],
        ))
    counts = Counter(r.status for r in rows)
    totals = {"references": len(rows), **{s: counts.get(s, 0) for s in ("verified", "metadata_mismatch", "not_found")}}
    return VerifyReport(file=str(path), format=fmt, references=rows, totals=totals)
