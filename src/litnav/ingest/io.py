"""Input files: expansion of sources (files, directories, globs), transparent decompression
(plain, ``.gz``, ``.zst``, ``.bz2``, ``.xz``), fingerprints (size + sha256) and line-numbered JSON
records.

Damage is reported the same way for every compression: a stream that ends early (a cut
download) or holds corrupt data raises :class:`TruncatedSourceError` naming the file and the last
line read before the damage; the records before it have been yielded already.

Everything streams: a JSONL file is read line by line, so memory stays bounded by one record.
A per-paper ``.json`` file (one pretty-printed object per file, as the S2ORC tooling writes it)
is read whole; such files hold one paper each.
"""

from __future__ import annotations

import bz2
import glob
import hashlib
import io
import lzma
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import orjson

from litnav.corpus.schema import DB_NAME

COMPRESSIONS = (".gz", ".zst", ".bz2", ".xz")
"""Compressed suffixes read transparently."""
DATA_SUFFIXES = tuple(base + c for base in (".jsonl", ".json") for c in ("",) + COMPRESSIONS)


class SourceError(ValueError):
    """A source argument matched no readable input file; the message names it."""


class TruncatedSourceError(SourceError):
    """A file is cut short or damaged: ``path``, ``line`` (the last line read before the damage,
    0 when none was) and ``detail`` (the decompressor's or reader's error)."""

    def __init__(self, path: Path, line: int, detail: str):
        self.path, self.line, self.detail = Path(path), line, detail
        where = f"after line {line}" if line else "before its first record"
        super().__init__(f"{path}: damaged or truncated {where} ({detail})")


class _CheckedStream(io.RawIOBase):
    """Raw reader of a compressed file (one or more concatenated members/frames) that raises
    ``EOFError`` when the input ends inside a member. One implementation for gzip, zstd, bz2 and
    xz, so a cut file of any kind reads the same: all the data before the cut, then the error.
    (``zstandard``'s own stream reader ends quietly at a cut, so a cut ``.zst`` read as a shorter
    file.)

    ``factory`` makes a fresh decompressor object with ``decompress(data)``, ``eof`` and
    ``unused_data`` (``zlib.decompressobj``, ``bz2.BZ2Decompressor``, ``lzma.LZMADecompressor``,
    ``zstandard.ZstdDecompressor().decompressobj``).
    """

    def __init__(self, raw: BinaryIO, factory: Any):
        self._raw = raw
        self._factory = factory
        self._obj = factory()
        self._in_member = False
        self._seen = False
        self._buf = memoryview(b"")
        self._eof = False

    def readable(self) -> bool:
        return True

    def _fill(self) -> None:
        while not len(self._buf) and not self._eof:
            data = self._raw.read(1 << 17)
            if not data:
                if not self._seen:
                    raise EOFError("the file is empty: no compressed stream at all")
                if self._in_member:
                    raise EOFError("compressed stream ended before its end-of-stream marker")
                self._eof = True
                return
            out = []
            while data:
                self._in_member = True
                self._seen = True
                out.append(self._obj.decompress(data))
                if not self._obj.eof:
                    break
                data = self._obj.unused_data
                self._obj = self._factory()
                self._in_member = False
            self._buf = memoryview(b"".join(out))

    def readinto(self, b) -> int:  # type: ignore[override]
        self._fill()
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def _is_data_file(path: Path) -> bool:
    name = path.name.lower()
    return any(name.endswith(s) for s in DATA_SUFFIXES)


