"""Anchor requests stated in an intent: "follow-up work of <paper>", "papers cited by <paper>".

A researcher who types ``litnav search "follow-up work on Attention Is All You Need"`` asks for
the papers citing that paper, not for papers about its title's words. :func:`anchor_request`
reads such a request as ``(direction, reference)``; the caller decides whether the reference
names a corpus paper (``navigator.anchor.resolve_anchor``) and whether the corpus has the edges
to follow. A reference must look like a paper, not a topic: quoted, an identifier, or a title of
at least :data:`MIN_TITLE_WORDS` words ("follow-up work on knowledge distillation" is a topic).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from litnav.core.text import stop_words

MIN_TITLE_WORDS = 4
"""Fewest words of an unquoted title read as a paper ("follow-up work on X Y Z W")."""

_ASK = r"(?:(?:please\s+)?(?:find|show|list|give|get|search\s+for|search|retrieve|return)(?:\s+me)?\s+)?(?:(?:all|the|any)\s+)?"
_WORK = r"(?:work|works|papers?|studies|research|articles?|publications?)"
_HEADS = {
    "successor": [
        rf"follow[- ]?up\s+{_WORK}\s+(?:on|of|to|building\s+on)",
        r"follow[- ]?ups\s+(?:of|to|on)",
        rf"(?:later\s+|subsequent\s+)?{_WORK}\s+(?:that\s+|which\s+)?(?:cit(?:e|es|ing)|build(?:s|ing)?\s+on|extend(?:s|ing)?)",
        r"(?:what|who)\s+cites",
        r"citing\s+papers\s+of",
        r"citations\s+(?:of|to)",
        rf"(?:later|subsequent|newer)\s+{_WORK}\s+(?:on|of|to|after)",
        r"(?:successors|descendants|extensions)\s+(?:of|to)",
        r"what\s+(?:builds|built|has\s+built)\s+on",
    ],
    "predecessor": [
        r"references\s+(?:of|in)",
        rf"{_WORK}\s+(?:that\s+are\s+|which\s+are\s+)?cited\s+(?:by|in)",
        r"prior\s+work\s+cited\s+(?:by|in)",
        rf"(?:prior|earlier|previous|foundational|background)\s+{_WORK}\s+(?:of|to|for|behind|before)",
        r"(?:predecessors|ancestors)\s+(?:of|to|for|behind)",
    ],
    "sibling": [
        rf"{_WORK}\s+(?:similar\s+to|like)",
        rf"similar\s+{_WORK}\s+to",
        rf"more\s+{_WORK}\s+like",
        r"siblings\s+of",
        r"related\s+work\s+(?:to|of)",
    ],
}
_ABOUT = r"(?P<about>\s*,?\s+.+?)?"
_REF_FIRST = [
    ("predecessor", re.compile(r"^\s*what\s+(?:(?:papers|work|works|studies)\s+)?(?:does|did)\s+(?P<ref>.+?)\s+"
                               r"(?:build\s+(?:up)?on|cite|extend"
                               r"|rely\s+on|draw\s+on)" + _ABOUT + r"\s*[?.!]*\s*$", re.I | re.S)),
    ("predecessor", re.compile(rf"^\s*{_ASK}(?:the\s+)?{_WORK}\s+(?:(?:that|which)\s+)?"
                               r"(?!(?:on|about|in|for|of|regarding|from|by|with|cit\w*|most|highly|widely)\b)"
                               r"(?P<ref>.+?)\s+(?:cites|builds\s+on|built\s+on)"
                               r"(?P<about>\s*,?\s+(?:about|on|regarding|concerning|before|after|since|from|until|in"
                               r"|not|no|excluding|only)\b.+?)?\s*[?.!]*\s*$", re.I | re.S)),
    ("successor", re.compile(r"^\s*(?:what|which\s+papers|who)\s+(?:builds?|built|extends?|extended)\s+(?:up)?on\s+"
                             r"(?P<ref>.+?)\s*[?.!]*\s*$", re.I | re.S)),
]
"""Questions that name the paper before the request ("what does <title> build on?", "what papers
does <title> cite about <topic>", "papers <title> cites"); what follows the verb (a topic, "before
2018", ", not surveys") follows the reference as the words after a title do ("follow-ups of <title>
on <topic>")."""
_TAIL = re.compile(r"^(?P<ref>.+?)(?P<tail>\s*,\s*\S.*|\s+(?:(?:before|after|since|from|until|between|during|in)\s+"
                   r"(?:19|20)\d\d|(?:not|no|excluding|only|about|on|regarding|concerning)\s).*)$", re.S)
"""A short reference that runs on into constraints or a topic ("DDPM since 2021", "Deep Sets, not
surveys", "MAML about reinforcement learning"; the words in lower case, as a title never has
them): the head may still name the paper."""
_PATTERNS = [(d, re.compile(rf"^\s*{_ASK}(?:{h})\b\s*[:\-]?\s*(?P<ref>.+?)\s*[?.!]*\s*$", re.I | re.S))
             for d, heads in _HEADS.items() for h in heads]
_QUOTED = re.compile(r"^[\"'“”‘’«](?P<ref>.+?)[\"'“”‘’»](?:$|(?P<rest>[\s,;].*)$)", re.S)
_IDENTIFIER = re.compile(r"^(?:10\.\d{4,9}/\S+|(?:arxiv:)?\d{4}\.\d{4,5}(?:v\d+)?|https?://\S+|doi:\S+)$", re.I)


def names_a_paper(request: AnchorRequest) -> bool:
    """True when a request's reference is shaped as a paper rather than a topic: quoted, an
    identifier, or written as a title ("Decision Transformer: Reinforcement Learning via Sequence
    Modeling"); "follow-up work on knowledge distillation for speech translation" names a topic."""
    ref = request.reference
    return request.quoted or bool(_IDENTIFIER.match(ref)) or _title_cased(ref)


class AnchorRequest(NamedTuple):
    """What :func:`anchor_request` read: the direction, the paper's reference, what follows a
    quoted reference (its constraints: ``'papers citing "Deep Sets" since 2023'`` -> "since 2023"; else ""),
    ``quoted`` (the reference was in quotes), and ``exact_title``: a reference too short to be read as a title unless a corpus paper has
    exactly that title ("papers similar to Deep Sets")."""

    direction: str
    reference: str
    rest: str = ""
    exact_title: bool = False
    quoted: bool = False


_TITLE_MINOR = frozenset({"via", "vs", "vs.", "versus", "using", "toward", "towards"})
"""Lower-case words of titles that are no stop words ("... Reinforcement Learning via Sequence Modeling")."""


def _title_cased(ref: str) -> bool:
    """Whether a short reference is written as a title: every word but minor ones opens with a
    capital or a digit ("Deep Sets", "BERT", "Attention Is All"), so "knowledge distillation"
    stays a topic."""
    minor = stop_words() | _TITLE_MINOR
    words = [w for w in re.split(r"[\s:-]+", ref) if w]
    return bool(words) and all(w[0].isupper() or w[0].isdigit() or w.lower() in minor for w in words) \
        and words[0].lower() not in minor


def anchor_request(intent: str) -> AnchorRequest | None:
    """``(direction, reference, rest)`` when ``intent`` asks for the citing papers (``successor``),
    the cited papers (``predecessor``) or the similar papers (``sibling``) of one paper named
    whole; else None. ``reference`` is unquoted; it is returned only when quoted, shaped as a DOI /
    arXiv id / URL, at least :data:`MIN_TITLE_WORDS` words long, or written as a title (then
    ``exact_title``: only a corpus paper of exactly that title makes it an anchor). An unquoted reference may end
    with constraints ("... since 2023"): the caller splits them off when the whole names no
    paper. Never raises."""
    lead = _ORDER_LEAD.match(intent) if isinstance(intent, str) else None
    request = _request(intent[lead.end():] if lead else intent)
    if request is not None and lead:  # "most cited papers citing MAML": the order goes with the rest
        request = request._replace(rest=", ".join(x for x in (request.rest, lead.group("order")) if x))
    return request


_ORDER_LEAD = re.compile(r"^\s*(?:(?:show|find|list|give)\s+(?:me\s+)?)?(?:the\s+)?(?P<order>(?:most|highly|widely)\s+"
                         r"(?:cited|influential))\s+(?=(?:papers?|work|works|studies|articles?|follow[- ]?ups?)\b)", re.I)
"""An order asked for before the request ("most cited papers citing MAML")."""


def _request(intent: str) -> AnchorRequest | None:
    asked = _asked(intent)
    if asked is None:
        return None
    direction, ref = asked
    if q := _QUOTED.match(ref):
        return AnchorRequest(direction, q.group("ref").strip(), (q.group("rest") or "").strip(" ,;"), quoted=True)
    if (t := _TAIL.match(ref)) and len(t.group("ref").split()) < MIN_TITLE_WORDS and (
            _IDENTIFIER.match(t.group("ref")) or _title_cased(t.group("ref"))):
        return AnchorRequest(direction, t.group("ref"), t.group("tail").strip(" ,;"),
                             exact_title=not _IDENTIFIER.match(t.group("ref")))
    if _IDENTIFIER.match(ref) or len(ref.split()) >= MIN_TITLE_WORDS:
        return AnchorRequest(direction, ref)
    if _title_cased(ref):
        return AnchorRequest(direction, ref, exact_title=True)
    return None


def request_reference(intent: str) -> str | None:
    """What follows (or, for "what does X build on?", sits inside) the words of a neighbour request,
    whatever its shape: "later work on knowledge distillation since 2020" -> "knowledge distillation
    since 2020"; None when ``intent`` asks for no paper's neighbours. The intent parser reads a
    topic asked this way without the request's words ("later work", "siblings", "builds")."""
    asked = _asked(intent)
    return (asked[1] or None) if asked is not None else None


def _asked(intent: str) -> tuple[str, str] | None:
    """``(direction, what follows the request's words)`` of the first neighbour-request pattern
    ``intent`` matches (:data:`_REF_FIRST`, then :data:`_PATTERNS`); None for none, or for a
    non-string or over-long intent."""
    if not isinstance(intent, str) or len(intent) > 2_000:
        return None
    for direction, pattern in [*_REF_FIRST, *_PATTERNS]:
        if m := pattern.match(intent):
            about = m.groupdict().get("about")
            said = about.strip() if about and about.strip(" ,") else ""
            return direction, m.group("ref").strip() + (("" if said.startswith(",") else " ") + said if said else "")
    return None


__all__ = ["MIN_TITLE_WORDS", "AnchorRequest", "anchor_request", "names_a_paper", "request_reference"]
