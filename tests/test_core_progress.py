"""Progress off a terminal: whole log lines at an interval, nothing for short work or when off."""

import io

from litnav.core.progress import progress_bar


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_progress_is_whole_lines_without_carriage_returns():
    log = io.StringIO()
    with progress_bar(total=3, desc="embed abstracts", unit="paper", file=log, log_interval_s=0) as bar:
        for _ in range(3):
            bar.update(1)
    text = log.getvalue()
    assert "\r" not in text and text.endswith("\n")
    lines = text.splitlines()
    assert lines and all(line.startswith("embed abstracts:") for line in lines)
    assert "3/3" in lines[-1]


def test_short_work_in_a_log_and_disabled_progress_print_nothing():
    quiet, off = io.StringIO(), io.StringIO()
    assert list(progress_bar(range(5), desc="chunk", file=quiet)) == [0, 1, 2, 3, 4]
    assert list(progress_bar(range(5), desc="chunk", file=off, progress=False, log_interval_s=0)) == [0, 1, 2, 3, 4]
    assert quiet.getvalue() == "" and off.getvalue() == ""


def test_a_terminal_gets_the_live_bar():
    tty = _Tty()
    for _ in progress_bar(range(2), desc="bm25", file=tty):
        pass
    assert "\r" in tty.getvalue() and "bm25" in tty.getvalue()


def test_forced_redraws_of_short_work_stay_out_of_a_log():
    """The search loop's set_postfix redraws at once; in a log short work still prints nothing."""
    log = io.StringIO()
    bar = progress_bar(total=3, desc="search rounds", file=log)
    for _ in range(3):
        bar.set_postfix(candidates=10)
        bar.update(1)
    bar.close()
    assert log.getvalue() == ""


def test_a_log_gets_one_line_per_interval_and_the_last_one(monkeypatch):
    import tqdm.std

    clock = [0.0]
    monkeypatch.setattr(tqdm.std, "time", lambda: clock[0])  # tqdm's clock (self._time)
    log = io.StringIO()
    bar = progress_bar(total=4, desc="embed", file=log, log_interval_s=10)
    for now in (1.0, 11.0, 12.0, 25.0):
        clock[0] = now
        bar.update(1)
    bar.close()
    lines = log.getvalue().splitlines()
    # nothing before 10 s; a line at 11 s; none at 12 s (within the interval); the last at 25 s
    assert len(lines) == 2 and "2/4" in lines[0] and "4/4" in lines[1], lines


def test_without_a_file_a_log_is_the_default_off_a_terminal(capsys):
    """Every caller passes no file: standard error redirected (nohup, CI) must get the log bar."""
    from litnav.core.progress import _LogBar

    bar = progress_bar(range(3), desc="bm25")
    assert isinstance(bar, _LogBar)
    list(bar)
    assert capsys.readouterr().err == ""  # short work: silent
