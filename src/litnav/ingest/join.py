"""The keyed content store that joins records arriving in separate files.

S2ORC 2020 ships metadata and pdf_parses in separate shards, and the Datasets API ships
``papers``, ``abstracts`` and ``s2orc`` as separate datasets; all are joined on the paper's id.
To keep memory bounded, every *content* file of a build (pdf_parses, abstracts, s2orc) is first
streamed into a temporary SQLite table keyed by ``(format, id)`` holding each record's JSON
bytes; the *metadata* files (metadata, papers) are then streamed and each row looks its content
up (``take``). Content rows nobody took are handed back per file (``leftovers``) so their own
build unit can store them alone (s2orc full text) or reject them (pdf_parses / abstracts carry no
title). The table lives in a temporary directory and is deleted on ``close``.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from litnav.ingest.io import TruncatedSourceError, iter_records

ID_FIELD = {"s2orc-pdf-parse": "paper_id", "s2-abstracts": "corpusid", "s2-s2orc": "corpusid"}
"""Content format -> the field holding the join key."""


def record_key(value: Any, key_field: str) -> str | None:
    """The join key of a raw record (ids as int or str, stripped), None when it has none."""
    key = value.get(key_field) if isinstance(value, dict) else None
    if isinstance(key, bool) or not isinstance(key, (str, int)) or str(key).strip() == "":
        return None
    return str(key).strip()


class ContentStore:
    """SQLite-backed map ``(format, id) -> latest record``, plus per-file rejects."""

    def __init__(self, workdir: str | Path | None = None) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="litnav-join-", dir=workdir)
        self._db = sqlite3.connect(Path(self._dir.name) / "content.sqlite")
        self._db.executescript(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
            "CREATE TABLE content(fmt TEXT, key TEXT, file TEXT, line INT, body BLOB, used INT DEFAULT 0,"
            " PRIMARY KEY(fmt, key));"
            "CREATE TABLE bad(file TEXT, line INT, reason TEXT);"
        )
        self.files: dict[str, str] = {}
        self.damaged: dict[str, TruncatedSourceError] = {}
        """Content files cut short or damaged: path -> error (their records before it were stored)."""

    def add_file(self, path: Path, fmt: str, batch: int = 5000) -> int:
        """Stream one content file into the store; returns the number of records stored.
        A later record with the same id replaces an earlier one."""
        key_field = ID_FIELD[fmt]
        self.files[str(path)] = fmt
        rows: list[tuple] = []
        bad: list[tuple] = []
        n = 0
        for rec in self._until_damage(path):
            if rec.error:
                bad.append((str(path), rec.line, rec.error))
                continue
            value = rec.value
            key = record_key(value, key_field)
            if key is None:
                bad.append((str(path), rec.line, f"field {key_field!r}: missing or not an id"))
                continue
            rows.append((fmt, key, str(path), rec.line, orjson.dumps(value)))
            n += 1
            if len(rows) >= batch:
                self._flush(rows)
        self._flush(rows)
        self._db.executemany("INSERT INTO bad VALUES (?,?,?)", bad)
        self._db.commit()
        return n

    def _until_damage(self, path: Path) -> Iterator[Any]:
        """``iter_records(path)``, ending quietly at damage (recorded in ``self.damaged``)."""
        try:
            yield from iter_records(path)
        except TruncatedSourceError as exc:
            self.damaged[str(path)] = exc

    def _flush(self, rows: list[tuple]) -> None:
        self._db.executemany("INSERT OR REPLACE INTO content(fmt,key,file,line,body) VALUES (?,?,?,?,?)", rows)
        rows.clear()

    def take(self, fmt: str, key: str) -> tuple[str, int, Any] | None:
        """The record of ``fmt`` with id ``key`` as ``(file, line, value)``, marked as used."""
        row = self._db.execute(
            "SELECT file, line, body FROM content WHERE fmt=? AND key=?", (fmt, key)
        ).fetchone()
        if row is None:
            return None
        self._db.execute("UPDATE content SET used=1 WHERE fmt=? AND key=?", (fmt, key))
        return row[0], row[1], orjson.loads(row[2])

    def leftovers(self, path: Path) -> Iterator[tuple[int, Any]]:
        """``(line, value)`` of the records of ``path`` that no metadata row took, in line order."""
        self._db.commit()
        cur = self._db.execute(
            "SELECT line, body FROM content WHERE file=? AND used=0 ORDER BY line", (str(path),)
        )
        for line, body in cur:
            yield line, orjson.loads(body)

    def taken_lines(self, path: Path) -> list[int]:
        """Lines of ``path`` whose records a metadata row took (joined into a document)."""
        self._db.commit()
        return [r[0] for r in self._db.execute(
            "SELECT line FROM content WHERE file=? AND used=1 ORDER BY line", (str(path),))]

    def mark_taken(self, path: Path, lines: list[int]) -> None:
        """Mark the records at ``lines`` of ``path`` as taken, as a metadata row read elsewhere (in
        another process of a distributed build) did; they are then no longer ``leftovers``."""
        self._db.execute("CREATE TEMP TABLE IF NOT EXISTS _taken(line INT PRIMARY KEY)")
        self._db.execute("DELETE FROM _taken")
        self._db.executemany("INSERT OR IGNORE INTO _taken VALUES (?)", [(n,) for n in lines])
        self._db.execute("UPDATE content SET used=1 WHERE file=? AND line IN (SELECT line FROM _taken)", (str(path),))
        self._db.commit()

    def bad(self, path: Path) -> list[tuple[int, str]]:
        """``(line, reason)`` of the records of ``path`` that could not be keyed."""
        return self._db.execute(
            "SELECT line, reason FROM bad WHERE file=? ORDER BY line", (str(path),)
        ).fetchall()

    def close(self) -> None:
        """Drop the table and its temporary directory."""
        self._db.close()
        self._dir.cleanup()

    def __enter__(self) -> ContentStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
