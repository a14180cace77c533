"""Publication-type phrases -> ``publication_type`` values.

Values (our own small vocabulary, see :data:`PUBLICATION_TYPES`): ``survey`` (survey, review
paper, systematic/literature review, overview), ``meta-analysis``, ``tutorial``,
``empirical`` (empirical/experimental study, paper, evaluation, analysis; bare "empirical";
original or primary research, studies or articles),
``benchmark`` (benchmark paper/study), ``position`` (position paper), ``dataset`` (dataset or
resource paper), ``theoretical`` (theoretical paper/analysis), ``trial`` (randomised/controlled/
clinical trials, RCTs; only with a cue: "only RCTs", "not clinical trials"), ``journal`` (journal
papers/articles; bare "journals" only after a cue: "just journals", "no journals"),
``conference`` (conference papers, a workshop's too; bare "conferences" likewise; workshops
alone are the venue "Workshops" of ``intent.venues``). A bare "review(s)" counts only
after a cue ("no reviews", "only reviews"), beside another type, or heading the intent ("Reviews
of ...", "...: a review"), and never after a noun
such as "product", "movie" or "peer" (those are data or topics).

A cue may follow the phrase too ("surveys only on NMT", "..., reviews excluded"). Without a
negation or "only" cue, a type phrase that is the *subject matter* stays in the
topic (:func:`topic_use`): the object of a verb ("automating systematic reviews", "writing
survey papers"), the purpose after "for" ("screening studies for systematic reviews"), or the
modifier of a noun after it ("survey generation").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from litnav.core.text import stop_words
from litnav.corpus.predicates import NON_META_REVIEW
from litnav.navigator.intent.grammar import AUXILIARIES, lexicon_verb, word_class
from litnav.navigator.intent.text import BOUNDARY, REQUEST_WORDS, Workspace, list_pattern

PUBLICATION_TYPES: dict[str, tuple[str, ...]] = {
    "survey": ("Review",),
    "meta-analysis": ("MetaAnalysis",),
    "tutorial": (),
    "empirical": ("Study", "ClinicalTrial"),
    "benchmark": (),
    "position": (),
    "dataset": ("Dataset",),
    "theoretical": (),
    "trial": ("ClinicalTrial",),
    NON_META_REVIEW: (),
    "journal": ("JournalArticle",),
    "conference": ("Conference",),
}
"""Each value -> the Semantic Scholar ``publicationTypes`` that evidence it (may be empty)."""

_DOC = r"(?:\s+(?:papers?|articles?|works?|publications?))?"
_TYPES: list[tuple[str, str]] = [
    ("meta-analysis", r"meta[- ]?analy(?:sis|ses)" + _DOC),
    ("trial", r"(?:randomi[sz]ed\s+(?:controlled\s+)?(?:clinical\s+)?|controlled\s+(?:clinical\s+)?|clinical\s+)trials?"
              r"|RCTs?"),
    ("survey", r"(?:systematic|literature|scoping|narrative|critical|comprehensive)\s+reviews?" + _DOC),
    ("survey", r"(?:review|survey|overview)\s+(?:papers?|articles?)"),
    ("survey", r"surveys?(?!\s+(?:data|responses?|respondents?|questions?|instruments?|items?|participants?|methods?"
               r"|experiments?|research|designs?|weights?|samples?|waves?))"),
    ("survey", r"(?:shared[- ]tasks?\s+|task\s+)?overviews?(?:\s+papers?)?"),
    ("tutorial", r"tutorials?" + _DOC),
    ("empirical", r"(?:empirical|experimental|quantitative)\s+(?:stud(?:y|ies)|papers?|works?|evaluations?"
                  r"|analys[ie]s|investigations?|research|comparisons?)"),
    ("empirical", r"empirical(?![\w-])"),
    ("empirical", r"(?:original|primary)\s+(?:research|stud(?:y|ies)|research\s+(?:papers?|articles?)|articles?)"),
    ("benchmark", r"benchmark(?:ing)?\s+(?:papers?|stud(?:y|ies))"),
    ("position", r"(?:position|opinion)\s+(?:papers?|pieces?|articles?)"),
    ("dataset", r"(?:dataset|data\s+set|resource|corpus)\s+papers?"),
    ("dataset?", r"(?:new\s+)?(?:datasets|data\s+sets|corpora|benchmarks)"),
    ("theoretical", r"theoretical\s+(?:papers?|works?|stud(?:y|ies)|analys[ie]s)"),
    ("journal", r"journal\s+(?:papers?|articles?|publications?|versions?)"),
    ("journal?", r"journals?"),
    ("conference", r"conference\s+(?:papers?|articles?|publications?|proceedings)|proceedings\s+papers?"),
    ("conference?", r"conferences?"),
    ("theoretical?", r"theory\s+(?:papers?|works?)"),
    ("survey?", r"(?<!product\s)(?<!movie\s)(?<!customer\s)(?<!user\s)(?<!peer\s)(?<!online\s)(?<!book\s)"
                r"(?<!hotel\s)(?<!restaurant\s)(?<!code\s)(?<!app\s)reviews?"),
]
_ITEM = "|".join(f"(?:{p})" for _v, p in _TYPES)
ITEM_BOUNDED = rf"(?<![\w-])(?:{_ITEM})(?![\w-])"
NAMED_TYPE = "|".join(f"(?:{p})" for v, p in _TYPES if not v.endswith("?")) + r"(?![\w-])"
"""A publication-type phrase that names a kind of paper without a cue ("journal articles",
"survey papers"; not "reviews" or "journals"), as a regex source for lookaheads elsewhere."""
_MENTION = re.compile(
    r"(?:\b(?:a|an|the|any)\s+)?(?:\b(?P<non>non-)(?P<item>" + _ITEM + r")(?![\w-])"
    r"|(?P<list>" + list_pattern(ITEM_BOUNDED) + r"))", re.I)
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


_NOT_OBJECT_OF = REQUEST_WORDS | {"searching", "including", "excluding", "include", "exclude", "prefer", "read",
                                  "get", "give", "list", "recommend", "suggest", "retrieve", "like", "be", "being", "been",
                                  *AUXILIARIES}
_WORD_BEFORE = re.compile(r"([A-Za-z][\w-]*)\s+(?:(?:a|an|the)\s+)?$")
_FOR_BEFORE = re.compile(r"(?:^|([A-Za-z]+)\s+)for\s+(?:(?:a|an|the)\s+)?$", re.I)
_NOUN_AFTER = re.compile(r"\s+([a-z][a-z-]+)\b")


_CUE_AFTER = re.compile(r"\s+(?:(?P<only>only|exclusively|solely)|(?P<neg>excluded|not\s+included|left\s+out))\b(?=\s*(?:$|[,;:.|)]|-\s|\b(?:on|about|of|in|from|for|since|published)\b))",
                        re.I)
"""A cue after a type phrase: "surveys only on X", "journal papers exclusively", "..., reviews
excluded", "surveys excluded: X"."""


