"""Picking the verbatim quote of a judgement inside the best evidence chunk.

The best chunk is the evidence with the highest cosine similarity (ties: the earlier one) among
chunks with a non-boilerplate sentence. Its sentences (``core.boilerplate.content_spans``:
``core.text.sentence_spans`` minus road-maps, URLs, acknowledgements) are ranked by checkpoint-term coverage plus half the
fraction of checkpoint phrases they contain; ties go to the earlier sentence. The quote is that
sentence exactly as it appears in ``Evidence.text``; its full-text offsets are
``Evidence.char_start + offset within the chunk``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache

from litnav.core.boilerplate import content_spans
from litnav.core.records import Evidence
from litnav.core.text import stem_offsets, stems
from litnav.scorer.text import derivational_base, phrase_in, stem_string, unhyphenated


@dataclass(frozen=True)
class Quote:
    """A verbatim span of one evidence chunk. ``text == evidence.text[chunk_start:chunk_end]``;
    ``start``/``end`` are the same span as offsets into the paper's full text."""

    evidence: Evidence
    text: str
    chunk_start: int
    chunk_end: int

    @property
    def start(self) -> int:
        return self.evidence.char_start + self.chunk_start

    @property
    def end(self) -> int:
        return self.evidence.char_start + self.chunk_end


def best_span(text: str, terms: frozenset[str], phrases: list[str], spans: list[tuple[int, int]]) -> tuple[int, int]:
    """The span of ``spans`` (into ``text``) that best covers the checkpoint terms and phrase keys
    (``checkpoint_terms``); ties go to the earlier span."""
    if len(spans) == 1:
        return spans[0]
    st, starts = stem_offsets(text)
    best, best_score = spans[0], -1.0
    for s, e in spans:
        sent = st[bisect_left(starts, s):bisect_left(starts, e)]
        cov = len(terms.intersection(sent)) / len(terms) if terms else 0.0
        hay = stem_string([sent])
        ph = sum(phrase_in(p, hay) for p in phrases) / len(phrases) if phrases else 0.0
        score = cov + 0.5 * ph
        if score > best_score:
            best, best_score = (s, e), score
    return best


def pick_quote(evidence: list[Evidence], terms: frozenset[str], phrases: list[str]) -> Quote | None:
    """The quote for a judgement, or None when there is no evidence (or only blank chunks)."""

    usable = [(e, spans) for e in evidence if e.text.strip() and (spans := content_spans(e.text))]
    if not usable:
        return None
    ev, spans = max(usable, key=lambda es: es[0].similarity)  # max keeps the first of equal maxima
    s, e = best_span(ev.text, terms, phrases, spans)
    return Quote(evidence=ev, text=ev.text[s:e], chunk_start=s, chunk_end=e)


def stating_quote(evidence: list[Evidence], phrases: list[str], *, strict: bool = False) -> Quote | None:
    """The first non-boilerplate sentence, over ``evidence`` best first, that states every
    phrase key (``states``, with ``strict``); None when none does or there are no phrase keys."""
    for ev in sorted(evidence, key=lambda e: -e.similarity):
        for s, e in content_spans(ev.text):
            if states(ev.text[s:e], phrases, strict=strict):
                return Quote(evidence=ev, text=ev.text[s:e], chunk_start=s, chunk_end=e)
    return None


_NAME = r"[A-Z][\w'’-]+"
_YEAR = r"(?:19|20)\d{2}[a-z]?"
_CITATION = re.compile(
    rf"\([^()]*?{_NAME}(?: et al\.?| (?:and|&) {_NAME})?,? {_YEAR}[^()]*\)"  # (Bahdanau et al., 2014; ...)
    rf"|{_NAME}(?: et al\.?| (?:and|&) {_NAME})? \({_YEAR}"  # Bahdanau et al. (2014), Smith and Lee (2019)
    r"|\[\d+(?:\s*[,;–-]\s*\d+)*\]"  # [12], [3, 4], [5-7]
    r"|\{\{cite:[^{}]*\}\}"  # unarXive's {{cite:c08b...}}
    r"|\betc\.")  # a list of examples ending in "etc."
"""A sentence that cites other work or ends a list of examples: author-year, numeric and unarXive
citation markers, "etc."."""
_EXAMPLE_CUE = re.compile(r"\bsuch\s+as\b|\be\.g\.|\bfor\s+(?:example|instance)\b", re.IGNORECASE)
"""A cue after which a sentence lists examples ("such as", "e.g.", "for example"): a phrase after
it is an example of something else (:func:`_listed_example`), a phrase before it is not."""
_OWN = re.compile(r"\b(?:we|our|us|this (?:paper|work|study|article))\b", re.IGNORECASE)
"""The paper speaking of its own work."""


