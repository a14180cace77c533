"""Opening a corpus database and reading/writing its ``meta`` table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from litnav.corpus.errors import CorpusError
from litnav.corpus.schema import DDL, SCHEMA_VERSION, db_path


def connect(directory: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Connection to ``DIR/corpus.duckdb``; creates the schema when writable.

    Raises :class:`CorpusError` naming the path when it is not a corpus (read-only), when its
    schema version differs, or when DuckDB cannot open it.
    """
    path = db_path(directory)
    if read_only and not path.is_file():
        raise CorpusError(f"{directory} is not a corpus directory (no {path.name} in it)")
    if path.is_file() and path.stat().st_size == 0:
        # a first build that failed before DuckDB wrote its header (e.g. at 0 bytes free): it holds nothing
        if read_only:
            raise CorpusError(f"{path} is empty (a first build that failed before writing anything); "
                              f"rerun the build (`litnav build SOURCE --corpus {directory}`)")
        path.unlink()
        path.with_name(path.name + ".wal").unlink(missing_ok=True)
    try:
        conn = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as e:
        if "lock" in str(e).lower():
            raise CorpusError(f"corpus {directory} is in use by another process (a build writing it, or a "
                              "reader while you build); wait for it to finish and try again") from e
        from litnav.corpus.storage import StorageError, storage_message

        if path.is_file() and path.stat().st_size == 0 and not read_only:
            path.unlink()  # nothing was written: leave nothing that blocks the next build
        message = storage_message(e, directory)
        if message:
            raise StorageError(message) from e
        raise CorpusError(f"cannot open corpus database {path}: {e}") from e
    if not read_only:
        conn.execute(DDL)
        if get_meta(conn, "schema_version") is None:
            set_meta(conn, "schema_version", SCHEMA_VERSION)
    version = get_meta(conn, "schema_version") if _has_meta(conn) else None
    if version != SCHEMA_VERSION:
        conn.close()
        raise CorpusError(
            f"{directory}: corpus schema version {version!r}, this litnav reads version {SCHEMA_VERSION}; "
            "rebuild the corpus into a new directory")
    return conn


def _has_meta(conn: duckdb.DuckDBPyConnection) -> bool:
    return bool(conn.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'meta'").fetchone()[0])


def get_meta(conn: duckdb.DuckDBPyConnection, key: str, default: Any = None) -> Any:
    """JSON-decoded value of ``meta[key]`` or ``default``."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
    return default if row is None else json.loads(row[0])


def set_meta(conn: duckdb.DuckDBPyConnection, key: str, value: Any) -> None:
    """Store ``value`` (JSON-encodable) as ``meta[key]``."""
    conn.execute("DELETE FROM meta WHERE key = ?", [key])
    conn.execute("INSERT INTO meta VALUES (?, ?)", [key, json.dumps(value, sort_keys=True)])


def register(conn: duckdb.DuckDBPyConnection, name: str, table: Any) -> None:
    """Register an arrow table as view ``name`` (finishing any pending result first)."""
    conn.complete()
    conn.register(name, table)


def unregister(conn: duckdb.DuckDBPyConnection, name: str) -> None:
    """Drop the view ``name`` made by :func:`register`."""
    conn.complete()
    conn.unregister(name)


COUNT_KEYS = ("papers", "abstracts", "full_texts", "chunks", "citations", "rejects", "unresolved_refs", "vectors")
"""The content counts of :func:`content_counts` (``Corpus.stats``)."""


def content_counts(conn) -> dict[str, int]:
    """Exact counts over the tables (full scans, DISTINCT included): finalize stores them in meta
    ``counts`` so that opening a finished corpus reads them instead of scanning."""
    row = conn.execute("""SELECT
        (SELECT count(*) FROM papers), (SELECT count(*) FROM abstracts),
        (SELECT count(DISTINCT corpus_id) FROM paragraphs), (SELECT count(*) FROM chunks),
        (SELECT count(*) FROM (SELECT DISTINCT citing_id, cited_id FROM citations)),
        (SELECT count(*) FROM rejects WHERE NOT starts_with(reason, 'duplicate id ')
                                      AND NOT starts_with(reason, 'id collision ')),
        (SELECT count(*) FROM refs), (SELECT count(*) FROM vectors)""").fetchone()
    return dict(zip(COUNT_KEYS, (int(v) for v in row)))
