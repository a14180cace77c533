"""finalize(): the build stages that run after all inputs are written, in two phases.

Lexical phase (read-write connection, writer lock held): resolve references by title, build BM25,
and list the papers whose title+abstract vector is missing (``embed/abstracts.todo.parquet``). It
ends by publishing a searchable state: meta ``build_stage = "lexical"`` with the dirty flag cleared
and the counts, committed together and checkpointed; the writer then closes its read-write
connection so that other processes can open the corpus read-only and search it with BM25 (a
reader makes the chunks of papers not chunked yet on demand, the way the build will).

Dense phase (read-only connection only): build the phrase table, chunk the papers not chunked yet,
embed title+abstract texts (and chunk texts in eager mode), and build the FAISS index — all into
``DIR/embed/``: chunk shards (``chunked-NNNNNN.parquet``), vector shards (``abstracts-NNNNNN.npz``,
``chunks-NNNNNN.npz``), each written atomically, so a killed build keeps what it finished and a
rerun does only the rest, without reading the sources again. Then :func:`publish_dense`, on a
briefly reopened read-write connection, moves chunks and vectors into the database and the FAISS
and phrase files into ``DIR/index/`` and sets ``build_stage = "complete"`` in one transaction.
FAISS is exact (flat) below ``ivf_threshold`` papers, IVF-PQ streamed batch by batch from the
stored vectors and the shards past it; publish moves the vectors in a shard at a time.

Papers added to (or changed in) a complete corpus leave its FAISS index and meta ``faiss`` in place
through the lexical phase: readers keep searching the last complete build's abstract vectors
(``Corpus.partial_channels``) until publish replaces them. A build that drops the stored vectors
(another model, ``reembed``) removes that index in its lexical phase instead.

A corpus built with ``corpus.abstract_embeddings=false`` is BM25-only: no abstract vectors are
embedded, no FAISS index is built (meta ``faiss`` is None); its dense phase only chunks, builds the
phrase table and embeds chunks in eager mode. ``Corpus.missing_channels`` reports the absent dense
channel in both cases (build stage ``lexical``, or BM25-only).

A corpus finalised before stages existed has no ``build_stage``: it is complete when its
indexes are not dirty.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from litnav.core.io import atomic_path, write_json
from litnav.core.progress import progress_bar
from litnav.core.settings import CorpusSettings
from litnav.corpus.chunking import Chunker, chunk_rows
from litnav.corpus.encoder import Encoder
from litnav.corpus.errors import ModelMismatchError, mismatch_message
from litnav.corpus.lexical import BM25_DIR, build_bm25
from litnav.corpus.phrases import PHRASES_FILE, build_phrase_table, save_phrases
from litnav.corpus.schema import CHUNK_CACHE_DIR, EMBED_DIR, EMBED_TEXT_SQL, INDEX_DIR
from litnav.corpus.store import STAGE_KEY, content_counts, get_meta, register, set_meta, unregister
from litnav.corpus.vectors import (
    IDS_FILE,
    INDEX_FILE,
    MIN_PER_LIST,
    build_index,
    build_ivf_streaming,
    choose_kind,
    index_files_present,
    remove_index,
    save_index,
)

log = logging.getLogger(__name__)

CHUNK_BATCH = 2000
EMBED_BATCH = 2048
"""Texts per embedding shard (one file under ``DIR/embed/``): what a killed build can lose."""
EMBED_STEP = 256
"""Texts per encoder call within a shard: the progress bar's step."""
SPLITTER_VERSION = 1
PHRASE_SAMPLE = 100_000
"""Papers whose titles+abstracts the phrase statistics count, at most (every k-th paper beyond)."""


ABSTRACT_TODO = "abstracts.todo.parquet"
CHUNK_TODO = "chunks.todo.parquet"
MODEL_FILE = "model.json"
FAISS_STAGED = "faiss"


@dataclass
class DenseWork:
    """What the dense phase has to do after the lexical phase published a searchable corpus."""

    abstracts: int = 0
    """Papers whose title+abstract vector is missing or stale (rows of ``embed/abstracts.todo.parquet``)."""
    chunks: int = 0
    """Chunks without a vector in eager mode (rows of ``embed/chunks.todo.parquet``)."""
    unchunked: int = 0
    """Papers whose text is not chunked yet (the dense phase chunks them into ``embed/chunked-*``)."""
    phrases: bool = False
    """The phrase table must be rebuilt (the dense phase writes it; publish moves it in)."""
    chunk_mode: str = "lazy"
    """``eager`` or ``lazy``: the chunk-vector mode recorded when the dense phase completes."""
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per stage of the lexical phase."""
    pending: bool = True
    """False when the lexical phase found nothing for the dense phase (the corpus is complete)."""
    dense: bool = True
    """``corpus.abstract_embeddings``: False for a BM25-only corpus (no abstract vectors, no FAISS
    index; the dense phase then only embeds chunks in eager mode)."""


def _stored_vectors(conn) -> bool:
    return conn.execute("SELECT (SELECT count(*) FROM vectors) + (SELECT count(*) FROM chunk_vectors)").fetchone()[0] > 0


def _peak_rss_gib() -> float:
    """This process's peak resident set size so far, GiB (``getrusage``; KiB on Linux, bytes on macOS)."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**30 if sys.platform == "darwin" else peak / 2**20


