"""The ingest write path stores the same rows however the writes are batched: dump citation edges
replace stored edges of the same pair (the last edge given wins, in its position), across batches
and across input files, and a failed input leaves none of its edges behind."""

from __future__ import annotations

import duckdb
import pytest

from litnav.corpus import CorpusWriter
from litnav.corpus.records import Citation
from litnav.corpus.schema import DB_NAME


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
