"""Text helpers of the readers: author display names, titles without footnote marks and
order-keeping de-duplication.

Sentences (citing sentences, i.e. citation contexts) come from ``core.text.sentence_spans``."""

from __future__ import annotations

import re
from collections.abc import Iterable

from litnav.core.text import visible_text

_FOOTNOTE_MARKS = "†‡§¶*∗⋆♠♣♦♥"
_TITLE_MARK = re.compile(
    r"(?:\s+|(?<=[a-z]{2})|(?<=[)\].]))[" + _FOOTNOTE_MARKS + r"]+\s*$"
    r"|\s*\(\s*[" + _FOOTNOTE_MARKS + r"]+\s*\)(?=\.?\s*$)")


def author_name(author: dict | str) -> str:
    """Display name of an S2ORC author object (``first``, ``middle``, ``last``, ``suffix``)
    or a plain string; footnote marks ("Smith†") are dropped. "" for an object whose given name
    holds no letter: a PDF parser's misreading of a footnote marker and the affiliation after it
    as an author (``{"first": "†", "last": "Nlp"}``)."""
    if isinstance(author, str):
        return " ".join(author.strip(_FOOTNOTE_MARKS + " ").split())
    first = author.get("first") or ""
    if first and not any(ch.isalpha() for ch in first):
        return ""
    parts: list[str] = [first]
    parts.extend(m for m in author.get("middle") or [] if isinstance(m, str))
    parts.append(author.get("last") or "")
    if author.get("suffix"):
        parts.append(author["suffix"])
    parts = [p.strip(_FOOTNOTE_MARKS + " ") for p in parts]
    return " ".join(" ".join(p for p in parts if p).split())


def title_text(title: str) -> str:
    """``title`` with whitespace collapsed and a trailing footnote mark dropped: the "*" or "†" a
    PDF's title line carries for its footnote ("... Summarization *", "... Lexicalization*",
    "... (GPR183)*", "... populations (*)."). A mark that is part of a name stays: after a capital
    or a digit ("A*", "GLR*"), or inside the title ("Which *BERT?", "G*Power"). A title that
    is nothing but marks is kept as it is. Terminal escapes and control characters go
    (``core.text.visible_text``): every output strips them, so a stored one made the exported title
    differ from the corpus's."""
    text = " ".join(visible_text(title).split())
    return _TITLE_MARK.sub("", text).rstrip() or text


def unique(items: Iterable[str]) -> list[str]:
    """Items with duplicates removed, first occurrence order kept."""
    seen: set[str] = set()
    return [x for x in items if not (x in seen or seen.add(x))]
