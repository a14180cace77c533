"""Metadata checkpoints are decided exactly: a table of predicates x papers -> pass/fail."""

from __future__ import annotations

from datetime import date

import pytest

from litnav.core.records import MetadataPredicate as P
from litnav.corpus.records import Author, Paper
from litnav.scorer.metadata import check, surname


def paper(**kw) -> Paper:
    return Paper(corpus_id="1", title=kw.pop("title", "Neural parsing of scientific text"), **kw)


Y = dict(field="year", start=date(2019, 1, 1), end=date(2022, 12, 31))
CASES = [
    # year: only a year -> any day of that year in range
    (P(**Y), paper(year=2021), True, "year 2021 is within 2019-01-01 to 2022-12-31"),
    (P(**Y), paper(year=2019), True, "within"),
    (P(**Y), paper(year=2018), False, "year 2018 is outside"),
    (P(field="year", start=date(2025, 3, 1), end=date(2025, 10, 31)), paper(year=2025), True, "within"),
    (P(field="year", end=date(2025, 10, 31)), paper(year=2025, publication_date=date(2025, 11, 2)), False,
     "publication date 2025-11-02 is after 2025-10-31"),
    (P(field="year", start=date(2020, 1, 1)), paper(year=2030), True, "year 2030 is on or after 2020-01-01"),
    (P(**Y), paper(), False, "year unknown"),
    (P(**Y, negate=True), paper(year=2018), True, "negated constraint satisfied"),
    (P(**Y, negate=True), paper(year=2020), False, "negated constraint violated"),
    (P(**Y, negate=True), paper(), False, "year unknown"),
    # venue: equality with the normalised venue, or contained in the raw venue
    (P(field="venue", values=["acl"]), paper(venue="ACL"), True, "venue 'ACL' matches 'acl'"),
    (P(field="venue", values=["EMNLP"]), paper(venue="ACL"), False, "none of"),
    (P(field="venue", values=["EMNLP"]), paper(venue_raw="Proceedings of EMNLP 2020"), True, "contains"),
    (P(field="venue", values=["ACL"], negate=True), paper(venue="ACL"), False, "violated"),
    (P(field="venue", values=["ACL"], negate=True), paper(venue="NAACL"), True, "satisfied"),
    (P(field="venue", values=["ACL"]), paper(), False, "venue unknown"),
    # publication type
    (P(field="publication_type", values=["survey"]), paper(publication_types=["Review"]), True, "'Review'"),
    (P(field="publication_type", values=["survey"]), paper(title="A Survey of Parsing"), True, "title says"),
    (P(field="publication_type", values=["survey"]), paper(publication_types=["JournalArticle"]), False, "not a review"),
    (P(field="publication_type", values=["survey"], negate=True), paper(title="An Overview of NER"), False, "violated"),
    (P(field="publication_type", values=["empirical"]), paper(), True, "empirical"),
    (P(field="publication_type", values=["empirical"]), paper(title="Parsing: a review"), False, "a review"),
    (P(field="publication_type", values=["conference"]), paper(publication_types=["Conference"]), True, "'Conference'"),
    # journal / conference: the types, else the kind of venue its name says; a preprint is neither
    (P(field="publication_type", values=["journal"]), paper(venue="TACL", venue_raw="Transactions of the "
                                                            "Association for Computational Linguistics"), True, "Transactions"),
    (P(field="publication_type", values=["journal"]), paper(venue="ACL", venue_raw="Proceedings of the 58th Annual "
                                                            "Meeting of the Association for Computational Linguistics"),
     False, "not a journal"),
    (P(field="publication_type", values=["journal"]), paper(venue="CL", venue_raw="Computational Linguistics"), True,
     "journal paper"),
    (P(field="publication_type", values=["conference"]), paper(venue_raw="Actes de la 28e Conférence sur le TALN"),
     True, "Conférence"),
    (P(field="publication_type", values=["journal"]), paper(venue="arXiv"), False, "not a journal"),
    (P(field="publication_type", values=["journal"], negate=True), paper(venue="arXiv"), True, "satisfied"),
    (P(field="publication_type", values=["journal"]), paper(venue="EMNLP"), False, "unknown"),  # check: unknown fails
    (P(field="publication_type", values=["journal"]), paper(publication_types=["JournalArticle"]), True, "JournalArticle"),
    # "Proceedings" names no meeting by itself: PNAS is no conference; an unknown kind passes "no conference papers"
    (P(field="publication_type", values=["conference"]), paper(venue_raw="Proceedings of the National Academy of "
                                                               "Sciences"), False, "unknown"),
    (P(field="publication_type", values=["conference"], negate=True),
     paper(venue="LiLT", venue_raw="Linguistic Issues in Language Technology"), True, "not known to be"),
    (P(field="publication_type", values=["conference"]), paper(venue_raw="Proceedings of EMNLP 2020"), True, "2020"),
    # author: surname, case and accent folded; "Surname, First" accepted
    (P(field="author", values=["Christopher Manning"]), paper(authors=[Author(name="C. D. Manning")]), True, "Manning"),
    (P(field="author", values=["Müller, Anna"]), paper(authors=[Author(name="J. MULLER")]), True, "matches"),
    (P(field="author", values=["Manning"]), paper(authors=[Author(name="Dan Jurafsky")]), False, "no author"),
    (P(field="author", values=["Manning"], negate=True), paper(authors=[Author(name="Dan Jurafsky")]), True, "satisfied"),
    (P(field="author", values=["Manning"]), paper(), False, "authors unknown"),
]


@pytest.mark.parametrize(("predicate", "p", "expected", "why"), CASES)
def test_metadata_predicates(predicate, p, expected, why):
    ok, rationale = check(predicate, p)
    assert ok is expected
    assert why in rationale


def test_surname_forms():
    assert surname("Manning, Christopher D.") == "manning"
    assert surname("  José  Ñúñez ") == "nunez"
    assert surname("") == ""
