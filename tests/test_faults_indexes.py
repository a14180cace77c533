"""Fault injection: damaged index files are detected, named, and repaired (issue 12, case 2)."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from litnav.cli import _register, app
from litnav.corpus import Corpus, CorpusError
from litnav.ingest import build

PAPERS = [{"id": f"p{i}", "title": f"Paper {i} about dense passage retrieval",
           "abstract": f"We study retrieval number {i} for question answering."} for i in range(6)]


@pytest.fixture(scope="module")
def runner():
    _register()
    return CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("idx")
    src = root / "p.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in PAPERS))
    build([src], root / "c", fmt="jsonl", progress=False, settings=None)
    return src, root / "c"


@pytest.fixture
def corpus(built, tmp_path):
    src, original = built
    copy = tmp_path / "c"
    shutil.copytree(original, copy)
    return src, copy


def _truncate(path):
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _bm25_file(c):
    return sorted(p for p in (c / "index" / "bm25").iterdir() if p.suffix == ".npy" and p.name != "ids.npy")[0]


def _out_of_range(path):
    import numpy as np

    rows = np.load(path, mmap_mode="r+")
    rows[:] = 10**9  # same size, same header: only a query notices
    rows.flush()


DAMAGE = {
    "faiss truncated": (lambda c: _truncate(c / "index" / "abstracts.faiss"), "abstracts.faiss", "semantic"),
    "faiss ids truncated": (lambda c: _truncate(c / "index" / "abstracts.ids.npy"), "abstracts.ids.npy", "semantic"),
    "bm25 ids truncated": (lambda c: _truncate(c / "index" / "bm25" / "ids.npy"), "ids.npy", "lexical"),
    "bm25 matrix truncated": (lambda c: _truncate(_bm25_file(c)), "bm25", "lexical"),
    "bm25 deleted": (lambda c: shutil.rmtree(c / "index" / "bm25"), "bm25", "lexical"),
    "bm25 rows out of range": (lambda c: _out_of_range(c / "index" / "bm25" / "indices.csc.index.npy"), "bm25",
                               "lexical"),
}


def _search(c, kind):
    with Corpus.open(c) as corpus:
        if kind == "semantic":
            return corpus.semantic_search("dense retrieval", 3)
        return corpus.lexical_search("dense retrieval", 3)


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_index_is_named_with_the_fix_and_check_repair_fixes_it(runner, corpus, case):
    _, c = corpus
    damage, name, kind = DAMAGE[case]
    damage(c)
    with pytest.raises(CorpusError) as err:
        _search(c, kind)
    message = str(err.value)
    assert name in message and f"litnav check --corpus {c} --repair" in message and "\n" not in message
    res = runner.invoke(app, ["check", "--corpus", str(c)])
    assert res.exit_code == 1 and name in res.output and "Traceback" not in res.output
    res = runner.invoke(app, ["check", "--corpus", str(c), "--repair", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert _search(c, kind)
    assert runner.invoke(app, ["check", "--corpus", str(c)]).exit_code == 0


def test_search_cli_reports_a_damaged_index_in_one_line(runner, corpus, tmp_path):
    _, c = corpus
    _truncate(c / "index" / "abstracts.faiss")
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(c), "--rounds", "1",
                              "--json", str(tmp_path / "s.json")])
    assert res.exit_code == 1 and res.exception is None or isinstance(res.exception, SystemExit)
    assert "abstracts.faiss" in res.output and "--repair" in res.output and "Traceback" not in res.output


def test_same_size_corruption_is_found_by_the_checksum(runner, corpus):
    _, c = corpus
    path = c / "index" / "abstracts.faiss"
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))
    res = runner.invoke(app, ["check", "--corpus", str(c)])
    assert res.exit_code == 1 and "checksum" in res.output and "abstracts.faiss" in res.output


@pytest.mark.parametrize("case", ["faiss truncated", "bm25 deleted"])
def test_plain_rebuild_repairs_damaged_indexes(corpus, case):
    src, c = corpus
    damage, _, kind = DAMAGE[case]
    damage(c)
    build([src], c, fmt="jsonl", progress=False)
    assert _search(c, kind)
