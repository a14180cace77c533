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
from litnav.corpus.vectors import build_index, choose_kind, index_files_present, load_vectors, save_index

CHUNK_BATCH = 2000
EMBED_BATCH = 2048
SPLITTER_VERSION = 1

EMBED_TEXT_SQL = "coalesce(p.title, '') || CASE WHEN a.abstract IS NULL THEN '' ELSE chr(10) || a.abstract END"
"""The text embedded for a paper: title, newline, abstract. Its md5 is the stored ``text_hash``."""


def _stored_vectors(conn) -> bool:
    return conn.execute("SELECT (SELECT count(*) FROM vectors) + (SELECT count(*) FROM chunk_vectors)").fetchone()[0] > 0


def chunking_signature(encoder: Encoder, s: CorpusSettings) -> tuple[int, dict]:
    """``(limit, signature)``: the word-piece limit per chunk and what the corpus records in meta
    ``chunking`` (chunks made under another signature are re-made by finalize)."""
    limit = min(s.chunk_tokens, encoder.max_tokens)
    return limit, {"weights_hash": encoder.weights_hash, "limit": limit, "splitter": SPLITTER_VERSION}


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
    changed = bool(get_meta(conn, "indexes_dirty", True)) or not index_files_present(directory / INDEX_DIR)
    if reembed or (stored and not encoder.matches(stored)):
        conn.execute("BEGIN TRANSACTION")
        conn.execute("DELETE FROM vectors")
        conn.execute("DELETE FROM chunk_vectors")
        set_meta(conn, "indexes_dirty", True)
        conn.execute("COMMIT")
        shutil.rmtree(directory / CHUNK_CACHE_DIR, ignore_errors=True)
        changed = True
    set_meta(conn, "model", ident)
    limit, signature = chunking_signature(encoder, s)
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
    stage("chunk", lambda: _chunk(conn, lambda: Chunker(encoder.tokenizer, limit), progress))
    embedded = [0]
    stage("embed", lambda: embedded.__setitem__(0, _embed_abstracts(conn, encoder, progress)))
    changed = changed or embedded[0] > 0
    if changed:
        stage("faiss", lambda: _build_faiss(directory, conn, s, progress))
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


def _chunk(conn, make_chunker, progress: bool) -> None:
    todo = [r[0] for r in conn.execute(
        "SELECT corpus_id FROM papers WHERE NOT chunked ORDER BY corpus_id").fetchall()]
    if not todo:  # e.g. a distributed build chunked everything: no tokenizer to load
        return
    chunker = make_chunker()
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
        staged = chunk_table(chunker, [(c, abstracts.get(c), body.get(c, [])) for c in batch])
        conn.execute("BEGIN TRANSACTION")
        conn.execute("DELETE FROM chunks WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
        conn.execute("DELETE FROM chunk_vectors WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
        register(conn, "_staged", staged)
        conn.execute("INSERT INTO chunks BY NAME SELECT * FROM _staged")
        conn.execute("UPDATE papers SET chunked = true WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
        conn.execute("COMMIT")
        unregister(conn, "_staged")
        unregister(conn, "_ids")
        bar.update(len(batch))
    bar.close()


CHUNK_SCHEMA = pa.schema([
    ("corpus_id", pa.string()), ("ordinal", pa.int32()), ("section", pa.string()),
    ("paragraph", pa.int32()), ("char_start", pa.int32()), ("char_end", pa.int32()), ("text", pa.string())])
"""Columns of the ``chunks`` table."""


def chunk_table(chunker: Chunker, papers: list[tuple[str, str | None, list[tuple[str, str]]]]) -> pa.Table:
    """The ``chunks`` rows (:data:`CHUNK_SCHEMA`) of ``papers`` given as ``(corpus_id, abstract,
    [(section, text)] body paragraphs in order)``; papers without any text give no rows."""
    with_text = [(cid, abstract, body) for cid, abstract, body in papers if abstract or body]
    spans = chunker.chunk_many([layout(abstract, body) for _, abstract, body in with_text])
    cols: dict[str, list] = {name: [] for name in CHUNK_SCHEMA.names}
    for (cid, abstract, body), chunks in zip(with_text, spans):
        ft_paras = layout(abstract, body)
        for ordinal, c in enumerate(chunks):
            p = ft_paras[c.paragraph]
            cols["corpus_id"].append(cid)
            cols["ordinal"].append(ordinal)
            cols["section"].append(c.section)
            cols["paragraph"].append(c.paragraph)
            cols["char_start"].append(c.start)
            cols["char_end"].append(c.end)
            cols["text"].append(p.text[c.start - p.start:c.end - p.start])
    return pa.table(cols, schema=CHUNK_SCHEMA)


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
    ids, vecs = load_vectors(conn)
    kind = choose_kind(s.faiss_index, len(ids), s.ivf_threshold)
    if not ids:
        vecs = np.zeros((0, get_meta(conn, "model")["dim"]), dtype=np.float32)
    with tqdm(total=1, desc=f"faiss ({kind})", disable=None if progress else True) as bar:
        save_index(directory / INDEX_DIR, build_index(vecs, kind, s.ivf_nprobe), ids)
        bar.update(1)
    set_meta(conn, "faiss", {"kind": kind, "n": len(ids)})


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
    rows = conn.execute(
        "SELECT p.corpus_id, coalesce(p.title, '') || ' ' || coalesce(a.abstract, '') "
        "FROM papers p LEFT JOIN abstracts a USING (corpus_id) ORDER BY p.corpus_id").fetchall()
    if not rows:
        return
    build_bm25(directory / INDEX_DIR, [r[0] for r in rows], [r[1] for r in rows], show_progress=progress)
    set_meta(conn, "bm25", {"n": len(rows), "dir": BM25_DIR})
    # word and collocation statistics for intent analysis (corpus.phrases), same texts as BM25
    save_phrases(directory / INDEX_DIR, build_phrase_table(r[1] for r in rows))
