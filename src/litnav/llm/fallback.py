"""Recording an LLM role's explicit fallbacks so the session names the engine that really ran."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


class FallbackRecorder:
    """Mixin for LLM agents: ``self.llm`` is the engine, ``self.fallbacks`` the causes of each
    fallback taken (only with ``llm.fallback`` set). ``engine`` is what ``Session.engines``
    records; subclasses set ``fallback_to`` (what replaced the LLM) and ``fallback_unit``."""

    fallback_to = "the no-LLM engine"
    fallback_unit = "call"
    llm = None
    fallbacks: list[str]

    def record_fallback(self, cause: str) -> None:
        """Note one fallback (``cause``: what failed, and why) and log it as a warning."""
        self.fallbacks.append(cause)
        log.warning("%s failed, falling back to %s: %s", self.llm.name, self.fallback_target(), cause)

    def fallback_target(self) -> str:
        """What replaced the LLM when it failed (may depend on the instance)."""
        return self.fallback_to

    @property
    def engine(self) -> str:
        """The engine name, with the number and first cause of fallbacks when there were any."""
        if not self.fallbacks:
            return self.llm.name
        return (f"{self.llm.name}; fallback to {self.fallback_target()} in {len(self.fallbacks)} "
                f"{self.fallback_unit}(s): {self.fallbacks[0]}")