def mentions_other_work(sentence: str) -> bool:
    """True when ``sentence`` cites other work or ends a list of examples with "etc."
    (:data:`_CITATION`) and does not speak of the paper's own work ("we", "our", "this paper"): what
    it names is then said of the cited work ("Attention has been effective in machine translation
    (Bahdanau et al., 2014)"), not of the paper quoting it ("Our module is based on graph neural
    networks (Scarselli et al., 2009)" still speaks of the paper)."""
    return _CITATION.search(sentence) is not None and _OWN.search(sentence) is None


def _listed_example(text: str, start: int) -> bool:
    """True when the phrase at offset ``start`` of the sentence ``text`` follows an example cue
    (:data:`_EXAMPLE_CUE`) in a sentence not in the paper's own voice: "tasks such as question
    answering" names question answering as an example, "Generative flow networks (GFlowNets)
    are a method for generating objects, such as graphs" states generative flow networks."""
    return _EXAMPLE_CUE.search(text, 0, start) is not None and _OWN.search(text) is None


_NEGATED = re.compile(
    r"(?:\b(?:not|no|without|never|neither|nor|unlike|cannot|avoid(?:s|ed|ing)?|instead\s+of|rather\s+than"
    r"|free\s+of|contrary\s+to|in\s+contrast\s+(?:to|with)|as\s+opposed\s+to)\b|n't\b)(?:[^\w,;:.!?]+\w+){0,3}[^\w,;:.!?]*$",
    re.IGNORECASE)
"""A negation or contrast cue at most three words before a phrase, in the same clause (no comma,
colon or semicolon between): "we do not use BERT", "without Twitter data", "unlike BERT",
"contrary to semantic parsing"."""
_COMPARED = re.compile(
    r"\b(?:(?:compared|comparison)\s+(?:to|with)|(?<!more\s)(?<!less\s)(?<!fewer\s)(?<!other\s)than(?!\s+\d)"
    r"|outperform(?:s|ed|ing)?)"
    r"(?:[^\w,;:.!?]+(?!(?:on|in|across|for|at|over|using|with|by|and|while|when|where|which|that)\b)\w+){0,3}"
    r"[^\w,;:.!?]*$", re.IGNORECASE)
"""A comparison cue at most three words before a phrase, with no preposition or conjunction
between: "compared with the CNN based methods", "faster than LSTMs", "outperforms BERT" name a
baseline, which the paper compares, not uses ("outperforms BERT on GLUE" still uses GLUE)."""

_NEGATED_AFTER = re.compile(r"^[^\w,;:.!?]*(?:\w+[^\w,;:.!?]+){0,2}?(?:is|are|was|were|be|been)\s+(?:not|never)\b",
                            re.IGNORECASE)
"""A phrase the clause then negates: "BERT is not used", "Twitter data were never collected"."""
_NOT_ONLY = re.compile(r"\bnot\s+(?:only|just|merely)\b", re.IGNORECASE)
_COVARIATE = re.compile(r"\b(?:adjust(?:ed|ing)?|adjustment|controll?(?:ed|ing)?|stratif(?:ied|ying)|matched)\s+(?:\w+\s+)?"
                        r"(?:for|on|by)\b", re.IGNORECASE)
"""The cue of a covariate list ("... adjusted for age, smoking, aspirin use and diet"): what it
names is a confounder the study controls for, not what it studies (:func:`_in_covariates`)."""


_CLAUSE_END = re.compile(r";|\.(?:\s|$)")
_PHRASE_END = re.compile(r"[,;.]")
_FOURTH_WORD = re.compile(r"\w+\W+\w+\W+\w+\W+\w")


def _in_covariates(text: str, at: int) -> bool:
    """True when offset ``at`` of ``text`` lies in a covariate list: after a :data:`_COVARIATE` cue
    in the same clause, up to the clause's end (". ", ";") or, for a cue within the sentence's
    first three words ("After adjustment for BMI, aspirin ..."), up to the first comma."""
    for m in _COVARIATE.finditer(text, 0, at):
        stop = _CLAUSE_END if _FOURTH_WORD.search(text, 0, m.start()) else _PHRASE_END
        end = stop.search(text, m.end())
        if at < (end.start() if end else len(text)):
            return True
    return False


_WORD = re.compile(r"[\w'-]+")


