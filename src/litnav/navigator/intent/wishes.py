"""Conversational wishes restated as the negation cues the extractors read.

"I'm not interested in surveys", "we don't want Twitter data", "please don't include reviews",
"..., Twitter papers are not relevant" and "..., avoid Twitter" leave something out as "not X"
does; "preferably not surveys" and "ideally without X" say it as a preference. Read as they
stand, the first two turned into a *preference for* surveys (the type extractor saw "surveys"
after "want", no negation cue) and an exclusion of "interested in Twitter".
:func:`restate_wishes` rewrites each to "not X" and says where the soft cues now stand, so the
type and exclusion extractors read them unchanged and the parser weighs the soft ones as
preferences.

A wish needs a first-person subject ("I", "we") or an imperative at the start of a clause:
"models that do not need labelled data" is a method property (an absent resource), not a wish.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from litnav.navigator.intent.pubtypes import NAMED_TYPE

_SUBJECT = r"\b(?:I|we)\b(?:\s*'(?:m|re)|\s+(?:am|are))?\s*"
_ADVERB = r"(?:(?:really|just|also|honestly|definitely|certainly|particularly|especially)\s+)?"
_NEGATED = (r"(?:do\s*n't|do\s+not|would\s*n't|would\s+not|'d\s+rather\s+not|would\s+rather\s+not"
            r"|am\s+not|'m\s+not|are\s+not|'re\s+not|not|never|have\s+no)\s+")
_WISH = (r"(?:want|need|like|care\s+(?:about|for)|(?:interested|looking)\s+(?:in|for)|interest\s+in|include"
         r"|see|read)\b")
_THEN = r"(?:\s+(?:to\s+(?:see|read|have|include|get)|any(?:thing)?|about|on|papers?\s+(?:about|on)))*"

_FIRST_PERSON = re.compile(
    rf"(?P<subject>{_SUBJECT}){_ADVERB}{_NEGATED}{_ADVERB}{_WISH}{_THEN}\s*"
    rf"|\b(?:(?:are|am|is)\s+)?not\s+(?:really\s+)?(?:interested|looking)\s+(?:in|for)\b{_THEN}\s*"
    rf"|\bno\s+interest\s+in\b{_THEN}\s*",
    re.I)
"""'I'm not interested in', "we don't want", "I would rather not see", 'not interested in'."""
_IMPERATIVE = re.compile(
    r"(?:(?<=[,;:])|^|\bbut\s+|\band\s+|\bplease\s+)\s*(?:please\s+)?"
    r"(?:do\s*n't|do\s+not)\s+(?:include|show|give\s+me|return|list|bring)\b\s*"
    r"|(?:(?<=[,;:])(?:\s*and\s+)?|\bbut\s+|\bplease\s+)\s*(?:avoid|leave\s+out|skip)\b"
    r"(?!\s+(?:using|relying|requiring|the\s+use)\b)\s*", re.I)
"""A clause that starts by telling what to leave out: "please don't include reviews", ", avoid
Twitter" (not "avoid overfitting" opening the intent, nor "to avoid" or "and avoid" mid-clause;
"avoid using X" is read by the exclusion cues)."""
RESULT_NUMBER = r"(?:the\s+)?(?:#|\d|(?:paper|result|hit|number|no\.?)\s*#?\d)"
"""The start of a result of the feedback's list named by its number: "#3", "3", "paper 3", "result #3"."""
_NOT_WANTED_BODY = (  # never a result ("#8, #9 and #10 are irrelevant": the feedback's rank rules read it)
    r"(?P<lead>\s*(?:(?:but|and|also)\s+)?)(?P<what>(?!(?:whether|if|that|this|it)\b)"
    r"(?!\s*" + RESULT_NUMBER + r")[^,;:.|()!?]+?)"
    r"\s+(?:are|is)\s+(?:not\s+(?:really\s+)?(?:relevant|wanted|needed|useful|of\s+interest"
    r"|what\s+(?:I|we)(?:'m|'re|\s+am|\s+are)?\s+(?:want|need|looking\s+for|after))"
    r"|irrelevant|unwanted|off[\s-]topic|out\s+of\s+scope)(?=\s*(?:$|[,;:.!?]))")
_NOT_WANTED = re.compile(
    r"(?:(?<=[,;:.])|^(?=[^,;:.]*\b(?:ones|papers|results|studies|articles|works)\b[^,;:.]*\s(?:are|is)\s))"
    + _NOT_WANTED_BODY, re.I)
"""A clause that names what to leave out before saying so: "..., Twitter papers are not relevant";
the first clause only with a word for papers ("the Chinese ones are irrelevant", "papers before
2015 are not relevant"; "Vitamin D is irrelevant" is a claim)."""
_NOT_WANTED_OPENING = re.compile(r"^" + _NOT_WANTED_BODY, re.I)
"""The same clause opening feedback, where every clause is a wish ("surveys are not relevant")."""
_OPENING_IMPERATIVE = re.compile(r"^\s*(?:please\s+)?(?:avoid|leave\s+out|skip|omit)\b"
                                 r"(?!\s+(?:using|relying|requiring|the\s+use)\b)\s*", re.I)
