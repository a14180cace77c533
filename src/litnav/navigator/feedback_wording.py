"""Feedback as researchers type it, restated in the words ``navigator.feedback`` reads.

A trial of 375 phrasings of 66 wishes found the casual ones misread, some inverted: "drop the
workshop papers" became a filter *for* workshop papers (the verb was dropped and the rest read as
a constraint), "get rid of surveys" a preference for surveys, "no more surveys" an exclusion of
the word "more", "the second and fourth are wrong" banned only #4, and "remove #3 pls" was
refused. :func:`plain_feedback` rewrites such wordings before the feedback is parsed:

- politeness ("please", "pls", "thx") is dropped; "dont", "isn't", "aren't" are spelled out;
- "no more X" is "no X" ("no more than" is kept);
- a verb of removal ("drop", "remove", "hide", "filter out", "get rid of", "discard") before
  anything but a result, a checkpoint or a constraint is "not": "drop anything before 2010" is
  "not anything before 2010", "hide LREC papers" is "not LREC papers";
- a result named by its ordinal ("the second", "the 3rd one") is "#N" where it is a result
  (followed by "one"/"paper"/"result", a list word, or "is"/"are"): "second language
  acquisition" and "first author" stay;
- "the first two", "the top three" are "#1-2", "#1-3", and "the last three" of ten "#8-10";
- "I only want X", "I just want X" is "only X"; "dont want X", "stop showing X" is "not X";
- "five results" is "5 results"; "newer work", "more recent stuff" is "recent papers";
- a list of things left out is one exclusion each ("exclude speech, Chinese").
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz, process

from litnav.navigator.intent.grammar import english_word
from litnav.navigator.intent.wishes import RESULT_NUMBER

_POLITE = re.compile(r"\s*\b(?:please|pls|plz|thx|thanks|thank\s+you|kindly)\b[.!]*", re.I)
_SPELLED = [(re.compile(r"\bdont\b", re.I), "don't"), (re.compile(r"\bisn'?t\b", re.I), "is not"),
            (re.compile(r"\baren'?t\b", re.I), "are not"), (re.compile(r"\bdoesn'?t\b", re.I), "does not")]
_NO_MORE = re.compile(r"\bno\s+more\s+(?!than\b)", re.I)
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
            "ninth": 9, "tenth": 10}
"""Ordinal words -> rank (``navigator.feedback`` adds "top", "best" and "last")."""
_RESULT_NAMED = r"(?:" + RESULT_NUMBER + r"|(?:the\s+)?(?:top|" + "|".join(ORDINALS) + r"|last|bottom)\b)"
RULE_FIELDS = r"year|date|venue|type|publication\s+type|authors?|surveys?|reviews?|(?:19|20)\d\d"
"""What a constraint named by its field is called ("the year filter", "the survey filter", "the 2010 limit")."""
RULE_FIELD = f"(?:{RULE_FIELDS})"
_RESULT_OR_RULE = (r"(?:" + _RESULT_NAMED + r"|(?:the\s+)?(?:checkpoints?\b|[a-z]\d+\b"
                   r"|(?:" + RULE_FIELD + r"|[\w-]+)\s+(?:constraint|filter|requirement|restriction|limit|cut-?off)\b))")
_REMOVE = re.compile(r"\b(?:drop|remove|hide|filter\s+out|get\s+rid\s+of|discard|eliminate|take\s+out)\s+(?!"
                     + _RESULT_OR_RULE + r")", re.I)
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(?P<n>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d{1,3}(?:st|nd|rd|th))"
    r"(?:\s+(?P<head>one|paper|result|hit)s?\b|(?=\s*(?:,|\band\b|\bor\b|\bnor\b|\bis\b|\bare\b|\bwas\b|\bwere\b"
    r"|\bseems?\b|\blooks?\b|$)))", re.I)
_NO_WANT = re.compile(r"(?:^|(?<=[,;.])|\band\s|\bbut\s)\s*(?:do\s*n't|do\s+not|stop\s+showing)\s+(?:want|need|show|include"
                      r"|showing)?\s*(?=\w)", re.I)
"""A wish without its subject ("dont want reviews", "stop showing speech papers")."""
_REMOVE_RESULT = re.compile(r"\b(?:get\s+rid\s+of|hide|eliminate|take\s+out|filter\s+out)\s+(?=" + _RESULT_NAMED + ")",
                            re.I)
"""A verb of removal before a result ("get rid of number 3", "get rid of the last one"): "remove"."""
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50}
_COUNTED = re.compile(r"\b(?P<w>" + "|".join(_NUMBER_WORDS) + r")\s+(?=results?\b|papers?\b)", re.I)
_NEWER = re.compile(r"\b(?:prefer\s+)?(?:newer|more\s+recent)\s+(?:work|papers|stuff|studies|ones|research)\b", re.I)
_ONLY_WANT = re.compile(r"\b(?:I|we)\s+(?:only|just)\s+(?:want|need)\s+", re.I)
_COMMAND = (r"(?:show|give|return|list|pin|keep|ban|drop|remove|focus|only|since|after|before|from|until|ignore|exclude"
            r"|follow|what|which|more|fewer|less|prioriti[sz]e|emphasi[sz]e|papers?|results?|no|not|and|or|the)")
_ITEM = r"(?!" + _COMMAND + r"\b)[A-Za-z][\w\-]*(?:\s+(?!(?:and|or)\b)[A-Za-z][\w\-]*){0,2}"
_NEG_LIST = re.compile(
    r"\b(?P<neg>(?:no|not|exclude|excluding|without)(?:\s+(?:anything|everything|papers?)\s+(?:about|on))?)\s+"
    r"(?P<a>" + _ITEM + r")\s*(?:,\s*and\s+|,|\band\b)\s*(?:no\s+|not\s+)?(?P<b>" + _ITEM + r")"
    r"(?=\s*(?:$|[,.;]|\bbut\b))", re.I)
"""Two things left out in one list ("exclude speech, Chinese", "no speech and no Chinese", "drop
anything about speech and Chinese"), ended by the feedback, punctuation or "but": each is left out ("X or Y" is
already one exclusion of either)."""


def _ordinal(m: re.Match[str]) -> str:
    word = m.group("n").lower()
    n = ORDINALS.get(word) or int(re.match(r"\d+", word).group(0))
    return f"#{n}"


_COUNT = r"(?P<k>two|three|four|five|six|seven|eight|nine|ten|\d{1,2})"
_FIRST_K = re.compile(r"\b(?:the\s+)?(?:first|top)\s+" + _COUNT + r"\b(?!\s+(?:results?|papers?)\s+only)"
                      r"(?=\s*(?:results?|papers?|ones)?\s*(?:$|[,.;]|\b(?:and|are|is|but)\b))", re.I)
_LAST_K = re.compile(r"\b(?:the\s+)?(?:last|bottom)\s+" + _COUNT + r"\b(?=\s*(?:results?|papers?|ones)?\s*"
                     r"(?:$|[,.;]|\b(?:and|are|is|but)\b))", re.I)


def _k(m: re.Match[str]) -> int:
    word = m.group("k").lower()
    return _NUMBER_WORDS.get(word) or int(word)


_ASKING = re.compile(r"^\s*(?:(?:would|could|can|will)\s+you\s+(?:please\s+)?|is\s+it\s+possible\s+to\s+)"
                     r"(?=(?:drop|remove|hide|exclude|skip|leave\s+out|filter\s+out|get\s+rid\s+of|discard)\b)", re.I)
"""A request asked as a question ("would you remove anything about speech?"): the verb it asks for."""
_ALL_BUT = re.compile(r"(?:^|(?<=[,;.:]))\s*(?:(?:show|give|list)\s+(?:me\s+)?|(?:focus|concentrate)\s+on\s+)?"
                     r"(?:anything|everything|all)\s+(?:but|except)\s+", re.I)
""""anything but surveys", "all but the workshop papers", "everything except #3", "focus on anything
but speech": leave those out."""
_NOTHING_BUT = re.compile(r"\bnothing\s+(?:but|except)\s+", re.I)
""""nothing but surveys": only those."""
_BUT_CLAUSE = re.compile(r"(?<![,;])\s+but\s+(?=(?:since|after|before|from|until|only|keep|pin|no|not|focus|exclude|drop"
                         r"|show|in\s+(?:19|20)\d\d)\b)", re.I)
