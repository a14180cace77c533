"""In-process vLLM engine (optional extra ``litnav[vllm]``): ``vllm.LLM.chat`` with guided JSON.

Structured requests use vLLM's structured outputs (``StructuredOutputsParams(json=schema)``,
or ``GuidedDecodingParams`` on older releases), so replies follow the schema token by token;
the shared repair loop still validates them. One ``vllm.LLM`` per model path is shared by all
roles; calls are serialised with a lock.
"""

from __future__ import annotations

from typing import Any

from litnav.core.settings import EndpointSettings

from .cache import ResponseCache
from .calls import GenerationRequest, RawReply, TokenLogprob
from .engine import LLMEngine
from .errors import LLMError
from .inprocess import require, shared_model
from .usage import UsageMeter


class VLLMEngine(LLMEngine):
    """``LLMEngine`` over an in-process ``vllm.LLM`` loaded from ``endpoint.model`` (a hub id or
    local path). Raises ``LLMError`` naming ``pip install litnav[vllm]`` when vLLM is absent."""

    backend = "vllm"

    def __init__(
        self, endpoint: EndpointSettings, *, role: str = "default", meter: UsageMeter | None = None,
        cache: ResponseCache | None = None,
    ) -> None:
        self._vllm = require("vllm", "vllm", role=role, model=endpoint.model)
        super().__init__(endpoint, role=role, meter=meter, cache=cache)
        try:
            self._llm, self._lock = shared_model("vllm", endpoint.model, lambda: self._vllm.LLM(model=endpoint.model))
        except Exception as exc:  # vLLM raises many types while loading
            raise LLMError(f"vllm could not load {endpoint.model!r}: {exc}", role=role, model=endpoint.model) from exc

    def _sampling_params(self, req: GenerationRequest) -> Any:
        kw: dict[str, Any] = {"temperature": req.temperature, "max_tokens": req.max_tokens}
        if req.logprobs:
            kw["logprobs"] = req.top_logprobs or 0
        if req.json_schema is not None:
            sp = self._vllm.sampling_params
            if hasattr(sp, "StructuredOutputsParams"):
                kw["structured_outputs"] = sp.StructuredOutputsParams(json=req.json_schema)
            else:
                kw["guided_decoding"] = sp.GuidedDecodingParams(json=req.json_schema)
        return self._vllm.SamplingParams(**kw)

    def _generate(self, req: GenerationRequest, role: str) -> RawReply:
        try:
            with self._lock:
                out = self._llm.chat([req.messages], sampling_params=self._sampling_params(req), use_tqdm=False)[0]
        except Exception as exc:
            raise LLMError(f"vllm generation failed: {exc}", role=role, model=self.model) from exc
        gen = out.outputs[0]
        logprobs = None
        if req.logprobs and gen.logprobs is not None:
            logprobs = []
            for token_id, alts in zip(gen.token_ids, gen.logprobs):
                chosen = alts[token_id]
                top = sorted(
                    ((lp.decoded_token or str(tid), lp.logprob) for tid, lp in alts.items() if lp.rank is not None),
                    key=lambda x: -x[1],
                )[: req.top_logprobs or 0]
                logprobs.append(TokenLogprob(token=chosen.decoded_token or "", logprob=chosen.logprob, top=top))
        return RawReply(
            text=gen.text,
            prompt_tokens=len(out.prompt_token_ids or []),
            completion_tokens=len(gen.token_ids),
            finish_reason=gen.finish_reason,
            logprobs=logprobs,
        )