"""Feedback that opens by telling what to leave out ("skip reviews", "avoid anything about speech")."""
_TYPE_THEN_TOPIC = re.compile(r"\b(?P<neg>no|not|excluding|without)\s+(?P<type>(?:reviews?|surveys?|meta-analy[sz]es"
                              r"|tutorials?|overviews?|position\s+papers))\s+(?:or|and|nor)\s+(?=[a-z])", re.I)
"""A left-out type listed with something else ("no reviews or modelling studies"): each is left out."""
_ABOUT = re.compile(r"\b(?:about|for|in)\s*$", re.I)
"""A wish that ends in a preposition ("interested in", "care about"): what follows is a subject,
restated "not about X" (so "I don't care about treebanks" leaves out papers on treebanks, and
is not read as doing without them)."""
_RESULT = re.compile(r"(?:" + RESULT_NUMBER + r"|(?:the\s+)?(?:top|first|second|third|fourth|fifth|last)\s+"
                     r"(?:paper|result|one|hit)s?\b)", re.I)
"""A result named in feedback ("paper 2", "#3", "the second one"): "I'm not interested in paper 2"
puts it aside, as "not paper 2" does."""
_ONES = re.compile(r"\s+(?:ones|results)$", re.I)
"""A pronoun head of what is left out ("the Chinese ones"): dropped, "Chinese" is what is meant."""
_SOFT = re.compile(r"\b(?:(?:preferably|ideally|if\s+possible,?|rather)\s+(?=(?:not|no|without|excluding)\b)"
                   r"|(?:preferably|ideally|if\s+possible,?)\s+(?=(?:published\s+)?(?:since|after|before|from|until"
                   rf"|between|in|by\s+(?:19|20)\d\d|recent|newer|new)\b|{NAMED_TYPE})"
                   rf"|\b(?:I\s+|we\s+)?prefer\s+(?={NAMED_TYPE}))", re.I)
"""An adverb that makes the negation, date, venue or kind of paper after it a preference:
"preferably not surveys", "ideally since 2015", "preferably in TACL", "ideally journal articles"
(a kind of paper named without "only" is a preference anyway; the adverb is no topic word)."""


@dataclass
class Restated:
    """``text`` with its wishes restated as "not X"; ``soft`` the offsets in ``text`` where a
    negation cue that is a preference begins."""

    text: str
    soft: list[int] = field(default_factory=list)

    def is_soft(self, start: int) -> bool:
        """True when the negation cue at ``start`` (the offset an extractor reports; "but not X"
        begins at "but") is a preference."""
        return any(a >= start and re.fullmatch(r"(?:(?:but|and)\s+)?", self.text[start:a], re.I) for a in self.soft)


def _not_wanted(m: re.Match[str]) -> str:
    """A :data:`_NOT_WANTED` clause as "not X" ("the Chinese ones are irrelevant" -> "not Chinese")."""
    return f"{m.group('lead')}not {_ONES.sub('', m.group('what').strip())}"


def restate_wishes(text: str, *, opening: bool = False, keep_soft: bool = False) -> Restated:
    """Rewrite the wishes of ``text`` (see the module docstring) to "not X"; shape of the rest
    unchanged. Returns the new text and where its soft cues begin. ``opening``: ``text`` is
    feedback, so its first clause may be a wish of any shape ("surveys are not relevant", "skip
    reviews"). ``keep_soft``: leave "preferably not X" as it is (for a later pass to weigh)."""
    text = re.sub(r"\bdont\b", "don't", text, flags=re.I)
    if opening:
        text = _OPENING_IMPERATIVE.sub("not ", text, count=1)
        text = _NOT_WANTED_OPENING.sub(_not_wanted, text, count=1)
    text = _TYPE_THEN_TOPIC.sub(lambda m: f"{m.group('neg')} {m.group('type')}, {m.group('neg')} ", text)
    text = _FIRST_PERSON.sub(lambda m: "not about " if _ABOUT.search(m.group(0)) and not _RESULT.match(
        m.string, m.end()) else "not ", text)
    text = _IMPERATIVE.sub(lambda m: m.group(0)[: len(m.group(0)) - len(m.group(0).lstrip())] + "not ", text)
    text = _NOT_WANTED.sub(_not_wanted, text)
    if keep_soft:
        return Restated(text)
    out, soft, last = [], [], 0
    for m in _SOFT.finditer(text):
        out.append(text[last:m.start()])
        soft.append(sum(map(len, out)))
        last = m.end()
    out.append(text[last:])
    return Restated("".join(out), soft)
