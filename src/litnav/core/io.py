"""Atomic file writes (a reader sees the old file or the new one, never half of one) and the one
JSON Lines reader of the package's own small files (:func:`json_lines`).

Every write goes to a temporary file in the target's folder (same file system, so the final
``os.replace`` is atomic on POSIX and Windows) and is renamed into place; on any error the
temporary file is removed and the old file is left as it was. New files get ordinary permissions
(``0666`` less the umask), not ``mkstemp``'s ``0600``.

- :func:`write_text` / :func:`write_bytes` / :func:`write_json`: whole contents at once.
- :func:`atomic_path`: a context manager yielding a temporary path for writers that need a file
  name (``np.save``, ``faiss.write_index``, a JSONL stream); renamed on success.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import json
import os
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | Path, suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a fresh temporary path beside ``path`` (same folder, hidden name ending in
    ``suffix``, e.g. ``".npy"`` for ``np.save``); when the block ends without an exception the
    temporary file replaces ``path``, otherwise it is deleted. Parent folders are created.

    A symbolic link is followed (the file it points to is replaced; the link stays), and a
    ``path`` that exists but is not a regular file (a pipe, ``/dev/stdout``, a device) is yielded
    itself, written in place: there is nothing to replace atomically, and replacing it would
    destroy it. Raises ``IsADirectoryError`` for a folder and an ``OSError`` that names ``path``
    (not the temporary file) when its folder cannot be written."""
    given = Path(path)
    if given.exists() and not given.is_file() and not given.is_dir():  # followed by stat: /dev/stdout to a pipe
        yield given  # opened by its own name: a pipe's resolved name ("/proc/N/fd/pipe:[...]") cannot be
        return
    path = Path(os.path.realpath(path)) if given.is_symlink() else given
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns ``path``."""
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return path


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically; returns ``path``."""
    path = Path(path)
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return path


def write_json(path: str | Path, value: Any, *, indent: int | None = None) -> Path:
    """Write ``value`` as UTF-8 JSON (non-ASCII kept, a final newline when indented) atomically."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    return write_text(path, text + "\n" if indent is not None else text)


def json_lines(path: str | Path, *, error: type[Exception] = ValueError) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of the JSON Lines file ``path`` (gzip
    when its name ends in ``.gz``), numbered from 1. Raises ``error`` (a ``ValueError`` subclass
    by default) with a message naming the file, and the line where there is one, for a file that
    cannot be read (missing, a truncated gzip), a line that is not UTF-8, not JSON or not a JSON
    object."""
    path = Path(path)
    try:
        handle = gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")
    except OSError as exc:
        raise error(f"{path}: {exc.strerror or exc}") from exc
    with handle:
        lineno = 0
        try:
            for lineno, raw in enumerate(handle, 1):
                try:
                    line = raw.decode("utf-8-sig")  # a byte-order mark is no part of the JSON
                except UnicodeDecodeError as exc:
                    raise error(f"{path}:{lineno}: not UTF-8 text (byte {exc.start + 1} of the line)") from exc
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise error(f"{path}:{lineno}: invalid JSON ({exc.msg})") from exc
                if not isinstance(obj, dict):
                    raise error(f"{path}:{lineno}: expected a JSON object, got {type(obj).__name__}")
                yield lineno, obj
        except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt gzip stream
            raise error(f"{path}: unreadable after line {lineno} ({exc})") from exc