_HEAD_REVIEW = re.compile(r"^\W*(?:(?:a|an|the)\s+)?reviews?\s+(?:of|about)\b|[:,;]\s*(?:a|an)\s+reviews?\W*$", re.I)
"""A bare "review" that heads the intent ("Reviews of MT evaluation") or closes it as its kind
(": a review"): the kind of paper wanted, not a product review."""


def topic_use(text: str, start: int, end: int) -> bool:
    """True when the type phrase ``text[start:end]`` is what the intent is about rather than the
    kind of paper wanted (module docstring): after a verb or gerund that is not a request word
    ("automating", "write"; not "find", "including"), after "for" unless "looking/searching
    for", or before a noun it modifies (not a verb, adverb, "-ing"/"-ed" form or function word)."""
    before = text[:start]
    m = _WORD_BEFORE.search(before)
    if m and m.group(1).lower() not in _NOT_OBJECT_OF and lexicon_verb(m.group(1).lower()):
        return True
    m = _FOR_BEFORE.search(before)
    if m and (m.group(1) or "").lower() not in _NOT_OBJECT_OF | {"search"}:
        return True
    m = _NOUN_AFTER.match(text[end:])
    if m is None:
        return False
    word = m.group(1)
    return (word not in stop_words() and not word_class(word) and not re.search(r"(?:ing|ed)$", word)
            and not lexicon_verb(word))


