"""finalize(): the build stages that run after all inputs are written.

Stages, each resumable after a crash (work is committed in batches and selected by what is
missing): resolve references by title, chunk full texts, embed title+abstract, build FAISS,
embed chunks (eager mode), build BM25. Indexes are marked dirty until the last stage finishes.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
from tqdm.auto import tqdm

from litnav.core.settings import CorpusSettings
from litnav.corpus.chunking import Chunker, layout
from litnav.corpus.encoder import Encoder
from litnav.corpus.errors import ModelMismatchError, mismatch_message
from litnav.corpus.lexical import BM25_DIR, build_bm25
from litnav.corpus.phrases import build_phrase_table, save_phrases
from litnav.corpus.schema import CHUNK_CACHE_DIR, INDEX_DIR
from litnav.corpus.store import content_counts, get_meta, register, set_meta, unregister
from litnav.corpus.vectors import (
    MIN_PER_LIST,
    build_index,
    build_ivf_streaming,
    choose_kind,
    index_files_present,
    load_vectors,
    remove_index,
    save_index,
)

CHUNK_BATCH = 2000
EMBED_BATCH = 2048
SPLITTER_VERSION = 1
PHRASE_SAMPLE = 100_000
"""Papers whose titles+abstracts the phrase statistics count, at most (every k-th paper beyond)."""

EMBED_TEXT_SQL = "coalesce(p.title, '') || CASE WHEN a.abstract IS NULL THEN '' ELSE chr(10) || a.abstract END"
"""The text embedded for a paper: title, newline, abstract. Its md5 is the stored ``text_hash``."""


def _stored_vectors(conn) -> bool:
    return conn.execute("SELECT (SELECT count(*) FROM vectors) + (SELECT count(*) FROM chunk_vectors)").fetchone()[0] > 0


def finalize(directory: Path, conn, s: CorpusSettings, progress: bool = True,
             reembed: bool = False) -> dict[str, float]:
    """Run all build stages on the corpus at ``directory`` through its open read-write DuckDB
    connection ``conn`` (the caller holds the writer lock); returns seconds per stage
    (see :meth:`CorpusWriter.finalize`)."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    encoder = Encoder.from_settings(s)
    ident = encoder.identity()
    stored = get_meta(conn, "model")
    if stored and not encoder.matches(stored) and _stored_vectors(conn) and not reembed:
        raise ModelMismatchError(mismatch_message(directory, stored, ident))
    dense = s.abstract_embeddings
    changed = bool(get_meta(conn, "indexes_dirty", True)) or (dense and not index_files_present(directory / INDEX_DIR))
    if reembed or (stored and not encoder.matches(stored)):
        conn.execute("BEGIN TRANSACTION")
        conn.execute("DELETE FROM vectors")
        conn.execute("DELETE FROM chunk_vectors")
        set_meta(conn, "indexes_dirty", True)
        conn.execute("COMMIT")
        shutil.rmtree(directory / CHUNK_CACHE_DIR, ignore_errors=True)
        changed = True
    set_meta(conn, "model", ident)
    limit = min(s.chunk_tokens, encoder.max_tokens)
    signature = {"weights_hash": ident["weights_hash"], "limit": limit, "splitter": SPLITTER_VERSION}
    if get_meta(conn, "chunking") != signature:
        conn.execute("BEGIN TRANSACTION")
        conn.execute("UPDATE papers SET chunked = false")
        conn.execute("DELETE FROM chunks")
        conn.execute("DELETE FROM chunk_vectors")
        set_meta(conn, "chunking", signature)
        conn.execute("COMMIT")

    def stage(name: str, fn) -> None:
        start = time.perf_counter()
        fn()
        timings[name] = round(time.perf_counter() - start, 3)

    stage("resolve", lambda: _resolve(conn, s.title_resolution))
    stage("chunk", lambda: _chunk(conn, Chunker.for_encoder(encoder, limit), progress))
    embedded = [0]
    if dense:
        stage("embed", lambda: embedded.__setitem__(0, _embed_abstracts(conn, encoder, progress)))
        changed = changed or embedded[0] > 0
        if changed:
            stage("faiss", lambda: _build_faiss(directory, conn, s, progress))
    else:  # BM25-only corpus: no FAISS index (vectors already stored are kept for a later dense build)
        remove_index(directory / INDEX_DIR)
        set_meta(conn, "faiss", None)
    n_chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    mode = s.chunk_embeddings
    if mode == "auto":
        mode = "eager" if n_chunks < s.eager_chunk_limit else "lazy"
    if mode == "eager":
        stage("chunk_vectors", lambda: _embed_chunks(conn, encoder, progress))
    set_meta(conn, "chunk_vectors_mode", mode)
    if changed:
        stage("bm25", lambda: _build_bm25(directory, conn, progress))
    set_meta(conn, "indexes_dirty", False)
    set_meta(conn, "counts", content_counts(conn))  # read on open instead of scanning the tables
    conn.execute("CHECKPOINT")
    timings["total"] = round(time.perf_counter() - t0, 3)
    return timings


