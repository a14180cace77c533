"""In-process backends: a clear error naming the extra when the library is missing, and the
transformers engine end to end on a tiny randomly initialised model built here (no download)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from pydantic import BaseModel

from litnav.core.settings import Settings
from litnav.llm import LLMError, UsageMeter, engine_for


def settings_for(backend: str, model: str, tmp_path, **endpoint) -> Settings:
    return Settings.model_validate({"llm": {
        "endpoints": {"local": {"backend": backend, "model": model, **endpoint}},
        "scorer": "local", "cache_dir": str(tmp_path / "cache"),
    }})


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vllm is installed")
def test_vllm_missing_names_the_extra(tmp_path):
    with pytest.raises(LLMError, match=r"pip install litnav\[vllm\]") as info:
        engine_for(settings_for("vllm", "Qwen/Qwen3-8B", tmp_path), "scorer")
    assert "role=scorer" in str(info.value)


def test_transformers_missing_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)  # makes `import transformers` fail
    with pytest.raises(LLMError, match=r"pip install litnav\[transformers\]"):
        engine_for(settings_for("transformers", str(tmp_path), tmp_path), "scorer")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> str:
    """A one-layer Llama with a character-level tokenizer and a chat template, random weights."""
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    folder = tmp_path_factory.mktemp("tiny-llama")
    vocab = {"<pad>": 0, "<s>": 1, "</s>": 2, "<unk>": 3}
    for ch in '{}[]":,.-_ \n0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ':
        vocab.setdefault(ch, len(vocab))
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tk.decoder = decoders.Fuse()
    tok = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tk, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>")
    tok.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                         "{% if add_generation_prompt %}assistant: {% endif %}")
    tok.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
        num_key_value_heads=2, max_position_embeddings=4096, bos_token_id=1, eos_token_id=2, pad_token_id=0)
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    return str(folder)


def test_transformers_complete_with_logprobs(tiny_model, tmp_path):
    meter = UsageMeter()
    engine = engine_for(settings_for("transformers", tiny_model, tmp_path, max_tokens=6), "scorer", meter)
    assert engine.name == f"llm:transformers:{tiny_model}"
    text, rec = engine.complete([{"role": "user", "content": "hello"}], logprobs=True, top_logprobs=3)
    assert rec.usage.calls == 1 and rec.usage.prompt_tokens > 0 and 0 < rec.usage.completion_tokens <= 6
    assert len(rec.logprobs) == rec.usage.completion_tokens
    for t in rec.logprobs:
        assert t.logprob <= 0 and len(t.top) == 3
        assert t.top[0][1] >= t.logprob - 1e-6, "greedy decoding picks the most likely token"
    _, again = engine.complete([{"role": "user", "content": "hello"}], logprobs=True, top_logprobs=3)
    assert again.cached and again.text == text
    assert meter.by_role()["scorer"].cache_hits == 1


def test_transformers_structured_puts_schema_in_prompt_and_fails_clearly(tiny_model, tmp_path):
    class Grade(BaseModel):
        score: int

    engine = engine_for(settings_for("transformers", tiny_model, tmp_path, max_tokens=4, repair_attempts=1), "scorer")
    with pytest.raises(LLMError, match=r"schema Grade still invalid after 1 repair") as info:
        engine.structured([{"role": "user", "content": "grade"}], Grade)
    assert "model=" + tiny_model in str(info.value)


def test_schema_instruction_joins_the_system_message():
    from litnav.llm.inprocess import with_schema_instruction

    schema = {"type": "object", "properties": {"score": {"type": "integer"}}}
    sys_first = with_schema_instruction([{"role": "system", "content": "Grade."}, {"role": "user", "content": "x"}], schema)
    assert len(sys_first) == 2 and sys_first[0]["content"].startswith("Grade.\n\n") and '"score"' in sys_first[0]["content"]
    no_sys = with_schema_instruction([{"role": "user", "content": "x"}], schema)
    assert no_sys[0]["role"] == "system" and no_sys[1] == {"role": "user", "content": "x"}
    assert with_schema_instruction([{"role": "user", "content": "x"}], None) == [{"role": "user", "content": "x"}]


def test_transformers_bad_path_is_a_clear_error(tiny_model, tmp_path):
    missing = tmp_path / "no-model-here"
    missing.mkdir()
    with pytest.raises(LLMError, match="could not load"):
        engine_for(settings_for("transformers", str(missing), tmp_path), "scorer")