def _timed(timings: dict[str, float], name: str, fn):
    """Run ``fn``, record its wall seconds as ``timings[name]`` and log them with the process's
    peak RSS so far (``logging`` INFO: which stage raised the peak shows in a build's log)."""
    start = time.perf_counter()
    out = fn()
    timings[name] = round(time.perf_counter() - start, 3)
    log.info("build stage %s: %.1f s, process peak RSS so far %.2f GiB", name, timings[name], _peak_rss_gib())
    return out


def chunking_signature(encoder: Encoder, s: CorpusSettings) -> tuple[int, dict]:
    """``(limit, signature)``: the word-piece limit per chunk and what the corpus records in meta
    ``chunking`` (chunks made under another signature are re-made by finalize)."""
    limit = min(s.chunk_tokens, encoder.max_tokens)
    return limit, {"weights_hash": encoder.weights_hash, "limit": limit, "splitter": SPLITTER_VERSION}


def finalize_lexical(directory: Path, conn, s: CorpusSettings, progress: bool = True,
                     reembed: bool = False) -> DenseWork:
    """The lexical phase on the corpus at ``directory`` through its open read-write DuckDB
    connection ``conn`` (the caller holds the writer lock). Returns the :class:`DenseWork` left
    for the dense phase with ``build_stage`` set to ``"lexical"`` and checkpointed, or one with
    ``pending`` False when nothing is left (the corpus is then complete). Raises
    :class:`ModelMismatchError` when the stored vectors were made by another model and ``reembed``
    is False."""
    timings: dict[str, float] = {}
    encoder = Encoder.from_settings(s)
    ident = encoder.identity()
    stored = get_meta(conn, "model")
    if stored and not encoder.matches(stored) and _stored_vectors(conn) and not reembed:
        raise ModelMismatchError(mismatch_message(directory, stored, ident))
    dense = s.abstract_embeddings  # False: a BM25-only corpus (no abstract vectors, no FAISS index)
    staging = directory / EMBED_DIR
    dirty = bool(get_meta(conn, "indexes_dirty", True))
    was_lexical = get_meta(conn, STAGE_KEY) == "lexical"  # an earlier dense phase did not finish
    dense_stale = dense and (dirty or was_lexical or not index_files_present(directory / INDEX_DIR))
    dropped = reembed or bool(stored and not encoder.matches(stored))  # the vectors (and so the FAISS index) go
    if dropped:
        conn.execute("BEGIN TRANSACTION")
        conn.execute("DELETE FROM vectors")
        conn.execute("DELETE FROM chunk_vectors")
        set_meta(conn, "indexes_dirty", True)
        conn.execute("COMMIT")
        shutil.rmtree(directory / CHUNK_CACHE_DIR, ignore_errors=True)
        dirty = dense_stale = True
    if _staged_model(staging) != ident:  # shards of another model (or none): start the staging area afresh
        shutil.rmtree(staging, ignore_errors=True)
    set_meta(conn, "model", ident)
    _, signature = chunking_signature(encoder, s)
    if get_meta(conn, "chunking") != signature:
        for path in [*_chunk_shards(staging), *_shards(staging, "chunks")]:  # made under the old signature
            path.unlink()
        conn.execute("BEGIN TRANSACTION")
        conn.execute("UPDATE papers SET chunked = false")
        conn.execute("DELETE FROM chunks")
        conn.execute("DELETE FROM chunk_vectors")
        set_meta(conn, "chunking", signature)
        conn.execute("COMMIT")

    if dirty:  # content changed since chunk shards and a staged phrase table were made
        for path in _chunk_shards(staging):
            path.unlink()
        (staging / PHRASES_FILE).unlink(missing_ok=True)
    _timed(timings, "resolve", lambda: _resolve(conn, s.title_resolution))
    if dirty or not (directory / INDEX_DIR / BM25_DIR).is_dir():
        _timed(timings, "bm25", lambda: _build_bm25(directory, conn, progress))
    work = DenseWork(timings=timings, dense=dense)
    work.unchunked = conn.execute("SELECT count(*) FROM papers WHERE NOT chunked").fetchone()[0]
    work.phrases = dirty or was_lexical or not (directory / INDEX_DIR / PHRASES_FILE).is_file()
    if dense:
        work.abstracts = _timed(timings, "todo", lambda: _write_abstract_todo(conn, staging))
    if not work.unchunked:  # else the dense phase decides, after chunking
        n_chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        work.chunk_mode = _chunk_mode(s, n_chunks)
        if work.chunk_mode == "eager":
            work.chunks = _write_chunk_todo(conn, staging)
    orphans = conn.execute("SELECT count(*) FROM vectors ANTI JOIN papers USING (corpus_id)").fetchone()[0]
    mode = work.chunk_mode
    work.pending = bool(work.chunks or work.unchunked or work.phrases
                        or (dense and (work.abstracts or orphans or dense_stale)))
    if work.pending:
        write_json(staging / MODEL_FILE, ident)
    else:
        shutil.rmtree(staging, ignore_errors=True)
    counts = content_counts(conn)  # stored: read on open instead of scanning the tables
    conn.execute("BEGIN TRANSACTION")  # the searchable state appears all at once
    if not work.pending:
        set_meta(conn, "chunk_vectors_mode", mode)
    if not dense or dropped:  # no FAISS index: BM25 only (abstract vectors already stored are kept for a later
        set_meta(conn, "faiss", None)  # dense build), or one of vectors dropped, which must not serve meanwhile
    set_meta(conn, STAGE_KEY, "lexical" if work.pending else "complete")
    set_meta(conn, "indexes_dirty", False)
    set_meta(conn, "counts", counts)
    conn.execute("COMMIT")
    conn.execute("CHECKPOINT")
    if not dense or dropped:  # after the commit: a crash before leaves files no meta points to, never the reverse
        remove_index(directory / INDEX_DIR)
    return work


