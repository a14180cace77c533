"""Exact evaluation of metadata predicates against tier-1 metadata.

Shared by the librarians' metadata filter and the scorer's metadata checkpoints, so that the two
can never disagree. Each test returns ``(holds, rationale)`` where ``holds`` is ``None`` when the
paper lacks the field (the rationale says so).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from corpus.records import Paper
from litnav.records import MetadataPredicate

SURVEY_TYPES = {"review", "survey", "systematicreview", "metaanalysis"}
SURVEY_TITLE = re.compile(
    r"\b(survey|review|overview|meta-analysis|systematic literature|state of the art|tutorial)\b", re.I
)
POSITION_TITLE = re.compile(r"\b(position paper|perspective|opinion|commentary|editorial)\b", re.I)


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    return re.sub(r"[^a-z0-9]+", " ", "".join(c for c in text if not unicodedata.combining(c)).lower()).strip()


def is_survey(paper: Paper) -> tuple[bool, str]:
    """Whether the paper is a survey/review: its publication types say Review, or its title
    says survey/review/overview/meta-analysis/tutorial. Returns the reason."""
    types = {re.sub(r"[^a-z]", "", t.lower()) for t in paper.publication_types}
    if types & SURVEY_TYPES:
        return True, f"publication_types {paper.publication_types} include a review type"
    m = SURVEY_TITLE.search(paper.title or "")
    if m:
        return True, f"title contains {m.group(0)!r}"
    return False, "neither publication types nor title mark a survey"


def publication_kind(paper: Paper) -> tuple[str, str]:
    """Classify into ``survey``, ``position`` or ``empirical`` with the reason."""
    survey, why = is_survey(paper)
    if survey:
        return "survey", why
    m = POSITION_TITLE.search(paper.title or "")
    if m:
        return "position", f"title contains {m.group(0)!r}"
    return "empirical", why


def _year_holds(pred: MetadataPredicate, paper: Paper) -> tuple[bool | None, str]:
    lo, hi = pred.start or date.min, pred.end or date.max
    span = f"{pred.start or '…'}..{pred.end or '…'}"
    if paper.publication_date is not None:
        ok = lo <= paper.publication_date <= hi
        return ok, f"publication_date {paper.publication_date} is {'within' if ok else 'outside'} {span}"
    if paper.year is None:
        return None, "year unknown"
    ok = date(paper.year, 1, 1) <= hi and date(paper.year, 12, 31) >= lo
    return ok, f"year {paper.year} is {'within' if ok else 'outside'} {span}"


def _venue_holds(pred: MetadataPredicate, paper: Paper) -> tuple[bool | None, str]:
    if not paper.venue and not paper.venue_raw:
        return None, "venue unknown"
    venue, raw = _fold(paper.venue or ""), _fold(paper.venue_raw or "")
    for wanted in pred.values:
        w = _fold(wanted)
        if w and (w == venue or w == raw or (len(w) > 3 and re.search(rf"\b{re.escape(w)}\b", raw))):
            return True, f"venue {paper.venue or paper.venue_raw!r} matches {wanted!r}"
    return False, f"venue {paper.venue or paper.venue_raw!r} is not among {pred.values}"


def _type_holds(pred: MetadataPredicate, paper: Paper) -> tuple[bool | None, str]:
    kind, why = publication_kind(paper)
    wanted = {v.lower() for v in pred.values}
    wanted = {"survey" if v in {"review", "overview", "meta-analysis"} else v for v in wanted}
    return kind in wanted, f"publication type is {kind} ({why})"


def _author_holds(pred: MetadataPredicate, paper: Paper) -> tuple[bool | None, str]:
    if not paper.authors:
        return None, "authors unknown"
    names = [_fold(a.name) for a in paper.authors]
    for wanted in pred.values:
        w = _fold(wanted)
        surname = w.split()[-1] if w else ""
        for name, author in zip(names, paper.authors):
            if w == name or (surname and name.split() and name.split()[-1] == surname
                             and (len(w.split()) == 1 or name[0] == w[0])):
                return True, f"author {author.name!r} matches {wanted!r}"
    return False, f"no author among {[a.name for a in paper.authors][:5]} matches {pred.values}"


_TESTS = {"year": _year_holds, "venue": _venue_holds, "publication_type": _type_holds, "author": _author_holds}


def evaluate(pred: MetadataPredicate, paper: Paper) -> tuple[bool | None, str]:
    """Test ``pred`` on ``paper``; ``negate`` inverts a known outcome (unknown stays unknown).

    Returns ``(holds, rationale)``; the rationale names the field and the paper's value.
    """
    holds, why = _TESTS[pred.field](pred, paper)
    if pred.negate and holds is not None:
        return (not holds), f"required NOT: {why}"
    return holds, why
