"""CorpusWriter: the single writer of a corpus directory (ingest uses it; nothing else writes).

Each input file is written in one DuckDB transaction (:meth:`CorpusWriter.source`) that also
records the file in the manifest at commit, so a build killed mid-file redoes that file on rerun
and a finished file is skipped (:meth:`CorpusWriter.is_ingested`).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

from litnav.core.settings import CorpusSettings
from litnav.corpus import rows
from litnav.corpus.errors import CorpusError
from litnav.corpus.lock import acquire_writer_lock
from litnav.corpus.records import Citation, Document, Reject
from litnav.corpus.schema import PER_PAPER_TABLES
from litnav.corpus.store import (
    connect,
    get_meta,
    limit_memory,
    register,
    set_meta,
    unregister,
    write_build_stage_file,
)

DUPLICATE_REASON = "duplicate id"
"""Start of the rejects-table reason recorded for a merged duplicate (it is not a rejected record)."""


COLLISION_REASON = "id collision"
"""Start of the rejects-table reason recorded for an external id two papers share."""

PUBLISH_WAIT_S = 600.0
"""How long a build waits, after embedding, for readers to close the corpus so that it can move
the vectors in (seconds); past it the build stops with the vectors kept for the next run."""


def _empty(value: Any) -> bool:
    return value is None or value == [] or value == {} or (isinstance(value, str) and not value.strip())


def merge_documents(old: Document, new: Document) -> Document:
    """Two copies of one paper merged field by field: each metadata field, the abstract, the body
    paragraphs and the references come from ``new`` when it has them (not None/empty) and from
    ``old`` otherwise; external ids are united (``new`` wins per kind); provenance is ``new``'s."""
    fields = {}
    for name in type(new.paper).model_fields:
        value = getattr(new.paper, name)
        fields[name] = getattr(old.paper, name) if _empty(value) and name not in ("source_file", "source_line") \
            else value
    fields["external_ids"] = {**old.paper.external_ids, **new.paper.external_ids}
    return Document.model_construct(
        paper=type(new.paper).model_construct(**fields),
        abstract=new.abstract if not _empty(new.abstract) else old.abstract,
        paragraphs=new.paragraphs or old.paragraphs,
        references=new.references or old.references)


_DUPLICATE_AT = re.compile(re.escape(DUPLICATE_REASON) + r" (?P<id>.*): also at (?P<other>.*):\d+; the copies were merged")


def _duplicate(old: Document, new: Document) -> Reject:
    """The rejects-table row reporting a duplicate id with both locations."""
    p, q = old.paper, new.paper
    return Reject(source_file=q.source_file or "", line=q.source_line or 0,
                  reason=f"{DUPLICATE_REASON} {q.corpus_id}: also at {p.source_file}:{p.source_line}; "
                         "the copies were merged field by field (this later copy wins where it has a value)")


def _delete_papers(conn: duckdb.DuckDBPyConnection, view: str, also: tuple[str, ...] = ()) -> None:
    """Delete the per-paper rows (``PER_PAPER_TABLES`` plus ``also``) and the document-linked or
    title-resolved outgoing citations of the papers in the registered id table ``view``; edges
    from citation dumps stay."""
    for table in PER_PAPER_TABLES + also:
        col = "citing_id" if table == "refs" else "corpus_id"
        conn.execute(f"DELETE FROM {table} WHERE {col} IN (SELECT corpus_id FROM {view})")
    conn.execute(f"DELETE FROM citations WHERE origin <> 'dump' AND citing_id IN (SELECT corpus_id FROM {view})")


