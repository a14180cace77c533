"""Year and date ranges in an intent -> inclusive ``(start, end)`` dates.

Phrases understood (case-insensitive): ranges ("between 2023 and October 2025", "2023 to Oct
2025", "2019-2021", "2019-21", "from 2018 to 2020"), open starts ("since 2020", "from 2020
onwards", "2020 or later", "from 2019 to present", "2021 until now", "2019-today", "in or after
2019", "since last year", "after 2018" -- exclusive, so 2019-01-01 -- "post-2010"), open ends
("before 2015" -- exclusive, so 2014-12-31 -- "pre-2000", "until 2019", "up to March 2020",
"in or before 2015", "published by 2015"; a year something is due by, "targets by 2030", is the topic's), single periods ("in 2021", "published March 2020", "2021-06-15"), decades
("the 2010s", "published 2010s", "early 1990s", "'90s"; "since the 1990s" from 1990, "before
the 2000s" up to 1999) and periods relative to ``today`` ("in the last five years", "past 3
years", "no older than 5 years", "past decade", "last year", "this year", "recent").

Relative periods: "last/past N years|months" is the exact span ``[today - N, today]``; "last
year" without an article is the previous calendar year. "recent", "recently", "latest",
"newest" and "recent years" mean the last :data:`RECENT_YEARS` years, as a *soft* constraint
(weight :data:`RECENT_WEIGHT`) that is dropped when the intent also gives explicit dates; they
count back from the searched corpus's newest paper when that is older than ``today`` (a corpus
that ends in 2022 has its recent papers in 2020-2022, none in the three years before today).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from litnav.navigator.intent.pubtypes import ITEM_BOUNDED
from litnav.navigator.intent.text import Workspace
from litnav.navigator.intent.venues import names_a_venue

RECENT_YEARS = 3
RECENT_WEIGHT = 0.5

_MONTHS = {
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
    "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9,
    "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12,
    "december": 12,
}
NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "a": 1,
    "couple of": 2, "a couple of": 2, "few": 3, "a few": 3,
}
_MONTH_RE = "(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_YEAR = r"(?:1[89]\d\d|20\d\d)"
YEAR_PATTERN = _YEAR
"""The years read as dates (1800-2099), as a regex fragment."""
_ORD = r"(?:st|nd|rd|th)?"
_DATE_BODY = (
    rf"(?:{_YEAR}-(?:0?[1-9]|1[0-2])-\d{{1,2}}"
    rf"|(?:\d{{1,2}}{_ORD}\s+(?:of\s+)?)?(?:{_MONTH_RE}\s+(?:\d{{1,2}}{_ORD},?\s+)?(?:of\s+)?)?{_YEAR})"
)
_END_GUARD = r"(?![\d'])(?!s\b)(?!-[A-Za-z])(?!\.\d)"
D = rf"(?:{_DATE_BODY}){_END_GUARD}"
# a date standing on its own must not be glued to a name ("CoNLL-2003", "SemEval-2016", "GPT-2")
DG = rf"(?<![\w.])(?<![A-Za-z]-)(?:{_DATE_BODY}){_END_GUARD}"
_NUM = r"(?:\d{1,2}|" + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + ")"
_PUB = r"(?:\b(?:published|appeared|appearing|released|written|dated|papers?|articles?|work)\s+)?"
_IN = r"(?:\b(?:in|during|within|over|of|for)\s+)?(?:the\s+)?(?:(?:years?|period)\s+)?"
_ONWARDS = r"(?:onwards?\b|on\b(?=\s*(?:$|[,.;:)?!]|(?:and|but)\b)))"
"""'2019 on' means 'from 2019 onwards' only where the clause ends: '2019 on dialogue' is a topic."""

_NOW = r"(?:the\s+)?(?:present(?:\s+day)?|now|today|date|nowadays|current\s+(?:day|year))\b"
"""The open end of "2019 to present", "from 2021 until now", "2019-today"."""

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("start", re.compile(
        rf"\b{_PUB}{_IN}(?:(?:between|from|since)\s+)?(?<![\w.])(?P<a>{_DATE_BODY})(?![\d'])"
        rf"\s*(?:-|to|until|till|through|thru|and|up\s+(?:to|until))\s*{_NOW}", re.I)),
    ("since_last_year", re.compile(rf"\b{_PUB}(?:since|from)\s+last\s+year\b", re.I)),
    ("newer_than", re.compile(
        rf"\b{_PUB}(?:(?:no|not)\s+older\s+than|(?:less|younger)\s+than)\s+(?P<n>{_NUM})[\s-]+(?P<unit>years?|months?)"
        rf"(?:\s+old)?\b", re.I)),
    ("range", re.compile(
        rf"\b{_PUB}{_IN}(?:between|from)\s+(?P<a>{D})\s*(?:and|to|until|till|through|thru|-)\s*(?P<b>{D})", re.I)),
    ("range", re.compile(rf"{_PUB}{_IN}(?P<a>{DG})\s*(?:-|to|until|till|through|thru)\s*(?P<b>{D})", re.I)),
    ("range2", re.compile(rf"{_PUB}{_IN}(?P<a>{DG})\s*-\s*(?P<b>\d\d)(?![\d'])(?!s\b)", re.I)),
    ("start", re.compile(
        rf"\b{_PUB}(?P<op>since|starting(?:\s+(?:in|from))?|beginning(?:\s+(?:in|from))?|(?:in|on)\s+or\s+after|after|post-?"
        rf"|later\s+than|newer\s+than|no\s+earlier\s+than|not\s+before)\s*(?P<a>{D})"
        rf"(?:\s+(?:{_ONWARDS}|and\s+(?:later|after|beyond|newer)\b|or\s+(?:later|newer|after)\b))?", re.I)),
    ("start", re.compile(
        rf"{_PUB}(?:\b(?:from|in)\s+)?(?P<a>{DG})(?:\s+(?:{_ONWARDS}|and\s+(?:later|after|beyond|newer)\b"
        rf"|or\s+(?:later|newer|after)\b)|\+)", re.I)),
    ("end", re.compile(
        rf"\b{_PUB}(?P<op>(?:in|on)\s+or\s+before|before|pre-?|prior\s+to|earlier\s+than|older\s+than|no\s+later\s+than|not\s+after"
        rf"|until|till|up\s+(?:to|until)|through|thru)\s*(?P<a>{D})", re.I)),
    ("end", re.compile(rf"(?:\b(?:published|appeared|appearing|released|written|dated)\s+|(?<=,\s))(?P<op>by)\s+(?P<a>{D})",
                       re.I)),  # "published by 2015", "..., by 2015": no later than; not "targets by 2030"
    ("end", re.compile(rf"{_PUB}{_IN}(?P<a>{DG})\s+(?:or|and)\s+(?:earlier|before|older)\b", re.I)),
    ("decade", re.compile(
        rf"{_PUB}(?:\b(?P<op>since|from|after|before|until|till|up\s+to|prior\s+to)\s+)?{_IN}"
        rf"(?:(?P<part>early|mid|late)[- ]?)?(?P<dec>(?:1[89]|20)\d0|'\d0|(?<![\w'])\d0)s\b", re.I)),
    ("relative", re.compile(
        rf"\b{_PUB}(?:(?:in|within|over|during|from|for)\s+)?(?P<the>the\s+)?(?P<which>last|past|previous|recent)\s+"
        rf"(?:(?P<n>{_NUM})[\s-]+)?(?P<unit>years?|decades?|months?)\b", re.I)),
    ("this_year", re.compile(rf"\b{_PUB}(?:(?:in|from|during)\s+)?this\s+year\b", re.I)),
    ("recent", re.compile(r"\b(?:(?:most|more)\s+)?(?:recent(?:ly)?|latest|newest)\b(?:\s+years\b)?", re.I)),
    # "targets by 2030", "predicting outcomes by 2016": a year something is due by is the topic's, not a date
    ("single", re.compile(rf"{_PUB}(?:\b(?:in|during|from|of|for)\s+)?(?:the\s+year\s+)?(?<!\bby\s)(?P<a>{DG})", re.I)),
]

_START_EXCLUSIVE = {"after", "post", "post-", "later than", "newer than"}
_END_EXCLUSIVE = {"before", "pre", "pre-", "prior to", "earlier than", "older than"}


@dataclass
class DateConstraint:
    """One date phrase: inclusive ``start``/``end`` (either may be None = open), whether it
    was negated, its offset in the intent, its weight and the phrase itself."""

    start: date | None
    end: date | None
    negated: bool
    position: int
    weight: float
    phrase: str


def _token_range(token: str) -> tuple[date, date]:
    """The first and last day a date token covers: "2023", "Oct 2025", "15 March 2020",
    "March 15, 2020", "2021-06-15"."""
    token = token.strip()
    iso = re.fullmatch(r"(\d{4})-(\d{1,2})-(\d{1,2})", token)
    if iso:
        y, m, d = map(int, iso.groups())
        try:
            day = date(y, m, d)
            return day, day
        except ValueError:
            return date(y, m, 1), date(y, m, calendar.monthrange(y, m)[1])
    year = int(re.findall(r"\d{4}", token)[-1])
    month_m = re.search(_MONTH_RE, token, re.I)
    if not month_m:
        return date(year, 1, 1), date(year, 12, 31)
    month = _MONTHS[month_m.group(0).rstrip(".").lower()]
    last = calendar.monthrange(year, month)[1]
    day_m = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b", token.replace(str(year), ""))
    if day_m and 1 <= int(day_m.group(1)) <= last:
        day = date(year, month, int(day_m.group(1)))
        return day, day
    return date(year, month, 1), date(year, month, last)


def _minus_months(today: date, months: int) -> date:
    y, m = divmod(today.year * 12 + today.month - 1 - months, 12)
    m += 1
    return date(y, m, min(today.day, calendar.monthrange(y, m)[1]))


def _shift(day: date, days: int) -> date:
    return date.fromordinal(day.toordinal() + days)


def _recent(today: date, end: date) -> tuple[date, date, float]:
    """The soft "recent" window: the :data:`RECENT_YEARS` years up to ``today``, or up to and
    including the corpus's newest date ``end`` when that is earlier."""
    start = _minus_months(end, 12 * RECENT_YEARS)
    return (start if end == today else start + timedelta(days=1)), end, RECENT_WEIGHT


