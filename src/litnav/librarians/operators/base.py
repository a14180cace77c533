"""The operator library's building blocks: typed operator specs, the run context, errors.

An operator is a pure function ``(params, inputs, context) -> value``: its result depends only on
its validated parameters, its upstream values and the (read-only) corpus, so a workflow replays.
Edge types: ``pool`` (candidates), ``evidence`` (candidates + evidence chunks) and ``scored``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from litnav.core.records import Checklist
from litnav.core.settings import Settings

EdgeType = Literal["pool", "evidence", "scored"]


class OperatorParams(BaseModel):
    """Base of every operator's parameter model: unknown parameters are errors, and values are
    checked strictly (``"k": true`` or ``"k": "20"`` is an error, not 1 or 20; an int is a valid float)."""

    model_config = ConfigDict(extra="forbid", strict=True)


@dataclass(frozen=True)
class OperatorSpec:
    """One operator of the library.

    ``inputs`` lists the accepted edge type of each input (``min_inputs``..``max_inputs`` of
    them, all of type ``input_type``); ``output`` is the type it produces; ``channel`` names the
    librarian that runs it (``semantic``, ``lexical``, ``citation``, ``web``, ...).
    """

    name: str
    params: type[OperatorParams]
    input_type: EdgeType | None
    min_inputs: int
    max_inputs: int
    output: EdgeType
    channel: str
    run: Callable[[Any, list[Any], RunContext, str], Any]
    doc: str


class WorkflowError(ValueError):
    """An invalid workflow; the message names the node and, where it applies, the field."""

    def __init__(self, node_id: str | None, message: str, field: str | None = None):
        where = f"node {node_id!r}" if node_id else "workflow"
        if field:
            where += f", field {field!r}"
        super().__init__(f"{where}: {message}")
        self.message = message
        self.node_id = node_id
        self.field = field


@dataclass
class RunContext:
    """What operators may read: the corpus, the checklist, settings and the round index.

    ``score_fn``/``rerank_fn`` are supplied by the caller (the navigator), so that the library
    declares the ``score`` and ``rerank`` operators without importing scorer or reranker.
    ``query_vectors`` caches encoded query texts (shape ``[dim]``, float32, L2-normalised).
    """

    corpus: Any
    checklist: Checklist
    settings: Settings
    round: int = 1
    score_fn: Callable[..., Any] | None = None
    rerank_fn: Callable[..., Any] | None = None
    web_fn: Callable[..., Any] | None = None
    notes: dict[str, str] = field(default_factory=dict)
    query_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    within_cache: dict[tuple[str, ...], set[str] | None] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _within_lock: threading.Lock = field(default_factory=threading.Lock)

    def encode_queries(self, texts: list[str]) -> None:
        """Encode the texts not yet cached in one batch."""
        missing = [t for t in dict.fromkeys(texts) if t not in self.query_vectors]
        if not missing:
            return
        vectors = self.corpus.encode(missing)
        with self._lock:
            for text, vec in zip(missing, vectors):
                self.query_vectors[text] = np.asarray(vec, dtype=np.float32)

    def query_vector(self, text: str) -> np.ndarray:
        """The cached vector of ``text``, encoding it when absent."""
        if text not in self.query_vectors:
            self.encode_queries([text])
        return self.query_vectors[text]

    def within(self, checkpoint_ids: list[str], node_id: str) -> set[str] | None:
        """The corpus ids satisfying the metadata checkpoints ``checkpoint_ids`` of the checklist
        (``Corpus.ids_matching``; cached per context), or None: search the whole corpus (the set is
        too large to bound, or the corpus cannot say). Raises :class:`WorkflowError` naming the
        node for an id that is not a metadata checkpoint with a predicate."""
        known = {c.id: c for c in self.checklist.checkpoints if c.kind == "metadata" and c.predicate is not None}
        missing = [i for i in checkpoint_ids if i not in known]
        if missing:
            raise WorkflowError(node_id, f"no metadata checkpoint(s) {missing} in the checklist", "within")
        key = tuple(sorted(checkpoint_ids))
        with self._within_lock:  # concurrent librarians wait for one computation
            if key not in self.within_cache:
                matching = getattr(self.corpus, "ids_matching", None)
                self.within_cache[key] = matching([known[i].predicate for i in key]) if matching else None
            return self.within_cache[key]

    def note(self, node_id: str, message: str) -> None:
        """Attach a remark to a node's run record (e.g. 'web channel skipped: no providers')."""
        with self._lock:
            self.notes[node_id] = message


def missing_channels(corpus: Any) -> dict[str, str]:
    """``corpus.missing_channels()``: retrieval channels the corpus cannot serve yet -> why
    (``{}`` for a complete corpus, and for corpus doubles without the method)."""
    probe = getattr(corpus, "missing_channels", None)
    return dict(probe()) if callable(probe) else {}


def partial_channels(corpus: Any) -> dict[str, str]:
    """``corpus.partial_channels()``: retrieval channels the corpus serves over part of its papers
    -> why (``{}`` for a complete corpus, and for corpus doubles without the method)."""
    probe = getattr(corpus, "partial_channels", None)
    return dict(probe()) if callable(probe) else {}


REGISTRY: dict[str, OperatorSpec] = {}


def operator(
    name: str,
    params: type[OperatorParams],
    *,
    output: EdgeType,
    channel: str,
    input_type: EdgeType | None = None,
    min_inputs: int = 0,
    max_inputs: int = 0,
) -> Callable:
    """Decorator registering ``fn(params, inputs, ctx, node_id)`` as operator ``name``."""

    def wrap(fn: Callable) -> Callable:
        REGISTRY[name] = OperatorSpec(
            name, params, input_type, min_inputs, max_inputs, output, channel, fn, (fn.__doc__ or "").strip()
        )
        return fn

    return wrap
