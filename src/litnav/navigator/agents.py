"""Building the LLM-backed agents of a search from the settings (one engine per configured role).

A role left unset keeps its no-LLM engine. A configured role whose engine cannot even be built
raises ``LLMError``, unless ``llm.fallback`` is true: then that role keeps its no-LLM engine and
``engines[role]`` records the fallback and its cause.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from litnav.core.settings import Settings
from litnav.llm import LLMError, UsageMeter, engine_for
from litnav.navigator.llm_planner import Ask, LLMPlanner
from litnav.navigator.llm_reflect import LLMReflector
from litnav.reranker.llm import LLMReranker

NO_LLM = {"navigator": "rules", "reflection": "rules", "scorer": "student", "reranker": "rank fusion"}
"""The engine each role falls back to."""


@dataclass
class Agents:
    """The hooks for ``SearchRun`` (None = the no-LLM engine), the meter that counts their tokens,
    and ``engines``: role -> engine name known before the run (build-time fallbacks)."""

    meter: UsageMeter
    planner: LLMPlanner | None = None
    reflector: LLMReflector | None = None
    teacher: Any = None
    llm_reranker: LLMReranker | None = None
    engines: dict[str, str] = field(default_factory=dict)

    def hooks(self) -> dict[str, Any]:
        """Keyword arguments for ``SearchRun``."""
        return {"planner": self.planner, "reflector": self.reflector, "teacher": self.teacher,
                "llm_reranker": self.llm_reranker, "engines": dict(self.engines)}


def _engine(settings: Settings, role: str, meter: UsageMeter, engines: dict[str, str]):
    try:
        return engine_for(settings, role, meter)
    except LLMError as exc:
        if not settings.llm.fallback:
            raise
        engines[role] = f"{NO_LLM[role]} (fallback: {exc})"
        return None


def build_agents(settings: Settings, corpus, *, meter: UsageMeter | None = None, student=None,
                 ask: Ask | None = None, top_k: int | None = None, today: date | None = None) -> Agents:
    """The LLM agents for the roles configured in ``settings.llm``.

    ``student`` is the scorer's student (the teacher's fallback); ``ask`` answers clarifying
    questions when ``navigator.interactive`` is true. The teacher is built only when
    ``scorer.teacher`` is true; that needs ``llm.scorer`` (``ValueError`` otherwise).
    """
    meter = meter or UsageMeter()
    agents = Agents(meter=meter)
    fb = settings.llm.fallback
    if settings.scorer.teacher and settings.llm.scorer is None:
        raise ValueError("scorer.teacher is true but llm.scorer names no endpoint")
    eng = _engine(settings, "navigator", meter, agents.engines) if settings.llm.navigator else None
    if eng is not None:
        agents.planner = LLMPlanner(eng, ask=ask, interactive=settings.navigator.interactive, top_k=top_k,
                                    fallback=fb, today=today)
    eng = _engine(settings, "reflection", meter, agents.engines) if settings.llm.reflection else None
    if eng is not None:
        agents.reflector = LLMReflector(eng, corpus, fallback=fb)
    eng = _engine(settings, "scorer", meter, agents.engines) if settings.scorer.teacher else None
    if eng is not None:
        from litnav.scorer.teacher import Teacher

        agents.teacher = Teacher(eng, abstract=corpus.abstract, student=student, fallback=fb,
                                 logprobs=settings.scorer.teacher_logprobs)
    eng = _engine(settings, "reranker", meter, agents.engines) if settings.llm.reranker else None
    if eng is not None:
        agents.llm_reranker = LLMReranker(eng, settings.reranker.llm_top_n, fallback=fb)
    return agents
