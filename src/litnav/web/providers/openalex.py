"""OpenAlex works search (https://docs.openalex.org/api-entities/works/search-works).
``mailto`` joins the polite pool when ``WebSettings.mailto`` is set."""

from __future__ import annotations

import re
from typing import Any

from ..records import ExternalRecord
from .base import Provider, int_or_none

_ARXIV_DOI = re.compile(r"10\.48550/arxiv\.(.+)$", re.I)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:\.pdf)?$", re.I)


def openalex_record(work: dict[str, Any]) -> dict[str, Any] | None:
    """An ``ExternalRecord`` dict from one OpenAlex work (None without a title)."""
    if not isinstance(work, dict):
        raise TypeError(f"expected a work object, got {type(work).__name__}")
    title = work.get("title") or work.get("display_name")
    if not title:
        return None
    ids: dict[str, str] = {}
    raw_ids = work.get("ids") or {}
    doi = work.get("doi") or raw_ids.get("doi")
    if doi:
        m = _ARXIV_DOI.search(doi)
        if m:
            ids["arxiv"] = m.group(1)
        else:
            ids["doi"] = doi
    if raw_ids.get("pmid"):
        ids["pubmed"] = str(raw_ids["pmid"]).rstrip("/").rsplit("/", 1)[-1]
    for loc in work.get("locations") or []:
        m = _ARXIV_URL.search((loc or {}).get("landing_page_url") or "")
        if m and "arxiv" not in ids:
            ids["arxiv"] = m.group(1)
    source = ((work.get("primary_location") or {}).get("source") or {})
    return {
        "title": title,
        "authors": [
            (a.get("author") or {}).get("display_name") or a.get("raw_author_name")
            for a in work.get("authorships") or []
            if (a.get("author") or {}).get("display_name") or a.get("raw_author_name")
        ],
        "year": int_or_none(work.get("publication_year")),
        "venue": source.get("display_name"),
        "external_ids": ids,
        "provider": "openalex",
        "provider_id": work.get("id"),
    }


def _rows(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, dict) or not isinstance(body.get("results"), list):
        raise ValueError("expected an object with a 'results' list")
    return [r for r in (openalex_record(w) for w in body["results"]) if r is not None]


class OpenAlex(Provider):
    """``search`` = GET /works?search=...&per-page=N."""

    name = "openalex"
    default_base_url = "https://api.openalex.org"

    def search(self, query: str, limit: int = 10) -> list[ExternalRecord]:
        params: dict[str, Any] = {"search": query, "per-page": min(limit, 200)}
        if self.settings.mailto:
            params["mailto"] = self.settings.mailto
        return self._records("/works", self._get("/works", params, lambda r: _rows(r.json())))[:limit]
