"""Crash safety of ``ingest.build``: a build killed mid-ingest or mid-finalize and then re-run
gives the same corpus as an uninterrupted build; a second concurrent writer gets a clear error.

The kill is deterministic: the build runs in a subprocess whose Nth ``add_documents`` call
(or whose abstract-embedding stage) calls ``os._exit`` — no cleanup, no rollback, like SIGKILL.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import numpy as np
import pytest

from litnav.corpus import Corpus, CorpusLockedError
from litnav.corpus.schema import DB_NAME
from litnav.ingest import build

ROOT = Path(__file__).resolve().parents[1]
BATCH = 10

KILLERS = {
    # 3rd batch of documents = the middle of the second generated file (25 records = 3 batches each)
    "ingest": """
        from litnav.corpus.writer import SourceTransaction
        real, calls = SourceTransaction.add_documents, []
        def add_documents(self, docs):
            calls.append(1)
            if len(calls) == 5:
                os._exit(9)
            return real(self, docs)
        SourceTransaction.add_documents = add_documents
    """,
    # after title resolution and chunking were committed, before any vector is
    "finalize": """
        import litnav.corpus.build
        def _embed_abstracts(*a, **k):
            os._exit(9)
        litnav.corpus.build._embed_abstracts = _embed_abstracts
    """,
}


def _sources(fixtures: Path, folder: Path) -> list[Path]:
    """The ingest fixtures plus three generated generic files of 25 papers each."""
    folder.mkdir()
    for f in range(3):
        with (folder / f"gen_{f}.jsonl").open("w") as fh:
            for i in range(25):
                fh.write(json.dumps({
                    "id": f"g{f}-{i}", "title": f"Generated paper {f} number {i} on topic {i % 4}",
                    "abstract": f"Paper {i} of file {f}. It studies topic {i % 4}." if i % 3 else None,
                    "year": 2000 + i, "venue": "EMNLP" if i % 2 else "Proceedings of ACL",
                    "authors": [f"Author {i}", "Shared Author"]}) + "\n")
    src = fixtures / "ingest"
    return [src / "generic.jsonl", src / "papers", src / "s2_papers.jsonl", src / "s2_abstracts.jsonl",
            src / "s2_citations.jsonl", src / "s2_s2orc.jsonl", folder / "gen_*.jsonl"]


def _dump(corpus: Path) -> dict[str, object]:
    """Every table's rows as a sorted list (vectors apart, as arrays keyed by id)."""
    con = duckdb.connect(str(corpus / DB_NAME), read_only=True)
    try:
        out: dict[str, object] = {}
        for table in ("papers", "external_ids", "abstracts", "paragraphs", "chunks", "citations", "refs", "rejects"):
            out[table] = sorted(map(repr, con.execute(f"SELECT * FROM {table}").fetchall()))
        out["manifest"] = sorted(map(repr, con.execute(
            "SELECT source_key, size, sha256, documents, citations, rejects FROM manifest").fetchall()))
        out["vectors"] = {(r[0], r[1]): np.asarray(r[2]) for r in con.execute(
            "SELECT corpus_id, text_hash, vec FROM vectors").fetchall()}
        out["chunk_vectors"] = {(r[0], r[1]): np.asarray(r[2]) for r in con.execute(
            "SELECT corpus_id, ordinal, vec FROM chunk_vectors").fetchall()}
        return out
    finally:
        con.close()


def _stats(corpus: Path) -> dict[str, int]:
    c = Corpus.open(corpus)
    try:
        return {k: v for k, v in c.stats().items() if isinstance(v, int)}
    finally:
        c.close()


def _same(a: dict, b: dict) -> None:
    for table in a:
        if table.endswith("vectors"):
            assert a[table].keys() == b[table].keys(), table
            for key in a[table]:
                np.testing.assert_allclose(a[table][key], b[table][key], atol=1e-5, err_msg=f"{table} {key}")
        else:
            assert a[table] == b[table], table


@pytest.fixture(scope="module")
def sources(fixtures: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return _sources(fixtures, tmp_path_factory.mktemp("src") / "gen")


@pytest.fixture(scope="module")
def reference(sources: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = tmp_path_factory.mktemp("ref") / "corpus"
    build(sources, corpus, progress=False, batch_size=BATCH)
    return corpus


@pytest.mark.parametrize("stage", sorted(KILLERS))
def test_killed_build_resumes_to_the_same_corpus(stage: str, sources: list[Path], reference: Path,
                                                 tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    script = "import os, sys\n" + textwrap.dedent(KILLERS[stage]) + textwrap.dedent(f"""
        from litnav.ingest import build
        build({[str(s) for s in sources]!r}, {str(corpus)!r}, progress=False, batch_size={BATCH})
        sys.exit(0)
    """)
    killed = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert killed.returncode == 9, killed.stderr[-2000:]

    report = build(sources, corpus, progress=False, batch_size=BATCH)
    if stage == "ingest":  # the files committed before the kill are skipped, the rest redone
        assert report.skipped_files and report.ingested_files
    else:
        assert report.ingested_files == [] and report.skipped_files
    assert _stats(corpus) == _stats(reference)
    _same(_dump(corpus), _dump(reference))


def test_second_writer_gets_a_clear_lock_error(sources: list[Path], tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from litnav.corpus import CorpusWriter
            with CorpusWriter.open({str(corpus)!r}):
                print("holding", flush=True)
                sys.stdin.read()
        """)],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(CorpusLockedError, match="being written by another process"):
            build(sources, corpus, progress=False, finalize=False)
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert holder.returncode == 0
    report = build(sources[:1], corpus, progress=False, finalize=False)  # the lock is free again
    assert report.ingested_files
