"""Claim mode: an intent that is a declarative scientific claim, not a search request.

SciFact-style queries state a claim ("Aspirin inhibits the production of PGE2."). Cutting such a
sentence into facets, exclusions and filters misreads it: "does not affect X" is part of the
claim, "in 2001" describes the study, not the publication date. :func:`is_claim` decides,
conservatively (no POS tagger); :func:`claim_terms` gives the claim's salient noun phrases.

Detection rule -- an intent is a claim when all hold:

1. no search framing: no document word ("papers", "articles", "publications", "literature",
   "preprints"), no document link ("studies of", "work on", "research on", ...), no request or
   question opener ("find", "show me", "I want", "what", "how", ...), no "?", and no constraint
   list after a comma (", not ...", ", excluding ...", ", since 2019", ", 2020", ...);
2. it reads as a sentence: it ends with "." or starts with a capital letter or a digit;
3. its main clause has a finite verb: an auxiliary/copula (is, are, was, were, has, have, had,
   does, do, did, can, cannot, could, will, would, should, may, might, must) or any finite
   verb form of the general English lexicon of ``lemminflect`` (3rd-person "-s", past, plural
   present; no table of claim verbs); forms that are also nouns ("causes", "increases",
   "models") only when no preposition, conjunction or clause end follows them; not as the first word and not right after "that", "which", "who",
   "to", "how", "whether" (a relative or infinitive clause) or a determiner ("A diminished
   ovarian reserve ...": an adjective).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from litnav.navigator.intent.facets import _DOC_LINK
from litnav.navigator.intent.grammar import (  # noqa: F401  (AUXILIARIES, is_acronym: public here too)
    AUXILIARIES,
    PAREN_ACRONYM,
    ambiguous_is_verb,
    base_form_is_verb,
    change_verb_after_noun,
    finite_tags,
    is_acronym,
    lexicon_verb,
    verb_class,
)
from litnav.navigator.intent.grammar import PREPOSITIONS as _PREPOSITIONS
from litnav.navigator.intent.text import title_cased

_DETERMINER_BEFORE = re.compile(r"(?:^|(?<=\s))(?:the|a|an|this|these|those|its|their|our|his|her)\s+$", re.I)
_PREPOSITION_BEFORE = re.compile(r"\b(?:" + "|".join(sorted(_PREPOSITIONS)) + r")\s+$", re.I)


def _verbs(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, class)`` of every word of ``text`` with a verb class (``verb_class``)."""
    for m in re.finditer(r"(?<![\w'-])[A-Za-z]+(?:-[A-Za-z]+)?(?:n't)?(?![\w'-])", text):
        word = m.group(0)
        if word != word.lower() and word != word.capitalize():
            continue  # "IS", "DO", "mRNA": an acronym or a name, not a verb
        cls = verb_class(word.lower())
        if cls:
            yield m.start(), m.end(), cls


_CLAUSE_MARK = re.compile(r"(?:\b(?:that|which|who|whom|whose|to|how|whether|if|when|where)\s+"
                          r"(?:\w+ly\s+)?)$", re.I)
_FRAMING = re.compile(
    r"\b(?:papers?|articles?|publications?|preprints?|literature|manuscripts?)\b|\?"
    r"|^\W*(?:please|kindly|can\s+you|could\s+you|would\s+you|help\s+me|find|search|show\s+me|give\s+me"
    r"|get\s+me|list|retrieve|recommend|suggest|looking\s+for|searching\s+for|i\s+(?:want|need|would\s+like"
    r"|'d\s+like|am\s+looking|'m\s+looking)|what|which|how|why|when|where|who|are\s+there|is\s+there)\b"
    r"|,\s*(?:not|no|excluding|except|other\s+than|rather\s+than|but\s+not|without|only|since|from|between"
    r"|before|after|until|published|in\s+the\s+(?:last|past)|(?:19|20)\d\d)\b"
    r"|^\W*only\b"
    r"|\b(?:since|after|before|until|between)\s+(?:19|20)\d\d\b(?!\s*[,.]?\s*\w+\s+(?:have|has|had|was|were)\b)[^.]*$",
    re.I)