def expand_sources(sources: list[str | Path]) -> list[Path]:
    """Expand files, directories (recursively, data files only, none inside a corpus directory:
    a build of "." never reads a corpus's own indexes) and glob patterns.

    Returns absolute paths, de-duplicated, sorted within each source so a build is
    deterministic. Raises ``SourceError`` naming a source that matches nothing.
    """
    out: list[Path] = []
    for src in sources:
        text = str(src)
        path = Path(text).expanduser()
        if path.is_file():
            found = [path]
        elif path.is_dir():
            corpora = {p.parent for p in path.rglob(DB_NAME)}
            found = sorted(p for p in path.rglob("*") if p.is_file() and _is_data_file(p)
                           and not corpora.intersection(p.parents))
        else:
            found = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
        if not found and path.is_dir():
            raise SourceError(f"{text}: a directory with no data file in it (files ending in "
                              f"{', '.join(DATA_SUFFIXES)}; name a file without one directly)")
        if not found:
            raise SourceError(f"{text}: no such file, directory or matching data files")
        out.extend(p.resolve() for p in found)
    seen: set[Path] = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def open_text(path: Path) -> TextIO:
    """Open ``path`` for reading text (UTF-8), decompressing ``.gz``, ``.zst``, ``.bz2`` and ``.xz``
    on the fly (a cut compressed stream raises ``EOFError`` when read)."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8")


def open_binary(path: Path) -> BinaryIO:
    """Open ``path`` for reading bytes, decompressing ``.gz``, ``.zst``, ``.bz2`` and ``.xz``
    on the fly (told by the suffix, else by the leading bytes: a download saved without it).

    JSON records are parsed from bytes (``orjson`` decodes UTF-8 itself): skipping the text
    layer saves a decode pass, and a line with invalid UTF-8 becomes that line's reject
    instead of an exception that would end the file.
    """
    name = path.name.lower()
    if not name.endswith(COMPRESSIONS):
        name += _sniffed_compression(path)
    factory = None
    if name.endswith(".gz"):
        factory = lambda: zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # noqa: E731
    elif name.endswith(".zst"):
        import zstandard

        factory = zstandard.ZstdDecompressor().decompressobj
    elif name.endswith(".bz2"):
        factory = bz2.BZ2Decompressor
    elif name.endswith(".xz"):
        factory = lzma.LZMADecompressor
    if factory is None:
        return path.open("rb")
    return io.BufferedReader(_CheckedStream(path.open("rb"), factory), buffer_size=1 << 16)  # type: ignore[return-value]


_MAGIC = ((b"\x1f\x8b", ".gz"), (b"\x28\xb5\x2f\xfd", ".zst"), (b"BZh", ".bz2"), (b"\xfd7zXZ\x00", ".xz"))
"""Leading bytes of each compressed format (a JSON file starts with "{", "[" or white space)."""


def _sniffed_compression(path: Path) -> str:
    """The compression suffix that ``path``'s leading bytes show (a download saved without its
    suffix), or "" for an uncompressed or unreadable file."""
    try:
        with path.open("rb") as fh:
            head = fh.read(6)
    except OSError:
        return ""
    return next((suffix for magic, suffix in _MAGIC if head.startswith(magic)), "")


def base_name(path: Path) -> str:
    """File name without the data suffixes (``metadata_0.jsonl.gz`` -> ``metadata_0``)."""
    name = path.name
    for suffix in COMPRESSIONS + (".jsonl", ".json"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


@dataclass(frozen=True)
class Fingerprint:
    """Size in bytes and hex sha256 of a file's stored bytes."""

    size: int
    sha256: str


def fingerprint(path: Path, chunk: int = 1 << 20) -> Fingerprint:
    """Stream ``path`` through sha256 (1 MiB chunks) and return its size and digest."""
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
            size += len(block)
    return Fingerprint(size, h.hexdigest())


def combine(prints: list[Fingerprint]) -> Fingerprint:
    """One fingerprint for a group of files (total size; sha256 over the member digests)."""
    if len(prints) == 1:
        return prints[0]
    h = hashlib.sha256("".join(p.sha256 for p in prints).encode())
    return Fingerprint(sum(p.size for p in prints), h.hexdigest())


@dataclass(slots=True)
class RawRecord:
    """One parsed input record, or the reason it could not be parsed.

    ``line`` is 1-based (the line in a JSONL file; 1 for a single-object ``.json`` file).
    """

    line: int
    value: Any = None
    error: str | None = None


