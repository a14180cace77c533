"""The FAISS index over abstract vectors (inner product of L2-normalised vectors = cosine).

Files in ``DIR/index/``: ``abstracts.faiss`` and ``abstracts.ids.npy`` (row -> corpus_id).
Both are written atomically (``core.io.atomic_path``). Below the ``ivf_threshold`` setting the
index is exact (``IndexFlatIP``, loaded into memory); from it on, IVF-PQ trained on a sample and
filled by streaming from the ``vectors`` table, memory-mapped at search time (its codes are
lossy, so ``Corpus`` re-scores the candidates with the exact stored vectors).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from litnav.core.io import atomic_path

INDEX_FILE = "abstracts.faiss"
IDS_FILE = "abstracts.ids.npy"


def choose_kind(setting: str, n: int, threshold: int) -> str:
    """``'flat'`` or ``'ivf'`` for ``n`` vectors given the ``faiss_index`` setting (auto: ivf from ``threshold``)."""
    if setting == "auto":
        return "ivf" if n >= threshold else "flat"
    return setting


MIN_PER_LIST = 39
"""FAISS's guideline: at least 39 training vectors per centroid (IVF lists and PQ codes alike)."""


def build_index(vecs: np.ndarray, kind: str = "flat", nprobe: int = 32, pq_bytes: int = 48):
    """FAISS index over ``vecs`` (float32 ``[n, dim]``, L2-normalised), all in memory.

    ``flat``: ``IndexFlatIP`` (exact). ``ivf``: IVF-PQ (:func:`ivf_pq_index`) trained on a sample
    of ``vecs`` and filled with all of them. Fewer than ``2 * MIN_PER_LIST`` vectors always give flat.
    """
    import faiss
    n, dim = vecs.shape
    if kind == "flat" or n < 2 * MIN_PER_LIST:
        index = faiss.IndexFlatIP(dim)
        index.add(vecs)
        return index
    index = ivf_pq_index(dim, n, pq_bytes, nprobe)
    index.train(vecs[train_rows(n, index)])
    index.add(vecs)
    return index


