"""Fault injection: a full disk and a read-only directory (issue 12, case 5).

Uses a small tmpfs mounted for the test; skipped (with the reason) where mounting is not allowed.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from typer.testing import CliRunner

from litnav.cli import _register, app
from litnav.corpus import Corpus

PAPERS = [{"id": f"p{i}", "title": f"Paper {i} about retrieval", "abstract": "dense retrieval " * 8}
          for i in range(20)]


@pytest.fixture(scope="module")
def runner():
    _register()
    return CliRunner()


@pytest.fixture
def tmpfs(tmp_path):
    """``mount(size)`` mounts a tmpfs of ``size`` at a fresh folder; unmounted after the test."""
    mounted = []

    def mount(size: str, *opts: str):
        point = tmp_path / f"mnt{len(mounted)}"
        point.mkdir()
        res = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join((f"size={size}",) + opts), "tmpfs", str(point)],
                             capture_output=True, text=True)
        if res.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): {res.stderr.strip()}")
        mounted.append(point)
        return point

    if os.name != "posix":
        pytest.skip("tmpfs needs Linux")
    yield mount
    for point in mounted:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def _source(tmp_path):
    src = tmp_path / "p.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in PAPERS))
    return src


def _build(runner, src, corpus):
    return runner.invoke(app, ["build", str(src), "--corpus", str(corpus), "--format", "jsonl", "--no-progress",
                               "--set", "corpus.chunk_embeddings=lazy"])


def _one_line_error(res):
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output and res.exception is None or isinstance(res.exception, SystemExit)
    errors = [line for line in res.output.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("error:"), res.output
    return errors[0]


@pytest.mark.parametrize("size", ["64k", "1m"])  # 64k: FAISS write fails; 1m: DuckDB's checkpoint fails
def test_disk_full_is_one_line_and_the_same_build_resumes_after_freeing_space(runner, tmp_path, tmpfs, size):
    mnt = tmpfs(size)
    src = _source(tmp_path)
    line = _one_line_error(_build(runner, src, mnt / "c"))
    assert "no space left" in line and str(mnt / "c") in line and "rerun the same build" in line
    subprocess.run(["mount", "-o", "remount,size=32m", str(mnt)], check=True)
    res = _build(runner, src, mnt / "c")
    assert res.exit_code == 0, res.output
    with Corpus.open(mnt / "c") as c:
        assert len(c.all_ids()) == 20 and c.lexical_search("dense retrieval", 3)


def test_zero_bytes_free_leaves_nothing_that_blocks_the_next_build(runner, tmp_path, tmpfs):
    mnt = tmpfs("1m")
    filler = mnt / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    src = _source(tmp_path)
    line = _one_line_error(_build(runner, src, mnt / "c"))
    assert "no space left" in line
    filler.unlink()
    subprocess.run(["mount", "-o", "remount,size=32m", str(mnt)], check=True)
    res = _build(runner, src, mnt / "c")
    assert res.exit_code == 0, res.output
    with Corpus.open(mnt / "c") as c:
        assert len(c.all_ids()) == 20


def test_read_only_directory_is_one_line_naming_it(runner, tmp_path, tmpfs):
    mnt = tmpfs("4m")
    subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
    line = _one_line_error(_build(runner, _source(tmp_path), mnt / "c"))
    assert "read-only" in line and str(mnt / "c") in line


def test_read_only_lazy_corpus_caches_chunk_vectors_in_the_user_cache(runner, tmp_path, tmpfs, monkeypatch):
    mnt = tmpfs("32m")
    assert _build(runner, _source(tmp_path), mnt / "c").exit_code == 0
    subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
    cache = tmp_path / "user-cache"
    monkeypatch.setenv("LITNAV_CACHE_DIR", str(cache))
    with Corpus.open(mnt / "c") as c:
        assert c.stats()["chunk_vectors_mode"] == "lazy"
        chunks, vecs = c.chunk_vectors("p1")
        assert len(chunks) == vecs.shape[0] > 0
    cached = list(cache.rglob("*.npz"))
    assert cached and all("chunk_vectors" in str(p) for p in cached)
