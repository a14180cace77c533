"""Staged builds and big-corpus settings together: a BM25-only corpus (``corpus.abstract_embeddings
=false``) goes through the same stages and reports its missing dense channel the same way as a corpus
whose abstracts are still being embedded; past ``ivf_threshold`` the staged dense phase builds the
streamed IVF-PQ index from the stored vectors plus the new shards."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from litnav.core.settings import CorpusSettings, Settings
from litnav.corpus import Corpus, CorpusWriter
from litnav.corpus.integrity import verify
from litnav.ingest import build
from litnav.navigator import search

FIXTURES = Path(__file__).resolve().parent / "fixtures"
QUERY = "dense retrieval for question answering"


@pytest.fixture()
def source(search_jsonl: Path) -> Path:
    """The search fixture papers as one generic JSONL file (``conftest.search_jsonl``)."""
    return search_jsonl

def test_bm25_only_corpus_reports_missing_dense_in_every_stage(source: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    settings = Settings(corpus=CorpusSettings(abstract_embeddings=False))
    stages: list[str] = []
    build([source], corpus, settings=settings, progress=False, stop_after="lexical",
          on_stage=lambda stage, seconds: stages.append(stage))
    with Corpus.open(corpus) as c:
        assert c.build_stage() == "lexical" and not c.dense_available()
        assert "not built yet" in c.missing_channels()["semantic"]
    assert verify(corpus).problems == []  # a lexical-stage corpus is healthy

    build([source], corpus, settings=settings, progress=False, on_stage=lambda stage, seconds: stages.append(stage))
    assert stages == ["lexical", "lexical"]  # no "dense" stage for a BM25-only corpus
    assert not (corpus / "embed").exists()
    with Corpus.open(corpus) as c:
        assert c.build_stage() == "complete" and not c.dense_available()
        assert "abstract_embeddings=false" in c.missing_channels()["semantic"]
        stats = c.stats()
        assert stats["faiss"] is None and stats["vectors"] == 0 and stats["chunks"] > 0
        assert c.semantic_search(QUERY, 3) == []
        assert c.abstract_vectors(["dpr"])[0] == []
        session = search(QUERY, c, Settings(), rounds=1, top_k=5)
    report = verify(corpus)
    assert report.problems == [] and "abstract_embeddings=false" in report.checked["dense"]
    assert session.results
    assert "semantic" not in {f.channel for r in session.results for f in r.found_by}
    retrieval = session.engines["retrieval"]
    assert retrieval.startswith("lexical (bm25); missing: semantic") and "abstract_embeddings=false" in retrieval

    # turning abstract embeddings on and rebuilding adds dense retrieval without reading the sources again
    report = build([source], corpus, settings=Settings(corpus=CorpusSettings(abstract_embeddings=True)),
                   progress=False)
    assert report.ingested_files == []
    with Corpus.open(corpus) as c:
        assert c.dense_available() and not c.missing_channels() and c.stats()["faiss"]["n"] == 14
        assert c.semantic_search(QUERY, 3)


def _docs(n: int, start: int = 0):
    """Papers ``start .. start+n`` of the big-corpus tests' synthetic sequence (seed 1)."""
    from test_big_corpus import synthetic

    return synthetic(start + n, seed=1)[start:]


def test_staged_ivf_from_stored_vectors_and_new_shards(tmp_path: Path) -> None:
    import faiss

    from litnav.corpus.schema import INDEX_DIR
    from litnav.corpus.vectors import load_index

    path = tmp_path / "c"
    settings = CorpusSettings(ivf_threshold=100, ivf_nprobe=8)
    with CorpusWriter.open(path, settings) as w:
        with w.source("in/a.jsonl", 1, "0" * 64) as tx:
            tx.add_documents(_docs(300))
        w.finalize(progress=False)
    with CorpusWriter.open(path, settings) as w:  # 300 vectors stay in the table, 100 are embedded into shards
        with w.source("in/b.jsonl", 1, "1" * 64) as tx:
            tx.add_documents(_docs(100, start=300))
        timings = w.finalize(progress=False)
    assert "faiss" in timings
    with Corpus.open(path) as c:
        assert c.build_stage() == "complete" and c.stats()["faiss"] == {"kind": "ivf", "n": 400}
        index, ids = load_index(path / INDEX_DIR)
        assert isinstance(index, faiss.IndexIVFPQ) and index.ntotal == 400 and sorted(ids) == sorted(set(ids))
        all_ids, exact = c.stored_abstract_vectors()
        assert sorted(ids) == all_ids
        q = exact[all_ids.index("s0350")]  # a paper of the second source: found through its staged vector
        assert c.semantic_search(q, 1)[0].corpus_id == "s0350"
        found, vecs = c.abstract_vectors(["s0350", "s0001"])
        assert found == ["s0350", "s0001"] and np.allclose(vecs, exact[[all_ids.index(i) for i in found]], atol=1e-6)
    assert verify(path).problems == []
