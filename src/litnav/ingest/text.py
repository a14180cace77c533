"""Text helpers of the readers: author display names and order-keeping de-duplication.

Sentences (citing sentences, i.e. citation contexts) come from ``core.text.sentence_spans``."""

from __future__ import annotations

from collections.abc import Iterable


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
