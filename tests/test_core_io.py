"""core.io: the one atomic-write helper every layer uses."""

import os
from pathlib import Path

import pytest

from litnav.core.io import atomic_path, write_json, write_text


def test_write_replaces_whole_file_with_ordinary_permissions(tmp_path):
    target = tmp_path / "sub" / "out.json"
    write_json(target, {"a": "é"}, indent=1)
    assert target.read_text(encoding="utf-8") == '{\n "a": "é"\n}\n'
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in target.parent.iterdir()] == ["out.json"]


def test_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "rows.jsonl"
    write_text(target, "old\n")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("crash mid-write")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["rows.jsonl"]


def test_atomic_path_keeps_the_suffix_np_save_needs(tmp_path):
    np = pytest.importorskip("numpy")
    target = tmp_path / "v.npy"
    with atomic_path(target, suffix=".npy") as tmp:
        np.save(tmp, np.arange(3))
    assert np.load(target).tolist() == [0, 1, 2]


def test_a_write_follows_a_link_and_never_replaces_a_pipe_or_a_folder(tmp_path):
    import os
    import threading

    from litnav.core.io import write_text

    (tmp_path / "target.bib").write_text("old")
    os.symlink("target.bib", tmp_path / "link.bib")
    write_text(tmp_path / "link.bib", "new")
    assert (tmp_path / "link.bib").is_symlink() and (tmp_path / "target.bib").read_text() == "new"
    os.mkfifo(tmp_path / "pipe.bib")
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append((tmp_path / "pipe.bib").read_text()))
    reader.start()
    write_text(tmp_path / "pipe.bib", "piped")
    reader.join(timeout=10)
    assert got == ["piped"] and (tmp_path / "pipe.bib").is_fifo()
    with pytest.raises(IsADirectoryError, match=str(tmp_path)):
        write_text(tmp_path, "x")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if not os.access(locked, os.W_OK):  # root writes anywhere
            with pytest.raises(OSError, match="locked/out.bib'"):
                write_text(locked / "out.bib", "x")
    finally:
        locked.chmod(0o700)


def test_json_lines_numbers_lines_skips_blanks_and_reads_gzip(tmp_path) -> None:
    import gzip

    from litnav.core.io import json_lines

    text = '{"a": 1}\n\n  \n{"a": 2}\n'
    (tmp_path / "x.jsonl").write_text(text)
    with gzip.open(tmp_path / "x.jsonl.gz", "wt") as fh:
        fh.write(text)
    for name in ("x.jsonl", "x.jsonl.gz"):
        assert list(json_lines(tmp_path / name)) == [(1, {"a": 1}), (4, {"a": 2})]


@pytest.mark.parametrize(("content", "message"), [
    ('{"a": 1}\n{"a": \n', r"x\.jsonl:2: invalid JSON"),
    ('{"a": 1}\n[1, 2]\n', r"x\.jsonl:2: expected a JSON object, got list"),
    (b'{"a": 1}\n{"a": "\xff"}\n', r"x\.jsonl:2: not UTF-8 text"),
])
def test_json_lines_names_the_file_and_line_of_a_bad_line(tmp_path, content, message) -> None:
    from litnav.core.io import json_lines

    class MyError(ValueError):
        pass

    path = tmp_path / "x.jsonl"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(MyError, match=message):
        list(json_lines(path, error=MyError))


def test_json_lines_names_a_missing_or_truncated_file(tmp_path) -> None:
    import gzip

    from litnav.core.io import json_lines

    with pytest.raises(ValueError, match=r"nope\.jsonl: No such file"):
        list(json_lines(tmp_path / "nope.jsonl"))
    data = gzip.compress(b"".join(b'{"id": %d, "text": "some words here"}\n' % i for i in range(2000)))
    (tmp_path / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"cut\.jsonl\.gz: unreadable after line \d+"):
        list(json_lines(tmp_path / "cut.jsonl.gz"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_a_link_to_a_pipe_such_as_dev_stdout_is_written_through(tmp_path):
    """`--out /dev/stdout | cat`: the link resolves to "/proc/N/fd/pipe:[...]", no name to open."""
    from litnav.core.io import write_text

    read_end, write_end = os.pipe()
    os.symlink(f"/proc/{os.getpid()}/fd/{write_end}", tmp_path / "stdout")
    try:
        write_text(tmp_path / "stdout", "to a pipe")
    finally:
        os.close(write_end)
    assert os.read(read_end, 100) == b"to a pipe"
    os.close(read_end)


def test_a_replaced_file_keeps_its_permissions_and_a_read_only_one_is_refused(tmp_path):
    """A break-it trial refined a session file its owner had made read-only: the atomic replace
    wrote it anyway and left it writable (mode 0644)."""
    import stat

    kept = tmp_path / "shared.json"
    kept.write_text("old", encoding="utf-8")
    os.chmod(kept, 0o640)
    write_text(kept, "new")
    assert kept.read_text(encoding="utf-8") == "new" and stat.S_IMODE(kept.stat().st_mode) == 0o640
    locked = tmp_path / "session.json"
    locked.write_text("keep me", encoding="utf-8")
    os.chmod(locked, 0o444)
    with pytest.raises(PermissionError, match="read-only") as err:
        write_text(locked, "overwritten")
    assert err.value.filename == str(locked)
    assert locked.read_text(encoding="utf-8") == "keep me" and stat.S_IMODE(locked.stat().st_mode) == 0o444
    assert len(list(tmp_path.iterdir())) == 2  # no temporary file left
