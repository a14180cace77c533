"""LLM access for every role (navigator, reflection, scorer, reranker).

    meter = UsageMeter()                                   # one per query
    engine = engine_for(settings, "scorer", meter)         # None when llm.scorer is unset
    grade, rec = engine.structured(messages, Grade)        # pydantic-validated, repaired, cached
    text, rec = engine.complete(messages, logprobs=True, top_logprobs=5)
    session.usage = meter.by_role(); session.engines["scorer"] = engine.name

Backends: ``openai`` (any OpenAI-compatible HTTP endpoint, e.g. ``vllm serve``), and the
in-process optional extras ``vllm`` and ``transformers``.
"""

from .cache import ResponseCache, cache_key
from .calls import CallRecord, GenerationRequest, RawReply, TokenLogprob
from .engine import LLMEngine
from .errors import LLMError
from .factory import ROLES, build_engine, engine_for, response_cache
from .usage import UsageMeter, call_usage, price

__all__ = [
    "ROLES",
    "CallRecord",
    "GenerationRequest",
    "LLMEngine",
    "LLMError",
    "RawReply",
    "ResponseCache",
    "TokenLogprob",
    "UsageMeter",
    "build_engine",
    "cache_key",
    "call_usage",
    "engine_for",
    "price",
    "response_cache",
]
