"""Boilerplate that is never evidence: section road-maps, URLs, acknowledgements, funding and
copyright lines, code/data availability notes, a journal's back-matter template, and fragments
of fewer than two words ("2.", "Methods.", a lone formula line).

Used by the evidence locator (a chunk made only of boilerplate, or from an acknowledgements or
references section, is not located) and by quote selection (a boilerplate sentence is never
quoted). The rules are cue patterns written for scholarly English; a sentence matches when any
pattern occurs in it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from litnav.core.text import sentence_spans

_PATTERNS = [
    # section road-maps
    r"\b(this|the|our)\s+(paper|article|work|thesis|report|manuscript)\s+is\s+(organi[sz]ed|structured|arranged)\b",
    r"\b(the\s+)?(rest|remainder|reminder)\s+of\s+(this|the)\s+(paper|article|work|section|thesis)\b",
    r"\b(is|are)\s+organi[sz]ed\s+as\s+follows\b",
    r"^\s*(in\s+)?sections?\s+\d+(\.\d+)*(\s*(,|and|&|-|to)\s*\d+(\.\d+)*)*\s*,?\s+(we|describes?|presents?|introduces?"
    r"|discuss(es)?|concludes?|reviews?|gives?|shows?|reports?|details?|explains?|outlines?)\b",
    r"\bwe\s+(finish|conclude|close|end)\s+(with|by)\b[^.;]*\bsections?\s+\d+",
    r"^\s*([\w-]+\s+){0,4}(is|are)\s+(shown|presented|reported|given|described|discussed|detailed|provided|summari[sz]ed)"
    r"\s+in\s+sections?\s+\d+(\.\d+)*\s*\.?\s*$",
    r"\bfinally,?\s+section\s+\d+\s+(concludes|summari[sz]es)\b",
    r"\bwe\s+conclude\s+in\s+section\s+\d+\b",
    # URLs and availability notes
    r"https?://|\bwww\.[a-z0-9-]+\.|\bgithub\.com\b|\bgitlab\.com\b|\bzenodo\.org\b|\bdoi\.org/",
    r"\b(code|data|dataset|software|models?|implementation|resources?)\s+(is|are|will\s+be)\s+(publicly\s+|freely\s+)?(available|released)\s+at\b",
    # acknowledgements, funding, copyright
    r"\bwe\s+(would\s+like\s+to\s+)?(thank|acknowledge)\b",
    r"\b(are|is)\s+grateful\s+to\b|\bour\s+thanks\s+(go|goes)\s+to\b",
    r"\b(this|the)\s+(work|research|project|study)\s+(was|is|has\s+been)\s+(partially\s+|partly\s+|in\s+part\s+)?"
    r"(supported|funded|sponsored)\s+by\b",
    r"\b(grant|contract)\s+(no\.?|number|agreement)\s*[:#]?\s*[A-Z0-9-]{3,}",
    r"\bcopyright\s+(©|\(c\)|\d{4})|©\s*\d{4}|\ball\s+rights\s+reserved\b",
    r"\blicensed\s+under\s+(a\s+)?creative\s+commons\b",
    # a journal's back-matter template ("Any methods, additional references, Nature Research reporting summaries ...")
    r"\bany\s+methods,\s+additional\s+references\b|\bnature\s+(research|portfolio)\s+reporting\s+summar(y|ies)\b"
    r"|\bpeer\s+review\s+information;\s+details\s+of\b",
]
_BOILERPLATE = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
_NON_EVIDENCE_SECTIONS = re.compile(
    r"^\s*(\d+(\.\d+)*\.?\s*)?(acknowledge?ments?|funding|references|bibliography|"
    r"author\s+contributions?(\s+statements?)?|(declarations?\s+of\s+)?competing\s+interests?|"
    r"conflicts?\s+of\s+interests?|data\s+availability|code\s+availability|online\s+content|"
    r"reviewer\s*#?\s*\d*|(replies|reply|responses?)\s+to\s+(the\s+)?(reviewers?|referees?)(\s+comments)?)"
    r"\s*[.:]?\s*$",
    re.IGNORECASE,
)


_WORD = re.compile(r"[^\W\d_]{2,}")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def is_fragment(sentence: str) -> bool:
    """True when ``sentence`` holds fewer than two words of two letters or more (a CJK character
    counts as half a word): a list number, a heading alone ("Methods."), a line of a formula."""
    words = len(_WORD.findall(sentence))
    if words >= 2:
        return False
    return words + len(_CJK.findall(sentence)) / 2 < 2


def is_boilerplate(sentence: str) -> bool:
    """True when ``sentence`` is a road-map, URL, acknowledgement, funding, copyright,
    availability or back-matter line, or a fragment (:func:`is_fragment`; see the module
    docstring); False for an empty string."""
    return bool(sentence.strip()) and (_BOILERPLATE.search(sentence) is not None or is_fragment(sentence))


def non_evidence_section(section: str | None) -> bool:
    """True for sections that hold no findings: acknowledgements, funding, references,
    author contributions, competing interests, data/code availability, a journal's "Online
    content" back matter, and a response to reviewers ("Reviewer 3", "Response to reviewers")."""
    return bool(section) and _NON_EVIDENCE_SECTIONS.match(section) is not None


def content_spans(text: str) -> list[tuple[int, int]]:
    """The sentence spans of ``text`` (``core.text.sentence_spans``) that are not boilerplate.
    Cached by text (LRU): the same chunks are checked again every round and query."""
    return list(_content_spans(text))


@lru_cache(maxsize=65536)
def _content_spans(text: str) -> tuple[tuple[int, int], ...]:
    return tuple((s, e) for s, e in sentence_spans(text) if not is_boilerplate(text[s:e]))
