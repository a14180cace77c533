"""Text helpers of the scorer: tokenising, stemming and key phrases.

Terms are ``core.text.stems``: lower-cased word tokens (letters/digits, inner hyphens kept), stop
words removed, stemmed with the Snowball English stemmer (PyStemmer), so "Surveys" and "survey"
are the same term. Sentences come from ``core.text.sentence_spans``.
"""

from __future__ import annotations

import re

from litnav.core.text import stems, stop_words, tokens

_STOP = stop_words()

def key_phrases(text: str, max_words: int = 4) -> list[str]:
    """Cheap key phrases of a checkpoint text: the maximal runs of content words between stop
    words and punctuation, cut to ``max_words`` words. Used as ``Checkpoint.terms`` when a
    checkpoint carries none (and for SciFact claims, so training and inference agree)."""
    phrases: list[str] = []
    for piece in re.split(r"[,;:.!?()\[\]\"]", text.lower()):
        run: list[str] = []
        for tok in tokens(piece) + [""]:
            if tok and tok not in _STOP:
                run.append(tok)
                continue
            while run:
                phrases.append(" ".join(run[:max_words]))
                run = run[max_words:]
    seen: set[str] = set()
    return [p for p in phrases if not (p in seen or seen.add(p))]


def unhyphenated(stem_list: list[str]) -> list[str]:
    """``stems()`` tokens with their inner hyphens dropped, the form phrases are matched in:
    "pre-exposure prophylaxis" and "preexposure prophylaxis" are one phrase."""
    return [t.replace("-", "") if "-" in t else t for t in stem_list]


def phrase_key(phrase: str) -> str:
    """The stemmed form of a phrase for ``phrase_in``: ``" s1 s2 "`` (empty: never matches;
    hyphens dropped, :func:`unhyphenated`)."""
    st = unhyphenated(stems(phrase))
    return f" {' '.join(st)} " if st else ""


def stem_string(stem_lists: list[list[str]]) -> str:
    """Join ``stems()`` lists into one searchable string (hyphens dropped, as in
    :func:`phrase_key`); phrases never match across lists."""
    return " " + " \x00 ".join(" ".join(unhyphenated(s)) for s in stem_lists) + " "


def derivational_base(stem: str) -> str:
    """A Snowball stem less the ending that tells a noun in "-y"/"-ia" from its adjective in
    "-ic"/"-al", which Snowball keeps apart: "autophagi" (autophagy) and "autophag" (autophagic) ->
    "autophag"; "mitochondria" and "mitochondri" (mitochondrial) -> "mitochondr"; "economi" ->
    "econom". A final "ia" or "i" is dropped when at least six letters remain, except after "-it"
    "-or" and "-er" ("qualiti", quality, would meet "qualit", qualitative; "sensori", sensory, "sensor";
    "masteri", mastery, "master"); an adjective in "-ular" of eight letters or more loses "ar"
    ("molecular" meets "molecul", molecule; "granular", granule; "particular" stays apart from
    "particl", particle; shorter ones such as "popular" and "regular" are left, as "popul" and
    "regul" are population and regulation); any other stem as it is."""
    if stem.endswith("ular") and len(stem) >= 8:  # "molecular" -> "molecul" (molecule); not "popular"/"regular"
        return stem[:-2]
    if stem.endswith("ia") and len(stem) >= 8:
        return stem[:-2]
    if stem.endswith("i") and len(stem) >= 7 and not stem.endswith(("iti", "ori", "eri")):
        return stem[:-1]
    return stem


def phrase_in(key: str, haystack: str) -> bool:
    """True when a ``phrase_key`` occurs contiguously in a ``stem_string`` (C-speed substring test)."""
    return bool(key) and key in haystack
