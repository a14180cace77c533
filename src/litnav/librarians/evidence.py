"""The Evidence Chunk Locator: for each (paper, checkpoint), the top-k chunks by cosine.

``E_k(p, c) = top-k_{x in chunks(p)} cos(f(x), f(c))`` with ``f`` the corpus encoder (PaSaMaster,
"Evidence Chunk Locator"). Abstract sentences are chunks, so abstract-only papers have evidence.
On corpora whose chunk vectors are lazy, ``chunks(p)`` is narrowed first to the abstract sentences
and the top chunks by BM25 for each checkpoint (``Corpus.evidence_chunks``), so a search embeds
only what it reads.
"""

from __future__ import annotations

import numpy as np

from litnav.core.boilerplate import content_spans, non_evidence_section
from litnav.core.records import CONTENT_KINDS, Checkpoint, Evidence

PRESELECT_PER_CHECKPOINT = 2
"""Lazy corpora: chunks per (paper, checkpoint) kept by the BM25 pre-selection (at least ``k``).
Embedding is what a first search waits for: all chunks of a 60-paper pool of the demo corpus are
~4.5k (18.5k chunks over 248 papers); the pre-selection keeps 2 per checkpoint plus the abstract
sentences of each paper."""


_NOT_ABOUT = "The paper is not about "


def evidence_query(checkpoint: Checkpoint) -> str:
    """The text embedded for a checkpoint: for exclusions the excluded phrase itself (a
    negated sentence embeds badly; for one of alternatives the phrase as stated, not its terms
    and their number variants run together), otherwise the checkpoint's statement."""
    if checkpoint.kind == "exclusion" and checkpoint.any_of and checkpoint.text.startswith(_NOT_ABOUT):
        return checkpoint.text[len(_NOT_ABOUT):]
    if checkpoint.kind == "exclusion" and checkpoint.terms:
        return " ".join(checkpoint.terms)
    return checkpoint.text


def locatable(checkpoints: list[Checkpoint]) -> list[Checkpoint]:
    """The checkpoints that need evidence: content kinds and exclusions (not metadata)."""
    return [c for c in checkpoints if c.kind in CONTENT_KINDS or c.kind == "exclusion"]


def _is_evidence(chunk) -> bool:
    """A chunk can be evidence unless it sits in an acknowledgements/references-like section or
    every sentence of it is boilerplate (``core.boilerplate``)."""
    return not non_evidence_section(chunk.section) and bool(content_spans(chunk.text))


def locate_evidence(
    corpus, corpus_ids: list[str], checkpoints: list[Checkpoint], query_vectors: dict[str, np.ndarray], k: int
) -> dict[str, dict[str, list[Evidence]]]:
    """Return ``evidence[corpus_id][checkpoint_id]`` = up to ``k`` Evidence, best first.

    ``query_vectors`` maps ``evidence_query(c)`` to its L2-normalised vector (shape ``[dim]``).
    Papers without chunks get empty lists. Boilerplate is never evidence: chunks of
    acknowledgements/references-like sections and chunks made only of road-map, URL, funding or
    copyright sentences are skipped (``core.boilerplate``).
    """
    cps = locatable(checkpoints)
    out: dict[str, dict[str, list[Evidence]]] = {}
    if not cps:
        return {cid: {} for cid in corpus_ids}
    q = np.stack([query_vectors[evidence_query(c)] for c in cps]).astype(np.float32)
    # eager corpora compare every chunk; lazy ones embed only BM25-pre-selected chunks (plus the
    # abstract sentences) of these papers, in one batch
    many = corpus.evidence_chunks(corpus_ids, list(dict.fromkeys(evidence_query(c) for c in cps)),
                                  per_query=max(PRESELECT_PER_CHECKPOINT, k), usable=_is_evidence)
    for cid in corpus_ids:
        chunks, vectors = many[cid]
        per: dict[str, list[Evidence]] = {c.id: [] for c in cps}
        usable = [i for i, ch in enumerate(chunks) if _is_evidence(ch)]
        if usable:
            chunks = [chunks[i] for i in usable]
            sims = np.asarray(vectors, dtype=np.float32)[usable] @ q.T
            top = min(k, len(chunks))
            for j, c in enumerate(cps):
                col = sims[:, j]
                idx = np.argpartition(-col, top - 1)[:top] if top < len(col) else np.arange(len(col))
                for i in sorted(idx, key=lambda i: (-col[i], i)):
                    ch = chunks[i]
                    per[c.id].append(Evidence(
                        chunk_id=ch.chunk_id, corpus_id=cid, section=ch.section,
                        char_start=ch.char_start, char_end=ch.char_end, text=ch.text,
                        similarity=float(col[i]),
                    ))
        out[cid] = per
    return out
