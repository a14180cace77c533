"""Session files survive concurrent writers: searches without ``--json`` started together each
get their own file, refinements reached through a symbolic link share the file's own lock, and
a temporary file left by a writer killed mid-write is removed by the next write."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from litnav.core import io as core_io
from litnav.core.io import write_text
from litnav.core.records import Session
from litnav.session.io import session_lock, write_new_session


def _session(intent: str) -> Session:
    return Session(intent=intent, corpus="c")


def test_searches_writing_the_default_session_at_once_each_keep_their_own(tmp_path: Path) -> None:
    default = tmp_path / "litnav-session.json"
    default.write_text(_session("earlier").model_dump_json())
    start, written = threading.Barrier(6), []

    def search(i: int) -> None:
        start.wait()
        written.append(write_new_session(_session(f"intent {i}"), default))

    threads = [threading.Thread(target=search, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(written)) == 6 and default not in written  # the earlier session is never replaced
    assert json.loads(default.read_text())["intent"] == "earlier"
    assert sorted(json.loads(p.read_text())["intent"] for p in written) == [f"intent {i}" for i in range(6)]
    assert {p.name for p in written} == {f"litnav-session-{n}.json" for n in range(2, 8)}
    assert not list(tmp_path.glob(".*.tmp"))


def test_where_hard_links_fail_the_session_is_created_exclusively(tmp_path: Path, monkeypatch) -> None:
    """FUSE mounts answer link() with ENOSYS: the session is then written under the first free
    name by exclusive creation, still never replacing a file."""
    import errno

    def no_links(*a, **k):
        raise OSError(errno.ENOSYS, "Function not implemented")

    monkeypatch.setattr(os, "link", no_links)
    default = tmp_path / "litnav-session.json"
    default.write_text(_session("earlier").model_dump_json())
    written = write_new_session(_session("new"), default)
    assert written.name == "litnav-session-2.json" and json.loads(written.read_text())["intent"] == "new"
    assert json.loads(default.read_text())["intent"] == "earlier" and not list(tmp_path.glob(".*.tmp"))


def test_a_link_to_a_session_locks_the_session_itself(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text(_session("x").model_dump_json())
    (tmp_path / "a").mkdir()
    link = tmp_path / "a" / "link.json"
    link.symlink_to(real)
    with session_lock(link):
        assert (tmp_path / ".real.json.lock").exists()
    assert not (tmp_path / "a" / ".link.json.lock").exists()


def test_a_temporary_file_left_by_a_killed_writer_is_removed_by_the_next_write(tmp_path: Path) -> None:
    """An old unlocked temporary file is a dead writer's; a young one may be a writer about to lock
    it, and a locked one is a live writer's, in whatever process namespace or host it runs."""
    import fcntl

    target = tmp_path / "s.json"
    dead, young, live = (tmp_path / f".s.json.{name}.tmp" for name in ("dead", "young", "live"))
    for p in (dead, young, live):
        p.write_text('{"half": ')
    old = time.time() - 2 * core_io.ORPHAN_AGE_S
    for p in (dead, live):
        os.utime(p, (old, old))
    with live.open() as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        write_text(target, "{}")
    assert target.read_text() == "{}"
    assert not dead.exists() and young.exists() and live.exists()


def test_a_write_that_fails_names_the_file_it_was_writing(tmp_path: Path, monkeypatch) -> None:
    """A full disk raises an error without a file name; litnav's says which file, and leaves the
    old one and no temporary file behind."""
    import errno

    import pytest

    target = tmp_path / "s.json"
    target.write_text("old")

    class Full:
        def __init__(self, *a, **k):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "open", lambda self, *a, **k: Full())
    with pytest.raises(OSError, match="No space left") as caught:
        write_text(target, "new")
    monkeypatch.undo()
    assert caught.value.filename == str(target) and target.read_text() == "old"
    assert not list(tmp_path.glob(".*.tmp"))
    if Path("/dev/full").exists():
        with pytest.raises(OSError) as caught:
            write_text("/dev/full", "x")
        assert caught.value.filename == "/dev/full"


def test_a_session_file_keeps_no_endpoint_credentials():
    """A break-it trial found `base_url: http://u:pw@h/v1` verbatim in every session file (the
    api_key was already masked); session files are shared."""
    from litnav.core.settings import Settings
    from litnav.navigator.loop import _settings_snapshot

    settings = Settings.model_validate({"llm": {"endpoints": {
        "e": {"model": "m", "api_key": "SECRETKEY123", "base_url": "https://user:pw@host.example/v1"},
        "f": {"model": "m", "base_url": "http://localhost:8000/v1"},
        "g": {"model": "m", "base_url": "https://host.example/v1?token=abc&region=eu&api_key=k2"},
        "h": {"model": "m", "extra_body": {"api_token": "GATEWAYTOKEN", "chat_template_kwargs": {
            "enable_thinking": False}, "headers": {"X-Auth": "HDR"}}}}}})
    shown = _settings_snapshot(settings)["llm"]["endpoints"]
    assert shown["h"]["extra_body"] == {"api_token": "***", "chat_template_kwargs": {"enable_thinking": False},
                                        "headers": {"X-Auth": "***"}}
    assert "SECRETKEY123" not in str(shown) and "pw" not in shown["e"]["base_url"]
    assert shown["e"]["base_url"] == "https://***@host.example/v1"
    assert shown["f"]["base_url"] == "http://localhost:8000/v1"
    assert shown["g"]["base_url"] == "https://host.example/v1?token=***&region=eu&api_key=***"


def test_a_utf16_session_is_a_session_for_every_command(tmp_path):
    """A break-it trial's UTF-16 copy of a session was read by audit, export and report, but refine
    refused to write it back ("exists and is not a litnav session file")."""
    import json

    from litnav.session.io import check_output, is_session_file

    for encoding in ("utf-8-sig", "utf-16", "utf-32"):
        path = tmp_path / f"{encoding}.json"
        path.write_bytes(json.dumps({"intent": "x", "rounds": []}).encode(encoding))
        assert is_session_file(path) and check_output(path, "session") == path
