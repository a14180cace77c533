"""The per-user caches that keep `litnav search` start-up short behave like the slow paths they replace."""

from __future__ import annotations

import numpy as np
import pytest

from litnav.corpus import encoder as enc
from litnav.navigator.branches import _kmeans
from litnav.navigator.intent import lexicon


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("LITNAV_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_lexicon_table_is_parsed_once_then_read_back_word_by_word(cache_home, tmp_path):
    source = tmp_path / "table.csv.gz"
    source.write_bytes(b"x")
    calls = []

    def parse(path):
        calls.append(path)
        return {"word": {"NOUN": ("word",)}, "other": {"VERB": ("other",)}}

    first = lexicon._cached_table(str(source), parse)
    again = lexicon._cached_table(str(source), parse)
    assert len(calls) == 1
    for table in (first, again):
        assert table.get("word", {}) == {"NOUN": ("word",)}
        assert table.get("missing", {}) == {}


def test_a_corrupt_lexicon_cache_is_parsed_again(cache_home, tmp_path):
    source = tmp_path / "table.csv.gz"
    source.write_bytes(b"x")
    lexicon._cached_table(str(source), lambda p: {"a": 1})
    [cached] = list((cache_home / "lexicon").iterdir())
    cached.write_bytes(b"not a database")
    assert lexicon._cached_table(str(source), lambda p: {"b": 2}).get("b") == 2
    assert lexicon._cached_table(str(source), lambda p: {"c": 3}).get("b") == 2  # rewritten


def test_an_unwritable_lexicon_cache_keeps_the_parsed_table(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("LITNAV_CACHE_DIR", str(blocker))
    source = tmp_path / "table.csv.gz"
    source.write_bytes(b"x")
    assert lexicon._cached_table(str(source), lambda p: {"a": 1}) == {"a": 1}


def test_known_word_agrees_with_the_lemma_table():
    for word in ("media", "Findings", "results", "was", "conll", "Interspeech", "the", "NAACL"):
        assert lexicon.known_word(word) == bool(lexicon.all_lemmas(word.lower())), word


@pytest.fixture
def hashed_model(cache_home, tmp_path):
    """A model folder whose weights hash was just computed: (folder, hash, its disk cache entry)."""
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"weights")
    enc._HASH_CACHE.clear()
    first = enc.weights_hash(folder)
    [entry] = list((cache_home / "weights-hash").rglob("*.json"))
    return folder, first, entry


def test_weights_hash_is_cached_on_disk_and_a_bad_entry_is_ignored(hashed_model):
    folder, first, entry = hashed_model
    enc._HASH_CACHE.clear()
    assert enc.weights_hash(folder) == first
    entry.write_text('"short"')
    enc._HASH_CACHE.clear()
    assert enc.weights_hash(folder) == first
    (folder / "model.safetensors").write_bytes(b"other weights")  # new size and mtime: a new key
    enc._HASH_CACHE.clear()
    assert enc.weights_hash(folder) != first


def test_warm_encoder_gives_the_same_vectors():
    texts = ["dense passage retrieval", "knowledge distillation for speech translation"]
    cold = enc.Encoder(backend="onnx").encode(texts)
    enc._MODEL_CACHE.clear()
    warm = enc.Encoder(backend="onnx")
    thread = warm.warm()
    assert thread is not None
    vecs = warm.encode(texts)  # waits for the load in progress
    thread.join()
    np.testing.assert_allclose(vecs, cold, atol=1e-6)
    assert warm.warm() is None  # loaded: nothing to start
    assert enc.Encoder(backend="torch").warm() is None


def test_kmeans_is_deterministic_and_finds_separated_groups():
    rng = np.random.default_rng(0)
    x = np.vstack([rng.normal(size=(8, 16)) + 5, rng.normal(size=(8, 16)) - 5, rng.normal(size=(6, 16)) * 0.1])
    labels = _kmeans(x, 3, seed=0)
    assert np.array_equal(labels, _kmeans(x, 3, seed=0))
    groups = [set(labels[:8]), set(labels[8:16]), set(labels[16:])]
    assert all(len(g) == 1 for g in groups) and len(set().union(*groups)) == 3


def test_every_per_user_cache_lives_under_one_root(tmp_path, monkeypatch):
    from litnav.core.cache import cache_root
    from litnav.corpus.onnx_export import encoder_cache_dir

    monkeypatch.delenv("LITNAV_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert encoder_cache_dir() == tmp_path / "xdg" / "litnav" / "encoders"
    monkeypatch.setenv("LITNAV_CACHE_DIR", str(tmp_path / "mine"))
    assert encoder_cache_dir() == tmp_path / "mine" / "encoders"
    assert cache_root("lexicon") == tmp_path / "mine" / "lexicon"


def test_an_unwritable_cache_still_gives_an_exported_encoder(tmp_path, monkeypatch, caplog):
    """A cache folder that cannot be written (here a file; also a read-only or full disk) costs the
    export, made in a folder of this process only, instead of failing every search."""
    from litnav.corpus import onnx_export

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("LITNAV_CACHE_DIR", str(blocker))
    monkeypatch.setattr(onnx_export, "_build", lambda model, backend, folder: (
        folder / onnx_export.MODEL_FILE[backend]).write_bytes(b"exported"))
    path = onnx_export.exported_model(tmp_path, "ab" * 32, "onnx")
    assert path.read_bytes() == b"exported" and blocker not in path.parents
    assert "cannot write the encoder cache" in caplog.text


def test_a_lexicon_cache_damaged_after_its_first_rows_gives_the_parsed_values(cache_home, tmp_path):
    source = tmp_path / "table.csv.gz"
    source.write_bytes(b"x")
    table = {f"word{i:05d}": {"NOUN": (f"lemma{i}" * 20,)} for i in range(20000)}
    lexicon._cached_table(str(source), lambda p: table)
    [cached] = list((cache_home / "lexicon").iterdir())
    with cached.open("r+b") as f:  # bit rot in the middle of the file; the first page stays readable
        size = cached.stat().st_size
        f.seek(size // 2)
        f.write(b"\xff" * 8192)
    stored = lexicon._cached_table(str(source), lambda p: table)
    assert all(stored.get(k) == v for k, v in table.items())
    assert stored.get("missing", {}) == {}


def test_a_failed_lexicon_write_leaves_no_partial_file(cache_home, tmp_path):
    import sqlite3

    class FillsTheDisk(dict):
        def items(self):
            yield from list(super().items())[:1]
            raise sqlite3.OperationalError("database or disk is full")

    source = tmp_path / "table.csv.gz"
    source.write_bytes(b"x")
    parsed = FillsTheDisk(a=1, b=2)
    assert lexicon._cached_table(str(source), lambda p: parsed) is parsed
    assert list((cache_home / "lexicon").iterdir()) == []


def test_cache_root_expands_home_and_works_without_one(tmp_path, monkeypatch):
    from pathlib import Path

    from litnav.core import cache

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("LITNAV_CACHE_DIR", "~/my-cache")
    assert cache.cache_root("lexicon") == tmp_path / "my-cache" / "lexicon"
    monkeypatch.delenv("LITNAV_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    root = cache.cache_root("lexicon")
    assert root.parent.is_dir() and root.parent == cache.cache_root()


@pytest.mark.parametrize("damage", [
    lambda h: h[:-1] + ("0" if h[-1] != "0" else "1"),  # one flipped digit: still 64 hex digits
    lambda h: "z" * 64,
])
def test_a_damaged_weights_hash_entry_never_changes_the_model_identity(hashed_model, damage):
    import json

    folder, first, entry = hashed_model
    text = entry.read_text()
    entry.write_text(text.replace(first, damage(first)) if first in text else json.dumps(damage(first)))
    enc._HASH_CACHE.clear()
    assert enc.weights_hash(folder) == first


def test_a_process_exits_while_the_encoder_is_still_warming_up(tmp_path):
    """Ctrl-C (or any early exit) during the background load must not wait for the load."""
    import os
    import subprocess
    import sys

    script = (
        "import threading\n"
        "from litnav.corpus import encoder as enc\n"
        "enc._Exported.__init__ = lambda *a, **k: threading.Event().wait()  # a load that never ends\n"
        "assert enc.Encoder(backend='onnx').warm() is not None\n"
        "print('main done', flush=True)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LITNAV_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0 and "main done" in done.stdout


def test_an_interrupted_export_leaves_nothing_behind_after_the_next_one(cache_home, tmp_path, monkeypatch):
    from litnav.corpus import onnx_export

    monkeypatch.setattr(onnx_export, "_build", lambda model, backend, folder: (
        folder / onnx_export.MODEL_FILE[backend]).write_bytes(b"exported"))
    stale = onnx_export.encoder_cache_dir() / f"{'ab' * 8}-v{onnx_export.EXPORT_VERSION}" / "onnx.tmp99999999"
    stale.mkdir(parents=True)
    (stale / "model.onnx").write_bytes(b"half an export of a process killed by Ctrl-C")
    path = onnx_export.exported_model(tmp_path, "ab" * 32, "onnx")
    assert path.read_bytes() == b"exported"
    assert sorted(p.name for p in path.parent.parent.iterdir() if not p.name.endswith(".lock")) == ["onnx"]


def test_a_lexicon_file_with_values_of_another_format_gives_the_parsed_values(cache_home, tmp_path):
    """A same-named file written by another litnav (values not pickled) is parsed again, not trusted."""
    import json
    import sqlite3

    source = tmp_path / "table.csv.gz"
    source.write_bytes(b"x")
    table = {"word": {"NOUN": ("word",)}}
    lexicon._cached_table(str(source), lambda p: table)
    [cached] = list((cache_home / "lexicon").iterdir())
    with sqlite3.connect(cached) as conn:
        conn.execute("UPDATE t SET v = ?", (json.dumps({"NOUN": ["other"]}).encode(),))
    conn.close()
    assert lexicon._cached_table(str(source), lambda p: table).get("word") == {"NOUN": ("word",)}


@pytest.mark.parametrize("name", ["cache#1", "what?mode=rw", "100%25 full"])
def test_a_lexicon_cache_under_any_folder_name_is_read_back(tmp_path, monkeypatch, name):
    monkeypatch.setenv("LITNAV_CACHE_DIR", str(tmp_path / name))
    source = tmp_path / "table.csv.gz"
    source.write_bytes(b"x")
    calls = []

    def parse(path):
        calls.append(path)
        return {"word": 1}

    lexicon._cached_table(str(source), parse)
    again = lexicon._cached_table(str(source), parse)
    assert isinstance(again, lexicon.StoredTable) and again.get("word") == 1 and len(calls) == 1
