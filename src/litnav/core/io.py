"""Atomic file writes (a reader sees the old file or the new one, never half of one) and the one
JSON Lines reader of the package's own small files (:func:`json_lines`).

Every write goes to a temporary file in the target's folder (same file system, so the final
``os.replace`` is atomic on POSIX and Windows) and is renamed into place; on any error the
temporary file is removed and the old file is left as it was. New files get ordinary permissions
(``0666`` less the umask), not ``mkstemp``'s ``0600``.

- :func:`write_text` / :func:`write_bytes` / :func:`write_json`: whole contents at once.
- :func:`atomic_path`: a context manager yielding a temporary path for writers that need a file
  name (``np.save``, ``faiss.write_index``, a JSONL stream); renamed on success.
- :func:`write_new_text`: a new file under the first free name of a sequence, never replacing one
  (two processes picking a name at once each get their own).

A writer holds a ``flock`` on its temporary file while it writes; a write removes the temporary
files beside its target that are unlocked and a minute old: a writer killed mid-write (``kill
-9``) left them (those there when the process first wrote into the folder, which it lists once).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import itertools
import json
import os
import stat
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: no flock, no orphan removal
    fcntl = None  # type: ignore[assignment]


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
    destroy it. A file replaced keeps its permissions; a read-only one (no owner write bit) is
    refused with ``PermissionError``: replacing it would undo what its owner did to keep it.
    Raises ``IsADirectoryError`` for a folder and an ``OSError`` that names ``path`` (not the
    temporary file) when its folder cannot be written."""
    given = Path(path)
    if given.exists() and not given.is_file() and not given.is_dir():  # followed by stat: /dev/stdout to a pipe
        try:
            yield given  # opened by its own name: a pipe's resolved name ("/proc/N/fd/pipe:[...]") cannot be
        except OSError as exc:
            if exc.filename is None:  # /dev/full: the write names no file
                raise OSError(exc.errno, exc.strerror or str(exc), str(given)) from exc
            raise
        return
    path = Path(os.path.realpath(path)) if given.is_symlink() else given
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
    mode = stat.S_IMODE(path.stat().st_mode) if path.is_file() else 0o666 & ~_umask()
    if path.is_file() and not mode & stat.S_IWUSR:  # made read-only to keep it: replacing it would undo that
        raise PermissionError(errno.EACCES, "is read-only (nothing was changed)", str(path))
    tmp, held = _temporary(path, suffix)
    try:
        yield tmp
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.filename is None or exc.filename == str(tmp):  # a full disk names no file: name the target
            raise OSError(exc.errno, f"{exc.strerror or exc} (nothing was changed)", str(path)) from exc
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        os.close(held)


ORPHAN_AGE_S = 60.0
"""A temporary file unlocked and untouched this long was left by a writer that died mid-write."""


