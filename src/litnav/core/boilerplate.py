"""Boilerplate that is never evidence: section road-maps, URLs, acknowledgements, funding and
copyright lines, author notes, code/data availability notes, a journal's back-matter template, and fragments
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

_SECTION = r"sect(ions?|s?\.)\s*\d+(\.\d+)*"
_ROAD_MAPS = [
    r"\b(this|the|our)\s+(paper|article|work|thesis|report|manuscript)\s+is\s+(organi[sz]ed|structured|arranged)\b",
    r"\b(the\s+)?(rest|remainder|reminder)\s+of\s+(this|the)\s+(paper|article|work|section|thesis)\b",
    r"\b(is|are)\s+organi[sz]ed\s+as\s+follows\b",
    r"\b(outline|structure|organi[sz]ation)\s+of\s+(the|this|our)\s+(paper|article|thesis)\s+is\b",
    r"^\s*(in\s+)?" + _SECTION + r"(\s*(,|and|&|-|to)\s*\d+(\.\d+)*)*\s*,?\s+(we|describes?|presents?|introduces?"
    r"|discuss(es)?|concludes?|reviews?|gives?|shows?|reports?|details?|explains?|outlines?|consists?\s+of|contains?"
    r"|is\s+devoted\s+to|covers?|provides?)\b",
    r"\b" + _SECTION + r"\s+(concludes|summari[sz]es)\s+(the|this|our)\s+(paper|article|work)\b",
    r"\bwe\s+(finish|conclude|close|end)\s+(with|by|in)\b[^.;]*\b" + _SECTION,
    r"\bconclusions?\s+(are|is)\s+(drawn|given|presented)\s+in\s+" + _SECTION,
    r"^\s*([\w-]+\s+){0,4}(is|are)\s+(shown|presented|reported|given|described|discussed|detailed|provided|summari[sz]ed)"
    r"\s+in\s+" + _SECTION + r"\s*\.?\s*$",
    r"\bfinally,?\s+" + _SECTION + r"\s+(concludes|summari[sz]es)\b",
    r"\bwe\s+conclude\s+in\s+" + _SECTION + r"\b",
    r"(\(\s*" + _SECTION + r"\s*\)[^()]*){2,}",  # "We describe our experiments (Section 4) and conclude (Section 5)."
]
"""Section road-maps. A sentence that also states a finding ("Section 5 shows that parsing with
LSTMs improves accuracy by 3%") is no road-map (:data:`_FINDING`)."""
_FINDING = re.compile(r"\bthat\b|\b(improv|outperform|increas|decreas|reduc|faster|slower|better|worse)\w*|\d+(\.\d+)?\s*%",
                      re.IGNORECASE)
_PATTERNS = [
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
    # author notes ("This work was done while the first author was visiting X", "Equal contribution")
    r"\b(work|research)\s+((was|has\s+been)\s+)?(done|carried\s+out|performed|conducted)\s+(while|when|during)\s+"
    r"(the\s+)?((first|second|last|corresponding)\s+)?(authors?|(an?\s+)?intern(ship)?s?|I|he|she|they|we|visiting)\b",
    r"^[\W\d]*(equal\s+contributions?|(these|both|the\s+first\s+two)\s+authors\s+contributed\s+equally"
    r"|corresponding\s+authors?)\b",
    # a journal's back-matter template ("Any methods, additional references, Nature Research reporting summaries ...")
    r"\bany\s+methods,\s+additional\s+references\b|\bnature\s+(research|portfolio)\s+reporting\s+summar(y|ies)\b"
    r"|\bpeer\s+review\s+information;\s+details\s+of\b",
]
_BOILERPLATE = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.IGNORECASE)
_ROAD_MAP = re.compile("|".join(f"(?:{p})" for p in _ROAD_MAPS), re.IGNORECASE)
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
    return bool(sentence.strip()) and (_BOILERPLATE.search(sentence) is not None or is_fragment(sentence) or (
        _ROAD_MAP.search(sentence) is not None and _FINDING.search(sentence) is None))


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
