"""Publication-type phrases -> ``publication_type`` values.

Values (our own small vocabulary, see :data:`PUBLICATION_TYPES`): ``survey`` (survey, review
paper, systematic/literature review, overview), ``meta-analysis``, ``tutorial``,
``empirical`` (empirical/experimental study, paper, evaluation, analysis; bare "empirical"),
``benchmark`` (benchmark paper/study), ``position`` (position paper), ``dataset`` (dataset or
resource paper), ``theoretical`` (theoretical paper/analysis). A bare "review(s)" counts only
after a cue ("no reviews", "only reviews") or beside another type, and never after a noun
such as "product", "movie" or "peer" (those are data or topics).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from litnav.navigator.intent.text import Workspace, list_pattern

PUBLICATION_TYPES: dict[str, tuple[str, ...]] = {
    "survey": ("Review",),
    "meta-analysis": ("MetaAnalysis",),
    "tutorial": (),
    "empirical": ("Study", "ClinicalTrial"),
    "benchmark": (),
    "position": (),
    "dataset": ("Dataset",),
    "theoretical": (),
}
"""Each value -> the Semantic Scholar ``publicationTypes`` that evidence it (may be empty)."""

_DOC = r"(?:\s+(?:papers?|articles?|works?|publications?))?"
_TYPES: list[tuple[str, str]] = [
    ("meta-analysis", r"meta[- ]?analy(?:sis|ses)" + _DOC),
    ("survey", r"(?:systematic|literature|scoping|narrative|critical|comprehensive)\s+reviews?" + _DOC),
    ("survey", r"(?:review|survey|overview)\s+(?:papers?|articles?)"),
    ("survey", r"surveys?(?!\s+(?:data|responses?|respondents?|questions?|instruments?|items?|participants?|methods?))"),
    ("survey", r"(?:shared[- ]tasks?\s+|task\s+)?overviews?(?:\s+papers?)?"),
    ("tutorial", r"tutorials?" + _DOC),
    ("empirical", r"(?:empirical|experimental|quantitative)\s+(?:stud(?:y|ies)|papers?|works?|evaluations?"
                  r"|analys[ie]s|investigations?|research|comparisons?)"),
    ("empirical", r"empirical(?![\w-])"),
    ("benchmark", r"benchmark(?:ing)?\s+(?:papers?|stud(?:y|ies))"),
    ("position", r"position\s+papers?"),
    ("dataset", r"(?:dataset|data\s+set|resource|corpus)\s+papers?"),
    ("theoretical", r"theoretical\s+(?:papers?|works?|stud(?:y|ies)|analys[ie]s)"),
    ("survey?", r"(?<!product\s)(?<!movie\s)(?<!customer\s)(?<!user\s)(?<!peer\s)(?<!online\s)(?<!book\s)"
                r"(?<!hotel\s)(?<!restaurant\s)(?<!code\s)(?<!app\s)reviews?"),
]
_ITEM = "|".join(f"(?:{p})" for _v, p in _TYPES)
_ITEM_BOUNDED = rf"(?<![\w-])(?:{_ITEM})(?![\w-])"
_MENTION = re.compile(
    r"(?:\b(?:a|an|the|any)\s+)?(?:\b(?P<non>non-)(?P<item>" + _ITEM + r")(?![\w-])"
    r"|(?P<list>" + list_pattern(_ITEM_BOUNDED) + r"))", re.I)
_COMPILED = [(v, re.compile(rf"(?:{p})", re.I)) for v, p in _TYPES]


@dataclass
class TypeMention:
    """A publication-type list: values, negation, "only", offset and phrase."""

    values: list[str]
    negated: bool
    only: bool
    position: int
    phrase: str


def _value(item: str) -> str:
    for value, pattern in _COMPILED:
        if pattern.fullmatch(item):
            return value
    raise AssertionError(item)


def extract_types(ws: Workspace) -> list[TypeMention]:
    """Find publication-type phrases in ``ws``, consume them with their cue, return them."""
    found: list[TypeMention] = []
    for m in list(_MENTION.finditer(ws.text)):
        listed = m.group("item") or m.group("list")
        items = [_value(im.group(0)) for im in re.finditer(rf"(?:{_ITEM})(?![\w-])", listed, re.I)]
        negated, only, cue_start = ws.cue_before(m.start())
        negated = negated or bool(m.group("non"))
        if not negated and not only and all(v == "survey?" for v in items):
            continue
        values = list(dict.fromkeys("survey" if v == "survey?" else v for v in items))
        ws.consume(cue_start, m.end())
        found.append(TypeMention(values, negated, only, cue_start, ws.original[cue_start:m.end()].strip()))
    return found