def _staged_model(staging: Path) -> dict | None:
    try:
        return json.loads((staging / MODEL_FILE).read_text())
    except (OSError, ValueError):
        return None


def _write_abstract_todo(conn, staging: Path) -> int:
    """``embed/abstracts.todo.parquet``: ``corpus_id, text, text_hash`` of every paper whose stored
    vector is missing or was made from another text, ordered by id. Returns its row count."""
    conn.complete()
    data = conn.sql(f"""
        SELECT p.corpus_id, {EMBED_TEXT_SQL} AS text, md5({EMBED_TEXT_SQL}) AS text_hash
        FROM papers p LEFT JOIN abstracts a USING (corpus_id) LEFT JOIN vectors v USING (corpus_id)
        WHERE v.text_hash IS DISTINCT FROM md5({EMBED_TEXT_SQL})
        ORDER BY p.corpus_id""").to_arrow_table()
    with atomic_path(staging / ABSTRACT_TODO, suffix=".parquet") as tmp:
        pq.write_table(data, tmp)
    return data.num_rows


def _chunk_mode(s: CorpusSettings, n_chunks: int) -> str:
    """``eager`` or ``lazy`` chunk vectors for a corpus of ``n_chunks`` chunks."""
    if s.chunk_embeddings == "auto":
        return "eager" if n_chunks < s.eager_chunk_limit else "lazy"
    return s.chunk_embeddings


def _staged_chunks(staging: Path) -> tuple[list[str], pa.Table]:
    """The papers the chunk shards cover and their rows (``CHUNK_SCHEMA``)."""
    shards = _chunk_shards(staging)
    papers = _covered_papers(shards)
    rows = pa.concat_tables([pq.read_table(p).replace_schema_metadata(None) for p in shards]) if shards \
        else CHUNK_SCHEMA.empty_table()
    return papers, rows


def _staged_chunk_count(staging: Path) -> tuple[list[str], int]:
    """The papers the chunk shards cover and their number of rows, from the shards' Parquet
    metadata (no row is read: a 1M-paper corpus's 8.4M chunks would be 2-3 GiB of text)."""
    shards = _chunk_shards(staging)
    return _covered_papers(shards), sum(pq.read_metadata(p).num_rows for p in shards)


