"""Progress bars for long work: a live bar on a terminal, a plain line every half minute in a log.

tqdm's own ``disable=None`` hides a bar when standard error is not a terminal, so a build run
under ``nohup``, a batch scheduler or CI printed nothing for an hour of embedding. Off a terminal
:func:`progress_bar` writes tqdm's status (``desc:  41%|####1     | 10800/26336 [04:30<06:28,
40.0paper/s]``) as whole lines, at most every ``log_interval_s`` seconds and only once the work
has run that long (a short job prints nothing). In a notebook it is tqdm's widget.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any, TextIO

from tqdm.auto import tqdm
from tqdm.std import tqdm as std_tqdm

LOG_INTERVAL_S = 30.0


class _Lines:
    """A file for tqdm that turns its carriage-return redraws into whole log lines."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        line = text.replace("\r", "").strip()
        if line:
            self.stream.write(line + "\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()


class _LogBar(std_tqdm):
    """tqdm for a log: a line only once the work has run ``log_interval_s``, then at most one per
    interval, and the last one (tqdm's ``delay`` and ``mininterval`` do not hold for the redraws
    that ``set_postfix`` and ``refresh`` force)."""

    log_interval_s = LOG_INTERVAL_S

    def display(self, msg=None, pos=None, **kwargs):  # noqa: D102 - tqdm's own
        now, start = self._time(), getattr(self, "start_t", None)
        if start is None or now - start < self.log_interval_s:  # None: tqdm's first draw, in __init__
            return True
        done = self.total is not None and self.n >= self.total
        if done and getattr(self, "_done_shown", False):  # update() then close(): one last line
            return True
        if not done and now - getattr(self, "_last_line", 0.0) < self.log_interval_s:
            return True
        self._last_line, self._done_shown = now, done
        return super().display(msg, pos, **kwargs)


def _in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (tqdm.autonotebook picks its widget bar there)."""
    from tqdm.autonotebook import tqdm as notebook_or_std

    return notebook_or_std is not std_tqdm


def progress_bar(iterable: Iterable | None = None, *, progress: bool = True,
                 log_interval_s: float = LOG_INTERVAL_S, **kwargs: Any) -> tqdm:
    """A tqdm bar over ``iterable`` (or a manual one with ``total=``).

    ``progress=False`` shows nothing. On a terminal the bar is tqdm's usual live bar; otherwise
    (a log file, a pipe, CI) a line every ``log_interval_s`` seconds, the first after that long,
    so jobs shorter than it stay silent. ``kwargs`` are tqdm's (``total``, ``desc``, ``unit``,
    ``initial``, ``leave``, ...).
    """
    if not progress:
        return tqdm(iterable, disable=True, **kwargs)
    stream = kwargs.pop("file", None)
    if stream is None and _in_notebook():  # tqdm.auto draws its widget there
        return tqdm(iterable, **kwargs)
    stream = stream or sys.stderr
    if getattr(stream, "isatty", lambda: False)():
        return tqdm(iterable, file=stream, **kwargs)
    bar = _LogBar(iterable, file=_Lines(stream), mininterval=log_interval_s, ascii=True, ncols=100,
                  dynamic_ncols=False, **kwargs)
    bar.log_interval_s = log_interval_s  # tqdm's first draw, in __init__, is skipped either way
    return bar
