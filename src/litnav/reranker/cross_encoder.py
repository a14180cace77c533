"""Optional cross-encoder reranking of the top candidates (``reranker.cross_encoder_path``).

The model reads ``(query, title + abstract)`` and gives one logit per paper. Its order enters the
final list by reciprocal rank fusion with the order it receives (Cormack, Clarke and Büttcher,
SIGIR 2009):

    z(d) = k / (k + r_in(d)) + w * k / (k + r_ce(d))

over the first ``top_n`` papers; ``r_in`` is d's 1-based rank in the incoming order, ``r_ce`` its
rank by logit, ``w = reranker.cross_encoder_weight``. Papers past ``top_n`` keep their order, so
the reranker can reorder the head but never drop a candidate. Rank fusion is scale-free: the
logits need no calibration. ``w = 0`` returns the incoming order.

``score_pairs`` maps ``[(query, passage)]`` to logits ``[n]``; the navigator builds it from the
folder with ``scorer.cross_encoder.pair_scorer`` (a cross-encoder student trained with
``--passage abstract``, or a plain sentence-transformers ``CrossEncoder`` folder).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from litnav.core.records import ScoredPaper


def cross_encoder_rerank(
    query: str, ranked: list[ScoredPaper], texts: dict[str, str],
    score_pairs: Callable[[list[tuple[str, str]]], np.ndarray], *, top_n: int = 50, weight: float = 1.0,
    k: float = 60.0, cache: dict[str, float] | None = None,
) -> list[ScoredPaper]:
    """Re-order the first ``top_n`` of ``ranked`` by z (module docstring); returns a new list.

    ``texts`` maps corpus_id to title + abstract (a paper without text gets the lowest logit).
    ``cache`` (corpus_id -> logit, for one query) is read and filled, so later rounds of a
    search score only new papers. Ties go to the incoming order."""
    head, tail = ranked[:top_n], ranked[top_n:]
    if not head or weight <= 0:
        return list(ranked)
    cache = {} if cache is None else cache
    todo = [p.corpus_id for p in head if p.corpus_id not in cache and texts.get(p.corpus_id)]
    if todo:
        for cid, z in zip(todo, score_pairs([(query, texts[c]) for c in todo])):
            cache[cid] = float(z)
    score = {p.corpus_id: cache.get(p.corpus_id, float("-inf")) for p in head}
    by_ce = sorted(range(len(head)), key=lambda i: (-score[head[i].corpus_id], i))
    r_ce = {i: r for r, i in enumerate(by_ce, 1)}
    z = [k / (k + i + 1) + weight * k / (k + r_ce[i]) for i in range(len(head))]
    order = sorted(range(len(head)), key=lambda i: (-round(z[i], 12), i))
    return [head[i] for i in order] + tail