def _stored_documents(conn: duckdb.DuckDBPyConnection) -> dict[str, Document]:
    """The stored record of every paper in the registered id table ``_ids``, as Documents."""
    from litnav.corpus.records import BibReference, Paragraph

    where = "IN (SELECT corpus_id FROM _ids)"
    papers = {r[0]: rows.paper_from_row(r) for r in conn.execute(
        f"SELECT {rows.PAPER_SELECT} FROM papers WHERE corpus_id {where}").fetchall()}
    abstracts = dict(conn.execute(f"SELECT corpus_id, abstract FROM abstracts WHERE corpus_id {where}").fetchall())
    paras: dict[str, list[Paragraph]] = {}
    for cid, section, text in conn.execute(
            f"SELECT corpus_id, section, text FROM paragraphs WHERE corpus_id {where} ORDER BY corpus_id, idx").fetchall():
        paras.setdefault(cid, []).append(Paragraph.model_construct(section=section, text=text))
    refs: dict[str, list[BibReference]] = {}
    for cid, cited, contexts in conn.execute(
            f"SELECT citing_id, cited_id, contexts FROM citations WHERE origin = 'doc' AND citing_id {where} "
            "ORDER BY citing_id, cited_id").fetchall():
        refs.setdefault(cid, []).append(BibReference.model_construct(
            cited_id=cited, title=None, year=None, authors=[], contexts=list(contexts or [])))
    for cid, title, year, authors, contexts in conn.execute(
            f"SELECT citing_id, title, year, authors, contexts FROM refs WHERE citing_id {where} "
            "ORDER BY citing_id, ordinal").fetchall():
        refs.setdefault(cid, []).append(BibReference.model_construct(
            cited_id=None, title=title, year=year, authors=list(authors or []), contexts=list(contexts or [])))
    return {cid: Document.model_construct(paper=p, abstract=abstracts.get(cid), paragraphs=paras.get(cid, []),
                                          references=refs.get(cid, [])) for cid, p in papers.items()}


