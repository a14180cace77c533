"""DuckDB schema of a corpus directory (``DIR/corpus.duckdb``) and the files beside it.

Tables (tier 1: papers, external_ids, citations, refs; tier 2: abstracts, vectors;
tier 3: paragraphs, chunks, chunk_vectors) plus rejects, manifest and meta.
``papers.chunked`` is False until finalize has chunked the paper's current text.
"""

from __future__ import annotations

from pathlib import Path

SCHEMA_VERSION = 1
DB_NAME = "corpus.duckdb"
LOCK_NAME = ".lock"
INDEX_DIR = "index"
CHUNK_CACHE_DIR = "chunk_cache"
EMBED_DIR = "embed"
"""Staging folder of the dense build phase (vector shards, the FAISS index before it is published)."""
EMBED_TEXT_SQL = "coalesce(p.title, '') || CASE WHEN a.abstract IS NULL THEN '' ELSE chr(10) || a.abstract END"
"""The text embedded for a paper (``papers p`` joined with ``abstracts a``): title, newline,
abstract. Its md5 is the stored ``vectors.text_hash``."""
STAGE_FILE = ".build-stage"
"""What a running build is doing (``writing``, ``embedding``, ``publishing``): read by readers that find the database locked."""
STAGING_DIR = "staging"
"""Per-shard results of a distributed build (``ingest.ray_build``) until they are merged."""

AUTHOR_TYPE = "STRUCT(name VARCHAR, author_id VARCHAR)[]"

DDL = f"""
CREATE TABLE IF NOT EXISTS meta (key VARCHAR, value VARCHAR);
CREATE TABLE IF NOT EXISTS papers (
    corpus_id VARCHAR NOT NULL, title VARCHAR, norm_title VARCHAR, authors {AUTHOR_TYPE},
    year INTEGER, publication_date DATE, venue VARCHAR, venue_raw VARCHAR,
    publication_types VARCHAR[], fields_of_study VARCHAR[], external_ids MAP(VARCHAR, VARCHAR),
    citation_count INTEGER, reference_count INTEGER, is_open_access BOOLEAN,
    source_file VARCHAR, source_line INTEGER, chunked BOOLEAN);
CREATE TABLE IF NOT EXISTS external_ids (corpus_id VARCHAR, kind VARCHAR, value VARCHAR);
CREATE TABLE IF NOT EXISTS abstracts (corpus_id VARCHAR, abstract VARCHAR);
CREATE TABLE IF NOT EXISTS paragraphs (
    corpus_id VARCHAR, idx INTEGER, section VARCHAR, char_start INTEGER, char_end INTEGER, text VARCHAR);
CREATE TABLE IF NOT EXISTS chunks (
    corpus_id VARCHAR, ordinal INTEGER, section VARCHAR, paragraph INTEGER,
    char_start INTEGER, char_end INTEGER, text VARCHAR);
CREATE TABLE IF NOT EXISTS chunk_vectors (corpus_id VARCHAR, ordinal INTEGER, vec FLOAT[]);
CREATE TABLE IF NOT EXISTS vectors (corpus_id VARCHAR, text_hash VARCHAR, vec FLOAT[]);
CREATE TABLE IF NOT EXISTS citations (
    citing_id VARCHAR, cited_id VARCHAR, contexts VARCHAR[], intents VARCHAR[], method VARCHAR,
    origin VARCHAR);
CREATE TABLE IF NOT EXISTS refs (
    citing_id VARCHAR, ordinal INTEGER, title VARCHAR, norm_title VARCHAR, year INTEGER,
    authors VARCHAR[], contexts VARCHAR[]);
CREATE TABLE IF NOT EXISTS rejects (source_key VARCHAR, source_file VARCHAR, line INTEGER, reason VARCHAR);
CREATE TABLE IF NOT EXISTS manifest (
    source_key VARCHAR, size BIGINT, sha256 VARCHAR, ingested_at TIMESTAMP,
    documents BIGINT, citations BIGINT, rejects BIGINT);
"""

# No ART indexes: maintaining them made bulk commits several times slower, and DuckDB 2.0 did not
# use them for `corpus_id = ?` lookups anyway. Batch reads join against a registered id table.

# Tables whose rows belong to one paper (deleted when a newer record of that paper arrives).
PER_PAPER_TABLES = ("papers", "external_ids", "abstracts", "paragraphs", "chunks", "chunk_vectors", "refs")


def db_path(directory: Path) -> Path:
    """``DIR/corpus.duckdb``."""
    return directory / DB_NAME
