"""Text helpers for full texts: sentence spans, citing sentences (citation contexts) and
author names.

Sentence splitting is a rule-based splitter (end punctuation followed by whitespace and an
upper-case letter, digit, bracket or quote), skipping common abbreviations of scientific prose
("et al.", "e.g.", "Fig.", "Eq.", ...). It only has to find the sentence around a citation
marker, so it favours not splitting over splitting.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]*\s+(?=[A-Z0-9\"'“‘(\[])")
_ABBREV = {
    "al", "e.g", "i.e", "fig", "figs", "eq", "eqs", "vs", "cf", "sec", "secs", "resp", "approx",
    "no", "nos", "dr", "mr", "mrs", "ms", "prof", "etc", "ref", "refs", "tab", "vol", "pp",
    "st", "jr", "sr", "inc", "ltd", "co", "ca", "viz", "ch", "chap", "ed", "eds", "p",
}


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character spans of the sentences of ``text``, covering it in order
    (leading/trailing whitespace of each sentence excluded)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        head = text[start : m.start()].rsplit(None, 1)
        word = head[-1].lower().lstrip("([") if head else ""
        if word in _ABBREV or (len(word) == 1 and word.isalpha()):
            continue
        end = m.start() + 1
        spans.append((start, end))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    out = []
    for s, e in spans:
        seg = text[s:e]
        ls = len(seg) - len(seg.lstrip())
        rs = len(seg.rstrip())
        if rs > ls:
            out.append((s + ls, s + rs))
    return out


def sentence_at(text: str, offset: int, spans: list[tuple[int, int]] | None = None) -> str | None:
    """The sentence of ``text`` containing character ``offset`` (None when out of range)."""
    for s, e in spans if spans is not None else sentence_spans(text):
        if s <= offset < e:
            return text[s:e]
    return None


def author_name(author: dict | str) -> str:
    """Display name of an S2ORC author object (``first``, ``middle``, ``last``, ``suffix``)
    or a plain string."""
    if isinstance(author, str):
        return " ".join(author.split())
    parts: list[str] = [author.get("first") or ""]
    parts.extend(m for m in author.get("middle") or [] if isinstance(m, str))
    parts.append(author.get("last") or "")
    if author.get("suffix"):
        parts.append(author["suffix"])
    return " ".join(" ".join(p for p in parts if p).split())


def unique(items: Iterable[str]) -> list[str]:
    """Items with duplicates removed, first occurrence order kept."""
    seen: set[str] = set()
    return [x for x in items if not (x in seen or seen.add(x))]