_BARE_COMMA = re.compile(r"\s*,\s*(?!(?:or|and|nor)\b)", re.I)


def _mentions(ws: Workspace):
    """``(start, end, listed phrase, "non-" prefix)`` of each type mention. A list after a cue
    whose last item carries the opposite cue after it, behind a bare comma, is two mentions: in
    "excluding surveys, empirical only" the negation ends at the comma; "surveys, tutorials
    excluded" stays one list, all of it excluded."""
    text = ws.text
    for m in _MENTION.finditer(text):
        listed, non = m.group("item") or m.group("list"), bool(m.group("non"))
        bare = list(_BARE_COMMA.finditer(listed)) if m.group("list") else []
        after = _CUE_AFTER.match(text, m.end()) if bare else None
        negated, only, _cue = ws.cue_before(m.start())
        if after and ((negated and after.group("only")) or (only and after.group("neg"))):
            offset, cut = m.start("list"), bare[-1]
            yield m.start(), offset + cut.start(), listed[:cut.start()], non
            yield offset + cut.end(), m.end(), listed[cut.end():], False
            continue
        yield m.start(), m.end(), listed, non


_NEG_MODIFIED = re.compile(
    r"(?:\b(?:not|no|excluding|exclude|except(?:\s+for)?|other\s+than|rather\s+than|without|omitting|minus)\s+"
    r"|\bnon-)(?:(?:any|the)\s+)?(?P<mods>(?:[A-Za-z][\w-]*\s+){1,4})$", re.I)
"""A negation cue, then up to four plain modifier words, then the type phrase: "excluding text
generation surveys", "no NMT overviews": the kind of paper left out, its subject naming which."""
_SCOPE_AFTER = re.compile(r"\s+(?:of|on|about|regarding|covering)\s+[^,;:.()!?|]+?(?=\s*(?:$|[,;:.()!?|]|\b(?:but|and\s+not|since|before|after|published|from)\b))",
                          re.I)
"""The subject of an excluded type: "excluding surveys of text generation"."""
_TRAILING = re.compile(rf"(?:[,;|{re.escape(BOUNDARY)}]|\b(?:but|and))\s*$", re.I)
"""What precedes a negation cue that opens a trailing constraint clause (", excluding ...")."""


_QUESTIONNAIRE = frozenset(
    "household customer consumer online web telephone phone mail postal national population patient user employee "
    "student staff opinion questionnaire panel field likert health community school citizen public crowdsourced "
    "demographic".split())
"""Modifiers that make "surveys" questionnaires ("excluding household surveys"): data, not a kind of paper."""


def _modified_negation(ws: Workspace, start: int) -> int | None:
    """Where the negation cue begins when the type phrase at ``start`` is the head of a negated
    noun phrase whose modifiers are plain words (no preposition, verb, conjunction or document
    word: "excluding text generation surveys"); None otherwise. (Questionnaires, "without household
    surveys", never get here: :func:`extract_types` skips them, :data:`_QUESTIONNAIRE`.)"""
    m = _NEG_MODIFIED.search(ws.text[:start])
    if m is None:
        return None
    words = m.group("mods").split()
    if any(w.lower() in stop_words() or w.lower() in _NOT_OBJECT_OF or word_class(w.lower())
           or lexicon_verb(w.lower()) for w in words):
        return None
    return m.start()


_NOT_ONLY_BEFORE = re.compile(r"\bnot\s+$", re.I)
""""not" before an "only" cue ("not just journals", "not only surveys"): no constraint at all."""
_PUBLISHED_IN = re.compile(r"\b(?:published|appearing|appeared|presented|accepted)\s+(?:in|at)\s+(?:the\s+)?$", re.I)
"""A kind of venue named as where the papers appear ("published in journals"): asked for, as a
venue is."""
_CUED = {"survey?": "survey", "theoretical?": "theoretical", "dataset?": "dataset", "journal?": "journal",
         "conference?": "conference"}
"""Type phrases that name a kind of paper only after a cue ("no reviews", "no theory papers"),
-> the value they then name."""
_REQUEST_BEFORE = re.compile(r"^(?:\W|\b(?:find|show|list|give|me|papers?|studies|articles?|any|all|the|a|an|on"
                             r"|about|of)\b)*$", re.I)
