"""Reading and writing session files (JSON, written atomically)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from litnav.core.io import write_text
from litnav.core.records import Session

SESSION_VERSION = 1
"""The session file format this code writes and reads (``Session.version``)."""


class SessionFileError(ValueError):
    """A session file cannot be read; the message names the file and the field."""


def write_text_atomic(text: str, path: str | Path) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically with ordinary permissions
    (``core.io.write_text``); returns the path."""
    return write_text(path, text)


def write_session(session: Session, path: str | Path) -> Path:
    """Write ``session`` as indented JSON to ``path`` via a temporary file and rename."""
    return write_text_atomic(session.model_dump_json(indent=1), path)


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
        return Session.model_validate(data)
    except json.JSONDecodeError as exc:
        raise SessionFileError(f"{path}: not JSON ({exc})") from None
    except UnicodeDecodeError:
        raise SessionFileError(f"{path}: not a litnav session file (binary content)") from None
    except OSError as exc:
        raise SessionFileError(f"{path}: {exc.strerror or exc}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        raise SessionFileError(f"{path}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