"""A second wish after "but" without a comma ("no workshops but since 2008"): set apart as with one."""
_KEEP_THEM = re.compile(r"\b(?:do\s+not|don't|no\s+need\s+to)\s+(?:drop|remove|exclude|skip|hide|leave\s+out|filter\s+out)"
                        r"\s+(?:the\s+)?(?P<what>[^,;.!?]+?)\s*(?=$|[,;.!?])", re.I)
"""Keeping what a removal would drop ("don't drop the surveys", "no need to exclude speech"): those are fine."""
_NEVER_MIND = re.compile(r"\bnever\s*mind\b(?=\s*(?:$|[,.;!]))[,.;!]*", re.I)
""""never mind" that names nothing (a filler before the wish: "never mind, reviews are OK too")."""
_LET_BACK = re.compile(
    r"\b(?:never\s*mind(?:\s+about)?|(?:also\s+)?(?:include|keep|allow|bring\s+back|put\s+back|let\s+in))\s+(?:the\s+)?"
    r"(?P<what>(?!(?:" + RULE_FIELDS + r"|the|only|just|them|it|this|that|these|those|non-?[\w-]*|checkpoints?|[a-z]\d+)\b)"
    r"[A-Za-z][\w\-]*(?:\s+(?!(?:papers|ones|after|as|too|again"
    r"|back|thing|things|stuff|filter|constraint|exclusion|restriction|limit)\b)[A-Za-z][\w\-]*){0,3})"
    r"(?:\s+(?:papers|ones|work|thing|things|stuff))?(?:\s+(?:after\s+all|as\s+well|too|again|back))?"
    r"\s*(?=$|[,;.!?])", re.I)
