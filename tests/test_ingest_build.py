"""End-to-end builds from the fixtures through corpus.CorpusWriter."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from litnav.corpus import Corpus
from litnav.ingest import build


def _stats(path: Path) -> dict:
    c = Corpus.open(path)
    try:
        return {k: v for k, v in c.stats().items() if isinstance(v, int)}
    finally:
        c.close()


@pytest.fixture(scope="module")
def built(fixtures: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    corpus = tmp_path_factory.mktemp("c") / "corpus"
    src = fixtures / "ingest"
    report = build([src / "generic.jsonl", src / "papers", src / "s2_*.jsonl"], corpus, progress=False)
    return corpus, report


def test_build_counts_and_records(built) -> None:
    corpus, report = built
    assert report.read.papers == 3 + 2 + 3
    assert report.read.rejects == 4 + 4
    stats = _stats(corpus)
    assert stats["papers"] == 8 and stats["rejects"] == 8
    c = Corpus.open(corpus)
    try:
        assert c.paper("2020.acl-main.999").venue == "ACL"
        assert c.abstract("501") == "The findings abstract."
        assert {x.citing_id for x in c.citations("501")} >= {"502"}
    finally:
        c.close()


def test_rerun_is_noop(built, fixtures: Path) -> None:
    corpus, first = built
    src = fixtures / "ingest"
    again = build([src / "generic.jsonl", src / "papers", src / "s2_*.jsonl"], corpus, progress=False)
    assert again.ingested_files == [] and len(again.skipped_files) == len(first.ingested_files)
    assert _stats(corpus) == _stats(corpus)


def test_new_shard_only_and_newer_record_replaces(fixtures: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    first = tmp_path / "a.jsonl"
    shutil.copy(fixtures / "ingest" / "generic.jsonl", first)
    build([tmp_path / "*.jsonl"], corpus, progress=False)
    newer = tmp_path / "b.jsonl"
    newer.write_text(json.dumps({"acl_id": "N18-3011", "title": "Renamed", "abstract": "New."}) + "\n")
    report = build([tmp_path / "*.jsonl"], corpus, progress=False)
    assert report.ingested_files == [str(newer.resolve())]
    c = Corpus.open(corpus)
    try:
        assert c.paper("N18-3011").title == "Renamed" and c.abstract("N18-3011") == "New."
    finally:
        c.close()