def _is_single_object(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith(tuple(".json" + c for c in ("",) + COMPRESSIONS))


def iter_records(path: Path) -> Iterator[RawRecord]:
    """Yield every record of ``path`` with its line number; blank lines are skipped.

    A ``.json`` file whose content is one object yields that object; a ``.json`` file that
    holds one object per line is read as JSONL. Bad JSON yields a ``RawRecord`` with
    ``error`` set instead of raising, so one broken line never stops a build. A damaged or
    truncated compressed file (any compression), or a JSONL file whose last line is invalid JSON
    without a final newline (a copy or download cut short), raises :class:`TruncatedSourceError`
    naming it and the last line read; every record before the damage has been yielded by then.
    """
    last = [0]
    try:
        if not path.is_file() or not os.access(path, os.R_OK):
            raise SourceError(f"{path}: not a readable file (check that it exists and its permissions)")
        for rec in _iter_records(path):
            last[0] = rec.line
            yield rec
    except (EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
        raise TruncatedSourceError(path, last[0], f"{type(exc).__name__}: {exc}") from exc
    except Exception as exc:
        if type(exc).__module__.startswith("zstandard"):
            raise TruncatedSourceError(path, last[0], f"damaged zstd data: {exc}") from exc
        raise


def _iter_records(path: Path) -> Iterator[RawRecord]:
    with open_binary(path) as fh:
        if _is_single_object(path):
            data = fh.read().removeprefix(_BOM)
            try:
                yield RawRecord(1, orjson.loads(data))
                return
            except orjson.JSONDecodeError:
                if (bad := _not_utf8(data)) and _loads_replaced(data) is not None:  # one paper's file: its reject
                    yield RawRecord(1, error=f"not UTF-8 text: {bad.replace(' (', ' of the file (', 1)}")
                    return
                lines: Any = data.splitlines()
        else:
            lines = fh
        for n, line in enumerate(lines, 1):
            if n == 1:
                line = line.removeprefix(_BOM)
            if not line.strip():
                continue
            try:
                yield RawRecord(n, orjson.loads(line))
            except orjson.JSONDecodeError as exc:
                if lines is fh and not line.endswith(b"\n"):  # the file ends inside a record: cut short
                    raise TruncatedSourceError(path, n - 1, f"its last line {n} ends mid-record: {exc}") from exc
                yield RawRecord(n, error=f"invalid JSON: {_json_problem(line, exc)}")


_BOM = b"\xef\xbb\xbf"
_JSON_POSITION = re.compile(r": line \d+ column \d+ \(char \d+\)$")


def _not_utf8(data: bytes) -> str | None:
    """Where ``data`` stops being UTF-8 ("bytes that are not UTF-8 at byte 811 (b'\\xe9s p')"), or None."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"bytes that are not UTF-8 at byte {bad.start + 1} ({data[bad.start:bad.start + 4]!r})"
    return None


def _loads_replaced(data: bytes) -> Any:
    """``data`` parsed with its bytes that are not UTF-8 replaced (U+FFFD), or None when it is no
    JSON even so: what a file's format is, never what is stored."""
    try:
        return orjson.loads(data.decode("utf-8", "replace"))
    except orjson.JSONDecodeError:
        return None


def _single_object_bytes(path: Path) -> bytes | None:
    """The bytes of a single-object ``.json`` file (any compression, BOM removed); None for a
    JSONL file or one that cannot be read (the readers report that)."""
    if not _is_single_object(path):
        return None
    try:
        with open_binary(path) as fh:
            return fh.read().removeprefix(_BOM)
    except (OSError, EOFError, zlib.error, lzma.LZMAError):
        return None


def single_object_sample(path: Path) -> Any:
    """The object of a single-object ``.json`` file whose only fault is bytes that are not UTF-8,
    read with them replaced, to detect its format (its reading then rejects it, naming the byte);
    None otherwise."""
    data = _single_object_bytes(path)
    return _loads_replaced(data) if data is not None and _not_utf8(data) else None


def _json_problem(line: bytes, exc: orjson.JSONDecodeError) -> str:
    """What is wrong with one line of JSONL, placed within the line (its line number is the
    record's): bytes that are not UTF-8 at their byte offset, else the parser's message at its
    character ("line 1 column 32" of a one-line document read as the file's line 1 before)."""
    if bad := _not_utf8(line):
        return bad.replace(" (", " of the line (", 1)
    return f"{_JSON_POSITION.sub('', str(exc))} at character {exc.pos + 1} of the line"


def single_object_problem(path: Path) -> str | None:
    """Why the single-object ``.json`` file ``path`` (any compression) is not one JSON value:
    "empty file" or "invalid or truncated JSON: <parser error>"; None for a valid one, for a
    JSONL file (any other name) or one that cannot be read (the readers report that)."""
    data = _single_object_bytes(path)
    if data is None:
        return None
    if not data.strip():
        return "empty file"
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return f"invalid or truncated JSON: {exc}"
    return None


def first_records(path: Path, n: int) -> list[Any]:
    """The first ``n`` records of ``path`` that parse as JSON (fewer when the file holds fewer,
    or when it is damaged after some: its reading reports the damage). Raises
    ``TruncatedSourceError`` when it is damaged before its first record."""
    out: list[Any] = []
    try:
        for rec in iter_records(path):
            if rec.error is None:
                out.append(rec.value)
                if len(out) >= n:
                    break
    except TruncatedSourceError:
        if not out:
            raise
    return out
