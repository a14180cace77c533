"""Venue normalisation for ACL-family venues and ACL Anthology id parsing. (The title rule that
marks surveys as ``Review`` is ``corpus.predicates.looks_like_review``.)

ACL Anthology ids come in two styles (https://aclanthology.org/info/ids/):

- new style ``{year}.{venue}-{volume}.{number}``, e.g. ``2020.acl-main.207`` -> 2020, ACL;
- old style ``{letter}{yy}-{number}``, e.g. ``N18-3011`` -> 2018, NAACL, where the letter names
  the venue (P=ACL, N=NAACL, D=EMNLP, E=EACL, C=COLING, Q=TACL, J=CL, W=workshop, S=SemEval/*SEM,
  K=CoNLL, L=LREC, ...) and ``yy`` < 50 means 20yy, else 19yy.
"""

from __future__ import annotations

import re
from functools import lru_cache

OLD_STYLE_LETTERS: dict[str, str] = {
    "A": "ANLP", "C": "COLING", "D": "EMNLP", "E": "EACL", "H": "HLT", "I": "IJCNLP",
    "J": "CL", "K": "CoNLL", "L": "LREC", "N": "NAACL", "P": "ACL", "Q": "TACL",
    "R": "RANLP", "S": "SemEval", "W": "WS", "Y": "PACLIC",
}
"""Old-style Anthology id letter -> normalised venue."""

NEW_STYLE_VENUES: dict[str, str] = {
    "acl": "ACL", "emnlp": "EMNLP", "naacl": "NAACL", "eacl": "EACL", "aacl": "AACL",
    "coling": "COLING", "conll": "CoNLL", "tacl": "TACL", "cl": "CL", "lrec": "LREC",
    "findings": "Findings", "semeval": "SemEval", "starsem": "*SEM", "ijcnlp": "IJCNLP",
    "ranlp": "RANLP", "paclic": "PACLIC", "hlt": "HLT", "anlp": "ANLP", "ws": "WS",
}
"""New-style Anthology venue code -> normalised venue (other codes are workshops: ``WS``)."""

# Order matters: the first pattern that matches a raw venue string wins (Findings and workshops
# before the main conference they are attached to).
VENUE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(p, re.IGNORECASE), v)
    for p, v in [
        (r"\bfindings\b", "Findings"),
        (r"\bsemeval\b|semantic evaluation", "SemEval"),
        (r"\*sem\b|joint conference on lexical and computational semantics", "*SEM"),
        (r"\bworkshops?\b|\bws\b", "WS"),
        (r"transactions of the association for computational linguistics|\btacl\b", "TACL"),
        (r"\bconll\b|computational natural language learning", "CoNLL"),
        (r"\bemnlp\b|empirical methods in natural language processing", "EMNLP"),
        (r"\bnaacl\b|north american chapter", "NAACL"),
        (r"\beacl\b|european chapter of the association", "EACL"),
        (r"\baacl\b|asia-pacific chapter", "AACL"),
        (r"\bcoling\b|international conference on computational linguistics", "COLING"),
        (r"\blrec\b|language resources and evaluation", "LREC"),
        (r"\bacl\b|annual meeting of the association for computational linguistics", "ACL"),
        (r"^\s*(the\s+)?computational linguistics\s*$|^\s*comput(\.|ational)\s+linguist(\.|ics)\s*$", "CL"),
    ]
]

_NEW_STYLE = re.compile(r"^(\d{4})\.([a-z0-9]+)-([a-z0-9]+)\.(\d+)$", re.IGNORECASE)
_OLD_STYLE = re.compile(r"^([A-Z])(\d{2})-(\d{4})$")


def parse_acl_id(acl_id: str | None) -> tuple[int | None, str | None]:
    """Year and normalised venue of an ACL Anthology id, ``(None, None)`` when it is not one.

    ``'2020.acl-main.207'`` -> ``(2020, 'ACL')``; ``'N18-3011'`` -> ``(2018, 'NAACL')``;
    ``'2020.repl4nlp-1.1'`` -> ``(2020, 'WS')``; ``'2021.findings-acl.1'`` -> ``(2021, 'Findings')``.
    """
    if not acl_id:
        return None, None
    text = acl_id.strip()
    if m := _NEW_STYLE.match(text):
        code = m.group(2).lower()
        return int(m.group(1)), NEW_STYLE_VENUES.get(code, "WS")
    if m := _OLD_STYLE.match(text):
        yy = int(m.group(2))
        return (2000 + yy if yy < 50 else 1900 + yy), OLD_STYLE_LETTERS.get(m.group(1))
    return None, None