def _write_chunk_todo(conn, staging: Path) -> int:
    """``embed/chunks.todo.parquet``: ``corpus_id, ordinal, text, text_hash`` of the chunks without a
    vector (eager mode): stored ones, and the rows of the chunk shards (which replace the stored
    chunks of the papers they cover). Returns its row count."""
    papers, rows = _staged_chunks(staging)
    register(conn, "_covered", pa.table({"corpus_id": pa.array(papers, pa.string())}))
    register(conn, "_new", rows.select(["corpus_id", "ordinal", "text"]))
    data = conn.sql("""
        SELECT corpus_id, ordinal, text, md5(text) AS text_hash FROM (
            SELECT c.corpus_id, c.ordinal, c.text FROM chunks c
            ANTI JOIN chunk_vectors v ON c.corpus_id = v.corpus_id AND c.ordinal = v.ordinal
            WHERE c.corpus_id NOT IN (SELECT corpus_id FROM _covered)
            UNION ALL SELECT corpus_id, ordinal, text FROM _new)
        ORDER BY corpus_id, ordinal""").to_arrow_table()
    unregister(conn, "_new")
    unregister(conn, "_covered")
    with atomic_path(staging / CHUNK_TODO, suffix=".parquet") as tmp:
        pq.write_table(data, tmp)
    return data.num_rows


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


CHUNK_SCHEMA = pa.schema([
    ("corpus_id", pa.string()), ("ordinal", pa.int32()), ("section", pa.string()),
    ("paragraph", pa.int32()), ("char_start", pa.int32()), ("char_end", pa.int32()), ("text", pa.string())])
"""Columns of the ``chunks`` table."""


def _chunk_shards(staging: Path) -> list[Path]:
    return sorted(staging.glob("chunked-*.parquet"))


def _chunked_papers(path: Path) -> list[str]:
    """The papers a chunk shard covers (those without text have no rows but are covered)."""
    return json.loads(pq.read_schema(path).metadata[b"papers"])


def _covered_papers(shards: list[Path]) -> list[str]:
    """The papers ``shards`` cover, in shard order (:func:`_chunked_papers` of each)."""
    return [cid for path in shards for cid in _chunked_papers(path)]


def _chunk(directory: Path, conn, chunker: Chunker, progress: bool) -> int:
    """Chunk the papers not chunked yet (``papers.chunked`` false) that no shard covers, reading
    through ``conn`` (read-only is enough), ``CHUNK_BATCH`` papers per shard file
    ``embed/chunked-NNNNNN.parquet`` (rows as the ``chunks`` table's; the papers covered in its
    schema metadata), each written atomically. Returns the number of papers chunked now."""
    staging = directory / EMBED_DIR
    done = set(_covered_papers(_chunk_shards(staging)))
    conn.complete()
    todo = [r[0] for r in conn.execute(
        "SELECT corpus_id FROM papers WHERE NOT chunked ORDER BY corpus_id").fetchall() if r[0] not in done]
    existing = _chunk_shards(staging)
    number = int(existing[-1].stem.rsplit("-", 1)[1]) + 1 if existing else 0
    bar = progress_bar(total=len(todo), desc="chunk", unit="paper", progress=progress)
    for i in range(0, len(todo), CHUNK_BATCH):
        batch = todo[i:i + CHUNK_BATCH]
        register(conn, "_ids", pa.table({"corpus_id": batch}))
        abstracts = dict(conn.execute(
            "SELECT corpus_id, abstract FROM abstracts WHERE corpus_id IN (SELECT corpus_id FROM _ids)").fetchall())
        body: dict[str, list[tuple[str, str]]] = {}
        for cid, section, text in conn.execute(
                "SELECT corpus_id, section, text FROM paragraphs WHERE corpus_id IN (SELECT corpus_id FROM _ids) "
                "ORDER BY corpus_id, idx").fetchall():
            body.setdefault(cid, []).append((section, text))
        unregister(conn, "_ids")
        rows = pa.table(chunk_rows(chunker, batch, abstracts, body), schema=CHUNK_SCHEMA)
        rows = rows.replace_schema_metadata({"papers": json.dumps(batch)})
        with atomic_path(staging / f"chunked-{number:06d}.parquet", suffix=".parquet") as tmp:
            pq.write_table(rows, tmp)
        number += 1
        bar.update(len(batch))
    bar.close()
    return len(todo)


