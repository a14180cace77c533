"""The FAISS index over abstract vectors (inner product of L2-normalised vectors = cosine).

Files in ``DIR/index/``: ``abstracts.faiss`` and ``abstracts.ids.npy`` (row -> corpus_id).
Both are written atomically (``core.io.atomic_path``).
"""

from __future__ import annotations

import math
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


def build_index(vecs: np.ndarray, kind: str, nprobe: int = 32):
    """FAISS index over ``vecs`` (float32 ``[n, dim]``, L2-normalised).

    ``flat``: ``IndexFlatIP`` (exact). ``ivf``: ``IndexIVFFlat`` with ``nlist = clamp(4*sqrt(n), 1, n/39)``
    inner-product lists trained on up to 256 vectors per list (FAISS's guideline of >= 39 per list).
    """
    import faiss
    n, dim = vecs.shape
    if kind == "flat" or n < 2 * 39:
        index = faiss.IndexFlatIP(dim)
        index.add(vecs)
        return index
    nlist = max(1, min(int(4 * math.sqrt(n)), n // 39))
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
    rng = np.random.default_rng(0)
    sample = vecs[rng.choice(n, size=min(n, nlist * 256), replace=False)]
    index.train(sample)
    index.add(vecs)
    index.nprobe = nprobe
    return index


def save_index(directory: Path, index, ids: list[str]) -> None:
    """Write index and ids atomically (``core.io.atomic_path``)."""
    import faiss
    with atomic_path(directory / INDEX_FILE) as tmp:
        faiss.write_index(index, str(tmp))
    with atomic_path(directory / IDS_FILE, suffix=".npy") as tmp:
        np.save(tmp, np.array(ids, dtype=np.str_), allow_pickle=False)


def load_index(directory: Path, nprobe: int = 32):
    """``(index, ids)``; IVF indexes get a direct map so vectors can be reconstructed by row."""
    import faiss
    index = faiss.read_index(str(directory / INDEX_FILE))
    ids = np.load(directory / IDS_FILE, allow_pickle=False).tolist()
    if isinstance(index, faiss.IndexIVF):
        index.nprobe = nprobe
        index.make_direct_map()
    return index, ids


def index_files_present(directory: Path) -> bool:
    """True when both index files exist."""
    return (directory / INDEX_FILE).is_file() and (directory / IDS_FILE).is_file()


def load_vectors(conn, where: str = "", params: list | None = None) -> tuple[list[str], np.ndarray]:
    """``(ids, float32 [n, dim])`` from the vectors table, ordered by corpus_id."""
    t = conn.sql(f"SELECT corpus_id, vec FROM vectors {where} ORDER BY corpus_id", params=params).to_arrow_table()
    ids = t.column("corpus_id").to_pylist()
    if not ids:
        return [], np.zeros((0, 0), dtype=np.float32)
    flat = t.column("vec").combine_chunks().flatten().to_numpy(zero_copy_only=False)
    return ids, np.ascontiguousarray(flat.reshape(len(ids), -1), dtype=np.float32)
