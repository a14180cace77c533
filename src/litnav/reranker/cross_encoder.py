"""Optional cross-encoder reranking of the top candidates (used when a model path is set)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from litnav.core.records import ScoredPaper


@lru_cache(maxsize=2)
def _load(model_path: str):
    from sentence_transformers import CrossEncoder

    return CrossEncoder(model_path, device="cpu")


def cross_encoder_rerank(
    query: str, scored: list[ScoredPaper], texts: dict[str, str], model_path: str, top_n: int = 50,
    weight: float = 0.5,
) -> list[ScoredPaper]:
    """Re-order the first ``top_n`` of ``scored`` by ``(1-w)·final + w·sigmoid(ce(query, text))``.

    ``texts`` maps corpus_id to title + abstract. Papers past ``top_n`` keep their order.
    Raises ``OSError`` when the model folder cannot be loaded.
    """
    head, tail = scored[:top_n], scored[top_n:]
    if not head:
        return scored
    model = _load(model_path)
    logits = np.asarray(model.predict([(query, texts.get(p.corpus_id, "")) for p in head]), dtype=float)
    probs = 1.0 / (1.0 + np.exp(-logits.reshape(len(head), -1)[:, -1]))
    blended = [(1 - weight) * p.final_score + weight * float(s) for p, s in zip(head, probs)]
    order = sorted(range(len(head)), key=lambda i: (-blended[i], head[i].corpus_id))
    return [head[i] for i in order] + tail