def _temporary(path: Path, suffix: str) -> tuple[Path, int]:
    """A new empty temporary file beside ``path`` (``.NAME.XXXX<suffix>``) and an open descriptor
    holding an exclusive ``flock`` on it for as long as the write lasts (close it after), after
    removing the orphans of earlier writers (:func:`_remove_orphans`). Raises an ``OSError``
    naming ``path`` when its folder cannot be made or written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _remove_orphans(path, suffix)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    except OSError as exc:
        if path.parent.is_dir():  # /proc, a read-only mount: the folder exists but takes no new file
            raise OSError(exc.errno, f"no new file can be made in its folder {path.parent} ({exc.strerror})",
                          str(path)) from exc
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    if fcntl is not None:
        with contextlib.suppress(OSError):  # a file system without locks: the age alone protects it
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return Path(tmp_name), fd


_HIDDEN: dict[Path, list[str]] = {}
"""Folder -> the hidden files it held when this process first wrote into it: the candidates for
:func:`_remove_orphans`, so a folder of many files (embedding shards, the chunk cache) is listed
once per process, not once per write."""
_HIDDEN_LOCK = threading.Lock()


def _remove_orphans(path: Path, suffix: str) -> None:
    """Delete the temporary files of ``path`` that a writer killed mid-write (``kill -9``, a lost
    node) left: older than :data:`ORPHAN_AGE_S` and not locked. A live writer holds its file's
    lock whatever host or process namespace it runs in; a young file may be a writer about to lock it.
    Only the hidden files of the folder's first listing in this process are candidates (:data:`_HIDDEN`)."""
    if fcntl is None:
        return
    with _HIDDEN_LOCK:
        if path.parent not in _HIDDEN:
            with os.scandir(path.parent) as entries:
                _HIDDEN[path.parent] = [e.name for e in entries if e.name.startswith(".")]
        prefix = f".{path.name}."
        mine = [n for n in _HIDDEN[path.parent] if n.startswith(prefix) and n.endswith(suffix)]
    now = time.time()
    for name in mine:
        tmp = path.parent / name
        try:
            if now - tmp.stat().st_mtime < ORPHAN_AGE_S:
                continue
            fd = os.open(tmp, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # held: a writer is at work
        else:
            tmp.unlink(missing_ok=True)
            with _HIDDEN_LOCK, contextlib.suppress(ValueError):
                _HIDDEN[path.parent].remove(name)
        finally:
            os.close(fd)


def write_new_text(paths: Iterator[Path], text: str) -> Path:
    """Write ``text`` (UTF-8) to the first of ``paths`` (all in one folder) that does not exist,
    never replacing a file even when another process takes a name at the same moment; returns the
    path written. The file appears whole (a hard link of a finished temporary file); where the file
    system has no hard links it is created exclusively and then written."""
    first = next(paths)
    tmp, held = _temporary(first, ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8", newline="")
        os.chmod(tmp, 0o666 & ~_umask())
        links = True
        for candidate in itertools.chain([first], paths):
            if links:
                try:
                    os.link(tmp, candidate)
                    return candidate
                except FileExistsError:
                    continue
                except OSError:  # no hard links here (EPERM, ENOTSUP, ENOSYS on FUSE, ...)
                    links = False
            try:
                fh = open(candidate, "x", encoding="utf-8", newline="")
            except FileExistsError:
                continue
            try:
                with fh:
                    fh.write(text)
            except BaseException:
                candidate.unlink(missing_ok=True)  # never a half-written session under its name
                raise
            return candidate
        raise FileExistsError(errno.EEXIST, "every candidate name exists", str(first))
    finally:
        tmp.unlink(missing_ok=True)
        os.close(held)


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


def text_lines(path: str | Path, *, error: type[Exception] = ValueError) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each line of the UTF-8 text file ``path`` (gzip when its name
    ends in ``.gz``; a byte-order mark dropped; the line end stripped), numbered from 1. Raises
    ``error`` (a ``ValueError`` subclass by default) with a message naming the file, and the line
    where there is one, for a file that cannot be read (missing, a folder, a truncated gzip) or a
    line that is not UTF-8."""
    path = Path(path)
    try:
        handle = gzip.open(path, "rb") if path.suffix.lower() == ".gz" else path.open("rb")
    except OSError as exc:
        raise error(f"{path}: {exc.strerror or exc}") from exc
    with handle:
        lineno = 0
        try:
            for lineno, raw in enumerate(handle, 1):
                try:
                    line = raw.decode("utf-8-sig")  # a byte-order mark is no part of the text
                except UnicodeDecodeError as exc:
                    raise error(f"{path}:{lineno}: not UTF-8 text (byte {exc.start + 1} of the line; "
                                "save the file as UTF-8)") from exc
                yield lineno, line.rstrip("\r\n")
        except (OSError, EOFError, zlib.error) as exc:  # a truncated or corrupt gzip stream
            raise error(f"{path}: unreadable after line {lineno} ({exc})") from exc


def json_lines(path: str | Path, *, error: type[Exception] = ValueError) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line of the JSON Lines file ``path`` (read by
    :func:`text_lines`: gzip, a byte-order mark), numbered from 1. Raises ``error`` (a
    ``ValueError`` subclass by default) with a message naming the file, and the line where there
    is one, for a file that cannot be read, a line that is not UTF-8, not JSON or not a JSON
    object."""
    path = Path(path)
    for lineno, line in text_lines(path, error=error):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{path}:{lineno}: invalid JSON ({exc.msg})") from exc
        if not isinstance(obj, dict):
            raise error(f"{path}:{lineno}: expected a JSON object, got {type(obj).__name__}")
        yield lineno, obj
