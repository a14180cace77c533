"""Chunks and vectors derived from documents away from the corpus, and their checked merge.

A distributed build (``ingest.ray_build``) parses, chunks and embeds each input shard on a worker,
before the shard's documents reach the corpus. What a worker derives is what finalize would make
from the same documents: :func:`derive_chunks` runs the same row conversion
(``rows.document_tables``), chunker (``corpus.build.chunk_table``) and embedded text
(``corpus.schema.EMBED_TEXT_SQL``) on an in-memory DuckDB holding only that shard's rows.

:func:`merge_derived` stores a shard's derived rows inside the shard's source transaction, but only
where they still describe the stored paper: chunks when the stored abstract and paragraphs hash to
the hash the worker chunked (``content_hash``) and the corpus's chunking signature is the worker's;
abstract vectors when the stored title + abstract has the worker's ``text_hash`` and the corpus's
model identity is the worker's. Anything else (a paper merged with a copy from another shard, a
corpus whose settings changed) is left to finalize, which re-makes exactly what is missing. So a
merged corpus equals one built by finalize alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import pyarrow as pa

from litnav.corpus import rows
from litnav.corpus.build import chunk_table
from litnav.corpus.chunking import Chunker
from litnav.corpus.records import Document
from litnav.corpus.schema import EMBED_TEXT_SQL
from litnav.corpus.store import get_meta, register, set_meta, unregister

CONTENT_HASH_SQL = """
WITH body AS (
    SELECT corpus_id, string_agg(coalesce(section, '') || chr(2) || text, chr(3) ORDER BY idx) AS b
    FROM paragraphs WHERE corpus_id IN (SELECT corpus_id FROM {ids}) GROUP BY corpus_id)