class KeyHashes:
    """DuckDB ``hash`` values of the keys a table may hold, to skip the scans that look a batch's
    keys up in the table (they grow with the corpus).

    A superset of the stored keys: read from the table once (one vectorised query), then the keys
    of every batch written are added (keys of rows rolled back or deleted later stay), so "no hash
    found" proves that none of a batch's keys is stored and the exact query would find nothing; a
    hit, or a hash clash, only means the query runs. Sorted uint64 array (8 bytes a key) plus a
    set of the hashes added since the last merge.
    """

    def __init__(self, conn: duckdb.DuckDBPyConnection, table: str, columns: str) -> None:
        self._key = f"hash({columns})"
        self._sorted = np.sort(self._hashes(conn, table))
        self._recent: set[int] = set()

    def _hashes(self, conn: duckdb.DuckDBPyConnection, relation: str) -> np.ndarray:
        conn.complete()
        return np.asarray(conn.sql(f"SELECT {self._key} AS h FROM {relation}").fetchnumpy()["h"], np.uint64)

    def check_and_add(self, conn: duckdb.DuckDBPyConnection, view: str) -> tuple[bool, bool]:
        """For the keys of the registered ``view`` (same column names as the table): whether one
        may be stored, and whether one is there twice; then records them as stored."""
        h = self._hashes(conn, view)
        listed = h.tolist()
        twice = len(set(listed)) < len(listed)
        maybe = not self._recent.isdisjoint(listed)
        if not maybe and len(self._sorted) and len(h):
            at = np.minimum(np.searchsorted(self._sorted, h), len(self._sorted) - 1)
            maybe = bool((self._sorted[at] == h).any())
        self._recent.update(listed)
        if len(self._recent) > max(65_536, len(self._sorted) // 8):
            self._sorted = np.union1d(self._sorted, np.fromiter(self._recent, np.uint64, len(self._recent)))
            self._recent.clear()
        return maybe, twice


class SourceTransaction:
    """Writes of one input file; valid only inside its ``with w.source(...)`` block."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, source_key: str,
                 stored: dict[str, KeyHashes] | None = None):
        self._conn = conn
        self.source_key = source_key
        self._stored = stored
        """``"ids"``/``"external_ids"``: hashes of the stored corpus ids / (kind, value) pairs
        (:class:`KeyHashes`, shared by the writer's transactions); None: always query."""
        self.counts = {"documents": 0, "citations": 0, "rejects": 0, "duplicates": 0, "id_collisions": 0}
        self.incomplete: str | None = None
        """Set by the caller when the input was damaged part-way: why (recorded in the manifest)."""
        self.joined: list[str] = []
        """Set by the caller: the content files (abstracts, full texts) joined into this input's papers
        (recorded, :meth:`CorpusWriter.joined_sources`)."""
        self._open = True
        self._staged_citations = 0
        """Rows in the temporary ``_dump_citations`` table, stored by :meth:`_finish` (see :meth:`add_citations`)."""

    def _check(self) -> None:
        if not self._open:
            raise CorpusError(f"source transaction for {self.source_key!r} is closed")

    def _insert(self, table: str, data: pa.Table) -> None:
        if data.num_rows:
            register(self._conn, "_staged", data)
            try:
                self._conn.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _staged")
            finally:
                unregister(self._conn, "_staged")

    def add_documents(self, docs: Sequence[Document]) -> None:
        """Upsert documents. A record for a corpus_id already stored (or met earlier in ``docs``)
        is a duplicate: the two copies merge field by field (:func:`merge_documents`: the later
        copy wins where it has a value and never erases a field it lacks), and a row in the
        rejects table names both locations (counted in ``counts["duplicates"]``, not as a reject).

        The stored rows of a merged paper are replaced by the merged record: chunks, chunk vectors
        and title-resolved citations are re-made at finalize, and so is its abstract vector when
        the title/abstract text changed. Edges from citation dumps are kept.
        """
        self._check()
        if not docs:
            return
        latest: dict[str, Document] = {}
        dupes: list[Reject] = []
        for d in docs:
            cid = d.paper.corpus_id
            if cid in latest:
                dupes.append(_duplicate(latest[cid], d))
                d = merge_documents(latest[cid], d)
            latest[cid] = d
        ids = pa.table({"corpus_id": pa.array(list(latest), pa.string())})
        register(self._conn, "_ids", ids)
        try:
            maybe = self._stored is None or self._stored["ids"].check_and_add(self._conn, "_ids")[0]
            existing = maybe and self._conn.execute(
                "SELECT count(*) FROM papers WHERE corpus_id IN (SELECT corpus_id FROM _ids)").fetchone()[0]
            if existing:
                for old in _stored_documents(self._conn).values():
                    new = latest[old.paper.corpus_id]
                    dupes.append(_duplicate(old, new))
                    latest[old.paper.corpus_id] = merge_documents(old, new)
                _delete_papers(self._conn, "_ids")
        finally:
            unregister(self._conn, "_ids")
        tables = rows.document_tables(list(latest.values()))
        dupes += self._id_collisions(tables["external_ids"], latest)
        for name, data in tables.items():
            self._insert(name, data)
        self.counts["documents"] += len(latest)
        if dupes:
            self._insert("rejects", rows.reject_table(self.source_key, dupes))
            self.counts["duplicates"] += sum(r.reason.startswith(DUPLICATE_REASON) for r in dupes)
            self.counts["id_collisions"] += sum(r.reason.startswith(COLLISION_REASON) for r in dupes)

    def _id_collisions(self, ext: pa.Table, docs: dict[str, Document]) -> list[Reject]:
        """Rows for the rejects table naming each (normalised) external id of the new ``docs`` that
        another paper, stored or in the same batch, already has: two records of one paper under
        two corpus ids. Both are kept (they may be distinct records a source mislabelled)."""
        if not ext.num_rows:
            return []
        register(self._conn, "_ext", ext)
        try:
            if self._stored is not None and not any(self._stored["external_ids"].check_and_add(self._conn, "_ext")):
                return []  # no key stored before and none twice in the batch: the query finds nothing
            hits = self._conn.execute("""
                SELECT n.corpus_id, n.kind, n.value, o.corpus_id, p.source_file, p.source_line
                FROM _ext n JOIN external_ids o ON o.kind = n.kind AND o.value = n.value AND o.corpus_id <> n.corpus_id
                LEFT JOIN papers p ON p.corpus_id = o.corpus_id
                UNION ALL
                SELECT n.corpus_id, n.kind, n.value, o.corpus_id, NULL, NULL
                FROM _ext n JOIN _ext o ON o.kind = n.kind AND o.value = n.value AND o.corpus_id < n.corpus_id
                ORDER BY 1, 2""").fetchall()
        finally:
            unregister(self._conn, "_ext")
        out = []
        for cid, kind, value, other, file, line in hits:
            q = docs[cid].paper
            if file is None and other in docs:
                file, line = docs[other].paper.source_file, docs[other].paper.source_line
            out.append(Reject(source_file=q.source_file or "", line=q.source_line or 0,
                              reason=f"{COLLISION_REASON} {kind}:{value} of {cid} is also the id of {other} "
                                     f"({file}:{line}); both records are kept"))
        return out

    def has_foreign_rejects(self, source_file: str) -> bool:
        """True when other inputs recorded rejects for lines of ``source_file``: the only rows
        :meth:`drop_rejects` can drop, so a caller can skip collecting the lines when there are none."""
        self._check()
        return self._conn.execute("SELECT count(*) FROM rejects WHERE source_file = ? AND source_key <> ?",
                                  [source_file, self.source_key]).fetchone()[0] > 0

    def drop_rejects(self, source_file: str, lines: Sequence[int]) -> int:
        """Forget rejects that other inputs recorded for these lines of ``source_file`` (e.g. content
        rows rejected for lack of metadata, now joined into this input's documents); the manifest's
        reject counts follow. Returns the number dropped."""
        self._check()
        if not lines:
            return 0
        register(self._conn, "_lines", pa.table({"line": pa.array(list(lines), pa.int32())}))
        try:
            n = self._conn.execute(
                "DELETE FROM rejects WHERE source_file = ? AND source_key <> ? AND line IN (SELECT line FROM _lines)",
                [source_file, self.source_key]).fetchone()[0]
        finally:
            unregister(self._conn, "_lines")
        if n:
            self._conn.execute("UPDATE manifest SET rejects = (SELECT count(*) FROM rejects r "
                               "WHERE r.source_key = manifest.source_key)")
        return int(n)

    def add_citations(self, citations: Sequence[Citation]) -> None:
        """Add edges from a citations dump; an edge for an existing (citing, cited) dump pair replaces it.

        The edges are staged in a temporary table and stored when the transaction commits
        (:meth:`_finish`): replacing stored pairs costs one pass over the ``citations`` table per
        input file instead of one per batch (that pass grows with the corpus). The result is the
        same as storing each batch at once: per pair, the last edge given wins, in the position of
        that last edge.
        """
        self._check()
        if not citations:
            return
        data = rows.dump_citation_table(citations)
        seq = pa.array(range(self._staged_citations, self._staged_citations + data.num_rows), pa.int64())
        if not self._staged_citations:
            self._conn.execute("CREATE OR REPLACE TEMP TABLE _dump_citations AS "
                               "SELECT *, 0::BIGINT AS seq FROM citations LIMIT 0")
        self._insert("_dump_citations", data.append_column("seq", seq))
        self._staged_citations += data.num_rows
        self.counts["citations"] += data.num_rows

    def _finish(self) -> None:
        """Store the staged dump edges (before the commit): stored dump edges of the same pairs
        are replaced, and of pairs given twice in this input only the last edge is kept."""
        if not self._staged_citations:
            return
        self._conn.execute(
            "DELETE FROM citations c WHERE origin = 'dump' AND EXISTS (SELECT 1 FROM _dump_citations p "
            "WHERE p.citing_id = c.citing_id AND p.cited_id = c.cited_id)")
        self._conn.execute(
            "INSERT INTO citations BY NAME SELECT * EXCLUDE (seq) FROM _dump_citations "
            "QUALIFY row_number() OVER (PARTITION BY citing_id, cited_id ORDER BY seq DESC) = 1 ORDER BY seq")
        self._conn.execute("DROP TABLE _dump_citations")
        self._staged_citations = 0

    def add_derived(self, derived: dict[str, pa.Table], model: dict[str, Any], chunking: dict[str, Any]) -> dict[str, int]:
        """Store chunks and vectors derived from this input's documents elsewhere (a distributed
        build's workers), where they still match the stored papers; finalize makes the rest. See
        :func:`corpus.derived.merge_derived`. Call after the documents are added."""
        self._check()
        from litnav.corpus.derived import merge_derived

        return merge_derived(self._conn, derived, model, chunking)

    def add_rejects(self, rejects: Sequence[Reject]) -> None:
        """Record input records that could not be ingested (kept with this source's key)."""
        self._check()
        self._insert("rejects", rows.reject_table(self.source_key, rejects))
        self.counts["rejects"] += len(rejects)


class CorpusWriter:
    """The single writer of a corpus directory. Use :meth:`open` as a context manager."""

    def __init__(self, directory: Path, conn: duckdb.DuckDBPyConnection, lock: Any, settings: CorpusSettings):
        self.directory = directory
        self.conn = conn
        self._lock = lock
        self.settings = settings
        self._in_source = False
        self._stored_keys: dict[str, KeyHashes] | None = None
        """Loaded at the first source block: see :class:`KeyHashes` (skips per-batch scans of
        ``papers`` and ``external_ids`` that grow with the corpus)."""

    @classmethod
    def open(cls, path: str | Path, settings: CorpusSettings | None = None,
             allow_settings_change: bool = False) -> CorpusWriter:
        """Open (creating if needed) the corpus at ``path`` for writing and take its writer lock.

        ``settings`` None = the settings stored in the corpus (or defaults for a new one); of given
        settings only the explicitly set fields override the stored ones (see
        :func:`corpus.identity.merge_settings`), and the result is stored. Raises
        :class:`CorpusLockedError` when another writer holds the lock, :class:`SettingsChangeError`
        (nothing stored) when an explicit model or chunk size differs from the corpus's and
        ``allow_settings_change`` is False, :class:`CorpusError` when ``path`` is a non-empty
        directory that is not a corpus.
        """
        directory = Path(path)
        if directory.exists() and not directory.is_dir():
            raise CorpusError(f"corpus path {directory} exists and is not a directory")
        directory.mkdir(parents=True, exist_ok=True)
        from litnav.corpus.schema import (
            CHUNK_CACHE_DIR,
            DB_NAME,
            EMBED_DIR,
            INDEX_DIR,
            LOCK_NAME,
            STAGE_FILE,
            STAGING_DIR,
        )

        # what a failed first build may leave beside a missing database does not make it foreign
        ours = (DB_NAME, DB_NAME + ".wal", LOCK_NAME, INDEX_DIR, CHUNK_CACHE_DIR, EMBED_DIR, STAGE_FILE, STAGING_DIR)
        foreign = [p.name for p in directory.iterdir() if p.name not in ours]
        if foreign and not (directory / DB_NAME).exists():
            raise CorpusError(f"{directory} is not empty and not a corpus directory (holds {foreign[:3]})")
        lock = acquire_writer_lock(directory)
        try:
            conn = connect(directory, read_only=False)
        except BaseException:
            lock.release()
            raise
        from litnav.corpus.identity import merge_settings

        try:
            settings = merge_settings(directory, get_meta(conn, "settings"), settings, get_meta(conn, "model"),
                                      allow_change=allow_settings_change)
            if settings.model_path:  # a bad model folder is refused before it is stored
                from litnav.corpus.encoder import Encoder

                Encoder.from_settings(settings)
        except BaseException:
            conn.close()
            lock.release()
            raise
        limit_memory(conn, settings.duckdb_memory_limit)
        set_meta(conn, "settings", settings.model_dump(mode="json"))
        write_build_stage_file(directory, "writing")
        return cls(directory, conn, lock, settings)

    def __enter__(self) -> CorpusWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Checkpoint the database, close it and release the lock."""
        if self.conn is not None:
            with contextlib.suppress(duckdb.Error):
                self.conn.execute("CHECKPOINT")
            with contextlib.suppress(duckdb.Error):  # a connection a failed write invalidated
                self.conn.close()
            self.conn = None  # type: ignore[assignment]
        if self._lock is not None:
            with contextlib.suppress(OSError):
                write_build_stage_file(self.directory, None)
            self._lock.release()
            self._lock = None

    def is_ingested(self, source_key: str, size: int, sha256: str) -> bool:
        """True when this exact input (key, size, sha256) was committed before."""
        return self.conn.execute(
            "SELECT count(*) FROM manifest WHERE source_key = ? AND size = ? AND sha256 = ?",
            [source_key, size, sha256]).fetchone()[0] > 0

    def is_committed(self, source_key: str) -> bool:
        """True when some version of the input ``source_key`` was committed before."""
        return self.conn.execute("SELECT count(*) FROM manifest WHERE source_key = ?", [source_key]).fetchone()[0] > 0

    @contextlib.contextmanager
    def source(self, source_key: str, size: int, sha256: str) -> Iterator[SourceTransaction]:
        """One transaction for one input file; commits with its manifest row, rolls back on error."""
        if self._in_source:
            raise CorpusError(f"source {source_key!r} opened inside another source block")
        self._in_source = True
        if self._stored_keys is None:
            self._stored_keys = {"ids": KeyHashes(self.conn, "papers", "corpus_id"),
                                 "external_ids": KeyHashes(self.conn, "external_ids", "kind, value")}
        self.conn.execute("BEGIN TRANSACTION")
        tx = SourceTransaction(self.conn, source_key, self._stored_keys)
        try:
            self._forget_source(source_key)
            yield tx
            tx._finish()
            incomplete = dict(get_meta(self.conn, "incomplete_sources") or {})
            if tx.incomplete:
                incomplete[source_key] = tx.incomplete
            else:
                incomplete.pop(source_key, None)
            set_meta(self.conn, "incomplete_sources", incomplete)
            joined = dict(get_meta(self.conn, "joined_sources") or {})
            if tx.joined:
                joined[source_key] = list(tx.joined)
            else:
                joined.pop(source_key, None)
            set_meta(self.conn, "joined_sources", joined)
            if source_key in (released := self.released_sources()):
                set_meta(self.conn, "released_sources", [k for k in released if k != source_key])
            self.conn.execute("DELETE FROM manifest WHERE source_key = ?", [source_key])
            self.conn.execute(
                "INSERT INTO manifest VALUES (?, ?, ?, ?, ?, ?, ?)",
                [source_key, size, sha256, datetime.now(UTC).replace(tzinfo=None),
                 tx.counts["documents"], tx.counts["citations"], tx.counts["rejects"]])
            set_meta(self.conn, "indexes_dirty", True)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            self._stored_keys = None  # the rolled-back writes were counted there: read them again
            raise
        finally:
            tx._open = False
            self._in_source = False

    def _forget_source(self, source_key: str) -> None:
        """Inside a source transaction: drop what an earlier version of this input stored (its
        rejects, and the papers whose stored record came from it, but not their abstract vectors:
        the dense phase keeps the vector of a paper whose title and abstract are unchanged and
        drops those of papers the new version lacks), so that a changed file replaces its records
        exactly, deletions included. Nothing to do for a file never committed."""
        if not self.is_committed(source_key):
            return
        self.conn.execute("DELETE FROM rejects WHERE source_key = ?", [source_key])
        ids = self.conn.sql("SELECT corpus_id FROM papers WHERE source_file = ?", params=[source_key]).to_arrow_table()
        if not ids.num_rows:
            return
        register(self.conn, "_gone", ids)
        try:  # abstract vectors stay: the dense phase re-embeds only a paper whose text hash changed
            _delete_papers(self.conn, "_gone")  # and drops those of papers the new version lacks
        finally:
            unregister(self.conn, "_gone")

    def _sharing(self) -> dict[str, set[str]]:
        """Source key -> the other sources that gave a copy of one of its papers (read from the
        duplicate rows of the rejects table: "duplicate id P1: also at A.jsonl:3")."""
        edges: dict[str, set[str]] = {}
        for key, reason in self.conn.execute("SELECT source_key, reason FROM rejects WHERE starts_with(reason, ?)",
                                             [DUPLICATE_REASON + " "]).fetchall():
            m = _DUPLICATE_AT.match(reason)
            if m and m.group("other") != key:
                edges.setdefault(key, set()).add(m.group("other"))
                edges.setdefault(m.group("other"), set()).add(key)
        return edges

    def sharing_closure(self, changed: Sequence[str]) -> list[str]:
        """The committed inputs besides ``changed`` that share a paper with one of them
        (transitively, through the duplicate rows of the rejects table), sorted. Reads only."""
        edges = self._sharing()
        closure, todo = set(changed), list(changed)
        while todo:
            for other in edges.get(todo.pop(), ()):
                if other not in closure and self.is_committed(other):
                    closure.add(other)
                    todo.append(other)
        return sorted(closure - set(changed))

    def release(self, keys: Sequence[str]) -> None:
        """Un-commit the inputs ``keys`` in one transaction so a build reads them all again in
        order (``sharing_closure``: a changed file and those sharing papers with it, whose merged
        papers then come out as a fresh build makes them): their papers, rejects and manifest rows
        are dropped and they are marked released (``released_sources``) until a source
        transaction commits each again, so a build killed in between, or one that leaves one out,
        is refused rather than losing them silently."""
        keys = sorted(set(keys))
        self.conn.execute("BEGIN TRANSACTION")
        try:
            ids = self.conn.sql(
                "SELECT corpus_id FROM papers WHERE list_contains(?, source_file) UNION "
                "SELECT regexp_extract(reason, '^duplicate id (.*): also at ', 1) FROM rejects "
                "WHERE list_contains(?, source_key) AND starts_with(reason, ?)",
                params=[keys, keys, DUPLICATE_REASON + " "]).to_arrow_table()
            register(self.conn, "_shared", ids)
            try:
                _delete_papers(self.conn, "_shared", also=("vectors",))
            finally:
                unregister(self.conn, "_shared")
            self.conn.execute("DELETE FROM rejects WHERE list_contains(?, source_key)", [keys])
            self.conn.execute("DELETE FROM manifest WHERE list_contains(?, source_key)", [keys])
            incomplete = {k: v for k, v in (get_meta(self.conn, "incomplete_sources") or {}).items() if k not in keys}
            set_meta(self.conn, "incomplete_sources", incomplete)
            set_meta(self.conn, "released_sources", sorted(set(self.released_sources()) | set(keys)))
            set_meta(self.conn, "indexes_dirty", True)
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        finally:
            self._stored_keys = None

    def released_sources(self) -> list[str]:
        """Inputs :meth:`release` un-committed that no build has read again yet."""
        return list(get_meta(self.conn, "released_sources") or [])

    def joined_sources(self) -> dict[str, list[str]]:
        """Committed input -> the content files (abstracts, s2orc or pdf_parses shards) whose rows
        were joined into its papers when it was last read (``SourceTransaction.joined``)."""
        return dict(get_meta(self.conn, "joined_sources") or {})

    def incomplete_sources(self) -> dict[str, str]:
        """Inputs committed from a damaged file: source key -> what was wrong (see ``tx.incomplete``)."""
        return dict(get_meta(self.conn, "incomplete_sources") or {})

    def finalize(self, progress: bool = True, reembed: bool = False, stop_after: str | None = None,
                 on_stage: Callable[[str], None] | None = None) -> dict[str, float]:
        """Resolve references by title, chunk, build BM25, embed, build FAISS — in two phases
        (see :mod:`corpus.build`).

        After the lexical phase the corpus is published searchable with BM25 (``build_stage``
        ``lexical``) and this writer closes its read-write connection while it embeds (keeping the
        writer lock), so other processes can open the corpus read-only meanwhile; it then reopens
        it (waiting up to :data:`PUBLISH_WAIT_S` for readers to close) to move the vectors in and
        mark the corpus complete. ``on_stage`` is called with ``"lexical"`` when other processes
        can search the corpus with BM25 and with ``"dense"`` when the abstract vectors are in (never for a
        BM25-only corpus, ``corpus.abstract_embeddings=false``).
        ``stop_after="lexical"`` returns after the lexical phase, the corpus left as a build killed
        while embedding leaves it (a later finalize completes it).

        Returns seconds per stage (``resolve``, ``chunk``, ``bm25``, ``todo``, ``embed``,
        ``chunk_vectors``, ``faiss``, ``publish``, ``total``). ``reembed=True`` drops all vectors
        (abstract and chunk) and embeds with the current settings' model; without it a model
        different from the one that made the stored vectors raises :class:`ModelMismatchError`.
        Safe to rerun after a crash: embedded shards are kept under ``DIR/embed/``.
        """
        import shutil
        import time

        from litnav.corpus.build import embed_stage, finalize_lexical, publish_dense
        from litnav.corpus.integrity import index_problems, record_index_files
        from litnav.corpus.schema import EMBED_DIR

        if self._in_source:
            raise CorpusError("finalize called inside a source block")
        if stop_after not in (None, "lexical"):
            raise ValueError(f"stop_after must be None or 'lexical', not {stop_after!r}")
        if self.conn is None and self._lock is not None:  # a dense phase of this writer was interrupted
            self.conn = self._reconnect()
        if self.conn is None:
            raise CorpusError(f"corpus writer of {self.directory} is closed")
        t0 = time.perf_counter()
        damaged = index_problems(self.directory, self.conn, checksums=True)
        if damaged:  # a plain rebuild repairs damaged or missing index files
            logging.getLogger(__name__).warning("rebuilding damaged indexes: %s", "; ".join(damaged))
            set_meta(self.conn, "indexes_dirty", True)
        work = finalize_lexical(self.directory, self.conn, self.settings, progress=progress, reembed=reembed)
        timings = dict(work.timings)
        record_index_files(self.conn, self.directory)
        if work.pending:
            self._release_connection()  # readers may open the corpus now: BM25 is published
        if on_stage:
            on_stage("lexical")
        if work.pending and stop_after != "lexical":
            write_build_stage_file(self.directory, "embedding")
            timings.update(embed_stage(self.directory, self.settings, work, progress=progress))
            write_build_stage_file(self.directory, "publishing")
            self.conn = self._reconnect()
            write_build_stage_file(self.directory, "writing")
            timings.update(publish_dense(self.directory, self.conn, work))
            record_index_files(self.conn, self.directory)
            self.conn.execute("CHECKPOINT")
            shutil.rmtree(self.directory / EMBED_DIR, ignore_errors=True)
        if on_stage and work.dense and not (work.pending and stop_after == "lexical"):
            on_stage("dense")
        timings["total"] = round(time.perf_counter() - t0, 3)
        return timings

    def _release_connection(self) -> None:
        """Checkpoint and close the read-write connection, keeping the writer lock."""
        self.conn.execute("CHECKPOINT")
        self.conn.close()
        self.conn = None  # type: ignore[assignment]

    def _reconnect(self) -> duckdb.DuckDBPyConnection:
        """Reopen the read-write connection, waiting up to :data:`PUBLISH_WAIT_S` for readers that
        have the corpus open to close it."""
        import time

        from litnav.corpus.errors import CorpusBusyError

        deadline, told = time.monotonic() + PUBLISH_WAIT_S, False
        while True:
            try:
                conn = connect(self.directory, read_only=False)
                limit_memory(conn, self.settings.duckdb_memory_limit)
                return conn
            except CorpusBusyError as exc:
                if time.monotonic() > deadline:
                    raise CorpusBusyError(
                        f"{exc}. The abstract vectors are embedded and kept in {self.directory}/embed: rerun the "
                        "same build when the readers are closed to publish them (nothing is embedded again)") from exc
                if not told:
                    logging.getLogger(__name__).warning(
                        "corpus %s is open in other processes; waiting up to %.0f s for them to close to publish "
                        "the abstract vectors", self.directory, PUBLISH_WAIT_S)
                    told = True
                time.sleep(0.25)

    def reembed(self, progress: bool = True) -> dict[str, float]:
        """Re-embed everything with the current settings' model (``finalize(reembed=True)``)."""
        return self.finalize(progress=progress, reembed=True)
