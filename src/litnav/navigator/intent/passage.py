"""Passage mode: an intent that reads as a paper's own text (an abstract or some of its sentences
pasted as a query by example, as in CSFCube-style faceted query-by-document benchmarks) states no
search constraints. Its "recent work has shown", "in 2017", "by the Transformer" and "without
retraining" describe the paper, so none of them becomes a date, venue, author, publication type
or exclusion checkpoint; the whole text is the query.

A passage is told from a search request by length and voice (:func:`is_passage`): research voice
("we propose", "our method", "in this paper") in 25 words or more, or three sentences and 40
words or more — unless the text asks for something (:data:`_REQUEST`: "find papers", "I want",
"please", "published after 2020", "excluding surveys", "papers on ..."), which a paper's own text
does not: "We study protein folding in our lab and want papers on AlphaFold published after 2020"
is a request and keeps its constraints, and so does a long request in one sentence ("graph
neural networks for ..., since 2020, not surveys"). The judged intents of ``bench/intents`` (at
most 22 words, two sentences) are all requests; the 240 title + abstract queries of
``bench/citations.py`` are all passages.
"""

from __future__ import annotations

import re

PASSAGE_VOICE_WORDS = 25
"""Words from which research voice makes a text a passage."""
PASSAGE_SENTENCES, PASSAGE_SENTENCE_WORDS = 3, 40
"""Sentences and words from which a text is a passage whatever its voice."""

_VOICE = re.compile(
    r"\b(?:we|our\s+(?:\w+\s+)?(?:paper|work|study))\s+(?:\w+ly\s+|also\s+|then\s+|further\s+)?"
    r"(?:propos|present|introduc|show|demonstrat|develop|describ|stud|investigat|find|found|report|evaluat|"
    r"conduct|analy[sz]|explor|examin|provid|design|deriv|prov|achiev|appl|train|consider|focus|address|"
    r"argu|extend|compar|releas|observ|establish|obtain|formulat|leverag|identif|perform)\w*\b"
    r"|\bour\s+(?:\w+\s+)?(?:method|approach|model|results?|framework|algorithm|experiments?|analysis|"
    r"findings|system|code|technique|contributions?|proposed)\b"
    r"|\b(?:in\s+)?this\s+(?:paper|work|study|article|letter|thesis|manuscript)\b",
    re.IGNORECASE)
_DOCS = r"(?:papers?|works?|articles?|publications?|studies|literature|references?|citations?)"
_REQUEST = re.compile(
    r"^\W*" + _DOCS + r"\s+(?:on|about|that|which|citing|cited|similar|published|from|like|extending|building)\b|"
    r"\b(?:please(?!\s+(?:check|see|visit|refer|find|contact|cite|note))|thanks?|thank\s+you|"
    r"i\s+(?:want|need|am\s+looking|'m\s+looking|would\s+like|wish)|"
    r"(?:we|i)\s+(?:\w+\s+)?(?:want|need|seek|would\s+like)\s+(?:to\s+\w+\s+)?(?:\w+\s+)?" + _DOCS + r"|"
    r"looking\s+for|show\s+me|give\s+me|"
    r"(?:find|list|retrieve|collect|gather)\s+(?:me\s+)?(?:all\s+|some\s+|any\s+|the\s+|more\s+|other\s+|"
    r"related\s+|relevant\s+|recent\s+)*(?:" + _DOCS + r"|work|research|surveys?|reviews?)|"
    r"only\s+" + _DOCS + r"|"
    r"published\s+(?:after|before|since|between)|"
    r"exclud(?:e|ing)\s+(?:all\s+|any\s+)?(?:surveys?|reviews?|tutorials?|position|workshop|preprints?|anything)|"
    r"(?:no|not)\s+(?:surveys?|reviews?|tutorials?))\b",
    re.IGNORECASE)
"""Words that ask for papers: a text holding any of them is a request, whatever its voice."""
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(\[]|\s*$)")


def is_passage(text: str) -> bool:
    """True when ``text`` reads as a paper's own text rather than a search request (module doc:
    no request words, and research voice with >= :data:`PASSAGE_VOICE_WORDS` words or >=
    :data:`PASSAGE_SENTENCES` sentences with >= :data:`PASSAGE_SENTENCE_WORDS` words)."""
    words = len(text.split())
    if words < min(PASSAGE_VOICE_WORDS, PASSAGE_SENTENCE_WORDS) or _REQUEST.search(text):
        return False
    if words >= PASSAGE_SENTENCE_WORDS and len(_SENTENCE_END.findall(text)) >= PASSAGE_SENTENCES:
        return True
    return words >= PASSAGE_VOICE_WORDS and _VOICE.search(text) is not None


_MARKUP = re.compile(r"https?:|www\.|\w\.(?:com|org|net|io|edu)\b|\w/\w+/|\$|\\|[{}^_]")


def is_markup(phrase: str) -> bool:
    """True when ``phrase`` holds a URL, a path of two or more slashes or TeX (``$128 \\times 128$``, ``{\\em MT-net}``):
    pieces of a pasted abstract that are not concepts a paper can be judged on."""
    return _MARKUP.search(phrase) is not None