SELECT i.corpus_id, md5(coalesce(a.abstract, chr(0)) || chr(1) || coalesce(body.b, '')) AS content_hash
FROM {ids} i LEFT JOIN abstracts a USING (corpus_id) LEFT JOIN body USING (corpus_id)
"""
"""Per paper of the id view ``{ids}``: md5 over the stored abstract and body paragraphs (what chunks are made of)."""

HASH_SCHEMA = pa.schema([("corpus_id", pa.string()), ("content_hash", pa.string())])
TEXT_SCHEMA = pa.schema([("corpus_id", pa.string()), ("text", pa.string()), ("text_hash", pa.string())])


def derive_chunks(docs: Sequence[Document], chunker: Chunker) -> dict[str, pa.Table]:
    """What finalize would derive from ``docs`` (one record per corpus id) before embedding:
    ``chunks`` (the chunks table's rows), ``hashes`` (``corpus_id, content_hash`` for every doc)
    and ``texts`` (``corpus_id, text, text_hash``: the text an abstract vector embeds).
    Raises ``ValueError`` when a corpus id occurs twice."""
    ids = [d.paper.corpus_id for d in docs]
    if len(set(ids)) != len(ids):
        raise ValueError("derive_chunks needs one record per corpus id; merge duplicates first")
    tables = rows.document_tables(list(docs))
    conn = duckdb.connect()
    try:
        for name in ("papers", "abstracts", "paragraphs"):
            conn.register(name, tables[name])
        conn.register("_ids", pa.table({"corpus_id": pa.array(ids, pa.string())}))
        hashes = conn.sql(CONTENT_HASH_SQL.format(ids="_ids") + " ORDER BY i.corpus_id").to_arrow_table()
        texts = conn.sql(f"""SELECT p.corpus_id, {EMBED_TEXT_SQL} AS text, md5({EMBED_TEXT_SQL}) AS text_hash
            FROM papers p LEFT JOIN abstracts a USING (corpus_id) ORDER BY p.corpus_id""").to_arrow_table()
        abstracts = dict(conn.execute("SELECT corpus_id, abstract FROM abstracts").fetchall())
        body: dict[str, list[tuple[str, str]]] = {}
        for cid, section, text in conn.execute(
                "SELECT corpus_id, section, text FROM paragraphs ORDER BY corpus_id, idx").fetchall():
            body.setdefault(cid, []).append((section, text))
    finally:
        conn.close()
    chunks = chunk_table(chunker, [(c, abstracts.get(c), body.get(c, [])) for c in sorted(ids)])
    return {"chunks": chunks, "hashes": hashes.cast(HASH_SCHEMA), "texts": texts.cast(TEXT_SCHEMA)}


def merge_derived(conn: duckdb.DuckDBPyConnection, derived: dict[str, pa.Table], model: dict[str, Any],
                  chunking: dict[str, Any]) -> dict[str, int]:
    """Store a shard's derived rows where they still describe the stored papers (see the module
    docstring). ``derived`` maps ``chunks``, ``hashes``, ``vectors`` and ``chunk_vectors`` (each
    optional) to Arrow tables or datasets (scanned by DuckDB, not loaded); ``model`` and
    ``chunking`` are the identity and chunking signature they were made with. Runs inside the
    caller's transaction. Returns ``{"chunked_papers", "vectors"}`` stored."""
    stored_chunking = get_meta(conn, "chunking")
    if stored_chunking is None:  # no chunk was made yet: finalize adopts the same signature
        set_meta(conn, "chunking", chunking)
        stored_chunking = chunking
    stored_model = get_meta(conn, "model")
    if stored_model is None:
        set_meta(conn, "model", model)
        stored_model = model
    done = {"chunked_papers": 0, "vectors": 0}
    hashes = derived.get("hashes")
    if stored_chunking == chunking and hashes is not None:
        register(conn, "_h", hashes)
        try:
            conn.execute(f"""CREATE OR REPLACE TEMP TABLE _ok AS
                SELECT h.corpus_id FROM _h h JOIN ({CONTENT_HASH_SQL.format(ids='_h')}) s USING (corpus_id)
                JOIN papers p USING (corpus_id) WHERE s.content_hash = h.content_hash AND NOT p.chunked""")
        finally:
            unregister(conn, "_h")
        done["chunked_papers"] = conn.execute("SELECT count(*) FROM _ok").fetchone()[0]
        conn.execute("DELETE FROM chunks WHERE corpus_id IN (SELECT corpus_id FROM _ok)")
        conn.execute("DELETE FROM chunk_vectors WHERE corpus_id IN (SELECT corpus_id FROM _ok)")
        for table in ("chunks", "chunk_vectors"):
            if derived.get(table) is not None:
                register(conn, "_staged", derived[table])
                try:
                    conn.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _staged "
                                 "WHERE corpus_id IN (SELECT corpus_id FROM _ok)")
                finally:
                    unregister(conn, "_staged")
        conn.execute("UPDATE papers SET chunked = true WHERE corpus_id IN (SELECT corpus_id FROM _ok)")
        conn.execute("DROP TABLE _ok")
    vectors = derived.get("vectors")
    if stored_model == model and vectors is not None:
        register(conn, "_staged", vectors)
        try:
            conn.execute(f"""CREATE OR REPLACE TEMP TABLE _ok AS
                SELECT v.corpus_id FROM _staged v JOIN papers p USING (corpus_id) LEFT JOIN abstracts a USING (corpus_id)
                WHERE v.text_hash = md5({EMBED_TEXT_SQL})""")
            done["vectors"] = conn.execute("SELECT count(*) FROM _ok").fetchone()[0]
            conn.execute("DELETE FROM vectors WHERE corpus_id IN (SELECT corpus_id FROM _ok)")
            conn.execute("INSERT INTO vectors BY NAME SELECT * FROM _staged WHERE corpus_id IN (SELECT corpus_id FROM _ok)")
            conn.execute("DROP TABLE _ok")
        finally:
            unregister(conn, "_staged")
    return done
