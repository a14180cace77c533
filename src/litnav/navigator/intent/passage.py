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


PROSE_WORDS, PROSE_VOICE_WORDS = 12, 8
"""Words from which a declarative sentence, or research voice, makes a text a paper's prose
(:func:`is_prose`)."""
_CONSTRAINT_TAIL = re.compile(
    r",\s*(?:(?:since|from|between|before|after|until|published|in\s+the\s+(?:last|past))\b|(?:19|20)\d\d\b"
    r"|(?:not|no|excluding|except|other\s+than|rather\s+than|but\s+not|without|only)\b"
    r"(?=[^,;()\[\]]*\b(?:(?:19|20)\d\d|surveys?|reviews?|overviews?|tutorials?|preprints?|workshops?|meta-analys[ie]s)\b))"
    r"[^,;()\[\]]*$", re.IGNORECASE)
"""A short constraint ending a request: ", since 2019", ", not surveys", ", excluding 2020"."""
_TAIL_WORDS = 7
"""Words of such a constraint at most, its cue included (", published after 2020 in ACL")."""
_DOCUMENT_WORD = re.compile(r"\b(?:papers?|articles?|publications?|preprints?|manuscripts?)\b", re.IGNORECASE)
_OPENER = re.compile(r"^\W*(?:what|which|how|why|when|where|who|whose|are\s+there|is\s+there|does|do|can|could)\b",
                     re.IGNORECASE)
_RELATIVE = re.compile(r"\b(?:where|that|which|who|whose|whom|when|whereby)\b", re.IGNORECASE)
_PRONOUN_CLAUSE = re.compile(r"\b(?:we|they)\s+(?:\w+ly\s+|also\s+|then\s+)?(?P<v>[a-z]{3,})\b", re.IGNORECASE)


def asks_for_papers(text: str) -> bool:
    """True when ``text`` holds words that ask for papers (:data:`_REQUEST`: "I want", "find
    papers", "not surveys"), a publication date ("published after 2020") aside, which a claim may
    carry (``claims``): a request, not a claim."""
    return any(not m.group(0).lower().startswith("published") for m in _REQUEST.finditer(text))


def is_prose(text: str) -> bool:
    """True when ``text`` reads as sentences of a paper (a CSFCube-style facet: one or two
    sentences of an abstract) though too short for :func:`is_passage`. It must end with a full
    stop, hold no request words (:data:`_REQUEST`), no question mark and no leading question word,
    and have either research voice ("we propose", "we equip X with Y"; :data:`PROSE_VOICE_WORDS`
    words or more) or, in :data:`PROSE_WORDS` words or more without a document word ("papers")
    and not in title case, a sentence whose main clause has a finite verb (``claims.main_verb``:
    "Graphons are a far richer class of graph models ..."; not a verb after a relative word:
    "Work where LLMs are evaluated ..."), and not end in a short date or publication-type
    constraint after a comma (", since 2019", ", not surveys"), which asks for papers. Its
    "recent progress", "in 2001", "without retraining" then describe the paper, not the search.
    The parser tries the claim reading (``claims.is_claim``) first."""
    from litnav.navigator.intent.claims import main_verb
    from litnav.navigator.intent.grammar import lexicon_verb
    from litnav.navigator.intent.text import title_cased

    words = len(text.split())
    if (words < PROSE_VOICE_WORDS or "?" in text or asks_for_papers(text) or _OPENER.search(text)
            or not text.rstrip().endswith((".", "!"))):
        return False
    if _VOICE.search(text) or any(lexicon_verb(m.group("v").lower()) for m in _PRONOUN_CLAUSE.finditer(text)):
        return True
    if words < PROSE_WORDS or _DOCUMENT_WORD.search(text) or title_cased(text):
        return False  # "Overview papers that summarise ...", a pasted title
    tail = _CONSTRAINT_TAIL.search(text.rstrip(". "))
    if tail and len(tail.group(0).split()) <= _TAIL_WORDS:
        return False
    sentences = [s for s in re.split(r"(?<=[.!;:])\s+", text) if s.strip()]
    return any((v := main_verb(s)) is not None and not _RELATIVE.search(s[:v.start()]) for s in sentences)


_MARKUP = re.compile(r"https?:|www\.|\w\.(?:com|org|net|io|edu)\b|\w/\w+/|\$|\\|[{}^_]")


def is_markup(phrase: str) -> bool:
    """True when ``phrase`` holds a URL, a path of two or more slashes or TeX (``$128 \\times 128$``, ``{\\em MT-net}``):
    pieces of a pasted abstract that are not concepts a paper can be judged on."""
    return _MARKUP.search(phrase) is not None