def _resolve(kind: str, m: re.Match[str], today: date, recent_end: date) -> tuple[date | None, date | None, float] | None:
    """Turn one match into ``(start, end, weight)``; None when the match is not a date."""
    if kind == "range":
        a, b = _token_range(m.group("a")), _token_range(m.group("b"))
        if a[0] > b[1]:  # "from 2030 to 2010": the period between them, not two years and a gap
            a, b = b, a
        return a[0], b[1], 1.0
    if kind == "range2":
        a = _token_range(m.group("a"))
        end_year = a[0].year // 100 * 100 + int(m.group("b"))
        if end_year <= a[0].year:
            return None
        return a[0], date(end_year, 12, 31), 1.0
    if kind == "start":
        a = _token_range(m.group("a"))
        op = re.sub(r"\s+", " ", (m.groupdict().get("op") or "").lower())
        return (_shift(a[1], 1) if op in _START_EXCLUSIVE else a[0]), None, 1.0
    if kind == "end":
        a = _token_range(m.group("a"))
        op = re.sub(r"\s+", " ", (m.groupdict().get("op") or "").lower())
        return None, (_shift(a[0], -1) if op in _END_EXCLUSIVE else a[1]), 1.0
    if kind == "decade":
        dec = m.group("dec").lstrip("'")
        if len(dec) == 2:
            dec = ("19" if int(dec) >= 30 else "20") + dec
        first = int(dec)
        lo, hi = {"early": (0, 3), "mid": (3, 6), "late": (6, 9)}.get((m.group("part") or "").lower(), (0, 9))
        start, end = date(first + lo, 1, 1), date(first + hi, 12, 31)
        op = re.sub(r"\s+", " ", (m.group("op") or "").lower())
        if op in ("since", "from"):
            return start, None, 1.0  # "since the 1990s"
        if op == "after":
            return _shift(end, 1), None, 1.0
        if op in ("before", "prior to"):
            return None, _shift(start, -1), 1.0  # "before the 2000s": up to 1999
        if op:
            return None, end, 1.0  # "until the 1990s"
        return start, end, 1.0
    if kind == "relative":
        unit = m.group("unit").lower().rstrip("s")
        raw_n = (m.group("n") or "").lower()
        if m.group("which").lower() == "recent" and not raw_n:
            return _recent(today, recent_end)
        n = int(raw_n) if raw_n.isdigit() else NUMBER_WORDS.get(raw_n, 1)
        if n <= 0:
            return None
        if not raw_n and unit == "year" and not m.group("the") and m.group("which").lower() in ("last", "previous"):
            return date(today.year - 1, 1, 1), date(today.year - 1, 12, 31), 1.0
        months = n * {"year": 12, "decade": 120, "month": 1}[unit]
        start = _minus_months(today, months)
        if unit != "month" and start != date(start.year, 1, 1):
            start = date(start.year + 1, 1, 1)  # whole years: "the last five years" in Dec 2026 is 2022-2026
        return start, today, 1.0
    if kind == "since_last_year":
        return date(today.year - 1, 1, 1), None, 1.0
    if kind == "newer_than":
        n = int(m.group("n")) if m.group("n").isdigit() else NUMBER_WORDS.get(m.group("n").lower(), 1)
        months = n * (12 if m.group("unit").lower().startswith("year") else 1)
        start = _minus_months(today, months)
        if months % 12 == 0 and start != date(start.year, 1, 1):
            start = date(start.year + 1, 1, 1)  # whole years, as "the last N years"
        return start, today, 1.0
    if kind == "this_year":
        return date(today.year, 1, 1), today, 1.0
    if kind == "recent":
        return _recent(today, recent_end)
    if kind == "single":
        a = _token_range(m.group("a"))
        return a[0], a[1], 1.0
    raise AssertionError(kind)


