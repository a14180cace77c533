"""arXiv API client (Atom feed, https://info.arxiv.org/help/api/user-manual.html), parsed with
the standard library's ``xml.etree``."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from ..records import ExternalRecord
from .base import Provider, int_or_none

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
_ID = re.compile(r"arxiv\.org/abs/(.+?)(v\d+)?$")
_WORD = re.compile(r"[\w\-]+", re.UNICODE)


def _text(el: ET.Element | None) -> str | None:
    if el is None or el.text is None:
        return None
    return " ".join(el.text.split())


def parse_feed(xml_text: str) -> list[dict[str, Any]]:
    """``ExternalRecord`` dicts from an arXiv Atom feed; raises ``ValueError`` when the body is
    not an Atom feed (an error page, truncated XML)."""
    root = ET.fromstring(xml_text)
    if root.tag != f"{ATOM}feed":
        raise ValueError(f"expected an Atom <feed>, got <{root.tag}>")
    rows = []
    for entry in root.findall(f"{ATOM}entry"):
        title = _text(entry.find(f"{ATOM}title"))
        raw_id = _text(entry.find(f"{ATOM}id")) or ""
        m = _ID.search(raw_id)
        if not title or not m:  # the API reports query errors as an entry without an abs id
            continue
        ids = {"arxiv": m.group(1)}
        doi = _text(entry.find(f"{ARXIV}doi"))
        if doi:
            ids["doi"] = doi
        published = _text(entry.find(f"{ATOM}published")) or ""
        rows.append({
            "title": title,
            "authors": [n for a in entry.findall(f"{ATOM}author") if (n := _text(a.find(f"{ATOM}name")))],
            "year": int_or_none(published[:4]),
            "venue": _text(entry.find(f"{ARXIV}journal_ref")) or "arXiv",
            "external_ids": ids,
            "provider": "arxiv",
            "provider_id": m.group(1),
        })
    return rows


def search_query(query: str) -> str:
    """The arXiv ``search_query`` for free text: every word (up to 12) in any field, ANDed."""
    words = _WORD.findall(query)[:12]
    return " AND ".join(f"all:{w}" for w in words) if words else "all:*"


class Arxiv(Provider):
    """``search`` = GET /api/query?search_query=...&max_results=N&sortBy=relevance."""

    name = "arxiv"
    default_base_url = "https://export.arxiv.org"

    def search(self, query: str, limit: int = 10) -> list[ExternalRecord]:
        params = {"search_query": search_query(query), "start": 0, "max_results": min(limit, 100),
                  "sortBy": "relevance"}
        return self._records("/api/query", self._get("/api/query", params, lambda r: parse_feed(r.text)))[:limit]
