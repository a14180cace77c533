"""Text helpers of the scorer: tokenising, stemming, key phrases and sentence spans.

Terms are lower-cased word tokens (letters/digits, inner hyphens kept), stop words removed
(``bm25s.stopwords.STOPWORDS_EN_PLUS``), stemmed with the Snowball English stemmer (PyStemmer),
so "Surveys" and "survey" are the same term.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer
from bm25s.stopwords import STOPWORDS_EN_PLUS

_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
_STOP = frozenset(STOPWORDS_EN_PLUS)
_STEMMER = Stemmer.Stemmer("english")
# A sentence ends at . ! ? followed by whitespace and an upper-case letter, digit or bracket;
# abbreviations like "e.g. the" (lower-case next word) do not split.
_SENT_END = re.compile(r"(?<=[.!?])([\"')\]]*)\s+(?=[A-Z0-9(\[\"'])")


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` (stop words kept, not stemmed)."""
    return _TOKEN.findall(text.lower())


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def stems(text: str) -> list[str]:
    """Stemmed content tokens of ``text``, in order (stop words removed)."""
    return [_stem(t) for t in tokens(text) if t not in _STOP]


def stem_set(text: str) -> frozenset[str]:
    """The set of stemmed content terms of ``text``."""
    return frozenset(stems(text))


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


def phrase_in(phrase: str, haystack_stems: list[str]) -> bool:
    """True when the stemmed content-token sequence of ``phrase`` occurs contiguously in
    ``haystack_stems`` (a ``stems()`` list). Empty phrases never match."""
    needle = stems(phrase)
    n = len(needle)
    if n == 0:
        return False
    if n == 1:
        return needle[0] in haystack_stems
    first = needle[0]
    for i, s in enumerate(haystack_stems[: len(haystack_stems) - n + 1]):
        if s == first and haystack_stems[i : i + n] == needle:
            return True
    return False


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the sentences of ``text``, whitespace trimmed, so
    ``text[start:end]`` is each sentence verbatim. A text with no sentence break is one span."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _SENT_END.finditer(text):
        spans.append((pos, m.end(1)))
        pos = m.end()
    spans.append((pos, len(text)))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        seg = text[s:e]
        ls = len(seg) - len(seg.lstrip())
        rs = len(seg.rstrip())
        if rs > ls:
            out.append((s + ls, s + rs))
    return out or [(0, len(text))]
