"""Helpers shared by CLI commands: settings loading and clean error exits."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

import typer
from rich.console import Console

from litnav.core.text import terminal_safe, visible_text

NON_TTY_WIDTH = 160
"""Console width used when the stream is not a terminal (pipes, files, CI): output then does not
depend on ``COLUMNS`` or the terminal, and plain messages are never wrapped."""


class _SafeStream:
    """A text stream that sends only ``core.text.terminal_safe`` text on; else the stream itself."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def make_console(stderr: bool = False) -> Console:
    """A rich Console for stdout (or stderr) that, when the stream is not a terminal, has a fixed
    width (``NON_TTY_WIDTH``) and does not wrap printed text, so tests and pipes see the same
    output at any ``COLUMNS``. On a terminal it follows the terminal's width. Either way only
    colour sequences reach the stream (``core.text.terminal_safe``: data is printed, never run)."""
    stream = sys.stderr if stderr else sys.stdout
    safe = _SafeStream(stream)
    if stream.isatty():
        return Console(file=safe)
    return Console(file=safe, width=NON_TTY_WIDTH, soft_wrap=True)

SettingsOpt = typer.Option(None, "--settings", help="Settings file (JSON or TOML).", exists=False)
SetOpt = typer.Option(None, "--set", help="Override a setting: group.field=value (repeatable).")


def settings_from(file: Path | None, overrides: list[str] | None, base: dict | None = None):
    """Load settings (``core.settings.load_settings``) or exit 2 with the error."""
    from litnav.core.settings import SettingsError, load_settings

    try:
        return load_settings(file, overrides, base)
    except SettingsError as exc:
        fail(str(exc), code=2)


class _ErrConsole:
    """``err_console.print(...)``: a stderr console made at each use (see :func:`make_console`), so it
    follows the stream the command runs with (a test runner swaps it)."""

    def __getattr__(self, name: str):
        return getattr(make_console(stderr=True), name)


err_console = _ErrConsole()


def fail(message: str, code: int = 1) -> None:
    """Print ``error: message`` to stderr (the message as written, never read as markup) and exit
    with ``code``."""
    from rich.text import Text

    make_console(stderr=True).print(Text.assemble(("error:", "bold red"), " ", visible_text(str(message))),
                                    highlight=False)
    raise typer.Exit(code)


@contextlib.contextmanager
def clean_errors(*kinds: type[BaseException]) -> Iterator[None]:
    """Turn the given exception kinds into a one-line error and a non-zero exit."""
    try:
        yield
    except kinds as exc:  # type: ignore[misc]
        fail(f"{exc}")


def open_corpus(path: Path, settings=None, *, require_indexes: bool = True):
    """Open a corpus for reading or exit with the error; with ``require_indexes`` a corpus whose
    build was interrupted before its indexes were built is an error that says how to finish it."""
    from litnav import Corpus
    from litnav.corpus import CorpusError

    if not Path(path).exists():
        fail(f"corpus directory {path} does not exist (build one with `litnav build SOURCE --corpus {path}`)")
    try:
        corpus = Corpus.open(path, settings=settings.corpus if settings is not None else None)
    except CorpusError as exc:
        fail(str(exc))
    if require_indexes and corpus.stats().get("indexes_dirty"):
        corpus.close()
        fail(f"corpus {path} has content whose indexes were not built (an interrupted or unfinished build); "
             f"rerun the same `litnav build ... --corpus {path}` to finish it")
    if require_indexes:
        for channel, why in corpus.missing_channels().items():
            make_console(stderr=True).print(f"[yellow]note:[/yellow] {channel} channel missing: {why}", highlight=False)
        for channel, why in corpus.partial_channels().items():
            make_console(stderr=True).print(f"[yellow]note:[/yellow] {channel} channel partial: {why}", highlight=False)
    return corpus


def stdout_is_tty() -> bool:
    """Whether progress bars make sense."""
    return sys.stderr.isatty()
