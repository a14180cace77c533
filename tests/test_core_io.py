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