_EXAMPLE_BEFORE = re.compile(r"\b(?:like|such\s+as|e\.g\.,?|including|for\s+(?:example|instance))\s"
                             r"(?:[^;:.!?]|\bal\.|\be\.g\.)*$", re.I)  # "et al." ends no clause
_CITED_AFTER = re.compile(r"^(?:\s+[\w-]+){0,3}\s*(?:\([^()]*?(?:19|20)\d{2}[a-z]?[^()]*\)|\[\d+(?:\s*[,;–-]\s*\d+)*\])")
"""An example of a list that carries its own citation ("applications like question answering
(Bordes et al., 2014), dialog systems (Madotto et al., 2018)"): a passing mention of cited work,
even in a sentence that speaks of the paper's own work after it; "we use encoders such as BERT
(Devlin et al., 2019)" still speaks of the paper (:func:`_cited_example`)."""


def _cited_example(text: str, start: int, after: str) -> bool:
    """True when the phrase at ``start`` of ``text`` (``after``: the text right after it) is a cited
    example (:data:`_CITED_AFTER`) after an example cue that no "we"/"our" precedes."""
    if not _CITED_AFTER.match(after):
        return False
    window = max(0, start - 200)
    cue = _EXAMPLE_BEFORE.search(text, window, start)
    return cue is not None and _OWN.search(text, 0, cue.start()) is None


def _adjacent(text: str, starts: list[int], i: int, n: int) -> bool:
    """True when the ``n`` tokens from token ``i`` are consecutive words of ``text`` (no word between
    them, only spaces and punctuation: no stop word was dropped)."""
    for j in range(i, i + n - 1):
        word = _WORD.match(text, starts[j])
        if word is None or re.search(r"\w", text[word.end():starts[j + 1]]):
            return False
    return True


def _affirmed(phrase: str, st: list[str], starts: list[int], sentence: str, adjacent: bool = False) -> bool:
    """True when the stemmed ``phrase`` key occurs in ``st`` (``stem_offsets(sentence)``) at least
    once not negated: no negation cue (:data:`_NEGATED`; "not only" is none) just before it in
    its clause, no "is not"/"were never" (:data:`_NEGATED_AFTER`) right after it, not in a
    covariate list ("adjusted for ... aspirin use": :data:`_COVARIATE`), not a cited example
    ("like ... dialog systems (Madotto et al., 2018)": :data:`_CITED_AFTER`) and not a listed one
    ("tasks such as question answering": :func:`_listed_example`). With ``adjacent``
    the occurrence must also be consecutive words (:func:`_adjacent`)."""
    key = phrase.split()
    if not key:
        return False
    text = sentence.replace("\u2019", "'")
    for i in range(len(st) - len(key) + 1):
        if st[i:i + len(key)] == key and (not adjacent or _adjacent(text, starts, i, len(key))):
            before = text[max(0, starts[i] - 60):starts[i]]
            last = _WORD.match(text, starts[i + len(key) - 1])
            end = last.end() if last else starts[i + len(key) - 1]
            after = text[end:end + 40]
            negated_before = (_NEGATED.search(before) and not _NOT_ONLY.search(before)) or _COMPARED.search(before)
            if (not negated_before and not _NEGATED_AFTER.search(after) and not _in_covariates(text, starts[i])
                    and not _cited_example(text, starts[i], after) and not _listed_example(text, starts[i])):
                return True
    return False


_FIELD_BACKGROUND = re.compile(
    r"\b(?:has|have)\s+(?:(?:also|recently|already|long|increasingly|widely|largely|now)\s+)?(?:been|gained|shown"
    r"|achieved|become|attracted|emerged|demonstrated|received|seen|made|enabled|drawn|revolutioni[sz]ed"
    r"|dominated|proven)\b|\brecent(?:ly|\s+(?:years|advances?|progress|work|studies|success(?:es)?))\b"
    r"|\b(?:achieved|showed|shown|demonstrated|yielded|delivered)\s+(?:[\w-]+\s+){0,3}?(?:success(?:es)?|performance"
    r"|results|progress|breakthroughs?|advances)\b"
    r"|\b(?:widely|extensively|commonly|increasingly|successfully)\s+(?:been\s+)?(?:used|applied|adopted|studied"
    r"|employed|explored)\b", re.I)
"""A sentence that reports the state of a field ("Diffusion models have gained significant attention
in image generation", "Recent advances in ...", "Transformers achieved breakthrough performance in
NLP", "... are widely used in ..."): not in the paper's own voice, it says what others
did (:func:`states` with ``strict``)."""