_NOT_REQUIRED = re.compile(r"^\s*(?:no\s+(?P<a>[\w\s\-]+?)\s+(?:is\s+|are\s+)?(?:required|needed)"
                           r"|(?P<b>[\w\s\-]+?)\s+(?:is|are)?\s*not\s+(?:required|needed|necessary|a\s+must))\s*[.!]*\s*$", re.I)
"""What the user does not require ("neural networks not required", "no human evaluation required"):
"X is no requirement", which drops a focus the user put on X (``navigator.feedback``), and
leaves out nothing."""
"""Letting something back in ("never mind LREC", "keep the LREC papers after all", "also include LREC
papers", "include LREC as well"): "X are fine", which drops what leaves X out or widens what
keeps to other venues or types (``navigator.feedback``). A field ("never mind the year") or a
year ("also include 2008") is read by the rules for those."""
_OLD_PAPERS = re.compile(r"\b(?:drop|remove|hide|exclude|skip|no|not|fewer|less|get\s+rid\s+of)\s+(?:the\s+)?"
                         r"(?:old|older|outdated|dated|ancient)\s+(?:papers|ones|work|stuff|studies|results|articles)\b", re.I)
"""Leaving out old papers is asking for recent ones ("drop the old papers")."""
_MORE_BY = re.compile(r"\bmore\s+(?:(?:papers?|work|stuff)\s+)?(?:by|from)\s+(?=[A-Z])")
"""More of someone's papers ("more papers by Ney", "more from Hermann Ney"): their papers, as
"papers by Ney" (a soft wish, "preferably papers by Ney", reranks without filtering)."""
_FROM_PERSON = re.compile(r"\b(?:anything|everything|papers?|work)\s+from\s+(?=[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b)")
"""Papers "from" a person named in full are papers by them ("drop anything from Hermann Ney")."""
_REQUIRED = re.compile(r"(?:^|(?<=[,;.]))\s*(?:(?:it|they|the\s+papers?)\s+)?(?:must|has\s+to|have\s+to|needs?\s+to|should)\s+"
                       r"(?:use|involve|include|have|report|contain)\s+(?:an?\s+)?(?!(?:no|not|none|any)\b)"
                       r"|(?:^|(?<=[,;.]))\s*needs?\s+(?:an?\s+)?(?!(?:no|not|none|any|to)\b)", re.I)
_REQUIRED_AFTER = re.compile(r"^\s*(?P<what>(?!(?:no|not|none)\b)[\w\s\-]+?)\s+(?:is\s+|are\s+)?(?:required|a\s+must|mandatory)"
                             r"\s*[.!]*\s*$", re.I)
"""A requirement of content ("must use neural networks", "needs a human evaluation", "human
evaluation required"): a focus on it, which ranks it first and filters nothing."""
_FEWER_AFTER = re.compile(r"^\s*(?P<x>[\w\s\-]+?)(?:\s*,\s*(?:fewer|less)(?:\s+please)?|\s+(?:fewer|less)\s+please)\s*[.!]*\s*$",
                          re.I)
