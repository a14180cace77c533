"""In-process transformers engine (optional extra ``litnav[transformers]``): a local causal LM
with its chat template. Structured output is by prompt (the JSON schema is put in the system
message) plus the shared validate-and-repair loop; there is no guided decoding here.
"""

from __future__ import annotations

from typing import Any

from litnav.core.settings import EndpointSettings

from .cache import ResponseCache
from .calls import GenerationRequest, RawReply, TokenLogprob
from .engine import LLMEngine
from .errors import LLMError
from .inprocess import require, shared_model, with_schema_instruction
from .usage import UsageMeter


class TransformersEngine(LLMEngine):
    """``LLMEngine`` over ``AutoModelForCausalLM`` + ``AutoTokenizer`` loaded from
    ``endpoint.model`` (a local folder; CPU unless torch sees a GPU). Greedy decoding at
    temperature 0, sampling otherwise. Log-probabilities come from the generation scores
    (log-softmax per step). Raises ``LLMError`` naming ``pip install litnav[transformers]``
    when transformers is absent, or the path when the model cannot be loaded."""

    backend = "transformers"

    def __init__(
        self, endpoint: EndpointSettings, *, role: str = "default", meter: UsageMeter | None = None,
        cache: ResponseCache | None = None,
    ) -> None:
        self._tf = require("transformers", "transformers", role=role, model=endpoint.model)
        self._torch = require("torch", "transformers", role=role, model=endpoint.model)
        super().__init__(endpoint, role=role, meter=meter, cache=cache)
        try:
            (self._tok, self._lm), self._lock = shared_model("transformers", endpoint.model, self._load)
        except (OSError, ValueError) as exc:
            raise LLMError(f"transformers could not load {endpoint.model!r}: {exc}", role=role, model=endpoint.model) from exc

    def _load(self) -> tuple[Any, Any]:
        tok = self._tf.AutoTokenizer.from_pretrained(self.endpoint.model)
        lm = self._tf.AutoModelForCausalLM.from_pretrained(self.endpoint.model)
        device = "cuda" if self._torch.cuda.is_available() else "cpu"
        return tok, lm.to(device).eval()

    def _generate(self, req: GenerationRequest, role: str) -> RawReply:
        torch = self._torch
        messages = with_schema_instruction(req.messages, req.json_schema)
        try:
            with self._lock, torch.inference_mode():
                enc = self._tok.apply_chat_template(
                    messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
                )
                ids = enc["input_ids"].to(self._lm.device)
                mask = enc.get("attention_mask")
                gen_kw: dict[str, Any] = {
                    "max_new_tokens": req.max_tokens,
                    "do_sample": req.temperature > 0,
                    "return_dict_in_generate": True,
                    "output_scores": req.logprobs,
                    "pad_token_id": self._tok.pad_token_id if self._tok.pad_token_id is not None else self._tok.eos_token_id,
                }
                if req.temperature > 0:
                    gen_kw["temperature"] = req.temperature
                out = self._lm.generate(
                    input_ids=ids, attention_mask=None if mask is None else mask.to(self._lm.device), **gen_kw
                )
        except Exception as exc:
            raise LLMError(f"transformers generation failed: {exc}", role=role, model=self.model) from exc
        new = out.sequences[0, ids.shape[1]:]
        eos = self._tok.eos_token_id
        finish = "stop" if len(new) and eos is not None and int(new[-1]) == eos else "length"
        logprobs = None
        if req.logprobs:
            logprobs = []
            for step, token_id in zip(out.scores, new.tolist()):
                lp = torch.log_softmax(step[0].float(), dim=-1)
                top = []
                if req.top_logprobs:
                    vals, idx = lp.topk(req.top_logprobs)
                    top = [(self._tok.decode([i]), float(v)) for v, i in zip(vals.tolist(), idx.tolist())]
                logprobs.append(TokenLogprob(token=self._tok.decode([token_id]), logprob=float(lp[token_id]), top=top))
        return RawReply(
            text=self._tok.decode(new, skip_special_tokens=True),
            prompt_tokens=int(ids.shape[1]),
            completion_tokens=int(len(new)),
            finish_reason=finish,
            logprobs=logprobs,
        )
