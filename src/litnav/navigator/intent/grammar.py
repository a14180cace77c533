"""English grammar helpers shared by intent analysis: auxiliaries, acronyms and verb forms.

Word classes come from the general English lexicon of ``lemminflect`` (its lemma and
inflection tables), never from a table of domain verbs: a word is a finite verb when the
lexicon lists it as a 3rd-person, past or plural-present form of a verb. Forms that are also
nouns or adjectives ("increases", "models", "increased") are read in context
(:func:`ambiguous_is_verb`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from litnav.navigator.intent.lexicon import all_inflections, all_lemmas, known_word

AUXILIARIES = ("is", "are", "was", "were", "has", "have", "had", "does", "do", "did", "can", "cannot",
               "could", "will", "would", "should", "may", "might", "must")
_FINITE_TAGS = ("VBZ", "VBD", "VBP")
_IRREGULAR_PLURALS = frozenset("data mitochondria bacteria criteria phenomena people children men women mice "
                               "teeth feet genera media".split())
_NOUN_FOLLOWERS = re.compile(r"\s*(?:$|[,.;:)?!|]|\b(?:of|in|for|and|or|from|with|on|at|by|as|versus|vs|that|which"
                             r"|who|whose|using|leveraging|employing|utili[sz]ing|applying|exploiting|combining|incorporating"
                             r"|including|such)\b(?!-))", re.I)
_ACRONYM = r"[A-Za-z0-9][\w+./-]{0,14}"
PAREN_ACRONYM = re.compile(rf"\(\s*(?P<a>{_ACRONYM})\s*\)")

def is_acronym(token: str) -> bool:
    """An acronym-like token: two or more capitals, or capitals mixed with digits or lower case
    after the first letter ("CKD", "Th2", "mRNA", "B12"); not a year or plain number."""
    if not re.fullmatch(_ACRONYM, token) or re.fullmatch(r"[\d.,/%-]+", token):
        return False
    caps = sum(c.isupper() for c in token)
    return caps >= 2 or (caps >= 1 and any(c.isdigit() for c in token)) or bool(re.search(r"[a-z][A-Z]", token))


@lru_cache(maxsize=16384)
def verb_class(word: str) -> str:
    """How the general English lexicon (``lemminflect``) reads a lower-cased word: "finite"
    for a finite verb form only (3rd person "-s", past, plural present: "inhibits", "reduced",
    "outperform"), "ambiguous" for a finite form that is also a noun or adjective ("increases",
    "results", "models"), "aux" for an auxiliary or modal, else "" (nouns, adjectives, "-ing"
    forms, unknown words)."""

    if word in AUXILIARIES or (word.endswith("n't") and word[:-3] in AUXILIARIES + ("ca", "wo", "do")):
        return "aux"
    if word.endswith("ing"):
        return ""
    if "-" in word:
        head, _, last = word.rpartition("-")
        return verb_class(last) if head in ("up", "down", "co", "re", "pre", "over", "under", "mis", "out") else ""
    lemmas = all_lemmas(word)
    if not lemmas:  # unknown to the lexicon: productive verb suffixes ("phosphorylates", "downregulates")
        return "finite" if re.search(r"(?:ates|izes|ises|ifies)$", word) and len(word) > 7 else ""
    verbs = lemmas.get("VERB", ())
    finite = any(word in all_inflections(lemma, upos="VERB").get(tag, ()) for lemma in verbs for tag in _FINITE_TAGS)
    if not finite:
        return ""
    return "ambiguous" if set(lemmas) - {"VERB"} else "finite"


@lru_cache(maxsize=16384)
def finite_tags(word: str) -> frozenset[str]:
    """The finite verb tags the lexicon gives a lower-cased word: "VBZ" (3rd person "-s"),
    "VBD" (past), "VBP" (plural present = base form); empty for any other word."""

    if "-" in word:
        return finite_tags(word.rpartition("-")[2])
    lemmas = all_lemmas(word).get("VERB", ())
    if not lemmas and verb_class(word) == "finite":
        return frozenset({"VBZ"})
    return frozenset(tag for lemma in lemmas for tag, forms in all_inflections(lemma, upos="VERB").items()
                     if tag in _FINITE_TAGS and word in forms)


_CHANGE_VERBS = frozenset("decreases increases affects causes changes influences lowers raises alters impairs "
                          "drives limits shapes".split())
"""Third-person verbs that are plural nouns too ("increases in ..."): after a noun they are the
clause's verb ("exercise increases insulin sensitivity")."""
_DETERMINERS = frozenset("a an the its their this these those such some any no each every both all our your "
                         "his her my many few several".split())


_DO_QUESTION = re.compile(r"^\W*(?:do|does|did)\s", re.I)


