"""``engine_for``: the engine configured for a role, or None when the role has no LLM."""

from __future__ import annotations

from pathlib import Path

from litnav.core.settings import EndpointSettings, LLMSettings, Settings

from .cache import ResponseCache, default_cache_dir
from .engine import LLMEngine
from .errors import LLMError
from .usage import UsageMeter

ROLES: tuple[str, ...] = ("navigator", "reflection", "scorer", "reranker")


def response_cache(llm: LLMSettings) -> ResponseCache | None:
    """The cache at ``llm.cache_dir`` (default ``~/.cache/litnav/llm``), or None if ``llm.cache``
    is off."""
    if not llm.cache:
        return None
    return ResponseCache(Path(llm.cache_dir) if llm.cache_dir else default_cache_dir())


def build_engine(
    name: str, endpoint: EndpointSettings, *, role: str, meter: UsageMeter | None, cache: ResponseCache | None
) -> LLMEngine:
    """Build the engine of one endpoint. In-process backends import their library only here and
    raise ``LLMError`` naming the extra to install when it is missing."""
    if endpoint.backend == "openai":
        from .openai_engine import OpenAIEngine

        return OpenAIEngine(endpoint, endpoint_name=name, role=role, meter=meter, cache=cache)
    if endpoint.backend == "vllm":
        from .vllm_engine import VLLMEngine

        return VLLMEngine(endpoint, role=role, meter=meter, cache=cache)
    if endpoint.backend == "transformers":
        from .transformers_engine import TransformersEngine

        return TransformersEngine(endpoint, role=role, meter=meter, cache=cache)
    raise LLMError(f"endpoint {name!r}: unknown backend {endpoint.backend!r}", role=role, model=endpoint.model)


def engine_for(settings: Settings | LLMSettings, role: str, meter: UsageMeter | None = None) -> LLMEngine | None:
    """The ``LLMEngine`` for ``role`` (one of ``ROLES``), bound to that role and ``meter``, or
    None when ``llm.<role>`` is unset. Raises ``ValueError`` for an unknown role and
    ``LLMError`` when the configured engine cannot be built (never falls back silently; the
    caller decides, reading ``llm.fallback``)."""
    llm = settings.llm if isinstance(settings, Settings) else settings
    if role not in ROLES:
        raise ValueError(f"unknown LLM role {role!r}; expected one of {ROLES}")
    name = getattr(llm, role)
    if name is None:
        return None
    endpoint = llm.endpoints.get(name)
    if endpoint is None:
        raise LLMError(f"llm.{role} = {name!r} names no endpoint in llm.endpoints {sorted(llm.endpoints)}", role=role)
    return build_engine(name, endpoint, role=role, meter=meter, cache=response_cache(llm))