"""Less of something said after it ("LREC papers, fewer please"): "fewer X"."""
_NOT_OLDER = re.compile(r"\b(?:nothing|no\s+papers?|none)\s+older\s+than\b", re.I)
""""nothing older than five years": the date reader's "no older than"."""
_EMOJI = [(re.compile(r"(#\s*\d+|\b\d+)\s*(?:👎|❌|🗑️?)"), r"\1 is irrelevant"),
          (re.compile(r"(?:👎|❌|🚫|🗑️?)\s*(#\s*\d+)"), r"; \1 is irrelevant"),
          (re.compile(r"^\s*(?P<x>[A-Za-z][\w\s\-]*?)\s*(?:👎|❌|🚫)\s*$"), r"not \g<x>"),
          (re.compile(r"(?:👎|❌|🚫)\s*(?=\S)"), "not "),
          (re.compile(r"(?:❤️?|⭐|👍|📌)\s*(#\s*\d+)"), r"pin \1"),
          (re.compile(r"(#\s*\d+)\s*(?:❤️?|⭐|📌)"), r"pin \1")]
"""A result marked with an emoji ("#3 👎", "❤️ #1") and a topic struck out ("🚫 speech")."""
_FIXED_VERBS = ("exclude", "remove", "without", "anything", "nothing", "everything")


def _misspelt_verbs(text: str) -> str:
    """Words of removal typed with a slip ("exlcude", "remvoe", "anythng") spelled right: a lower-case
    word of five letters or more that no English word is and that is within 80 % similarity
    (rapidfuzz ratio) of one of :data:`_FIXED_VERBS`."""
    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if english_word(word):
            return word
        best = process.extractOne(word, _FIXED_VERBS, scorer=fuzz.ratio, score_cutoff=80)
        return best[0] if best else word
    return re.sub(r"\b[a-z]{5,}\b", fix, text)


def _restated(words: str):
    """A substitution that puts ``words`` in place of the match and keeps the space it began with."""
    return lambda m: m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())] + words


_REWRITES = [  # in this order: each reads what the ones before it wrote
    (_REQUIRED, _restated("focus on ")), (_NEVER_MIND, ""), (_LET_BACK, lambda m: f"{m.group('what')} are fine"), (_ASKING, ""), (_NOTHING_BUT, "only "), (_ALL_BUT, _restated("not ")), (_BUT_CLAUSE, ", but "),
    (_KEEP_THEM, lambda m: f"{m.group('what')} are fine"), (_OLD_PAPERS, "recent papers"), (_MORE_BY, "preferably papers by "),
    (_FROM_PERSON, "papers by "), (_NO_MORE, "no "), (_NO_WANT, _restated("not ")),
    (_COUNTED, lambda m: f"{_NUMBER_WORDS[m.group('w').lower()]} "), (_NEWER, "recent papers"),
    (_REMOVE_RESULT, "remove "), (_REMOVE, "not "), (_ORDINAL, _ordinal), (_ONLY_WANT, "only "),
]


def plain_feedback(text: str, n_results: int | None = None) -> str:
    """``text`` (one line of feedback) restated as the module docstring says; the rest unchanged.
    ``n_results``: how many results the turn shows, for "the last three" ("#8-10" of 10)."""
    text = _POLITE.sub("", text)
    if not re.search(r"\b(?:show|give|return|list|only|just)\b", text, re.I):  # "only the top 5": a number of results
        text = _FIRST_K.sub(lambda m: f"#1-{_k(m)}" if _k(m) > 1 else "#1", text)
    if n_results:
        text = _LAST_K.sub(lambda m: f"#{max(1, n_results - _k(m) + 1)}-{n_results}", text)
    for rx, spelled in _SPELLED:
        text = rx.sub(spelled, text)
    text = _misspelt_verbs(text)
    for rx, said in _EMOJI:
        text = rx.sub(said, text)
    text = _NOT_OLDER.sub("no older than", text)
    text = _FEWER_AFTER.sub(lambda m: f"fewer {m.group('x')}", text)
    if optional := _NOT_REQUIRED.match(text):
        text = f"{optional.group('a') or optional.group('b')} is no requirement"
    elif required := _REQUIRED_AFTER.match(text):
        text = f"focus on {required.group('what')}"
    for rx, said in _REWRITES:
        text = rx.sub(said, text)
    for _ in range(4):  # "no A, B and C": one item a pass
        listed = _NEG_LIST.sub(lambda m: f"{m.group('neg')} {m.group('a')}; {m.group('neg')} {m.group('b')}", text)
        if listed == text:
            break
        text = listed
    return " ".join(text.split())