def question_change_verb(word: str, text: str) -> bool:
    """True when ``word`` is the base form of a :data:`_CHANGE_VERBS` verb and ``text`` is a
    do-question: there it is the verb after the subject ("does metformin lower cancer risk?",
    "do statins change fracture risk?"), not an adjective or noun of a compound."""
    return _DO_QUESTION.match(text) is not None and f"{word.lower()}s" in _CHANGE_VERBS


def change_verb_after_noun(word: str, before: str) -> bool:
    """True when ``word`` is one of :data:`_CHANGE_VERBS` and the word before it (the end of
    ``before``) is no determiner or preposition: the clause's verb ("supplementation decreases
    fracture risk"), not a plural noun ("the increases in", "of changes")."""
    prev = re.search(r"([\w-]+)\W*$", before)
    return word.lower() in _CHANGE_VERBS and prev is not None and \
        prev.group(1).lower() not in _DETERMINERS | PREPOSITIONS


def base_form_is_verb(before: str, after: str) -> bool:
    """A plural-present form ("give", "annotate") heads a clause only after a plural or acronym
    subject ("stem cells give rise", "RIM1 decrease"; not after a verb: "reduces fracture risk")
    or before a determiner or "to" ("play a role", "lead to"); otherwise it is an infinitive or
    imperative ("to create or annotate")."""
    if re.match(r"\s+(?:a|an|the|to|no|its|their|this|these|that|more|less)\b", after, re.I):
        return True
    prev = re.search(r"([\w-]+)\W*$", re.sub(r"(?:\s+\w+ly)+\s*$", " ", before))
    if not prev:
        return False
    w = prev.group(1)
    # "reduces fracture risk": an "-s" word that can only be a verb is the clause's verb, not a plural subject;
    # so is a change verb after a noun ("supplementation decreases fracture risk"), not after a determiner
    # or preposition ("the increases in", "of changes")
    plural = w.lower().endswith("s") and not w.lower().endswith("ss") and word_class(w.lower()) != "verb" \
        and not change_verb_after_noun(w, before[:prev.start(1)])
    return plural or w.lower() in _IRREGULAR_PLURALS or ("-" not in w and is_acronym(w) and not chemical_formula(w))


_ELEMENTS = frozenset("""
H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y Zr
Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir
Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr
""".split())


def chemical_formula(token: str) -> bool:
    """True for a formula of element symbols with at least one count ("CO2", "CH4", "H2O",
    "NO2", "LiFePO4"; not "RIM1", "B", "CKD"): a substance, a singular mass noun, so a base form
    after it is no plural verb ("CO2 capture", "CH4 release")."""
    parts = re.findall(r"([A-Z][a-z]?)(\d*)", token)
    return any(n for _e, n in parts) and "".join(e + n for e, n in parts) == token \
        and all(e in _ELEMENTS for e, _n in parts)


PREPOSITIONS = frozenset("of in for with on at by from about into onto over under between among across through via "
                         "without within toward towards".split())
"""Prepositions that end a noun phrase (a verb form after one is no clause's verb)."""
_RELATIVE = re.compile(r"([\w-]+)\s+(?:that|which|who)\s+$", re.I)
_NO_ANTECEDENT = PREPOSITIONS | frozenset("after before during since like unlike despite per to and or but as so than "
                                          "all such now not".split())


def relative_clause_verb(word: str, before: str, after: str) -> bool:
    """The word right after "that", "which" or "who" heads the relative clause when the word
    before the pronoun is no function word or verb (then "that" is a determiner or a
    conjunction: "on that benchmark", "show that models ...") and the word is a plural-present
    verb form or, unknown to the lexicon as a verb, is followed (after an adverb or not) by a
    preposition ("materials that conduct heat", "metrics that correlate well with human
    judgments"); a noun after the pronoun is the clause's own subject ("metrics that humans
    prefer")."""
    m = _RELATIVE.search(before)
    if not m or m.group(1).lower() in _NO_ANTECEDENT or verb_class(m.group(1).lower()) in ("finite", "aux"):
        return False
    return "VBP" in finite_tags(word) or bool(re.match(
        r"(?:\s+(?:\w+ly|well))?\s+(?:with|to|on|in|into|across|under|over|between)\b", after))


