"""The single-writer lock of a corpus directory (``DIR/.lock``)."""

from __future__ import annotations

from pathlib import Path

from filelock import FileLock, Timeout

from litnav.corpus.errors import CorpusLockedError
from litnav.corpus.schema import LOCK_NAME


def acquire_writer_lock(directory: Path) -> FileLock:
    """Take the writer lock without waiting; raises :class:`CorpusLockedError` when it is held."""
    lock = FileLock(str(directory / LOCK_NAME))
    try:
        lock.acquire(timeout=0)
    except Timeout as e:
        raise CorpusLockedError(
            f"corpus {directory} is being written by another process (lock {directory / LOCK_NAME}); "
            "wait for it to finish, or build into another directory") from e
    return lock
