"""Semantic Scholar Graph API client: paper search, paper by id, references, citations.

Docs: https://api.semanticscholar.org/api-docs/graph . An API key, when the environment
variable named by ``WebSettings.s2_api_key_env`` is set, goes in the ``x-api-key`` header.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from ..records import ExternalRecord
from .base import Provider, int_or_none

FIELDS = "title,authors,year,venue,externalIds,corpusId"
_ID_KEYS = {"DOI": "doi", "ArXiv": "arxiv", "ACL": "acl", "PubMed": "pubmed", "CorpusId": "s2"}


def s2_record(paper: dict[str, Any]) -> dict[str, Any] | None:
    """An ``ExternalRecord`` dict from one S2 paper object (None when it has no title,
    e.g. an unresolved reference with ``paperId: null`` and no title)."""
    if not isinstance(paper, dict):
        raise TypeError(f"expected a paper object, got {type(paper).__name__}")
    title = paper.get("title")
    if not title:
        return None
    ids: dict[str, str] = {}
    for key, kind in _ID_KEYS.items():
        v = (paper.get("externalIds") or {}).get(key)
        if v not in (None, ""):
            ids[kind] = str(v)
    if paper.get("corpusId") is not None:
        ids["s2"] = str(paper["corpusId"])
    return {
        "title": title,
        "authors": [a["name"] for a in paper.get("authors") or [] if a.get("name")],
        "year": int_or_none(paper.get("year")),
        "venue": paper.get("venue") or None,
        "external_ids": ids,
        "provider": "semantic_scholar",
        "provider_id": paper.get("paperId"),
    }


def _search_rows(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, dict) or ("data" not in body and "total" not in body):
        raise ValueError("expected an object with 'data' (paper search result)")
    return _rows(body.get("data") or [])


def _rows(papers: list[Any]) -> list[dict[str, Any]]:
    return [r for r in (s2_record(p) for p in papers) if r is not None]


class SemanticScholar(Provider):
    """``search`` = /graph/v1/paper/search; also ``paper``, ``references``, ``citations``.

    Paper ids are anything the Graph API accepts: a paperId, ``CorpusId:123``,
    ``DOI:10...``, ``ARXIV:1706.03762``, ``ACL:P19-1001``.
    """

    name = "semantic_scholar"
    default_base_url = "https://api.semanticscholar.org"

    def headers(self) -> dict[str, str]:
        key = os.environ.get(self.settings.s2_api_key_env)
        return {"x-api-key": key} if key else {}

    def search(self, query: str, limit: int = 10) -> list[ExternalRecord]:
        path = "/graph/v1/paper/search"
        rows = self._get(
            path, {"query": query, "limit": min(limit, 100), "fields": FIELDS},
            lambda r: _search_rows(r.json()),
        )
        return self._records(path, rows)[:limit]

    def paper(self, paper_id: str) -> ExternalRecord | None:
        """One paper by id (None when S2 knows it without a title)."""
        path = f"/graph/v1/paper/{quote(paper_id, safe=':/.')}"
        rows = self._get(path, {"fields": FIELDS}, lambda r: _rows([r.json()]))
        recs = self._records(path, rows)
        return recs[0] if recs else None

    def _edges(self, paper_id: str, kind: str, key: str, limit: int) -> list[ExternalRecord]:
        path = f"/graph/v1/paper/{quote(paper_id, safe=':/.')}/{kind}"
        rows = self._get(
            path, {"fields": FIELDS, "limit": min(limit, 1000), "offset": 0},
            lambda r: _rows([e[key] for e in (r.json().get("data") or [])]),
        )
        return self._records(path, rows)[:limit]

    def references(self, paper_id: str, limit: int = 100) -> list[ExternalRecord]:
        """Papers ``paper_id`` cites (first page, up to ``limit``)."""
        return self._edges(paper_id, "references", "citedPaper", limit)

    def citations(self, paper_id: str, limit: int = 100) -> list[ExternalRecord]:
        """Papers citing ``paper_id`` (first page, up to ``limit``)."""
        return self._edges(paper_id, "citations", "citingPaper", limit)