_RESOLVE_SQL = """
INSERT INTO citations
WITH r AS (
    SELECT * FROM refs
    WHERE length(norm_title) >= 15 AND len(string_split(norm_title, ' ')) >= 3),
cand AS (
    SELECT r.citing_id, r.ordinal, p.corpus_id AS cited_id, r.contexts
    FROM r JOIN papers p ON p.norm_title = r.norm_title
    WHERE (r.year IS NULL OR p.year IS NULL OR abs(r.year - p.year) <= 1) AND p.corpus_id <> r.citing_id),
uniq AS (
    SELECT citing_id, ordinal, any_value(cited_id) AS cited_id, any_value(contexts) AS contexts
    FROM cand GROUP BY citing_id, ordinal HAVING count(*) = 1),
edges AS (
    SELECT citing_id, cited_id, flatten(list(contexts ORDER BY ordinal)) AS contexts
    FROM uniq GROUP BY citing_id, cited_id)
SELECT e.citing_id, e.cited_id, e.contexts, []::VARCHAR[], 'title', 'title'
FROM edges e
WHERE NOT EXISTS (SELECT 1 FROM citations c WHERE c.citing_id = e.citing_id AND c.cited_id = e.cited_id)
"""


def _resolve(conn, enabled: bool) -> None:
    """Recompute all title-resolved edges (deterministic; picks up papers added since last time).

    A bibliography entry without a linked id resolves to the one corpus paper with the same
    normalised title (>= 15 chars and >= 3 words) whose year is within +-1 when both years are
    known; entries matching several papers are skipped, and so are pairs already linked otherwise.
    """
    conn.execute("BEGIN TRANSACTION")
    conn.execute("DELETE FROM citations WHERE origin = 'title'")
    if enabled:
        conn.execute(_RESOLVE_SQL)
    conn.execute("COMMIT")