class _Verb:
    """A main-verb match: ``start()``, ``end()`` and ``group("v")`` like a regex match."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self._text, self._start, self._end = text, start, end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self, _name: str = "v") -> str:
        return self._text[self._start:self._end]


def main_verb(text: str) -> _Verb | None:
    """The first finite verb of ``text`` that can head a main clause (see module doc), or None:
    not the first word, not a preposition or a capitalised name, not right after a
    relative/infinitive marker or a determiner, nor an "-s"
    form that is also a plural noun right after a preposition ("of approaches to"); a form that
    is also a noun ("results", "models") only when no preposition, conjunction or clause end
    follows it; an auxiliary not before a number ("is 5")."""
    names_capitalised = not title_cased(text)  # in a pasted title every word is capitalised
    for start, end, cls in _verbs(text):
        before = text[:start]
        if start == 0 or not re.search(r"\w", before) or _CLAUSE_MARK.search(before):
            continue
        if _DETERMINER_BEFORE.search(before):
            continue
        word = text[start:end]
        if word.lower() in _PREPOSITIONS or (names_capitalised and word[0].isupper()):
            continue  # "over" is not a verb here; a capitalised word inside the text is a name ("... Abuse and Harms")
        if change_verb_after_noun(word, before):
            return _Verb(text, start, end)  # "deletion of JAM-A increases gut permeability"
        if cls == "ambiguous" and _PREPOSITION_BEFORE.search(before) and "VBZ" in finite_tags(text[start:end].lower()):
            continue  # "surveys of approaches to ...": a plural noun after a preposition, not the verb
        after = text[end:]
        if cls == "aux" and re.match(r"\s+\d", after):
            continue
        if cls == "ambiguous" and not ambiguous_is_verb(text[start:end].lower(), before, after):
            continue
        if cls == "finite" and finite_tags(text[start:end].lower()) == {"VBP"} and not base_form_is_verb(before, after):
            continue  # "to create or annotate": an infinitive, not a clause's verb
        return _Verb(text, start, end)
    return None


def is_claim(text: str) -> bool:
    """True when the normalised intent ``text`` is a declarative claim (module doc rule)."""
    text = text.strip()
    if not text or _FRAMING.search(text) or _DOC_LINK.search(text):
        return False
    if not (text.endswith(".") or re.match(r"[A-Z0-9]", text)):
        return False
    verb = main_verb(text)
    if verb is None:
        return False
    tags = finite_tags(verb.group("v").lower())
    # a past form without a closing period reads as a participle: "systems described before 2000"
    return text.endswith(".") or not ("VBD" in tags and "VBZ" not in tags)


_STOP = set("""
a an the this that these those its their his her our my your of in on at to for from by with within without
into onto over under between among across through during via as than then and or nor but both either
neither whether if when where while which who whom whose what how not no never n't cannot also only solely
more less most least very much many some any all each such same other another so too further well
often usually frequently commonly generally directly indirectly significantly positively negatively strongly
highly mainly primarily largely partly partially fully markedly substantially greatly early late
associated linked related correlated involved observed found known considered able likely unlikely due
effective ineffective necessary sufficient responsible important essential critical crucial similar
different higher lower greater smaller better worse one two three there it they we against even
million billion thousand hundred percent be been being longer
""".split()) | {a.lower() for a in AUXILIARIES} | {a + "n't" for a in AUXILIARIES}
_GENERIC = {"patients", "people", "individuals", "subjects", "participants", "humans", "cases", "effect",
            "effects", "role", "use", "level", "levels", "presence", "absence", "number", "rate", "rates",
            "amount", "type", "types", "form", "forms", "population", "populations", "group", "groups"}
MAX_TERMS = 5


def _third_person(word: str) -> bool:
    """A 3rd-person present verb only ("inhibits", "reduces"): it ends a claim term."""
    return word.endswith("s") and verb_class(word) == "finite"


def _quantity(token: str) -> bool:
    return bool(re.match(r"[\d.,]", token)) and "%" in token or bool(re.match(r"\d[\d.,]*\w*/", token))


def _predicate_span(claim: str) -> tuple[int, int] | None:
    """The main verb with what completes it: "does not solely indicate", "is associated",
    "leads"; None when there is no main verb."""
    verb = main_verb(claim)
    if verb is None:
        return None
    end = verb.end()
    if verb.group("v").lower().split("n't")[0] in AUXILIARIES:
        tail = re.match(r"(?:\s+(?:not|no\s+longer|never|\w+ly|been|be|being))*", claim[end:], re.I)
        end += tail.end()
        nxt = re.match(r"\s+([A-Za-z]+)(?![\w'-])", claim[end:])
        if nxt and (verb_class(nxt.group(1).lower()) or lexicon_verb(nxt.group(1).lower())):
            end += nxt.end()
    return verb.start(), end


def claim_terms(claim: str) -> list[str]:
    """The claim's salient noun phrases: maximal runs of content words between stop words,
    punctuation and the main predicate (cut to 4 words; quantities such as "32%" or "40mg/day",
    edge numbers and generic single words such as "patients" dropped). At most
    :data:`MAX_TERMS` terms are kept (an acronym counts as one); phrases are ranked by word
    count plus 2 when a phrase holds or is followed by an acronym, ties by position; a parenthesised acronym ("chronic kidney disease
    (CKD)") follows its phrase as its own term. Returned in order of appearance."""
    span = _predicate_span(claim)
    text = claim if span is None else claim[:span[0]] + " | " + claim[span[1]:]
    runs: list[list[str]] = []
    acronyms: dict[int, str] = {}
    current: list[str] = []

    def close() -> None:
        while current and re.fullmatch(r"[\d.,-]+", current[-1]):
            current.pop()
        while current and re.fullmatch(r"[\d.,-]+", current[0]):
            current.pop(0)
        if current:
            runs.append(current[-4:] if len(current) > 4 else list(current))
            current.clear()

    for m in re.finditer(rf"{PAREN_ACRONYM.pattern}|[^\s()\[\],;:|!?\"]+|[()\[\],;:|!?\"]", text):
        if m.group("a") is not None:
            close()
            if is_acronym(m.group("a")) and runs:
                acronyms.setdefault(len(runs) - 1, m.group("a"))
            continue
        tok = m.group(0).rstrip(".")
        if not re.search(r"\w", tok) or tok.lower() in _STOP or _third_person(tok.lower()) or _quantity(tok):
            close()
            continue
        current.append(tok)
    close()
    scored = []
    for i, run in enumerate(runs):
        phrase = " ".join(run)
        if len(run) == 1 and run[0].lower() in _GENERIC:
            continue
        bonus = 2 if (i in acronyms or any(is_acronym(t) for t in run)) else 0
        scored.append((-(len(run) + bonus), i, phrase))
    keep, size = [], 0
    for item in sorted(scored):
        cost = 1 + (item[1] in acronyms)
        if size + cost <= MAX_TERMS:
            keep.append(item)
            size += cost
    keep.sort(key=lambda s: s[1])
    terms: list[str] = []
    for _s, i, phrase in keep:
        for t in (phrase, acronyms.get(i)):
            if t and t.lower() not in {x.lower() for x in terms}:
                terms.append(t)
    return terms
