"""Reading and writing session files (JSON, written atomically)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from litnav.core.io import write_new_text, write_text
from litnav.core.records import Session
from litnav.corpus.schema import DB_NAME as CORPUS_DB

SESSION_VERSION = 1
"""The session file format this code writes and reads (``Session.version``)."""


class SessionFileError(ValueError):
    """A session file cannot be read; the message names the file and the field."""


class OutputPathError(ValueError):
    """An output path would destroy stored data; the message names the path and why."""


_MAX_SESSION_BYTES = 1 << 29
"""No session file is this large (512 MiB): a bigger file is data, never parsed whole to check."""


def is_session_file(path: str | Path) -> bool:
    """True when ``path`` is a file :func:`read_session` would take for a session: a JSON object
    with ``intent`` and ``rounds`` (in any key order). Files that do not start with ``{`` or are
    larger than any session are decided without reading them whole."""
    path = Path(path)
    try:
        if path.stat().st_size > _MAX_SESSION_BYTES:
            return False
        with path.open("rb") as fh:
            head = fh.read(64)  # in any encoding json reads (UTF-8/16/32, a BOM from an editor)
        if not head.decode(json.detect_encoding(head), errors="ignore").lstrip("\ufeff \t\r\n").startswith("{"):
            return False
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "intent" in data and "rounds" in data


def check_output(path: str | Path, kind: Literal["session", "export"], *, inputs=(), corpus=None) -> Path:
    """``path`` if litnav may write a ``kind`` output there, else ``OutputPathError``: nothing is
    written inside a corpus directory (a folder holding ``corpus.duckdb``, at any level above
    the file, or a file of that name), over one of ``inputs`` (the files the command reads) or
    over a file ``corpus`` was built from (its manifest); a session file may replace only a session
    file (or an empty one), and an export, report or other output never replaces a session file;
    a path whose folder cannot be made (a file on the way) is refused too. Call it before long
    work so a bad ``--json``/``--out`` fails at once."""
    path = Path(path)
    target = path.resolve()
    for folder in target.parents:
        if (folder / CORPUS_DB).is_file():
            raise OutputPathError(f"{path}: inside the corpus directory {folder}; litnav writes nothing there "
                                  "(choose a path outside it)")
    if target.name == CORPUS_DB:
        raise OutputPathError(f"{path}: a corpus database name; litnav writes no output there")
    if path.is_dir():
        raise OutputPathError(f"{path}: is a directory; give a file name")
    blocking = next((f for f in reversed(target.parents) if f.exists() and not f.is_dir()), None)
    if blocking is not None:
        raise OutputPathError(f"{path}: {blocking} is a file, not a folder")
    if path.is_file() and path.stat().st_size > 0:
        session = is_session_file(path)
        if kind == "session" and not session and path.stat().st_size > _MAX_SESSION_BYTES:
            raise OutputPathError(f"{path}: over {_MAX_SESSION_BYTES >> 20} MiB, more than a session file litnav "
                                  "writes in place; write the new session elsewhere (--out or --json)")
        if kind == "session" and not session:
            raise OutputPathError(f"{path}: exists and is not a litnav session file; a session replaces only a "
                                  "session (choose another path or remove the file)")
        if kind == "export" and session:
            raise OutputPathError(f"{path}: is a litnav session file; an export or report does not replace it "
                                  "(choose another path)")
    sources = {Path(str(x)).resolve() for x in inputs}
    if corpus is not None and hasattr(corpus, "manifest"):
        sources |= {Path(str(m["source_key"])).resolve() for m in corpus.manifest() if m.get("source_key")}
    if target in sources:
        raise OutputPathError(f"{path}: is an input of this command or a file the corpus was built from; "
                              "choose another path")
    return path


def write_text_atomic(text: str, path: str | Path) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically with ordinary permissions
    (``core.io.write_text``); returns the path. An output other than a session: refused by
    :func:`check_output` inside a corpus directory or over a session file."""
    return write_text(check_output(path, "export"), text)


def write_session(session: Session, path: str | Path) -> Path:
    """Write ``session`` as indented JSON to ``path`` via a temporary file and rename; refused by
    :func:`check_output` inside a corpus directory or over a file that is not a session;
    ``TypeError`` when ``session`` is not a ``Session``."""
    if not isinstance(session, Session):
        raise TypeError(f"session must be a Session, got {type(session).__name__}")
    return write_text(check_output(path, "session"), session.model_dump_json(indent=1))


def write_new_session(session: Session, path: str | Path) -> Path:
    """Write ``session`` to ``path``, or to ``stem-2.json``, ``stem-3.json``, ... when that exists,
    never replacing a file, even when another search picks a name at the same moment; returns the
    path written. Refusals and errors as :func:`write_session`."""
    if not isinstance(session, Session):
        raise TypeError(f"session must be a Session, got {type(session).__name__}")
    path = check_output(path, "session")
    names = (path.with_name(f"{path.stem}-{n}{path.suffix}") if n > 1 else path for n in itertools.count(1))
    return write_new_text(names, session.model_dump_json(indent=1))


def _check_results(path: Path, session: Session) -> None:
    """Raise ``SessionFileError`` for results no search writes (a hand edit): a corpus id twice,
    ranks that do not run 1, 2, 3, ... (a score outside 0-1 or not finite ``Result`` refuses)."""
    seen: set[str] = set()
    for i, r in enumerate(session.results):
        where = f"{path}: results.{i}"
        if r.corpus_id in seen:
            raise SessionFileError(f"{where}.corpus_id: {r.corpus_id!r} is listed twice")
        seen.add(r.corpus_id)
        if r.rank != i + 1:
            raise SessionFileError(f"{where}.rank: {r.rank}; the results' ranks run 1, 2, 3, ...")


def read_session(path: str | Path) -> Session:
    """Load a session file; raises ``SessionFileError`` naming the file and field."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        data = json.loads(raw)
        if not isinstance(data, dict) or "intent" not in data or "rounds" not in data:
            raise SessionFileError(f"{path}: not a litnav session file (written by `litnav search --json`)")
        if data.get("version", 1) != SESSION_VERSION:
            raise SessionFileError(f"{path}: session format version {data.get('version')!r}; this litnav "
                                   f"reads version {SESSION_VERSION}")
        session = Session.model_validate(data)
        _check_results(path, session)
        return session
    except json.JSONDecodeError as exc:
        raise SessionFileError(f"{path}: not JSON ({exc})") from None
    except RecursionError:
        raise SessionFileError(f"{path}: not a litnav session file (JSON nested too deeply)") from None
    except UnicodeDecodeError:
        raise SessionFileError(f"{path}: not a litnav session file (binary content)") from None
    except OSError as exc:
        raise SessionFileError(f"{path}: {exc.strerror or exc}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        raise SessionFileError(f"{path}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
    except SessionFileError:
        raise
    except ValueError as exc:  # an integer of thousands of digits
        raise SessionFileError(f"{path}: not a litnav session file ({str(exc).splitlines()[0]})") from None


@contextmanager
def session_lock(path: str | Path) -> Iterator[None]:
    """Hold the lock of the session file ``path`` (the file ``.NAME.lock`` beside it, waiting for
    another holder) while a turn is read, run and written, so two refinements of one file (two
    ``litnav refine`` runs, or one beside the HTTP API's) both keep their turn. Where no lock file
    can be made (a read-only folder) it runs without one. The empty lock file stays; deleting it
    between runs is safe. A symbolic link is followed: the lock is the file's own, whatever name
    reaches it."""
    from filelock import FileLock

    target = Path(path).resolve()
    lock = FileLock(str(target.parent / f".{target.name}.lock"))
    try:
        lock.acquire()
    except OSError:
        yield
        return
    try:
        yield
    finally:
        lock.release()
