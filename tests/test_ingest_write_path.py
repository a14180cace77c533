"""The ingest write path stores the same rows however the writes are batched: dump citation edges
replace stored edges of the same pair (the last edge given wins, in its position), across batches
and across input files, and a failed input leaves none of its edges behind."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from litnav.corpus import CorpusWriter
from litnav.corpus.records import Citation, Document, Paper
from litnav.corpus.schema import DB_NAME
from litnav.corpus.writer import KeyHashes


def _edge(citing: str, cited: str, context: str = "") -> Citation:
    return Citation(citing_id=citing, cited_id=cited, contexts=[context] if context else [])


def _dump_rows(path) -> list[tuple]:
    con = duckdb.connect(str(path / DB_NAME), read_only=True)
    try:
        return con.execute("SELECT citing_id, cited_id, contexts FROM citations WHERE origin = 'dump' "
                           "ORDER BY rowid").fetchall()
    finally:
        con.close()


def test_dump_edges_replace_across_batches_and_inputs(tmp_path):
    path = tmp_path / "c"
    with CorpusWriter.open(path) as w:
        with w.source("a", 1, "sha-a") as tx:
            tx.add_citations([_edge("p1", "p2", "first"), _edge("p1", "p3")])
        with w.source("b", 1, "sha-b") as tx:
            tx.add_citations([_edge("p4", "p5"), _edge("p1", "p2", "second"), _edge("p4", "p5", "again")])
            tx.add_citations([_edge("p6", "p7"), _edge("p1", "p2", "third")])
            assert tx.counts["citations"] == 4  # per batch, a pair given twice counts once
        manifest = dict(w.conn.execute("SELECT source_key, citations FROM manifest").fetchall())
    assert manifest == {"a": 2, "b": 4}
    assert _dump_rows(path) == [("p1", "p3", []), ("p4", "p5", ["again"]), ("p6", "p7", []),
                                ("p1", "p2", ["third"])]


def test_failed_input_stores_none_of_its_edges(tmp_path):
    path = tmp_path / "c"
    with CorpusWriter.open(path) as w:
        with w.source("a", 1, "sha-a") as tx:
            tx.add_citations([_edge("p1", "p2", "kept")])
        with pytest.raises(RuntimeError), w.source("b", 1, "sha-b") as tx:
            tx.add_citations([_edge("p1", "p2", "lost"), _edge("p3", "p4")])
            raise RuntimeError("reader failed")
        with w.source("c", 1, "sha-c") as tx:  # the staging table of the failed input is gone
            tx.add_citations([_edge("p5", "p6")])
        assert not w.is_ingested("b", 1, "sha-b")
    assert _dump_rows(path) == [("p1", "p2", ["kept"]), ("p5", "p6", [])]


def _doc(cid: str, title: str, doi: str) -> Document:
    return Document(paper=Paper(corpus_id=cid, title=title, external_ids={"doi": doi}, source_file="f", source_line=1))


@pytest.mark.parametrize("reopen", [False, True], ids=["same-writer", "reopened"])
def test_duplicates_and_id_collisions_found_in_earlier_batches_and_builds(tmp_path, reopen):
    """Skipping the per-batch lookups when no key can be stored never hides a duplicate id or a
    shared external id, whether the earlier record came from this writer or an earlier build."""
    path = tmp_path / "c"
    w = CorpusWriter.open(path)
    try:
        with w.source("a", 1, "sha-a") as tx:
            tx.add_documents([_doc("p1", "First", "10.1/x"), _doc("p2", "Second", "10.1/y")])
        if reopen:
            w.close()
            w = CorpusWriter.open(path)
        with w.source("b", 1, "sha-b") as tx:
            tx.add_documents([_doc("p3", "Third", "10.1/z")])
            tx.add_documents([_doc("p1", "First again", "10.1/x"), _doc("p4", "Fourth", "10.1/y")])
            assert (tx.counts["duplicates"], tx.counts["id_collisions"]) == (1, 1)
        reasons = [r[0] for r in w.conn.execute("SELECT reason FROM rejects ORDER BY reason").fetchall()]
    finally:
        w.close()
    assert reasons[0].startswith("duplicate id p1: also at f:1")
    assert reasons[1].startswith("id collision doi:10.1/y of p4 is also the id of p2 (f:1)")


def test_key_hashes_never_miss_an_added_key():
    con = duckdb.connect()
    con.execute("CREATE TABLE t (kind VARCHAR, value VARCHAR)")
    con.execute("INSERT INTO t VALUES ('doi', 'a'), ('doi', 'b')")
    hashes = KeyHashes(con, "t", "kind, value")

    def check(pairs):
        con.register("_v", pa.table({"kind": [k for k, _ in pairs], "value": [v for _, v in pairs]}))
        try:
            return hashes.check_and_add(con, "_v")
        finally:
            con.unregister("_v")

    assert check([("doi", "x"), ("doi", "b")]) == (True, False)
    assert check([("doi", "y"), ("arxiv", "a"), ("doi", "y")]) == (False, True)
    many = [("doi", f"k{i}") for i in range(100_000)]  # past the merge threshold: the sorted array takes them
    assert check(many) == (False, False)
    assert all(check([k])[0] for k in many[::997] + [("doi", "x"), ("arxiv", "a"), ("doi", "a")])
