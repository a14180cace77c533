"""core.io: the one atomic-write helper every layer uses."""

import os

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