_SUBJECT_AFTER = re.compile(r"\s+(?:of|on|about|in|for|testing|comparing|evaluating|investigating|assessing)\b", re.I)


def _asked_for(text: str, start: int, end: int) -> bool:
    """True when the trial (or dataset) phrase at ``start:end`` is the kind of paper asked for: it
    heads the request ("randomized controlled trials of statins", "find RCTs on X", "datasets for
    text summarization") or is a trailing clause of its own ("..., randomized controlled trials";
    from its cue when negated: "QA methods, not datasets"); not "screening of randomized trials"."""
    if _REQUEST_BEFORE.match(text[:start]) and _SUBJECT_AFTER.match(text, end):
        return True
    return bool(re.search(r"[,;(]\s*$", text[:start]) and re.match(r"\s*(?:$|[,;.)])", text[end:]))


def extract_types(ws: Workspace) -> list[TypeMention]:
    """Find publication-type phrases in ``ws``, consume them with their cue, return them; a
    phrase used as the topic (:func:`topic_use`) without a negation or "only" cue stays."""
    found: list[TypeMention] = []
    for start, stop, listed, non in list(_mentions(ws)):
        items = [_value(im.group(0)) for im in re.finditer(rf"(?:{_ITEM})(?![\w-])", listed, re.I)]
        if set(items) == {"survey"} and (w := _WORD_BEFORE.search(ws.text[:start])) and \
                w.group(1).lower() in _QUESTIONNAIRE and re.match(r"surveys?\b", listed, re.I):
            continue  # "household surveys": questionnaires, data or a topic
        negated, only, cue_start = ws.cue_before(start)
        if only and (neg := _NOT_ONLY_BEFORE.search(ws.text, 0, cue_start)):
            ws.consume(neg.start(), stop)  # "not just journals": journals and more, no constraint
            continue
        if not negated and not only and (published := _PUBLISHED_IN.search(ws.text, 0, start)) and all(
                v in ("journal?", "conference?") for v in items):
            only, cue_start = True, published.start()  # "published in journals"
        if (not negated and not only and not non and not all(v in _CUED for v in items)  # "excluding Yelp reviews": data
                and (modified := _modified_negation(ws, start)) is not None):
            negated, cue_start = True, modified
        negated = negated or non
        end = stop
        if after := _CUE_AFTER.match(ws.text, end):  # "surveys only", "reviews excluded"
            negated, only, end = negated or bool(after.group("neg")), only or bool(after.group("only")), after.end()
        if negated and not non and _TRAILING.search(ws.text[:cue_start]) and (scope := _SCOPE_AFTER.match(ws.text, end)):
            end = scope.end()  # a trailing clause's subject of what is left out, not the intent's topic
        if not negated and not only and topic_use(ws.text, start, stop):
            continue
        if not negated and not only and all(v == "survey?" for v in items) and not _HEAD_REVIEW.search(ws.text[:end + 12]):
            continue
        if not negated and not only and ("trial" in items or "dataset?" in items or "journal" in items
                                         or "conference" in items) and not _asked_for(ws.text, start, end):
            continue  # "screening of randomized trials", "clinical trial reports": a topic unless "only"/"not" says a kind
        if "dataset?" in items and not only and not _asked_for(ws.text, cue_start if negated else start, end):
            continue  # "methods with no datasets", "not on standard benchmarks": data, not a kind of paper
        if not negated and not only and any(v in items for v in ("theoretical?", "journal?", "conference?")):
            continue  # "graph theory papers": a topic; "sentiment in journals", "conferences on X"
        values = list(dict.fromkeys(_CUED.get(v, v) for v in items))
        ws.consume(cue_start, end, negated=negated)
        phrase = ws.original[cue_start:end].strip()
        if negated and "empirical" in values:
            # "empirical" is known only as "not a review": its negation would keep reviews alone, so
            # "excluding empirical studies" asks for theoretical work, as a preference
            found.append(TypeMention(["theoretical"], False, False, cue_start, phrase))
            values = [v for v in values if v != "empirical"]
            if not values:
                continue
        found.append(TypeMention(values, negated, only, cue_start, phrase))
    return found
