"""Author phrases: "by Yoav Goldberg", "papers from Hinton", "authored by Y. LeCun or Bengio",
"not by Smith", "by Smith et al.", "Yoshua Bengio's papers", "(Smith et al.)", "author: Smith",
"first author Smith". Names are capitalised tokens
(initials, particles such as "van", "de" -- also first: "de Marneffe" --, a suffix such as
"III", and inner capitals as in "LeCun" allowed); a few capitalised common words are refused,
and so is an organisation ("the Allen Institute"). Where a bare "by"
reads as a title's preposition (:func:`_title_like_by`: in an intent written in title case, a
pasted paper title, or after a capitalised word) capitals say nothing, so there at most half of a
name's words may be words the English lexicon knows (an initial counts as
a name word): "Universal In-Context Approximation By Prompting Fully Recurrent Models" names no
author, "Semantic Parsing by Percy Liang" does."""

from __future__ import annotations

import re
from dataclasses import dataclass

from litnav.core.text import stop_words
from litnav.navigator.intent.grammar import english_word
from litnav.navigator.intent.text import Workspace, list_pattern, split_list

_UP = "A-Z\u00c0-\u00d6\u00d8-\u00de\u0100-\u017f"  # Latin Extended-A mixes cases: "Ł", "Š", "Ž"
_LO = "a-z\u00df-\u00f6\u00f8-\u00ff\u0100-\u017f"  # "ł", "ś", "ć": "Skłodowska", "Dušek"
_TOKEN = rf"(?:[{_UP}][{_LO}'\-]+(?:[{_UP}][{_LO}]+)?|[{_UP}]\.(?:\s?[{_UP}]\.)*)"
_PARTICLE = r"(?:van|von|de|der|den|da|di|del|le|la|al|bin|el|ter|du)"
_SUFFIX = r"(?:\s+(?:Jr\.?|Sr\.?|II|III|IV)(?![\w-]))"
_NAME = rf"(?:{_PARTICLE}\s+)?{_TOKEN}(?:\s+(?:{_PARTICLE}\s+)*{_TOKEN})*{_SUFFIX}?(?:\s+et\s+al\b\.?)?"
_NOT_NAMES = {
    "The", "A", "An", "This", "These", "Those", "Using", "Means", "Deep", "Large", "Neural", "Machine",
    "I", "We", "Me", "It", "Their", "Our", "Its", "Example", "Default", "Hand",
}
_MENTION = re.compile(
    r"(?i:(?P<cue>\b(?:(?:(?:written|authored|co-?authored|published)\s+by)|by|"
    r"(?:(?:papers?|works?|articles?|publications?|research|studies)\s+(?:from|of)))\s+(?:the\s+)?"
    r"(?:(?:authors?|researchers?|professor|prof\.?|dr\.?)\s+)?))"
    r"(?P<list>" + list_pattern(_NAME) + r")(?![\w-])"
)
_POSSESSIVE = re.compile(r"(?<![\w-])(?P<list>" + list_pattern(_NAME) + r")'s?\s+(?i:(?:recent\s+|latest\s+|early\s+)?"
                         r"(?:papers?|works?|articles?|publications?|research|studies|contributions?))\b")
""""Yoshua Bengio's papers on ...", "Graham Neubig's work on ...": the name is the author."""
_ET_AL = re.compile(rf"(?<![\w-])(?P<list>(?:[{_UP}]\.\s?)*(?:{_PARTICLE}\s+)?{_TOKEN}\s+et\s+al\b\.?)")
""""(Abbott et al.)", "Abbott et al. on ...": the surname before "et al." is a first author."""
_CITED_WORK = re.compile(r"\b(?:cit(?:e|es|ed|ing)|building\s+on|builds?\s+on|built\s+on|follow[\s-]*ups?\s+(?:to|of|on)"
                         r"|extensions?\s+of|extending|extend|successors?\s+(?:to|of)|based\s+on|like|as\s+in|see"
                         r"|than|after|beyond|improving\s+on|improve\s+on|compared\s+(?:to|with)|versus|vs\.?)"
                         r"\s+(?:the\s+)?(?:work\s+of\s+|paper\s+(?:of|by)\s+)?$", re.I)
"""Words before "X et al." that make it a cited work ("papers citing Devlin et al.", "work building on
Vaswani et al."), which the search is about, not an author constraint."""
_YEAR_AFTER = re.compile(r"\s*,?\s*\(?\s*(?:19|20)\d\d[a-z]?\b")
"""A year right after "X et al." ("Devlin et al. 2019", "(Vaswani et al., 2017)"): a citation."""
_LABELLED = re.compile(r"(?i:\b(?:(?P<first>first[\s-]author)\s*:?|authors?\s*:)\s*)"
                       r"(?P<list>" + list_pattern(_NAME) + r")(?![\w-])")
""""author: Abbott", "authors: Bloom, Liang", "first author Abbott" ("first" makes them first authors)."""
_INSTITUTION = re.compile(r"\b(?:Institute|University|Universit\w+|College|Labs?|Laborator(?:y|ies)|Research|Inc|Corp"
                          r"|Corporation|Company|Foundation|Cent(?:er|re)|School|Department|Group|Academy)\b")
"""A word of an organisation's name: "papers from the Allen Institute" names an affiliation, not an author."""


@dataclass
class AuthorMention:
    """An author list: names, negation, offset, phrase and whether they are first authors."""

    names: list[str]
    negated: bool
    position: int
    phrase: str
    first_author: bool = False
    """Every name was written "X et al.": X is the first author."""