def _chunk(conn, chunker: Chunker, progress: bool) -> None:
    todo = [r[0] for r in conn.execute(
        "SELECT corpus_id FROM papers WHERE NOT chunked ORDER BY corpus_id").fetchall()]
    bar = tqdm(total=len(todo), desc="chunk", unit="paper", disable=None if progress else True)
    for i in range(0, len(todo), CHUNK_BATCH):
        batch = todo[i:i + CHUNK_BATCH]
        ids = pa.table({"corpus_id": batch})
        register(conn, "_ids", ids)
        abstracts = dict(conn.execute(
            "SELECT corpus_id, abstract FROM abstracts WHERE corpus_id IN (SELECT corpus_id FROM _ids)").fetchall())
        body: dict[str, list[tuple[str, str]]] = {}
        for cid, section, text in conn.execute(
                "SELECT corpus_id, section, text FROM paragraphs WHERE corpus_id IN (SELECT corpus_id FROM _ids) "
                "ORDER BY corpus_id, idx").fetchall():
            body.setdefault(cid, []).append((section, text))
        with_text = [cid for cid in batch if cid in abstracts or cid in body]
        spans = chunker.chunk_many([layout(abstracts.get(c), body.get(c, [])) for c in with_text])
        cols: dict[str, list] = {k: [] for k in ("corpus_id", "ordinal", "section", "paragraph",
                                                  "char_start", "char_end", "text")}
        for cid, chunks in zip(with_text, spans):
            ft_paras = layout(abstracts.get(cid), body.get(cid, []))
            for ordinal, c in enumerate(chunks):
                p = ft_paras[c.paragraph]
                cols["corpus_id"].append(cid)
                cols["ordinal"].append(ordinal)
                cols["section"].append(c.section)
                cols["paragraph"].append(c.paragraph)
                cols["char_start"].append(c.start)
                cols["char_end"].append(c.end)
                cols["text"].append(p.text[c.start - p.start:c.end - p.start])
        conn.execute("BEGIN TRANSACTION")
        conn.execute("DELETE FROM chunks WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
        conn.execute("DELETE FROM chunk_vectors WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
        staged = pa.table(cols, schema=pa.schema([
            ("corpus_id", pa.string()), ("ordinal", pa.int32()), ("section", pa.string()),
            ("paragraph", pa.int32()), ("char_start", pa.int32()), ("char_end", pa.int32()),
            ("text", pa.string())]))
        register(conn, "_staged", staged)
        conn.execute("INSERT INTO chunks BY NAME SELECT * FROM _staged")
        conn.execute("UPDATE papers SET chunked = true WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
        conn.execute("COMMIT")
        unregister(conn, "_staged")
        unregister(conn, "_ids")
        bar.update(len(batch))
    bar.close()


def vector_table(ids: list[str], vecs: np.ndarray, **extra) -> pa.Table:
    """Arrow table ``corpus_id, <extra columns>, vec`` for float32 vectors ``[n, dim]``."""
    flat = pa.array(np.ascontiguousarray(vecs, dtype=np.float32).reshape(-1))
    vec = pa.FixedSizeListArray.from_arrays(flat, vecs.shape[1]).cast(pa.list_(pa.float32()))
    return pa.table({"corpus_id": ids, **extra, "vec": vec})


def _embed_abstracts(conn, encoder: Encoder, progress: bool) -> int:
    todo = conn.execute(f"""
        SELECT p.corpus_id, {EMBED_TEXT_SQL} AS text, md5({EMBED_TEXT_SQL}) AS h
        FROM papers p LEFT JOIN abstracts a USING (corpus_id) LEFT JOIN vectors v USING (corpus_id)
        WHERE v.text_hash IS DISTINCT FROM md5({EMBED_TEXT_SQL})
        ORDER BY p.corpus_id""").fetchall()
    bar = tqdm(total=len(todo), desc="embed abstracts", unit="paper", disable=None if progress else True)
    for i in range(0, len(todo), EMBED_BATCH):
        batch = todo[i:i + EMBED_BATCH]
        vecs = encoder.encode([t for _, t, _ in batch])
        data = vector_table([c for c, _, _ in batch], vecs, text_hash=[h for _, _, h in batch])
        conn.execute("BEGIN TRANSACTION")
        register(conn, "_staged", data)
        conn.execute("DELETE FROM vectors WHERE corpus_id IN (SELECT corpus_id FROM _staged)")
        conn.execute("INSERT INTO vectors BY NAME SELECT * FROM _staged")
        conn.execute("COMMIT")
        unregister(conn, "_staged")
        bar.update(len(batch))
    bar.close()
    conn.execute("DELETE FROM vectors WHERE corpus_id NOT IN (SELECT corpus_id FROM papers)")
    return len(todo)


def _build_faiss(directory: Path, conn, s: CorpusSettings, progress: bool) -> None:
    n = conn.execute("SELECT count(*) FROM vectors").fetchall()[0][0]
    kind = choose_kind(s.faiss_index, n, s.ivf_threshold)
    if kind == "ivf" and n < 2 * MIN_PER_LIST:
        kind = "flat"
    with tqdm(total=1, desc=f"faiss ({kind})", disable=None if progress else True) as bar:
        if kind == "ivf":  # streamed from the table: the float vectors are never all in memory
            build_ivf_streaming(conn, directory / INDEX_DIR, get_meta(conn, "model")["dim"], s.ivf_pq_bytes,
                                s.ivf_nprobe)
        else:
            ids, vecs = load_vectors(conn)
            if not ids:
                vecs = np.zeros((0, get_meta(conn, "model")["dim"]), dtype=np.float32)
            save_index(directory / INDEX_DIR, build_index(vecs, kind), ids)
        bar.update(1)
    set_meta(conn, "faiss", {"kind": kind, "n": n})


def _embed_chunks(conn, encoder: Encoder, progress: bool) -> None:
    todo = conn.execute("""
        SELECT c.corpus_id, c.ordinal, c.text FROM chunks c
        ANTI JOIN chunk_vectors v ON c.corpus_id = v.corpus_id AND c.ordinal = v.ordinal
        ORDER BY c.corpus_id, c.ordinal""").fetchall()
    bar = tqdm(total=len(todo), desc="embed chunks", unit="chunk", disable=None if progress else True)
    for i in range(0, len(todo), EMBED_BATCH):
        batch = todo[i:i + EMBED_BATCH]
        vecs = encoder.encode([t for _, _, t in batch])
        data = vector_table([c for c, _, _ in batch], vecs,
                            ordinal=pa.array([o for _, o, _ in batch], pa.int32()))
        conn.execute("BEGIN TRANSACTION")
        register(conn, "_staged", data)
        conn.execute("INSERT INTO chunk_vectors BY NAME SELECT * FROM _staged")
        conn.execute("COMMIT")
        unregister(conn, "_staged")
        bar.update(len(batch))
    bar.close()


def _build_bm25(directory: Path, conn, progress: bool) -> None:
    order = "FROM papers p LEFT JOIN abstracts a USING (corpus_id) ORDER BY p.corpus_id"
    ids = [r[0] for r in conn.execute("SELECT p.corpus_id " + order).fetchall()]
    if not ids:
        return
    step = -(-len(ids) // PHRASE_SAMPLE)
    sample: list[str] = []

    def texts():  # streamed in batches: the titles+abstracts are never all in memory
        conn.complete()
        reader = conn.sql("SELECT coalesce(p.title, '') || ' ' || coalesce(a.abstract, '') " + order).to_arrow_reader(
            10_000)
        n = 0
        for batch in reader:
            for text in batch.column(0).to_pylist():
                if n % step == 0:
                    sample.append(text)
                n += 1
                yield text

    build_bm25(directory / INDEX_DIR, ids, texts(), show_progress=progress)
    set_meta(conn, "bm25", {"n": len(ids), "dir": BM25_DIR})
    # word and collocation statistics for intent analysis (corpus.phrases), same texts as BM25; past
    # PHRASE_SAMPLE papers over an even sample (the n-gram counters grow with the corpus)
    save_phrases(directory / INDEX_DIR, build_phrase_table(sample))
