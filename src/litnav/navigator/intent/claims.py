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
   does, do, did, can, cannot, could, will, would, should, may, might, must) or a verb of the
   small table :data:`PREDICATE_VERBS` (3rd-person "-s", plural base form or past "-ed"
   form; ambiguous noun/verb forms like "causes", "increases" only when not followed by
   "of"/"in"/"for"), not as the first word and not right after "that", "which", "who",
   "to", "how", "whether" (a relative or infinitive clause) or a determiner ("A diminished
   ovarian reserve ...": an adjective).
"""

from __future__ import annotations

import re
from litnav.navigator.intent.facets import _DOC_LINK

AUXILIARIES = ("is", "are", "was", "were", "has", "have", "had", "does", "do", "did", "can", "cannot",
               "could", "will", "would", "should", "may", "might", "must")
PREDICATE_VERBS = (
    "affect", "activate", "alter", "attenuate", "accelerate", "bind", "block", "confer", "contain",
    "contribute", "correlate", "decrease", "deactivate", "delay", "depend", "determine", "elevate",
    "encode", "enhance", "exacerbate", "exhibit", "facilitate", "halt", "impair", "impede", "improve",
    "increase", "induce", "inhibit", "interact", "lower", "mediate", "modulate", "occur", "predict",
    "prevent", "produce", "promote", "protect", "raise", "receive", "reduce", "regulate", "remain",
    "require", "restore", "reverse", "slow", "stimulate", "suppress", "trigger", "worsen", "cause",
    "show", "lead", "result", "rise", "play", "drive", "lack", "develop", "reflect", "indicate",
    "associate", "correspond", "express", "outperform", "influence", "phosphorylate", "kill",
    "participate", "possess", "antagonize", "control", "stabilize", "vary", "consist", "identify",
    "enable", "act", "damage", "provide", "overestimate", "underestimate", "interfere", "reinvigorate",
    "aid", "recruit", "initiate", "limit", "target", "modify", "exert", "maintain", "disrupt",
    "perpetuate", "repress", "silence", "degrade", "compromise", "augment", "diminish", "decline", "fail",
    "undergo", "generate", "persist", "sustain", "mimic", "resemble", "exceed", "appear", "tend",
)
# forms that are also common nouns: a verb only when not followed by of/in/for ("causes of X")
_AMBIGUOUS = ("increase", "decrease", "cause", "lead", "result", "rise", "play", "drive",
              "lack", "block", "delay", "express", "trigger", "lower", "slow", "halt", "raise", "control",
              "damage", "aid", "limit", "target", "act", "decline", "silence", "influence", "vary")
_IRREGULAR = {"lead": ("led",), "rise": ("rose", "risen"), "show": ("showed", "shown"),
              "drive": ("drove",), "bind": ("bound",)}


def _forms(verb: str) -> list[str]:
    stem = verb[:-1] if verb.endswith("e") else verb
    third = (verb[:-1] + "ies" if re.search(r"[^aeiou]y$", verb)
             else verb + ("es" if re.search(r"(?:s|sh|ch|x|z)$", verb) else "s"))
    past = _IRREGULAR.get(verb) or ((verb + "d") if verb.endswith("e") else
                                    (verb[:-1] + "ied") if verb.endswith("y") and verb[-2] not in "aeiou"
                                    else stem + "ed",)
    base = () if verb in _AMBIGUOUS else (verb,)
    return [third, *past, *base] if verb != "play" else ["plays", "played"]


_VERB_FORMS = sorted({f for v in PREDICATE_VERBS for f in _forms(v)}, key=len, reverse=True)
_THIRD_PERSON = {f for f in _VERB_FORMS if f.endswith("s")}
_AMBIGUOUS_FORMS = {f for v in _AMBIGUOUS for f in _forms(v)}
_AUX = r"(?-i:(?:" + "|".join(AUXILIARIES) + r"|" + "|".join(a.capitalize() for a in AUXILIARIES) + r")(?:n't)?)(?!\s+\d)"
_AMBIGUOUS_BASE = r"(?:" + "|".join(_AMBIGUOUS) + r")(?=\s+(?:to|the|a|an)\b)"
_VERB = re.compile(
    rf"(?<![\w'-])(?P<v>{_AUX}|{_AMBIGUOUS_BASE}|"
    + "|".join(_VERB_FORMS) + r")(?![\w'-])", re.I)
_CLAUSE_MARK = re.compile(r"(?:\b(?:that|which|who|whom|whose|to|how|whether|if|when|where)\s+"
                          r"(?:\w+ly\s+)?)$", re.I)
_FRAMING = re.compile(
    r"\b(?:papers?|articles?|publications?|preprints?|literature|manuscripts?)\b|\?"
    r"|^\W*(?:please|kindly|can\s+you|could\s+you|would\s+you|help\s+me|find|search|show\s+me|give\s+me"
    r"|get\s+me|list|retrieve|recommend|suggest|looking\s+for|searching\s+for|i\s+(?:want|need|would\s+like"
    r"|'d\s+like|am\s+looking|'m\s+looking)|what|which|how|why|when|where|who|are\s+there|is\s+there)\b"
    r"|,\s*(?:not|no|excluding|except|other\s+than|rather\s+than|but\s+not|without|only|since|from|between"
    r"|before|after|until|published|in\s+the\s+(?:last|past)|(?:19|20)\d\d)\b",
    re.I)


def main_verb(text: str) -> re.Match[str] | None:
    """The first finite-verb match of ``text`` that can head a main clause (see module doc),
    or None."""
    for m in _VERB.finditer(text):
        if m.start() == 0 or not re.search(r"\w", text[:m.start()]) or _CLAUSE_MARK.search(text[:m.start()]):
            continue
        v = m.group("v").lower()
        if v in _AMBIGUOUS_FORMS and re.match(r"\s+(?:of|in|for)\b(?!-)", text[m.end():], re.I) \
                and v not in ("results", "resulted"):
            continue
        if re.search(r"\b(?:the|a|an|this|these|The|A|An|This|These)\s+$", text[:m.start()]):
            continue
        return m
    return None


def is_claim(text: str) -> bool:
    """True when the normalised intent ``text`` is a declarative claim (module doc rule)."""
    text = text.strip()
    if not text or _FRAMING.search(text) or _DOC_LINK.search(text):
        return False
    if not (text.endswith(".") or re.match(r"[A-Z0-9]", text)):
        return False
    return main_verb(text) is not None


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
_ACRONYM = r"[A-Za-z0-9][\w+./-]{0,14}"
PAREN_ACRONYM = re.compile(rf"\(\s*(?P<a>{_ACRONYM})\s*\)")
MAX_TERMS = 5


def is_acronym(token: str) -> bool:
    """An acronym-like token: two or more capitals, or capitals mixed with digits or lower case
    after the first letter ("CKD", "Th2", "mRNA", "B12"); not a year or plain number."""
    if not re.fullmatch(_ACRONYM, token) or re.fullmatch(r"[\d.,/%-]+", token):
        return False
    caps = sum(c.isupper() for c in token)
    return caps >= 2 or (caps >= 1 and any(c.isdigit() for c in token)) or bool(re.search(r"[a-z][A-Z]", token))


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
        tail = re.match(r"(?:\s+(?:not|no\s+longer|never|\w+ly|been|be|being))*"
                        r"(?:\s+(?:" + "|".join(_VERB_FORMS) + r"|\w+ed)(?![\w'-]))?", claim[end:], re.I)
        end += tail.end()
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
        if not re.search(r"\w", tok) or tok.lower() in _STOP or tok.lower() in _THIRD_PERSON or _quantity(tok):
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
