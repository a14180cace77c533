"""litnav: agentic, checklist-driven scientific literature search over a local corpus.

The public Python API (the CLI calls the same functions)::

    import litnav

    settings = litnav.load_settings("litnav.toml", ["navigator.rounds=2"])  # or litnav.Settings()
    litnav.build(["papers.jsonl.gz"], "my-corpus", settings=settings)      # ingest + index
    with litnav.Corpus.open("my-corpus") as corpus:
        session = litnav.search("parameter-efficient fine-tuning, not surveys", corpus, settings)
    for paper in session.results[:5]:
        print(round(paper.final_score, 2), paper.title)
    litnav.write_session(session, "session.json")                           # litnav.read_session

Names load on first use (``import litnav`` itself imports nothing heavy):

- ``build(sources, corpus_dir, ...)`` — ``litnav.ingest.build``: read sources, write and index a corpus.
- ``Corpus`` — ``litnav.corpus.Corpus``: the read side of a corpus directory (``Corpus.open``).
- ``search(intent, corpus, settings=None, ...)`` — ``litnav.navigator.search``: one search session.
- ``refine(session, feedback, corpus, ...)`` — ``litnav.navigator.refine``: continue a session.
- ``Settings``, ``load_settings`` — ``litnav.core.settings``: the one settings tree.
- ``Session`` — ``litnav.core.records.Session``: what a search returns (checklist, rounds, results).
- ``read_session``, ``write_session`` — ``litnav.session.io``: session files (JSON, atomic writes).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_API: dict[str, tuple[str, str]] = {
    "build": ("litnav.ingest", "build"),
    "Corpus": ("litnav.corpus", "Corpus"),
    "search": ("litnav.navigator", "search"),
    "refine": ("litnav.navigator", "refine"),
    "Settings": ("litnav.core.settings", "Settings"),
    "load_settings": ("litnav.core.settings", "load_settings"),
    "Session": ("litnav.core.records", "Session"),
    "read_session": ("litnav.session.io", "read_session"),
    "write_session": ("litnav.session.io", "write_session"),
}

__all__ = ["__version__", *sorted(_API)]

if TYPE_CHECKING:
    from litnav.core.records import Session as Session
    from litnav.core.settings import Settings as Settings
    from litnav.core.settings import load_settings as load_settings
    from litnav.corpus import Corpus as Corpus
    from litnav.ingest import build as build
    from litnav.navigator import refine as refine
    from litnav.navigator import search as search
    from litnav.session.io import read_session as read_session
    from litnav.session.io import write_session as write_session


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562) and keep it on the module."""
    try:
        module, attr = _API[name]
    except KeyError:
        raise AttributeError(f"module 'litnav' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