def ambiguous_is_verb(word: str, before: str, after: str) -> bool:
    """Context for a form that is also a noun or adjective: a past form ("increased") is a verb
    before a function word, number or clause end ("increased by 10%", not "increased risk"); a
    base form ("give", "play") only after a plural or acronym subject ("stem cells give rise",
    "RIM1 decrease") or before a determiner or "to" ("play a role", "lead to"); an "-s" form
    ("increases", "models") unless a preposition, conjunction, clause end or another finite
    verb follows ("interfaces remain": the subject)."""
    tags = finite_tags(word)
    if "VBZ" in tags and re.match(r"\s+[a-z]+(?:able|ible|ed)\b", after):
        return False  # "tools available", "methods based on"
    if "VBD" in tags and "VBZ" not in tags:
        return bool(re.match(r"\s*(?:$|[,.;:)]|\d|\b(?:by|to|from|with|in|at|after|before|over|during|the|a|an)\b)",
                             after, re.I))
    if "VBZ" not in tags:
        return base_form_is_verb(before, after)
    nxt = re.match(r"\s+([a-z]+)\b", after)
    if nxt and verb_class(nxt.group(1)) in ("finite", "aux"):
        return False  # "interfaces remain", "results are": the subject before its verb
    return not _NOUN_FOLLOWERS.match(after)


@lru_cache(maxsize=8192)
def lexicon_verb(word: str) -> bool:
    """True for any verb form the lexicon knows (base, participles: "affect", "associated")."""

    return "VERB" in all_lemmas(word)


@lru_cache(maxsize=8192)
def english_word(word: str) -> bool:
    """True when the general English lexicon knows ``word`` (any case): "media" yes, "conll" no."""

    return known_word(word)


@lru_cache(maxsize=8192)
def word_class(word: str) -> str:
    """"verb" for a word that can only be an inflected verb form, "adverb" for one that can only
    be an adverb, else "" (noun, adjective, unknown, "-ing" form)."""

    lemmas = all_lemmas(word)
    if not lemmas:
        return "adverb" if len(word) > 4 and word.endswith("ly") else ""
    kinds = set(lemmas)
    if kinds == {"ADV"}:
        return "adverb"
    if kinds == {"VERB"} and not word.endswith("ing"):
        return "verb"
    return ""


@lru_cache(maxsize=8192)
def adjective_only(word: str) -> bool:
    """True for a word the lexicon knows only as an adjective ("brittle", "robust"): no concept
    on its own."""

    return set(all_lemmas(word)) == {"ADJ"}


@lru_cache(maxsize=8192)
def ly_adverb(word: str) -> bool:
    """True for an "-ly" word the lexicon knows as an adverb ("poorly", "significantly"; also
    "poorly" the adjective): a manner word, no concept on its own."""

    return word.endswith("ly") and (word_class(word) == "adverb" or "ADV" in all_lemmas(word))


@lru_cache(maxsize=8192)
def ed_participle(word: str) -> bool:
    """True for an "-ed" word the lexicon knows as a verb form ("based", "adapted"): in running
    text a participle of a clause, no concept on its own."""

    return word.endswith("ed") and "VERB" in all_lemmas(word)


_FUNCTION_NOUNS = frozenset(("via", "per", "versus"))


@lru_cache(maxsize=4096)
def _noun_forms(word: str) -> tuple[str, ...]:
    """The other number of a noun when the stemmer cannot join them ("mouse"/"mice",
    "analysis"/"analyses", "child"/"children"); () for a regular noun, a word the lexicon does not
    know as a noun, a function word the lexicon lists as a noun ("via"), or a noun with two
    lemmas ("data": datum or data)."""
    from litnav.core.text import stems, stop_words

    w = word.lower()
    lemmas = all_lemmas(w, "NOUN").get("NOUN", ())
    if len(lemmas) != 1 or w in _FUNCTION_NOUNS or w in stop_words():
        return ()  # "data": datum or data
    seen = {tuple(stems(w))}
    out = []
    for form in (lemmas[0], *all_inflections(lemmas[0], "NOUN").get("NNS", ())):
        key = tuple(stems(form))
        if key not in seen:
            seen.add(key)
            out.append(form)
    return tuple(out)


def number_variants(phrase: str, limit: int = 4) -> list[str]:
    """``phrase`` with one word in its other, irregular number ("mouse models" -> ["mice
    models"], "analyses of children" -> ["analysis of children", "analyses of child"]): an
    exclusion of "mouse studies" must catch a paper "in mice". A word before a hyphen modifies a
    compound and keeps its number. At most ``limit`` variants, in word order; [] when no word has an
    irregular form."""
    out: list[str] = []
    for m in re.finditer(r"[A-Za-z]+", phrase):
        if phrase.startswith("-", m.end()):
            continue  # the modifier of a compound ("self-supervised"), never "selves-supervised"
        for form in _noun_forms(m.group(0)):
            if m.group(0)[:1].isupper():
                form = form[:1].upper() + form[1:]
            out.append(phrase[:m.start()] + form + phrase[m.end():])
    return list(dict.fromkeys(out))[:limit]
