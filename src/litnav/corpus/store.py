"""Opening a corpus database and reading/writing its ``meta`` table."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import duckdb

from litnav.corpus.errors import CorpusBusyError, CorpusError
from litnav.corpus.schema import DDL, SCHEMA_VERSION, STAGE_FILE, db_path


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
    deadline = time.monotonic() + READER_WAIT_S
    while True:
        try:
            conn = duckdb.connect(str(path), read_only=read_only)
            conn.execute("SET enable_progress_bar = false")  # DuckDB's own bar, e.g. on the BM25 scan, in logs
            break
        except duckdb.Error as e:
            if "lock" not in str(e).lower():
                _raise_open_error(e, directory, path, read_only)
            stage = build_stage_file(directory) if read_only else None
            if stage == "publishing" and time.monotonic() < deadline:
                time.sleep(0.25)  # a build moves its vectors in for a few seconds: wait for it
                continue
            raise CorpusBusyError(_busy_message(directory, read_only, stage)) from e
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


def limit_memory(conn: duckdb.DuckDBPyConnection, limit: str) -> None:
    """Cap DuckDB's memory for ``conn`` at ``limit`` (``corpus.duckdb_memory_limit``, e.g. ``"2GB"``;
    validated by the settings). Past it DuckDB spills to its temporary directory beside the
    database. Raises ``duckdb.Error`` for a value DuckDB does not parse."""
    conn.execute(f"SET memory_limit = '{limit}'")


READER_WAIT_S = 30.0
"""How long a read-only open waits while a build publishes its abstract vectors (seconds)."""


def _busy_message(directory: Path, read_only: bool, stage: str | None) -> str:
    if not read_only:
        return (f"corpus {directory} is open in another process (a search or `litnav serve` reading it, or a "
                "build writing it); close it, or wait, and try again")
    if stage == "publishing":
        return (f"corpus {directory} is locked by a build moving its abstract vectors in (for more than "
                f"{READER_WAIT_S:.0f} s); try again in a moment")
    if stage == "writing":
        return (f"corpus {directory} is being written by a build (ingesting its sources and building the BM25 "
                "index); it becomes searchable with BM25 as soon as that is done, while the build embeds the "
                "abstracts: try again in a moment")
    return (f"corpus {directory} is in use by another process (a build writing it, or a reader while you "
            "build); wait for it to finish and try again")


def build_stage_file(directory: Path) -> str | None:
    """What a running build of ``directory`` says it is doing (``DIR/.build-stage``: ``writing``,
    ``embedding`` or ``publishing``), or None when no build runs (no file, or its process is gone)."""
    try:
        doc = json.loads((directory / STAGE_FILE).read_text())
        os.kill(int(doc["pid"]), 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return str(doc.get("stage"))


def write_build_stage_file(directory: Path, stage: str | None) -> None:
    """Record (``stage`` None: remove) what this process's build of ``directory`` is doing."""
    from litnav.core.io import write_json

    if stage is None:
        (directory / STAGE_FILE).unlink(missing_ok=True)
    else:
        write_json(directory / STAGE_FILE, {"stage": stage, "pid": os.getpid()})


def _raise_open_error(e: Exception, directory: Path, path: Path, read_only: bool) -> None:
    from litnav.corpus.storage import StorageError, storage_message

    if path.is_file() and path.stat().st_size == 0 and not read_only:
        path.unlink()  # nothing was written: leave nothing that blocks the next build
    message = storage_message(e, directory)
    if message:
        raise StorageError(message) from e
    raise CorpusError(f"cannot open corpus database {path}: {e}") from e


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


STAGE_KEY = "build_stage"
"""meta key: ``"lexical"`` while the abstract vectors and FAISS lag the content (BM25 is current),
``"complete"`` after the dense phase (absent in corpora finalised before build stages existed)."""

def build_stage(conn: duckdb.DuckDBPyConnection) -> str:
    """The corpus's stage: ``"ingest"`` (content written since the indexes were built: not
    searchable), ``"lexical"`` (BM25 current, abstract vectors not yet) or ``"complete"``."""
    if get_meta(conn, "indexes_dirty", True):
        return "ingest"
    return get_meta(conn, STAGE_KEY) or "complete"


UNRESOLVED_SQL = """SELECT r.title, r.year, r.authors, r.contexts FROM refs r
WHERE NOT EXISTS (SELECT 1 FROM citations c JOIN papers p ON p.corpus_id = c.cited_id
                  WHERE c.citing_id = r.citing_id AND c.origin = 'title' AND p.norm_title = r.norm_title)"""
"""Bibliography entries that matched no corpus paper: ``refs`` rows without a title-resolved edge
(``corpus.build._resolve``) to a paper of their normalised title."""

COUNT_KEYS = ("papers", "abstracts", "full_texts", "chunks", "citations", "corpus_citations", "citing_sentences",
              "rejects", "unresolved_refs", "vectors")
"""The content counts of :func:`content_counts` (``Corpus.stats``): ``citations`` counts every
citation edge a source gave (to any paper id), ``corpus_citations`` those between two corpus
papers (what citation expansion can follow), ``citing_sentences`` those of them with a citing
sentence."""


def content_counts(conn) -> dict[str, int]:
    """Exact counts over the tables (full scans, DISTINCT included): finalize stores them in meta
    ``counts`` so that opening a finished corpus reads them instead of scanning."""
    row = conn.execute(f"""SELECT
        (SELECT count(*) FROM papers), (SELECT count(*) FROM abstracts),
        (SELECT count(DISTINCT corpus_id) FROM paragraphs), (SELECT count(*) FROM chunks),
        (SELECT count(*) FROM (SELECT DISTINCT citing_id, cited_id FROM citations)),
        (SELECT count(*) FROM (SELECT DISTINCT c.citing_id, c.cited_id FROM citations c
                               SEMI JOIN papers a ON a.corpus_id = c.citing_id SEMI JOIN papers b ON b.corpus_id = c.cited_id)),
        (SELECT count(*) FROM (SELECT DISTINCT c.citing_id, c.cited_id FROM citations c
                               SEMI JOIN papers a ON a.corpus_id = c.citing_id SEMI JOIN papers b ON b.corpus_id = c.cited_id
                               WHERE len(list_filter(coalesce(c.contexts, []), lambda x: trim(x) <> '')) > 0)),
        (SELECT count(*) FROM rejects WHERE NOT starts_with(reason, 'duplicate id ')
                                      AND NOT starts_with(reason, 'id collision ')),
        (SELECT count(*) FROM ({UNRESOLVED_SQL})), (SELECT count(*) FROM vectors)""").fetchone()
    return dict(zip(COUNT_KEYS, (int(v) for v in row)))