def is_acl_id(value: str | None) -> bool:
    """True when ``value`` has the shape of an ACL Anthology id (either style)."""
    return bool(value) and bool(_NEW_STYLE.match(value.strip()) or _OLD_STYLE.match(value.strip()))


def clean(value: object) -> str | None:
    """Collapse whitespace; empty or non-string values become None."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    return text or None


def normalise_venue(raw: str | None, acl_id: str | None = None) -> str | None:
    """Normalised venue: the ACL-family name the raw string names (first match of
    ``VENUE_PATTERNS``), else the raw string with whitespace collapsed; without a raw venue,
    the venue the ACL id names; None when there is neither."""
    venue = _venue_of_raw(raw) if isinstance(raw, str) else None
    return venue if venue is not None else parse_acl_id(acl_id)[1]


@lru_cache(maxsize=1 << 16)
def _venue_of_raw(raw: str) -> str | None:
    # Dumps repeat a few thousand venue strings; caching per raw string skips the regex scan.
    text = clean(raw)
    if not text:
        return None
    for pattern, venue in VENUE_PATTERNS:
        if pattern.search(text):
            return venue
    return text


PREPRINT_SERVERS = frozenset({"arxiv", "corr", "biorxiv", "medrxiv", "chemrxiv", "psyarxiv", "socarxiv", "ssrn",
                              "research square", "preprints", "techrxiv", "eartharxiv", "osf preprints"})
"""Venues (lower case) that are preprint servers, not places of publication."""
_PREPRINT = re.compile(r"^(?:" + "|".join(sorted(map(re.escape, PREPRINT_SERVERS), key=len, reverse=True))
                       + r")\b(?!\s+(?:conference|workshop|symposium))", re.I)
_JOURNAL_PROCEEDINGS = re.compile(r"\bproceedings of the (?:national academy|royal society|ieee\s*(?:$|[,.(]))"
                                  r"|\bproc\.?\s+(?:natl|roy|r\.?\s*soc)\b", re.I)
_CONFERENCE = re.compile(r"\b(?:conferences?|conf|workshops?|symposi(?:um|a)|symp|meeting|congress|colloquium"
                         r"|proceedings|proc|summit|findings)\b|\(volume \d+: (?:long|short)", re.I)
_EDITION = re.compile(r"'\d\d\b|\b(?:19|20)\d\d\b")
"""A year in a venue name without journal words: a conference's edition ("QELS 2001", "SIGCOMM '19")."""
_JOURNAL = re.compile(r"\b(?:journal|transactions|letters|magazine|annals|bulletin|quarterly|reviews?|reports"
                      r"|research|acta|archives?|zeitschrift|tijdschrift|zhurnal|revista|revue|rivista|gazette|plos"
                      r"|frontiers|j|trans|lett|ann|phys|rev|appl|chem|biol|med|sci)\b(?!-)|\bvolume \d+,\s*(?:issue|number|no\.?)\s*\d+", re.I)


def venue_kind(venue: str | None) -> str | None:
    """``"preprint"`` (a preprint server: "arXiv", "arXiv: High Energy Physics - Theory", "bioRxiv"),
    ``"journal"`` ("Physical Review Letters", "Transactions of the Association for Computational
    Linguistics, Volume 9", "Proceedings of the National Academy of Sciences", "Computational
    Linguistics, Volume 45, Issue 1"), ``"conference"`` ("Proceedings of the 58th Annual Meeting
    of ...", "AIP Conference Proceedings", "SIGCOMM '19", "QELS 2001") or None when the name says
    neither ("Blood", "EMNLP"), by the words of the name: a preprint server's name first, then the
    journals named "Proceedings of the ...", conference words, journal words ("Phys. Rev. B 74,
    184430 (2006)" is a journal reference), and last a year alone ("QELS 2001")."""
    text = " ".join((venue or "").split())
    if not text:
        return None
    if _PREPRINT.match(text) or text.lower().removesuffix(" preprint") in PREPRINT_SERVERS:
        return "preprint"
    if _JOURNAL_PROCEEDINGS.search(text):
        return "journal"
    if _CONFERENCE.search(text):
        return "conference"
    if _JOURNAL.search(text):  # "Journal of Sound and Vibration (2018), vol. 433": a year cites the issue
        return "journal"
    return "conference" if _EDITION.search(text) else None
