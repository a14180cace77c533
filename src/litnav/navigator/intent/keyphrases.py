"""Concepts of an intent: keyphrases cut at grammar and corpus statistics, not at hand lists.

:func:`concepts` reads what the metadata and exclusion extractors left of an intent:

1. the text is cut into runs at punctuation, consumed spans and English function words
   (``corpus.phrases.segments``);
2. inside a run, a word that can only be an inflected verb ("treated", "inhibits") or only an
   adverb ("However", "significantly") is a boundary too (word classes from the general English
   lexicon of ``lemminflect``; "-ing" forms stay: "parsing", "querying" head noun phrases);
3. with a corpus phrase table (``corpus.phrases.PhraseTable``), each run is segmented
   greedily into the longest phrases the table knows (3 then 2 words), and a word left over
   joins the segment after it (English modifiers precede their head: "large" + "pretrained
   language models"), or, at the end of a run, the phrase before it (its head: "social media"
   + "posts"); without a table a run is one concept;
4. request and document words at the edges are trimmed (``facets.clean_phrase``), and a
   lower-case one-word concept that is only an adjective ("brittle") or generic in the corpus (in more than :data:`GENERIC_DOC_FRACTION`
   of its documents, e.g. "effect", "approach"; without a table: the words of
   :data:`FALLBACK_GENERIC`) is dropped.

Each concept carries its salience: the sum of its words' corpus IDF (without a table, its word
count), used to keep the most specific concepts of a long, abstract-like intent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from litnav.corpus.phrases import PhraseTable, segments
from litnav.navigator.intent.grammar import adjective_only as _adjective_only
from litnav.navigator.intent.grammar import (
    ambiguous_is_verb,
    ed_participle,
    ly_adverb,
    question_change_verb,
    relative_clause_verb,
    verb_class,
)
from litnav.navigator.intent.grammar import word_class as _word_class
from litnav.navigator.intent.lexicon import all_lemmas
from litnav.navigator.intent.text import LATIN_WORDS, clean_phrase, title_cased

GENERIC_DOC_FRACTION = 0.03
FALLBACK_GENERIC = frozenset("""
effect effects impact impacts role use uses usage method methods approach approaches technique techniques
model models system systems study studies analysis result results work works paper papers research problem
problems task tasks issue issues question questions way ways type types kind kinds number level levels aspect
aspects factor factors application applications performance evaluation known new novel recent current state
art overview review survey literature evidence data information existing previous prior
""".split())

GENERIC_HEADS = frozenset("methods method approaches approach techniques technique strategies "
                          "studies works papers stuff things".split())
"""Head words dropped from the end of a multi-word concept ("sentiment analysis methods" ->
"sentiment analysis"), so "X methods" and "methods for X" name the same concept."""
CONNECTIVE_GERUNDS = frozenset("using leveraging employing utilising utilizing relying applying exploiting "
                               "combining incorporating".split())
"""Gerunds that introduce a method ("batteries using silicon anodes"): boundaries, not heads."""
_PRONOUN_VERB = re.compile(r"\b(?:we|i|they|you|he|she)\s+(?:\w+ly\s+)?[\w-]+", re.I)


@dataclass
class Concept:
    """One keyphrase: its ``text`` as written, offsets ``[start, end)`` into the analysed text,
    lower-cased ``words`` and ``salience`` (sum of word IDF, or word count without a table)."""

    text: str
    start: int
    end: int
    words: list[str]
    salience: float


def _after_verb(text: str, start: int) -> bool:
    """True when the word before ``start`` is a verb (a predicate adjective follows it)."""
    prev = re.search(r"([A-Za-z]+)\W*$", text[:start])
    return bool(prev) and _word_class(prev.group(1).lower()) == "verb"


def _compound_head(run: list[tuple[str, int, int]], k: int, table: PhraseTable | None) -> bool:
    """True when the verb-only word ``run[k]`` heads a compound noun the corpus knows: the phrase
    table holds it with the word before it, which is no adverb or verb ("dialogue act", "speech
    acts"; not "often involve"). The lexicon lists some nouns as verbs only ("act")."""
    if table is None or k == 0 or _word_class(run[k - 1][0]):
        return False
    return table.is_phrase([run[k - 1][0], run[k][0]])


_COMPARATIVES = frozenset("better best worse worst more most less least".split())
_DEGREE_ALLY = frozenset("""
actually additionally basically critically dramatically drastically especially essentially exceptionally
fundamentally generally ideally incrementally initially internally marginally minimally naturally
nominally normally notably occasionally optimally originally partially particularly potentially
practically radically really specially substantially technically totally traditionally typically
unusually usually virtually
""".split())
"""'-ally' adverbs of degree, frequency or stance, which name no kind of what follows ("especially
rare words", "typically low-resource languages"); "partially observable" is a field's term, but a
concept without "partially" still finds it."""


def _modifies_adjective(run: list[tuple[str, int, int]], k: int) -> bool:
    """True when the "-ally" adverb ``run[k]`` (a field's: "morphologically", "computationally",
    "statistically"; not a degree such as "highly" or "surprisingly") names a kind of the adjective
    after it inside a noun phrase ("morphologically rich languages", "computationally efficient
    transformers"): the next word is an adjective, not a verb form or comparative, and a word
    follows it."""
    word = run[k][0].lower()
    if k + 2 >= len(run) or not word.endswith("ally") or word in _DEGREE_ALLY:  # not "highly", "especially"
        return False
    nxt = run[k + 1][0].lower()
    if re.search(r"(?:ed|en|er|est)$", nxt) or nxt in _COMPARATIVES:  # "significantly better": a degree, no name
        return False
    return "ADJ" in all_lemmas(nxt) and _word_class(nxt) != "verb"


def _split_run(run: list[tuple[str, int, int]], text: str, table: PhraseTable | None = None) -> list[list[tuple[str, int, int]]]:
    """Cut a run at verb-only and adverb-only words, at finite verbs read in context
    (``claims.main_verb``'s rules: "microplastics affect coral reefs"; first in the run, a
    relative clause's verb: "metrics that correlate with") and at the gerunds that
    introduce a method (:data:`CONNECTIVE_GERUNDS`); a participle ("-ed", "-en") followed by
    another word of the run modifies it ("federated learning", "treated mice") and stays, and so
    does a verb-only word that heads a compound noun of the corpus (:func:`_compound_head`:
    "dialogue act classification")."""
    out: list[list[tuple[str, int, int]]] = []
    cur: list[tuple[str, int, int]] = []
    for k, tok in enumerate(run):
        if text[tok[1]].isupper() and k > 0:
            cur.append(tok)  # "Natural Questions": a capitalised word inside a run is part of a name
            continue
        cls = _word_class(tok[0])
        finite = verb_class(tok[0])
        if finite == "finite" or (finite == "ambiguous" and k > 0
                                  and ambiguous_is_verb(tok[0], text[:tok[1]], text[tok[2]:])) \
                or (k == 0 and relative_clause_verb(tok[0], text[:tok[1]], text[tok[2]:])):
            cls = cls or "verb"
        if k > 0 and question_change_verb(tok[0], text):
            cls = "verb"  # "does metformin lower cancer risk?"
        if cls == "verb" and k + 1 < len(run) and re.search(r"(?:ed|en)$", tok[0]):
            cls = ""
        if cls == "verb" and _compound_head(run, k, table):
            cls = ""
        if tok[0] in CONNECTIVE_GERUNDS:
            cls = "verb"
        if cls == "adverb" and _modifies_adjective(run, k):
            cls = ""
        if cls and "-" not in tok[0]:
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(tok)
    if cur:
        out.append(cur)
    return out


def _segment(run: list[tuple[str, int, int]], table: PhraseTable | None) -> list[list[tuple[str, int, int]]]:
    if table is None or len(run) < 2:
        return [run]
    pieces: list[tuple[list[tuple[str, int, int]], bool]] = []  # (tokens, is a table phrase)
    i = 0
    while i < len(run):
        for n in (3, 2):
            if i + n <= len(run) and table.is_phrase([t for t, _s, _e in run[i:i + n]]):
                pieces.append((run[i:i + n], True))
                i += n
                break
        else:
            pieces.append(([run[i]], False))
            i += 1
    out: list[list[tuple[str, int, int]]] = []
    pending: list[tuple[str, int, int]] = []
    for toks, phrase in pieces:
        if phrase:
            out.append(pending + toks)
            pending = []
        else:
            pending += toks
    if pending:
        if out and len(pending) == 1:
            out[-1] = out[-1] + pending  # one word after a phrase is its head ("social media posts")
        else:
            out.append(pending)
    return out


def generic(word: str, table: PhraseTable | None) -> bool:
    """True for a lower-cased word too common to be a concept on its own (module doc, step 4)."""
    if table is not None and table.n_docs >= 200:
        return table.doc_fraction(word) > GENERIC_DOC_FRACTION or word in FALLBACK_GENERIC
    return word in FALLBACK_GENERIC


def without_generic_head(phrase: str) -> str:
    """``phrase`` less trailing :data:`GENERIC_HEADS` ("sentiment analysis methods" -> "sentiment
    analysis", "neural network approaches" -> "neural network"), unless what is left is one
    adjective that names nothing alone ("neural approaches", "rule-based methods" stay)."""
    while len(phrase.split()) > 1 and phrase.split()[-1].lower() in GENERIC_HEADS:
        rest = clean_phrase(phrase.rsplit(" ", 1)[0])
        if " " not in rest and rest.islower() and (_adjective_only(rest) or rest.endswith("-based")):
            break
        phrase = rest
    return phrase


_GOAL_BEFORE = re.compile(r"\b(?:how|ways?|in\s+order|want|wants|need|needs|trying|try)\s+to\s+$", re.I)
_DETERMINER_AFTER = re.compile(r"\s+(?:the|a|an|their|its|our|this|these|those)\b", re.I)


def _goal_verb(tok: tuple[str, int, int], text: str) -> bool:
    """True for the base-form verb of a goal: after "how to", "ways to", "need to" (any verb:
    "how to make transformers faster"), or opening the intent when the lexicon knows the word
    only as a verb ("reduce hallucination ..."; not "transfer learning ..."). It is not part of
    the concept after it."""
    word = tok[0].lower()
    lemmas = all_lemmas(word)
    if word not in lemmas.get("VERB", ()):  # base form only: "make", not "makes"/"made"/"making"
        return False
    before = text[:tok[1]]
    opens = not before.strip(" \t\"'(") and "NOUN" not in lemmas and not title_cased(text)  # "Skew Orthogonal ..."
    return bool(_GOAL_BEFORE.search(before)) or opens


_LATIN_BEFORE = re.compile(rf"\b(?:in|ex)\s+{LATIN_WORDS}$", re.I)
"""The Latin locative a concept opens with (``text.LATIN_LOCATIVE``), ending where the concept's
first word ends."""
_CHANGE_GERUNDS = frozenset(
    "improving enhancing reducing decreasing mitigating alleviating addressing tackling "
    "overcoming accelerating speeding lowering minimizing minimising maximizing maximising".split())
"""A goal's "-ing" verb that changes its object ("improving low-resource machine translation"):
the object is the concept. Task gerunds ("detecting", "parsing", "summarizing") name the task and
stay."""


def _change_gerund(tok: tuple[str, int, int], text: str) -> bool:
    """True for a :data:`_CHANGE_GERUNDS` word opening a concept, unless a title is pasted
    ("Improving Language Understanding by Generative Pre-Training" keeps its words)."""
    return tok[0].lower() in _CHANGE_GERUNDS and not title_cased(text)


def _clause_gerund(word: str, text: str, end: int) -> bool:
    """True for a lone "-ing" word the lexicon knows only as a verb, followed by a determiner:
    "reducing the quadratic memory cost" is a clause, "reducing" no topic ("parsing of French" is)."""
    return word.endswith("ing") and set(all_lemmas(word)) == {"VERB"} and bool(_DETERMINER_AFTER.match(text, end))


def _reduplicated(runs: list[list[tuple[str, int, int]]], text: str) -> list[list[tuple[str, int, int]]]:
    """``runs`` with a word, "to" or "by" and the same word again, or a noun, "in" and its plural,
    joined into one run: a fixed compound ("end to end", "sequence to sequence", "layer by layer",
    "difference in differences") is one concept, not two."""
    out: list[list[tuple[str, int, int]]] = []
    for run in runs:
        a, b = (out[-1][-1][0], run[0][0]) if out else ("", "")
        gap = text[out[-1][-1][2]:run[0][1]].strip().lower() if out else ""
        if (gap in ("to", "by") and a == b) or (gap == "in" and b in (a + "s", a + "es")):
            out[-1] = out[-1] + run
        else:
            out.append(run)
    return out


def concepts(text: str, table: PhraseTable | None = None, *, compounds: bool = True) -> list[Concept]:
    """The concepts of ``text`` in order of appearance (module docstring); offsets index ``text``.
    ``compounds=False`` never reads a verb-only word as the head of a compound noun
    (:func:`_compound_head`): for running text (a pasted abstract), where "experiments
    demonstrate" is a clause, not a name."""
    # a pronoun and the verb after it ("we study", "they propose") hold no concept
    text = _PRONOUN_VERB.sub(lambda m: "|" + " " * (len(m.group(0)) - 1), text)
    out: list[Concept] = []
    for run in _reduplicated(segments(text), text):
        for part in _split_run(run, text, table if compounds else None):
            for seg in _segment(part, table):
                if len(seg) > 1 and (_goal_verb(seg[0], text) or _change_gerund(seg[0], text)):
                    seg = seg[1:]  # "make transformers ..." -> "transformers"; "improving low-resource MT" -> "low-resource MT"
                begin = seg[0][1]
                if latin := _LATIN_BEFORE.search(text, 0, begin + len(seg[0][0])):
                    begin = latin.start()  # "in vivo studies": the "in" is part of the concept
                raw = text[begin:seg[-1][2]]
                phrase = without_generic_head(clean_phrase(raw))
                if not phrase or not re.search(r"[A-Za-z]", phrase):
                    continue
                start = begin + raw.find(phrase)
                words = [w.lower() for w in re.findall(r"[\w'.-]+", phrase)]
                if len(words) == 1 and words[0].lower().endswith("n't"):
                    continue  # "why don't all patients ...": the negated verb's auxiliary
                if len(words) == 1 and _clause_gerund(words[0], text, seg[-1][2]):
                    continue  # "Reducing the quadratic memory cost": the clause's verb, in any case
                if len(words) == 1 and phrase.islower() and (
                        generic(words[0].strip(".'"), table)
                        or (_adjective_only(words[0]) and (not compounds or _after_verb(text, seg[0][1])))
                        or ly_adverb(words[0]) or (not compounds and ed_participle(words[0]))):
                    continue  # "effect"; "brittle" in "interfaces remain brittle"; "poorly"; in running text "greedy", "based"
                sal = sum(table.idf(w) for w in words) if table is not None else float(len(words))
                out.append(Concept(text=phrase, start=start, end=start + len(phrase), words=words, salience=sal))
    return out
