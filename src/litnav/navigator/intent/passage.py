"""Passage mode: an intent that reads as a paper's own text (an abstract or some of its sentences
pasted as a query by example, as in CSFCube-style faceted query-by-document benchmarks) states no
search constraints. Its "recent work has shown", "in 2017", "by the Transformer" and "without
retraining" describe the paper, so none of them becomes a date, venue, author, publication type
or exclusion checkpoint; the whole text is the query.

A passage is told from a search request by length and voice (:func:`is_passage`): research voice
("we propose", "our method", "in this paper") in 25 words or more, or three sentences and 60
words or more. A long request in one sentence ("graph neural networks for ..., since 2020, not
surveys") keeps its constraints. The judged intents of ``bench/intents`` (at most 22 words, two
sentences) are all requests; the 240 title + abstract queries of ``bench/citations.py`` are all
passages.
"""

from __future__ import annotations

import re

PASSAGE_VOICE_WORDS = 25
"""Words from which research voice makes a text a passage."""
PASSAGE_SENTENCES, PASSAGE_SENTENCE_WORDS = 3, 60
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
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z(\[]|\s*$)")


def is_passage(text: str) -> bool:
    """True when ``text`` reads as a paper's own text rather than a search request (module doc:
    research voice and >= :data:`PASSAGE_VOICE_WORDS` words, or >= :data:`PASSAGE_SENTENCES`
    sentences and >= :data:`PASSAGE_SENTENCE_WORDS` words)."""
    words = len(text.split())
    if words >= PASSAGE_SENTENCE_WORDS and len(_SENTENCE_END.findall(text)) >= PASSAGE_SENTENCES:
        return True
    return words >= PASSAGE_VOICE_WORDS and _VOICE.search(text) is not None