_EXPLICIT_KINDS = {"range", "start", "end", "since_last_year", "newer_than"}
_PUB_CUE = re.compile(r"\s*(?:published|appeared|appearing|released|written|dated|papers?|articles?|work)\b", re.I)


_NAMED_AFTER = re.compile(r"\s+(?:[A-Z][\w-]*|(?:data(?:sets?)?|task|track|corpus|benchmark|challenge|test\s+sets?"
                          r"|shared\s+task|competition|edition)\b)")


_DOCS_BEFORE = re.compile(r"\b(?:papers?|articles?|stud(?:y|ies)|works?|publications?|proceedings)\s*$", re.I)


def _publication_parenthesis(text: str, open_at: int) -> bool:
    """True when the parenthesis opening at ``open_at`` dates publications rather than naming a
    cited work: it follows a document word ("NER papers (2020)"), or it follows a lower-case word
    or a document word and holds a venue and years and nothing else ("named entity recognition
    (EMNLP 2020)", "NER papers (ACL, 2019)"); not "(Vaswani et al., 2017)", "ELMo (2018)", and not
    after a name: "Chen and Manning (EMNLP 2014)", "BERT (NAACL 2019)" cite a work."""
    close = text.find(")", open_at)
    inner = text[open_at + 1:close if close >= 0 else len(text)]
    if _DOCS_BEFORE.search(text[:open_at]) and re.fullmatch(rf"\s*{_YEAR}\s*", inner):
        return True
    if not (re.search(r"\b[a-z][\w-]*\s*$", text[:open_at]) or _DOCS_BEFORE.search(text[:open_at])):
        return False  # after a name: "Chen and Manning (EMNLP 2014)", "BERT (NAACL 2019)" cite a work
    rest = " ".join(re.sub(rf"\b{_YEAR}\b|\|", " ", inner).split()).strip(" ,;")
    return bool(rest) and names_a_venue(f"({rest})")


