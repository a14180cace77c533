"""Storage failures (disk full, read-only directory, permission denied) as one-line errors.

DuckDB, FAISS, bm25s and numpy each report a failed write their own way (``duckdb.IOException``,
a ``FatalException`` from a checkpoint, a ``RuntimeError`` from ``faiss::write_index``, an
``OSError``). :func:`storage_errors` turns all of them into a :class:`StorageError` that names
the file and says what to do; committed input files stay committed, so rerunning the same build
after freeing space resumes it.
"""

from __future__ import annotations

import contextlib
import errno
import re
from collections.abc import Iterator
from pathlib import Path

from litnav.corpus.errors import CorpusError

_KINDS = (
    ("no space", errno.ENOSPC, ("no space left on device", "disk full", "not enough space")),
    ("read-only", errno.EROFS, ("read-only file system",)),
    ("permission", errno.EACCES, ("permission denied",)),
)
_PATH = re.compile(r"""(/[^\s:"'()]+)""")


class StorageError(CorpusError):
    """A write to the corpus directory failed for lack of space or permission; the message
    names the file and the fix."""


def _kind(exc: BaseException) -> str | None:
    code = getattr(exc, "errno", None)
    text = str(exc).lower()
    for name, number, phrases in _KINDS:
        if code == number or any(p in text for p in phrases):
            return name
    return None


def storage_message(exc: BaseException, directory: Path) -> str | None:
    """The one-line message for a storage failure ``exc`` while writing the corpus ``directory``,
    or None when ``exc`` is not one (a disk-full, read-only or permission error)."""
    kind = _kind(exc)
    if kind is None:
        return None
    target = getattr(exc, "filename", None)
    if not target:
        m = _PATH.search(str(exc))
        target = m.group(1) if m else str(directory)
    if kind == "no space":
        return (f"{target}: no space left on the device while writing the corpus {directory}; free some space "
                "there (or build into a directory on a larger disk) and rerun the same build: files already "
                "committed are kept and are not read again")
    return (f"{target}: cannot write ({'read-only file system' if kind == 'read-only' else 'permission denied'}); "
            f"the corpus directory {directory} must be writable to build: build into a writable directory "
            "(--corpus NEW_DIR) or fix its permissions")


@contextlib.contextmanager
def storage_errors(directory: str | Path) -> Iterator[None]:
    """Re-raise storage failures inside the block as :class:`StorageError` (other errors pass)."""
    try:
        yield
    except CorpusError:
        raise
    except Exception as exc:
        message = storage_message(exc, Path(directory))
        if message is None:
            raise
        raise StorageError(message) from exc
