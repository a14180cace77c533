"""Input files: expansion of sources (files, directories, globs), transparent decompression
(plain, ``.gz``, ``.zst``), fingerprints (size + sha256) and line-numbered JSON records.

Everything streams: a JSONL file is read line by line, so memory stays bounded by one record.
A per-paper ``.json`` file (one pretty-printed object per file, as the S2ORC tooling writes it)
is read whole; such files hold one paper each.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import orjson
DATA_SUFFIXES = (".jsonl", ".json", ".jsonl.gz", ".json.gz", ".jsonl.zst", ".json.zst")


class SourceError(ValueError):
    """A source argument matched no readable input file; the message names it."""


def _is_data_file(path: Path) -> bool:
    name = path.name.lower()
    return any(name.endswith(s) for s in DATA_SUFFIXES)


def expand_sources(sources: list[str | Path]) -> list[Path]:
    """Expand files, directories (recursively, data files only) and glob patterns.

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
            found = sorted(p for p in path.rglob("*") if p.is_file() and _is_data_file(p))
        else:
            found = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
        if not found:
            raise SourceError(f"{text}: no such file, directory or matching data files")
        out.extend(p.resolve() for p in found)
    seen: set[Path] = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def open_text(path: Path) -> TextIO:
    """Open ``path`` for reading text (UTF-8), decompressing ``.gz`` and ``.zst`` on the fly."""
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    if name.endswith(".zst"):
        import zstandard
        raw = path.open("rb")
        reader = zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)
        return io.TextIOWrapper(reader, encoding="utf-8")
    return path.open("r", encoding="utf-8")


def open_binary(path: Path) -> BinaryIO:
    """Open ``path`` for reading bytes, decompressing ``.gz`` and ``.zst`` on the fly.

    JSON records are parsed from bytes (``orjson`` decodes UTF-8 itself): skipping the text
    layer saves a decode pass, and a line with invalid UTF-8 becomes that line's reject
    instead of an exception that would end the file.
    """
    name = path.name.lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".zst"):
        import zstandard
        raw = path.open("rb")
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, closefd=True))
    return path.open("rb")


def base_name(path: Path) -> str:
    """File name without the data suffixes (``metadata_0.jsonl.gz`` -> ``metadata_0``)."""
    name = path.name
    for suffix in (".gz", ".zst", ".jsonl", ".json"):
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
    return name.endswith((".json", ".json.gz", ".json.zst"))


def iter_records(path: Path) -> Iterator[RawRecord]:
    """Yield every record of ``path`` with its line number; blank lines are skipped.

    A ``.json`` file whose content is one object yields that object; a ``.json`` file that
    holds one object per line is read as JSONL. Bad JSON yields a ``RawRecord`` with
    ``error`` set instead of raising, so one broken line never stops a build. A damaged or
    truncated compressed file raises ``SourceError`` naming it (the file's transaction is then
    rolled back; nothing stored is touched).
    """
    try:
        yield from _iter_records(path)
    except (EOFError, OSError) as exc:
        raise SourceError(f"{path}: damaged or truncated file ({type(exc).__name__}: {exc})") from exc
    except Exception as exc:
        if type(exc).__module__.startswith("zstandard"):
            raise SourceError(f"{path}: damaged zstd file ({exc})") from exc
        raise


def _iter_records(path: Path) -> Iterator[RawRecord]:
    with open_binary(path) as fh:
        if _is_single_object(path):
            data = fh.read().removeprefix(_BOM)
            try:
                yield RawRecord(1, orjson.loads(data))
                return
            except orjson.JSONDecodeError:
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
                yield RawRecord(n, error=f"invalid JSON: {exc}")


_BOM = b"\xef\xbb\xbf"


def first_record(path: Path) -> Any:
    """The first record of ``path`` that parses as JSON (used for format detection), or None."""
    for rec in iter_records(path):
        if rec.error is None:
            return rec.value
    return None