def _names_something(text: str, m: re.Match[str]) -> bool:
    """A bare year that is part of a name, not a publication date: inside parentheses (a
    citation, "(Vaswani et al., 2017)", "ELMo (2018)"), after "the" before a noun ("the 2016 US
    presidential election", "the 2008 financial crisis"), after a name that follows "on",
    "using", "with", "over", "of" or "via" ("results on CoNLL 2003"), or before a capitalised
    word or a dataset word ("WMT 2014 English-German", "TREC 2019 Deep Learning track",
    "SemEval 2016 Task 4")."""
    before, after = text[:m.start("a")], text[m.end():]
    if before.count("(") > before.count(")"):
        return not _publication_parenthesis(text, before.rindex("("))
    if re.search(r"\b(?:on|using|with|over|of|via)\s+(?:the\s+)?[A-Z][\w-]*\s+$", before):
        return True  # "results on CoNLL 2003", "trained using WMT 2014": a data set's name
    if re.search(r"\bthe\s+$", before, re.I) and re.match(r"\s+[a-z]", after) and not re.match(r"\s+(?:and|or|to)\b", after):
        return True
    return bool(_NAMED_AFTER.match(after))


_GLUED_YEAR = re.compile(r"\b(?P<venue>[A-Z][A-Za-z]*[A-Z][A-Za-z]*)\s?['’](?P<yy>\d{2})\b")


