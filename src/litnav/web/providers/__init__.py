"""External scholarly search providers behind one interface (``Provider.search``)."""

from __future__ import annotations

import httpx

from litnav.core.settings import WebSettings

from .arxiv import Arxiv
from .base import Provider
from .crossref import Crossref
from .openalex import OpenAlex
from .semantic_scholar import SemanticScholar

PROVIDERS: dict[str, type[Provider]] = {
    p.name: p for p in (SemanticScholar, OpenAlex, Crossref, Arxiv)
}


def build_providers(settings: WebSettings, transport: httpx.BaseTransport | None = None) -> list[Provider]:
    """The providers enabled in ``settings.providers``, in that order. Raises ``KeyError``
    naming an unknown provider (settings validation normally prevents it)."""
    out = []
    for name in settings.providers:
        if name not in PROVIDERS:
            raise KeyError(f"unknown web provider {name!r}; known: {sorted(PROVIDERS)}")
        out.append(PROVIDERS[name](settings, transport=transport))
    return out


__all__ = ["PROVIDERS", "Provider", "SemanticScholar", "OpenAlex", "Crossref", "Arxiv", "build_providers"]