def _mostly_common_words(name: str) -> bool:
    """True when more than half of the words of ``name`` are English words ("Generating
    Language-guided Counterfactual Images"), initials ("Y.") and unknown words ("Goldberg") being
    name words; particles ("van") are not counted."""
    tokens = [t for t in re.split(r"[\s-]+", name) if t and not re.fullmatch(_PARTICLE, t)]
    common = sum(not t.endswith(".") and english_word(t) for t in tokens)
    return 2 * common > len(tokens)


_DOCUMENT_BEFORE = re.compile(r"\b(?:papers?|works?|articles?|publications?|research|studies|study|"
                              r"contributions?)\s*$", re.IGNORECASE)


_AGENT_VERB_BEFORE = re.compile(
    r"\b(?:funded|co-?funded|supported|sponsored|financed|backed|hosted|organi[sz]ed|commissioned|awarded|granted"
    r"|endorsed|operated|maintained|run|led|coordinated|provided|released|developed|annotated|collected"
    r"|translated|inspired|caused|driven|induced|mediated|affected|regulated)\s*$", re.IGNORECASE)
"""A participle before a bare "by" whose agent is no author: "funded by Marie Skłodowska-Curie
actions", "hosted by Kaggle", "datasets annotated by Amazon Mechanical Turk workers"."""


def _agent_by(ws: Workspace, m: re.Match[str]) -> bool:
    """True when the cue is a bare "by" after a participle (:data:`_AGENT_VERB_BEFORE`) that names
    a funder, host or other agent rather than the paper's authors."""
    return m.group("cue").strip().lower() == "by" and _AGENT_VERB_BEFORE.search(ws.text[:m.start("cue")]) is not None


def _title_like_by(ws: Workspace, m: re.Match[str]) -> bool:
    """True when the cue is a bare "by" that reads as a title's preposition: in an intent written in
    title case, or right after a capitalised word ("Learning by Playing", "Reasoning by
    Analogy"); never after a document word ("Papers by Grace Hopper") or with an explicit cue
    ("written by", "papers from")."""
    if m.group("cue").strip().lower() != "by":
        return False
    before = ws.text[:m.start("cue")]
    if _DOCUMENT_BEFORE.search(before):
        return False
    previous = re.findall(r"[^\W\d_][\w'-]*", before)
    return ws.title_cased or bool(previous and previous[-1][0].isupper())


def _modifies_a_noun(after: str) -> bool:
    """True when the capitalised words are followed by a lower-case content word, so they modify
    it ("by Hindi-English speakers", "by Amazon Mechanical Turk workers") rather than name a
    person; "by Smith on parsing" (a function word follows) and "by Yoshua Bengio funded by CIFAR"
    (a verb form follows) still name one."""
    from litnav.navigator.intent.lexicon import all_lemmas

    nxt = re.match(r"\s+([a-z][\w'-]*)", after)
    if not nxt or nxt.group(1) in stop_words():
        return False
    lemmas = all_lemmas(nxt.group(1))
    return not lemmas or "NOUN" in lemmas  # "by Yoshua Bengio funded by ...": a participle follows a person


def _all_et_al(listed: str) -> bool:
    """True when every name of the list is written "X et al." (X is then the first author)."""
    names = split_list(listed)
    return bool(names) and all(re.search(r"\bet\s+al\b\.?$", n) for n in names)


def _surname_form(name: str) -> str:
    """A name without "et al." and a generational suffix ("Smith et al." -> "Smith", "Hal Daumé
    III" -> "Hal Daumé"): authors are matched on the surname."""
    return re.sub(_SUFFIX + r"$", "", re.sub(r"\s+et\s+al\b\.?$", "", name)).strip()


def _names(listed: str) -> list[str]:
    """The author names of a matched list, surname form, without refused words and organisations."""
    return [_surname_form(n) for n in split_list(listed) if n.split()[0] not in _NOT_NAMES and not _INSTITUTION.search(n)]


def _take(ws: Workspace, m: re.Match[str], names: list[str], first: bool = False) -> AuthorMention:
    """Consume the mention ``m`` with its negation cue and return it (``first``: the cue said they
    are first authors)."""
    negated, _only, cue_start = ws.cue_before(m.start())
    ws.consume(cue_start, m.end())
    return AuthorMention(names, negated, cue_start, ws.original[cue_start:m.end()].strip(),
                         first or _all_et_al(m.group("list")))


def extract_authors(ws: Workspace, *, cited: bool = False) -> list[AuthorMention]:
    """Find author phrases in ``ws`` ("by X", "papers from X", "X's papers", "(X et al.)"), consume
    them with their cue, return them. An organisation ("the Allen Institute") is no author, and
    neither is "X et al." naming a cited work: after "citing", "building on" and the like, with a
    year, or anywhere in ``cited`` text (the paper an anchor request asks about)."""
    found = [_take(ws, m, names) for m in list(_POSSESSIVE.finditer(ws.text)) if (names := _names(m.group("list")))]
    for m in list(_MENTION.finditer(ws.text)):
        names = _names(m.group("list"))
        if _modifies_a_noun(ws.text[m.end():]) or _agent_by(ws, m):
            continue  # "by Hindi-English speakers", "funded by the ERC": not an author
        if _title_like_by(ws, m):
            names = [n for n in names if not _mostly_common_words(n)]
        if names:
            found.append(_take(ws, m, names))
    for m in list(_LABELLED.finditer(ws.text)):
        if names := _names(m.group("list")):
            found.append(_take(ws, m, names, first=bool(m.group("first"))))
    for m in [] if cited else list(_ET_AL.finditer(ws.text)):
        if "|" in m.group(0) or _CITED_WORK.search(ws.original[:m.start()]) or _YEAR_AFTER.match(ws.original, m.end()):
            continue  # "papers citing Devlin et al. 2019", "(Vaswani et al., 2017)": a cited work, not an author
        if names := _names(m.group("list")):
            found.append(_take(ws, m, names))
    return sorted(found, key=lambda a: a.position)