def _publish_chunks(directory: Path, conn) -> None:
    """Inside publish's transaction: replace the chunks of the papers the shards cover with the
    shards' rows and mark those papers chunked."""
    staging = directory / EMBED_DIR
    shards = _chunk_shards(staging)
    if not shards:
        return
    papers = _covered_papers(shards)
    register(conn, "_ids", pa.table({"corpus_id": pa.array(papers, pa.string())}))
    conn.execute("DELETE FROM chunks WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
    conn.execute("DELETE FROM chunk_vectors WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
    # one statement over every shard: DuckDB streams them into the table (shard by shard through
    # Arrow, the transaction held 4.4 GiB for a 1M-paper corpus's 8.4M chunks; this way 1.6 GiB)
    conn.execute("INSERT INTO chunks BY NAME SELECT * FROM read_parquet(?)", [[str(p) for p in shards]])
    conn.execute("UPDATE papers SET chunked = true WHERE corpus_id IN (SELECT corpus_id FROM _ids)")
    unregister(conn, "_ids")


def chunk_table(chunker: Chunker, papers: list[tuple[str, str | None, list[tuple[str, str]]]]) -> pa.Table:
    """The ``chunks`` rows (:data:`CHUNK_SCHEMA`) of ``papers`` given as ``(corpus_id, abstract,
    [(section, text)] body paragraphs in order)``, as :func:`chunking.chunk_rows` makes them (the
    build's chunk shards, a distributed build's workers); papers without any text give no rows."""
    abstracts = {cid: abstract for cid, abstract, _ in papers if abstract}
    body = {cid: paras for cid, _, paras in papers if paras}
    return pa.table(chunk_rows(chunker, [cid for cid, _, _ in papers], abstracts, body), schema=CHUNK_SCHEMA)


def vector_table(ids: list[str], vecs: np.ndarray, **extra) -> pa.Table:
    """Arrow table ``corpus_id, <extra columns>, vec`` for float32 vectors ``[n, dim]``."""
    flat = pa.array(np.ascontiguousarray(vecs, dtype=np.float32).reshape(-1))
    vec = pa.FixedSizeListArray.from_arrays(flat, vecs.shape[1]).cast(pa.list_(pa.float32()))
    return pa.table({"corpus_id": ids, **extra, "vec": vec})


def _shards(staging: Path, kind: str) -> list[Path]:
    return sorted(staging.glob(f"{kind}-*.npz"))


def _read_shard(path: Path, names: tuple[str, ...] | None = None) -> dict[str, np.ndarray] | None:
    """A shard's arrays (``corpus_id``, ``text_hash``, ``vec``, and ``ordinal`` for chunks; only
    ``names`` when given), or None when it does not load (it is then embedded again)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files if names is None or k in names}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
        return None


def _staged_rows(staging: Path, kind: str, todo: pa.Table) -> dict[tuple, tuple[Path, int]]:
    """Which todo rows already have a vector in a shard: todo key -> (shard file, row in shard).
    Shard rows that match no todo row (another text, a paper since removed) are ignored; an
    unreadable shard (cut short) is deleted."""
    key_cols = ["corpus_id", "ordinal"] if kind == "chunks" else ["corpus_id"]
    want = dict(zip(zip(*(todo.column(c).to_pylist() for c in key_cols)), todo.column("text_hash").to_pylist()))
    found: dict[tuple, tuple[Path, int]] = {}
    for path in _shards(staging, kind):
        z = _read_shard(path, (*key_cols, "text_hash"))
        if z is None:
            path.unlink(missing_ok=True)
            continue
        keys = zip(*(z[c].tolist() for c in key_cols))
        for row, (key, h) in enumerate(zip(keys, z["text_hash"].tolist())):
            if want.get(key) == h:
                found[key] = (path, row)
    return found


def _embed_to_shards(staging: Path, kind: str, encoder: Encoder, progress: bool) -> int:
    """Embed the rows of ``embed/<kind>.todo.parquet`` that no shard holds yet, ``EMBED_BATCH`` per
    shard file ``embed/<kind>-NNNNNN.npz`` (written atomically). Returns the number embedded."""
    todo = pq.read_table(staging / (ABSTRACT_TODO if kind == "abstracts" else CHUNK_TODO))
    done = _staged_rows(staging, kind, todo)
    key_cols = ["corpus_id", "ordinal"] if kind == "chunks" else ["corpus_id"]
    keys = list(zip(*(todo.column(c).to_pylist() for c in key_cols)))
    rest = [i for i, k in enumerate(keys) if k not in done]
    if not rest:
        return 0
    texts, hashes = todo.column("text").to_pylist(), todo.column("text_hash").to_pylist()
    existing = _shards(staging, kind)
    number = int(existing[-1].stem.rsplit("-", 1)[1]) + 1 if existing else 0
    bar = progress_bar(total=len(todo), initial=len(todo) - len(rest), desc=f"embed {kind}",
                       unit="paper" if kind == "abstracts" else "chunk", progress=progress)
    for start in range(0, len(rest), EMBED_BATCH):
        rows = rest[start:start + EMBED_BATCH]
        parts = []
        step_size = max(EMBED_STEP, getattr(encoder, "batch_size", 0) or 0)  # a GPU batch stays whole
        for step in range(0, len(rows), step_size):  # the bar moves within a shard: a log line every 30 s
            part = rows[step:step + step_size]
            parts.append(encoder.encode([texts[i] for i in part]))
            bar.update(len(part))
        vecs = np.concatenate(parts)
        arrays = {"corpus_id": np.array([keys[i][0] for i in rows], dtype=np.str_),
                  "text_hash": np.array([hashes[i] for i in rows], dtype=np.str_),
                  "vec": np.ascontiguousarray(vecs, dtype=np.float32)}
        if kind == "chunks":
            arrays["ordinal"] = np.array([keys[i][1] for i in rows], dtype=np.int32)
        with atomic_path(staging / f"{kind}-{number:06d}.npz", suffix=".npz") as tmp:
            with open(tmp, "wb") as fh:
                np.savez(fh, **arrays)
        number += 1
    bar.close()
    return len(rest)


VECTOR_BATCH = 50_000
"""Stored abstract vectors read per batch when the IVF index is built by streaming."""

_KEPT_SQL = ("SELECT v.corpus_id, v.vec FROM vectors v SEMI JOIN papers p USING (corpus_id) "
             "ANTI JOIN _todo t USING (corpus_id) ORDER BY v.corpus_id")
"""Stored abstract vectors the dense phase keeps: of current papers, not re-embedded (``_todo``)."""


def _todo_keys(todo: pa.Table, kind: str) -> list[tuple]:
    key_cols = ["corpus_id", "ordinal"] if kind == "chunks" else ["corpus_id"]
    return list(zip(*(todo.column(c).to_pylist() for c in key_cols)))


def _staged(staging: Path, kind: str) -> tuple[pa.Table, dict[tuple, tuple[Path, int]]]:
    """The todo rows of ``kind`` (as in the todo file, minus ``text``) and where each one's vector
    is: todo key -> (shard file, row). Raises :class:`CorpusError` when a row has none (the dense
    phase did not finish)."""
    from litnav.corpus.errors import CorpusError

    todo = pq.read_table(staging / (ABSTRACT_TODO if kind == "abstracts" else CHUNK_TODO))
    todo = todo.drop_columns(["text"])
    if not todo.num_rows:
        return todo, {}
    found = _staged_rows(staging, kind, todo)
    missing = [k for k in _todo_keys(todo, kind) if k not in found]
    if missing:
        raise CorpusError(f"{staging}: {len(missing)} {kind} have no embedded vector yet (first: {missing[0]}); "
                          "rerun the same build to finish embedding")
    return todo, found


def _iter_staged(todo: pa.Table, found: dict[tuple, tuple[Path, int]], kind: str) -> Iterator[tuple[pa.Table, np.ndarray]]:
    """Per shard file: ``(todo rows whose vector it holds, float32 [n, dim] their vectors)`` — one
    shard in memory at a time. Raises :class:`CorpusError` when a shard became unreadable."""
    from litnav.corpus.errors import CorpusError

    by_shard: dict[Path, list[int]] = {}
    keys = _todo_keys(todo, kind)
    for i, key in enumerate(keys):
        by_shard.setdefault(found[key][0], []).append(i)
    for path in sorted(by_shard):
        z = _read_shard(path, ("vec",))
        if z is None:
            raise CorpusError(f"{path}: a vector shard became unreadable; rerun the same build to embed it again")
        rows = by_shard[path]
        vecs = z["vec"][[found[keys[i]][1] for i in rows]].astype(np.float32, copy=False)
        yield todo.take(rows), vecs


def embed_stage(directory: Path, s: CorpusSettings, work: DenseWork, progress: bool = True) -> dict[str, float]:
    """The dense phase, without a read-write connection (readers may have the corpus open; this
    one reads through a read-only connection): build the phrase table, chunk the papers not
    chunked yet, embed what is missing (abstracts; chunks in eager mode) and build the FAISS index
    — all into ``DIR/embed/``, each piece resumable. The index is the kind
    :func:`vectors.choose_kind` picks for the paper count: flat (exact, all vectors in memory) or,
    past ``ivf_threshold``, IVF-PQ streamed batch by batch from the stored vectors and the shards
    (:func:`vectors.build_ivf_streaming`). A BM25-only corpus (``work.dense`` False) embeds no
    abstracts and builds no index. Returns seconds per stage (``phrases``, ``chunk``, ``embed``,
    ``chunk_vectors``, ``faiss``)."""
    from litnav.corpus.store import connect, limit_memory

    timings: dict[str, float] = {}
    staging = directory / EMBED_DIR
    encoder = Encoder.from_settings(s)
    dim = encoder.dim
    conn = connect(directory, read_only=True)
    limit_memory(conn, s.duckdb_memory_limit)
    try:
        if work.phrases and not (staging / PHRASES_FILE).is_file():
            _timed(timings, "phrases", lambda: _build_phrases(staging, conn))
        if work.unchunked:
            limit = chunking_signature(encoder, s)[0]
            _timed(timings, "chunk", lambda: _chunk(directory, conn, Chunker.for_encoder(encoder, limit), progress))
            papers, staged_rows = _staged_chunk_count(staging)
            conn.complete()
            register(conn, "_covered", pa.table({"corpus_id": pa.array(papers, pa.string())}))
            stored = conn.execute("SELECT count(*) FROM chunks WHERE corpus_id NOT IN "
                                  "(SELECT corpus_id FROM _covered)").fetchone()[0]
            unregister(conn, "_covered")
            work.chunk_mode = _chunk_mode(s, stored + staged_rows)
            if work.chunk_mode == "eager":
                work.chunks = _write_chunk_todo(conn, staging)
        if work.dense:
            _timed(timings, "embed", lambda: _embed_abstracts(staging, encoder, progress))
        if work.chunks:
            _timed(timings, "chunk_vectors", lambda: _embed_chunks(staging, encoder, progress))
        if not work.dense:
            return timings
        todo, found = _staged(staging, "abstracts")
        register(conn, "_todo", todo.select(["corpus_id"]))
        kept = [r[0] for r in conn.execute(_KEPT_SQL.replace("v.corpus_id, v.vec", "v.corpus_id")).fetchall()]
        unregister(conn, "_todo")
    finally:
        conn.close()
    ids = sorted(kept + todo.column("corpus_id").to_pylist())
    kind = choose_kind(s.faiss_index, len(ids), s.ivf_threshold)
    if kind == "ivf" and len(ids) < 2 * MIN_PER_LIST:
        kind = "flat"

    def batches() -> Iterator[tuple[list[str], np.ndarray]]:
        """The kept stored vectors (a read-only connection, ``VECTOR_BATCH`` at a time), then each shard's."""
        if kept:
            c = connect(directory, read_only=True)
            try:
                register(c, "_todo", todo.select(["corpus_id"]))
                for rb in c.sql(_KEPT_SQL).to_arrow_reader(VECTOR_BATCH):
                    flat = rb.column(1).flatten().to_numpy(zero_copy_only=False)
                    yield rb.column(0).to_pylist(), flat.reshape(rb.num_rows, dim).astype(np.float32, copy=False)
            finally:
                c.close()
        for part, vecs in _iter_staged(todo, found, "abstracts"):
            yield part.column("corpus_id").to_pylist(), vecs

    def faiss() -> None:
        target = staging / FAISS_STAGED
        with progress_bar(total=1, desc=f"faiss ({kind})", progress=progress) as bar:
            if kind == "ivf":  # the float vectors are never all in memory
                build_ivf_streaming(batches, ids, target, dim, s.ivf_pq_bytes, s.ivf_nprobe)
            else:
                got_ids: list[str] = []
                parts: list[np.ndarray] = []
                for part, vecs in batches():
                    got_ids += part
                    parts.append(vecs)
                vecs = np.concatenate(parts) if parts else np.zeros((0, dim), dtype=np.float32)
                order = sorted(range(len(got_ids)), key=got_ids.__getitem__)
                save_index(target, build_index(np.ascontiguousarray(vecs[order], dtype=np.float32), kind),
                           [got_ids[i] for i in order])
            write_json(target / "meta.json", {"kind": kind, "n": len(ids)})
            bar.update(1)

    _timed(timings, "faiss", faiss)
    return timings


def _embed_abstracts(staging: Path, encoder: Encoder, progress: bool) -> int:
    """Embed the title+abstract texts of ``embed/abstracts.todo.parquet`` into shards."""
    return _embed_to_shards(staging, "abstracts", encoder, progress)


def _embed_chunks(staging: Path, encoder: Encoder, progress: bool) -> int:
    """Embed the chunk texts of ``embed/chunks.todo.parquet`` into shards (eager mode)."""
    return _embed_to_shards(staging, "chunks", encoder, progress)


def publish_dense(directory: Path, conn, work: DenseWork) -> dict[str, float]:
    """Under the writer lock, on a read-write connection: move the staged vectors into the
    ``vectors`` (and ``chunk_vectors``) tables and the staged FAISS files into ``DIR/index/``,
    record ``chunk_vectors_mode``, ``faiss`` and the counts, and set ``build_stage = "complete"`` —
    one transaction. The staging folder is removed by the caller after the commit."""
    timings: dict[str, float] = {}
    staging = directory / EMBED_DIR

    def publish() -> None:
        todo, found = _staged(staging, "abstracts") if work.dense else (pa.table({}), {})
        chunk_todo, chunk_found = _staged(staging, "chunks") if work.chunks else (pa.table({}), {})
        faiss_meta = json.loads((staging / FAISS_STAGED / "meta.json").read_text()) if work.dense else None
        conn.execute("BEGIN TRANSACTION")
        _publish_chunks(directory, conn)
        for part, vecs in (_iter_staged(todo, found, "abstracts") if todo.num_rows else ()):
            register(conn, "_staged", vector_table(part.column("corpus_id").to_pylist(), vecs,
                                                   text_hash=part.column("text_hash")))
            conn.execute("DELETE FROM vectors WHERE corpus_id IN (SELECT corpus_id FROM _staged)")
            conn.execute("INSERT INTO vectors BY NAME SELECT * FROM _staged")
            unregister(conn, "_staged")
        conn.execute("DELETE FROM vectors WHERE corpus_id NOT IN (SELECT corpus_id FROM papers)")
        for part, vecs in (_iter_staged(chunk_todo, chunk_found, "chunks") if chunk_todo.num_rows else ()):
            register(conn, "_staged", vector_table(part.column("corpus_id").to_pylist(), vecs,
                                                   ordinal=part.column("ordinal")))
            conn.execute("DELETE FROM chunk_vectors v WHERE EXISTS (SELECT 1 FROM _staged s "
                         "WHERE s.corpus_id = v.corpus_id AND s.ordinal = v.ordinal)")
            conn.execute("INSERT INTO chunk_vectors BY NAME SELECT * FROM _staged")
            unregister(conn, "_staged")
        (directory / INDEX_DIR).mkdir(parents=True, exist_ok=True)
        if work.dense:
            for name in (INDEX_FILE, IDS_FILE):
                os.replace(staging / FAISS_STAGED / name, directory / INDEX_DIR / name)
        if (staging / PHRASES_FILE).is_file():
            os.replace(staging / PHRASES_FILE, directory / INDEX_DIR / PHRASES_FILE)
        set_meta(conn, "faiss", faiss_meta)
        set_meta(conn, "chunk_vectors_mode", work.chunk_mode)
        set_meta(conn, STAGE_KEY, "complete")
        set_meta(conn, "counts", content_counts(conn))
        conn.execute("COMMIT")

    try:
        _timed(timings, "publish", publish)
    except BaseException:
        with contextlib.suppress(Exception):  # nothing begun, or a connection the failure invalidated
            conn.execute("ROLLBACK")
        raise
    return timings


def _build_bm25(directory: Path, conn, progress: bool) -> None:
    order = "FROM papers p LEFT JOIN abstracts a USING (corpus_id) ORDER BY p.corpus_id"
    ids = [r[0] for r in conn.execute("SELECT p.corpus_id " + order).fetchall()]
    if not ids:
        return

    def texts():  # streamed in batches: the titles+abstracts are never all in memory
        conn.complete()
        reader = conn.sql("SELECT coalesce(p.title, '') || ' ' || coalesce(a.abstract, '') " + order).to_arrow_reader(
            10_000)
        for batch in reader:
            yield from batch.column(0).to_pylist()

    build_bm25(directory / INDEX_DIR, ids, texts(), show_progress=progress)
    set_meta(conn, "bm25", {"n": len(ids), "dir": BM25_DIR})


def _build_phrases(staging: Path, conn) -> None:
    """Word and collocation statistics for intent analysis (:mod:`corpus.phrases`), over the same
    texts as BM25 — past ``PHRASE_SAMPLE`` papers over an even sample (every k-th by id: the n-gram
    counters grow with the corpus) — written to ``embed/phrases.json.gz`` (publish moves it into
    ``index/``)."""
    conn.complete()
    n = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    step = max(1, -(-n // PHRASE_SAMPLE))
    rows = conn.execute(f"""
        SELECT text FROM (
            SELECT coalesce(p.title, '') || ' ' || coalesce(a.abstract, '') AS text,
                   row_number() OVER (ORDER BY p.corpus_id) - 1 AS rn
            FROM papers p LEFT JOIN abstracts a USING (corpus_id))
        WHERE rn % {step} = 0 ORDER BY rn""").fetchall()
    save_phrases(staging, build_phrase_table(r[0] for r in rows))