def states(sentence: str, phrases: list[str], *, strict: bool = False) -> bool:
    """True when ``sentence`` contains every phrase key (``scorer.text.phrase_key``) of a
    checkpoint contiguously after stemming (or as one hyphenated word, :func:`_form_in`), not negated (a negation cue at most three words
    before it: "we do not use BERT", "without Twitter data"), not an example after "such as" or
    "e.g.", not a baseline compared (:data:`_COMPARED`: "faster than LSTMs"), and the sentence cites no other work (:func:`mentions_other_work`): the sentence states the checkpoint's key phrases
    of the paper itself (e.g. "We fine-tune BERT ..." states "The paper uses BERT"). A noun and its
    adjective count as one word (:func:`~litnav.scorer.text.derivational_base`: "low autophagic
    activity" states "autophagy"). False without phrase keys. ``strict`` (an exclusion, whose
    violation demotes the paper): a sentence that lists examples anywhere states nothing, unless it
    speaks of the paper's own work ("a survey of both human evaluation measures and automated
    metrics, and a review of ..., such as ..." does not make a paper a study of human evaluation),
    and neither does a sentence on the state of the field not in its own voice
    (:data:`_FIELD_BACKGROUND`: "Diffusion models have gained attention in image generation")."""
    if not phrases or mentions_other_work(sentence):
        return False
    if strict and _listed_example(sentence, len(sentence)):  # an example cue anywhere in it
        return False
    if strict and _FIELD_BACKGROUND.search(sentence) and not _OWN.search(sentence):
        return False
    st, starts = stem_offsets(sentence)
    st = unhyphenated(st)  # phrase keys are matched without hyphens
    if _states_in(phrases, st, starts, sentence):
        return True
    bases, base_keys = [derivational_base(t) for t in st], [_base_key(p) for p in phrases]
    if bases == st and base_keys == phrases:
        return False
    return _states_in(base_keys, bases, starts, sentence)


def _base_key(key: str) -> str:
    """A phrase key with each stem's :func:`~litnav.scorer.text.derivational_base`."""
    return f" {' '.join(derivational_base(t) for t in key.split())} " if key.strip() else key


def _states_in(phrases: list[str], st: list[str], starts: list[int], sentence: str) -> bool:
    """True when every phrase key occurs, affirmed (:func:`_affirmed`), in the stems ``st``."""
    hay = stem_string([st])
    found = [_form_in(p, hay) for p in phrases]
    return all(found) and all(_affirmed(f, st, starts, sentence, adjacent=f != p) for f, p in zip(found, phrases))


_NEURAL = re.compile(r"^( \S+(?: \S+)*) neural( network )")
"""A key "<kind> neural network" ("graph neural network"), which "<kind> <architecture> network"
states: a network named by its kind and a neural architecture is a neural one ("graph
convolutional network", "graph attention network"; "convolutional network" is short for
"convolutional neural network"), unlike another kind of network ("Bayesian flow networks")."""
ARCHITECTURES = ("convolutional", "recurrent", "attention", "transformer", "residual", "recursive", "spiking",
                 "feed-forward", "message-passing", "isomorphism", "capsule", "gated", "adversarial", "siamese",
                 "equivariant", "memory", "deep", "generative", "autoregressive", "graph")
"""The neural architectures a "<kind> <architecture> network" may name for "neural"."""


@lru_cache(maxsize=1)
def _architectures() -> str:
    """:data:`ARCHITECTURES` as a regex alternation of their phrase-key stems (``stems`` in American
    spelling, hyphens dropped as in every phrase key)."""
    return "|".join(sorted({re.escape(t) for w in ARCHITECTURES for t in unhyphenated(stems(w))}))


def _form_in(key: str, hay: str) -> str | None:
    """The form in which a phrase key occurs in ``hay``: as it is, with some or all of its words
    written as one word, hyphenated or closed (" insulin resist " in "being insulin-resistant",
    whose hyphen is dropped: "insulinresist"; " hate speech detect " in "hate-speech detection" or
    "hatespeech detection"), or, for "<kind> neural network", with an architecture for "neural"
    (:data:`_NEURAL`); None when none occurs."""
    if phrase_in(key, hay):
        return key
    words = key.split()
    if len(words) > 1 and "".join(words) in hay.replace(" ", ""):  # cheap test before the regex
        found = re.search(" " + " ?".join(re.escape(w) for w in words) + " ", hay)
        if found:
            return found.group(0)
    if (m := _NEURAL.match(key)) is not None:
        found = re.search(re.escape(m.group(1)) + r" (?:" + _architectures() + r") " + re.escape(m.group(2).strip())
                          + " ", hay)
        return found.group(0) if found else None
    return None