def unglue_years(text: str, today: date) -> str:
    """A two-digit year written onto a venue acronym after an apostrophe, as conference names
    are ("ACL'19", "EMNLP '20", "NAACL’22"), becomes a separate year ("ACL 2019"), so the venue and
    its year are read as a venue and a year: the latest such year not after next year ("'99" ->
    1999, "'20" -> 2020). A hyphenated four-digit year stays: "CoNLL-2003" and "SemEval-2016"
    name datasets and tasks more often than venues."""
    def sub(m: re.Match[str]) -> str:
        yy = int(m.group("yy"))
        return f"{m.group('venue')} {(2000 if 2000 + yy <= today.year + 1 else 1900) + yy}"
    return _GLUED_YEAR.sub(sub, text)


def extract_dates(ws: Workspace, today: date, explicit_only: bool = False,
                  newest: date | None = None) -> list[DateConstraint]:
    """Find every date phrase in ``ws``, consume it (with its negation cue) and return the
    constraints in order of appearance. A negated one-sided range becomes its positive
    complement ("not before 2015" = since 2015); a negated bounded range stays negated.

    ``explicit_only`` (claim mode): keep only ranges ("between 2019 and 2021", "2019-2021"),
    open starts/ends ("since 2019", "from 2020 onwards", "before 2015") and phrases led by a
    publication word ("published in 2020"); a bare "in 2001", a decade or "recent" describes
    the claim's study, not the publication date, and is left in the text. ``newest`` is the
    searched corpus's newest publication date ("recent" counts back from it when it is before
    ``today``; explicit spans such as "the last five years" keep counting from ``today``)."""
    found: list[DateConstraint] = []
    for kind, pattern in _PATTERNS:
        for m in list(pattern.finditer(ws.text)):
            if explicit_only and kind not in _EXPLICIT_KINDS and not _PUB_CUE.match(m.group(0)):
                continue
            if ws.text[m.start():m.end()] != ws.original[m.start():m.end()]:
                continue  # overlaps something consumed by an earlier pattern in this loop
            if kind == "single" and _names_something(ws.text, m):
                continue
            resolved = _resolve(kind, m, today, min(today, newest or today))
            if resolved is None:
                continue
            start, end, weight = resolved
            negated, _only, cue = ws.cue_before(m.start())
            if re.search(ITEM_BOUNDED, ws.text[cue:m.start()], re.I):
                # "only journal articles since 2013": the cue and the kind of paper are the type's
                negated, cue = False, m.start()
            if not negated and found and found[-1].negated and ws.continues_consumed(m.start()):
                negated = True  # "excluding 2017 and 2018": the cue covers the whole list
            if negated and (start is None) != (end is None):
                start, end, negated = (_shift(end, 1), None, False) if start is None else (None, _shift(start, -1), False)
            phrase = ws.original[cue:m.end()].strip()
            ws.consume(cue, m.end())
            found.append(DateConstraint(start, end, negated, cue, weight, phrase))
    found.sort(key=lambda c: c.position)
    return found
