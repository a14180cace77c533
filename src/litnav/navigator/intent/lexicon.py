"""The general English lexicon (``lemminflect``) with its lookup tables read word by word from SQLite.

lemminflect parses its gzipped CSV tables line by line on first use (about 0.5 s for the lemma
table and 0.6 s for the inflection table on one core), and even unpickling the parsed tables costs
0.15 s each: every ``litnav search`` process paid that to look up a handful of words of its
intent. The parsed tables are stored once as SQLite files under ``$XDG_CACHE_HOME/litnav/lexicon/``
(one row per word, keyed by the table file's name, size and mtime, so an upgraded lemminflect
re-parses) and handed to lemminflect as read-only mappings that read one row per lookup.
An unreadable cache file is re-parsed and rewritten; an unwritable cache directory only costs
the parse (the table is then kept in memory).
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from litnav.core.cache import cache_root


class StoredTable:
    """A read-only ``{word: value}`` mapping in a SQLite file (table ``t(k TEXT PRIMARY KEY, v BLOB)``,
    values pickled): :meth:`get` reads one row. Safe to share between threads. Raises
    ``sqlite3.DatabaseError`` on open when the file is not such a table. ``recover`` (optional)
    gives the whole table when a later read finds the file damaged; it is then served from memory."""

    def __init__(self, path: Path, recover: Callable[[], dict] | None = None):
        # as_uri percent-encodes "#", "?" and "%" of the folder name, which a URI would misread
        self._conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        self._recover = recover
        self._memory: dict | None = None
        self._conn.execute("SELECT k, v FROM t LIMIT 1").fetchall()

    def get(self, key: str, default: Any = None) -> Any:
        """The value stored for ``key``, else ``default``."""
        with self._lock:
            if self._memory is None:
                try:
                    row = self._conn.execute("SELECT v FROM t WHERE k = ?", (key,)).fetchone()
                    return pickle.loads(row[0]) if row else default
                except Exception:  # noqa: BLE001 - a damaged page or value: sqlite3 or any unpickling error
                    if self._recover is None:
                        raise
                    self._memory = self._recover()
        return self._memory.get(key, default)


def _write_table(target: Path, table: dict[str, Any]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}.{threading.get_ident()}")
    tmp.unlink(missing_ok=True)
    try:
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)")
            conn.executemany("INSERT INTO t VALUES (?, ?)",
                             ((k, pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)) for k, v in table.items()))
            conn.commit()
        finally:
            conn.close()
        os.replace(tmp, target)
    except BaseException:  # a full disk or an interrupt: no partial file left behind
        for leftover in (tmp, tmp.with_name(tmp.name + "-journal")):
            leftover.unlink(missing_ok=True)
        raise


def _cached_table(source: str, parse: Callable[[str], dict]) -> Any:
    """The table parsed from ``source``: a :class:`StoredTable` from the cache (written on first
    use; a file found damaged later is parsed again and rewritten), or the parsed dict itself when
    the cache cannot be written."""
    src = Path(source)
    st = src.stat()
    target = cache_root("lexicon") / f"{src.name}.{st.st_size}.{st.st_mtime_ns}.sqlite"

    def parse_and_store() -> dict:
        table = parse(source)
        try:
            _write_table(target, table)
        except (OSError, sqlite3.Error):
            pass  # an unwritable cache only costs the parse
        return table

    try:
        if target.is_file():
            return StoredTable(target, recover=parse_and_store)
    except (OSError, sqlite3.DatabaseError):
        pass
    table = parse_and_store()
    try:
        return StoredTable(target, recover=lambda: table)
    except (OSError, sqlite3.Error):
        return table


@lru_cache(maxsize=1)
def _lemmatizer() -> Any:
    from lemminflect.codecs.LemmaLUCodec import LemmaLUCodec
    from lemminflect.core.Lemmatizer import Lemmatizer

    lem = Lemmatizer()  # a process-wide singleton, shared with lemminflect's own functions
    if not hasattr(lem, "lemma_dict"):
        lem.lemma_dict = _cached_table(lem.lemma_lu_fn, LemmaLUCodec.load)
    return lem


@lru_cache(maxsize=1)
def _inflections() -> Any:
    from lemminflect.codecs.InflectionLUCodec import InflectionLUCodec
    from lemminflect.core.Inflections import Inflections

    inf = Inflections()
    if not hasattr(inf, "infl_dict"):
        inf.infl_dict = _cached_table(inf.infl_lu_fn, InflectionLUCodec.load)
    return inf


def known_word(word: str) -> bool:
    """True when the lexicon has ``word`` (any case) at all: ``all_lemmas(word)`` is not empty."""
    return bool(all_lemmas(word.lower()))


def all_lemmas(word: str, upos: str | None = None) -> dict[str, tuple[str, ...]]:
    """``lemminflect.getAllLemmas``: universal POS tag -> lemmas of ``word`` ({} for an unknown word)."""
    return _lemmatizer().getAllLemmas(word, upos)


def all_inflections(lemma: str, upos: str | None = None) -> dict[str, tuple[str, ...]]:
    """``lemminflect.getAllInflections``: Penn tag -> inflected forms of ``lemma``."""
    return _inflections().getAllInflections(lemma, upos)
