"""Crossref works search by bibliographic string
(https://api.crossref.org/swagger-ui/index.html, ``query.bibliographic``).
``mailto`` joins the polite pool when ``WebSettings.mailto`` is set."""

from __future__ import annotations

from typing import Any

from ..records import ExternalRecord
from .base import Provider, int_or_none


def _year(item: dict[str, Any]) -> int | None:
    for key in ("published-print", "published-online", "issued", "published", "created"):
        parts = (item.get(key) or {}).get("date-parts") or []
        if parts and parts[0] and parts[0][0] is not None:
            return int_or_none(parts[0][0])
    return None


def crossref_record(item: dict[str, Any]) -> dict[str, Any] | None:
    """An ``ExternalRecord`` dict from one Crossref work item (None without a title)."""
    if not isinstance(item, dict):
        raise TypeError(f"expected a work item, got {type(item).__name__}")
    titles = item.get("title") or []
    if not titles:
        return None
    title = titles[0]
    if item.get("subtitle"):
        title = f"{title}: {item['subtitle'][0]}"
    authors = []
    for a in item.get("author") or []:
        if a.get("family"):
            authors.append(f"{a.get('given', '')} {a['family']}".strip())
        elif a.get("name"):
            authors.append(a["name"])
    venue = (item.get("container-title") or [None])[0]
    return {
        "title": title,
        "authors": authors,
        "year": _year(item),
        "venue": venue,
        "external_ids": {"doi": item["DOI"]} if item.get("DOI") else {},
        "provider": "crossref",
        "provider_id": item.get("DOI"),
    }


def _rows(body: Any) -> list[dict[str, Any]]:
    items = (body or {}).get("message", {}).get("items") if isinstance(body, dict) else None
    if not isinstance(items, list):
        raise ValueError("expected message.items to be a list")
    return [r for r in (crossref_record(i) for i in items) if r is not None]


class Crossref(Provider):
    """``search`` = GET /works?query.bibliographic=...&rows=N."""

    name = "crossref"
    default_base_url = "https://api.crossref.org"

    def search(self, query: str, limit: int = 10) -> list[ExternalRecord]:
        params: dict[str, Any] = {"query.bibliographic": query, "rows": min(limit, 100)}
        if self.settings.mailto:
            params["mailto"] = self.settings.mailto
        return self._records("/works", self._get("/works", params, lambda r: _rows(r.json())))[:limit]