def ivf_pq_index(dim: int, n: int, pq_bytes: int = 48, nprobe: int = 32):
    """An untrained inner-product ``IndexIVFPQ`` for ``n`` vectors of ``dim``: ``nlist =
    clamp(4*sqrt(n), 1, n/39)`` lists, ``m`` = the largest divisor of ``dim`` <= ``pq_bytes``
    sub-quantizers of ``nbits`` = 8 (fewer for small ``n``, so each code still has 39 training
    vectors). Raises ``ValueError`` for ``n < 2 * MIN_PER_LIST``."""
    import faiss
    if n < 2 * MIN_PER_LIST:
        raise ValueError(f"IVF-PQ needs at least {2 * MIN_PER_LIST} vectors, got {n}")
    nlist = max(1, min(int(4 * math.sqrt(n)), n // MIN_PER_LIST))
    m = max(d for d in range(1, min(pq_bytes, dim) + 1) if dim % d == 0)
    nbits = int(min(8, max(1, math.floor(math.log2(max(2, min(n, train_size(n, nlist)) // MIN_PER_LIST))))))
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFPQ(quantizer, dim, nlist, m, nbits, faiss.METRIC_INNER_PRODUCT)
    index.nprobe = min(nprobe, nlist)
    return index


def train_size(n: int, nlist: int) -> int:
    """Training sample size for ``nlist`` lists: 64 per list, at least 256 * 39 for the PQ codes, at most ``n``."""
    return min(n, max(nlist * 64, 256 * MIN_PER_LIST))


def train_rows(n: int, index) -> np.ndarray:
    """Sorted, seeded random rows (of ``n``) to train ``index`` on."""
    rng = np.random.default_rng(0)
    return np.sort(rng.choice(n, size=train_size(n, index.nlist), replace=False))


def build_ivf_streaming(batches: Callable[[], Iterable[tuple[list[str], np.ndarray]]], ids: Sequence[str],
                        directory: Path, dim: int, pq_bytes: int = 48, nprobe: int = 32) -> int:
    """IVF-PQ over vectors that are never all in memory at once, written with its ids file
    (atomically) to ``directory``; returns the number of vectors.

    ``ids``: every paper the index holds, sorted. ``batches()`` yields ``(ids, float32 [b, dim])``
    pieces that cover those papers once each, in any order (the ``vectors`` table and a build's
    staged shards, say); it is called twice: to collect the training sample (a seeded random choice
    of positions in ``ids``, so the same papers whatever the batch order) and to fill the index
    (its rows follow the batch order, as does the ids file). Memory: the sample, the ids and the
    codes (``pq_bytes`` per vector). Raises ``ValueError`` when the batches do not cover ``ids``."""
    n = len(ids)
    index = ivf_pq_index(dim, n, pq_bytes, nprobe)
    want = {ids[r]: j for j, r in enumerate(train_rows(n, index).tolist())}
    sample = np.zeros((len(want), dim), dtype=np.float32)
    seen = 0
    for part, vecs in batches():
        for i, cid in enumerate(part):
            j = want.get(cid)
            if j is not None:
                sample[j] = vecs[i]
                seen += 1
    if seen != len(want):
        raise ValueError(f"IVF training: {seen} of {len(want)} sampled vectors found in the batches")
    index.train(sample)
    del sample
    order: list[str] = []
    for part, vecs in batches():
        order.extend(part)
        index.add(np.ascontiguousarray(vecs, dtype=np.float32).reshape(len(part), dim))
    if len(order) != n:
        raise ValueError(f"IVF fill: the batches held {len(order)} vectors, expected {n}")
    save_index(directory, index, order)
    return n


def save_index(directory: Path, index, ids: list[str]) -> None:
    """Write index and ids atomically (``core.io.atomic_path``)."""
    import faiss
    with atomic_path(directory / INDEX_FILE) as tmp:
        faiss.write_index(index, str(tmp))
    with atomic_path(directory / IDS_FILE, suffix=".npy") as tmp:
        np.save(tmp, np.array(ids, dtype=np.str_), allow_pickle=False)


def load_index(directory: Path, nprobe: int = 32):
    """``(index, ids)``. Flat indexes are read into memory; IVF indexes are memory-mapped from
    disk (``IO_FLAG_MMAP``: pages load as lists are probed) and get ``nprobe``. Their vectors are
    lossy codes: exact vectors come from the ``vectors`` table (``Corpus`` does so)."""
    import faiss
    path = directory / INDEX_FILE
    with path.open("rb") as fh:
        ivf = fh.read(2) == b"Iw"  # FAISS's fourcc of the IVF index types ("IwPQ", "IwFl", ...)
    index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY if ivf else 0)
    if isinstance(index, faiss.IndexIVF):
        index.nprobe = min(nprobe, index.nlist)
    ids = np.load(directory / IDS_FILE, allow_pickle=False).tolist()
    return index, ids


def remove_index(directory: Path) -> None:
    """Delete the FAISS index and ids files (a corpus built without abstract vectors)."""
    for name in (INDEX_FILE, IDS_FILE):
        (directory / name).unlink(missing_ok=True)


def index_files_present(directory: Path) -> bool:
    """True when both index files exist."""
    return (directory / INDEX_FILE).is_file() and (directory / IDS_FILE).is_file()


def load_vectors(conn, where: str = "", params: list | None = None,
                 source: str = "vectors") -> tuple[list[str], np.ndarray]:
    """``(ids, float32 [n, dim])`` from the vectors table (or the relation ``source``), ordered by corpus_id."""
    conn.complete()  # finish a pending result (e.g. a meta read) before the relation runs
    t = conn.sql(f"SELECT corpus_id, vec FROM {source} {where} ORDER BY corpus_id", params=params).to_arrow_table()
    ids = t.column("corpus_id").to_pylist()
    if not ids:
        return [], np.zeros((0, 0), dtype=np.float32)
    flat = t.column("vec").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    return ids, np.ascontiguousarray(flat.reshape(len(ids), -1), dtype=np.float32)
