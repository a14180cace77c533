"""Errors of the ``python -m litnav...`` tools (argparse entry points) as one line each."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def tool_errors(parser: argparse.ArgumentParser, *more: type[BaseException]) -> Iterator[None]:
    """Turn a ``ValueError`` (bad data: the message names the file and line), an ``OSError`` (a
    file that cannot be read or written) or one of ``more`` raised inside into ``error: <message>``
    on stderr and exit status 2, as the ``litnav`` commands report them, instead of a traceback."""
    try:
        yield
    except (ValueError, OSError, *more) as exc:
        parser.exit(2, f"error: {error_text(exc)}\n")


def error_text(exc: BaseException) -> str:
    """One line for an error: ``FILE: reason`` for an ``OSError`` that names its file, else its
    message, else its type's name."""
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc) or type(exc).__name__
