"""Build a tiny corpus once and check every tier, the chunk invariants, resolution and search."""

from __future__ import annotations

import pytest
from fixtures.corpus.docs import citations, documents, rejects

from litnav.corpus import Corpus, CorpusError, CorpusSettings, CorpusWriter
from litnav.corpus.records import Paper

SETTINGS = CorpusSettings(chunk_tokens=32, chunk_embeddings="eager")


def build(path, docs=None, settings=SETTINGS, key="in/a.jsonl"):
    with CorpusWriter.open(path, settings) as w:
        if not w.is_ingested(key, 10, "sha-a"):
            with w.source(key, 10, "sha-a") as tx:
                tx.add_documents(docs if docs is not None else documents())
                tx.add_citations(citations())
                tx.add_rejects(rejects())
        return w.finalize(progress=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "c"
    timings = build(path)
    with Corpus.open(path) as c:
        yield path, c, timings


def test_finalize_reports_stage_timings(built):
    _, _, timings = built
    assert {"resolve", "chunk", "embed", "faiss", "chunk_vectors", "bm25", "total"} <= set(timings)


def test_stats_counts(built):
    _, c, _ = built
    s = c.stats()
    assert {k: s[k] for k in ("papers", "abstracts", "full_texts", "rejects")} == {
        "papers": 5, "abstracts": 4, "full_texts": 2, "rejects": 1}
    # p1->p3 (doc + dump merged), p2->p3 (dump), p1->p2 (title), p5->p1 (title)
    assert s["citations"] == 4
    assert s["model"]["dim"] == 384 and s["indexes_dirty"] is False


def test_metadata_round_trip(built):
    _, c, _ = built
    original = documents()[0].paper
    assert c.paper("p1") == original
    assert isinstance(c.papers(["p1", "p2", "nope"])["p2"], Paper)
    assert set(c.papers(["p1", "p2", "nope"])) == {"p1", "p2"}
    assert c.paper("nope") is None
    assert c.all_ids() == ["p1", "p2", "p3", "p4", "p5"]
    assert c.venues() == {"CVPR": 1, "ICLR": 1, "NeurIPS": 1, "Nature": 1}


def test_abstract_and_full_text(built):
    _, c, _ = built
    d = documents()[0]
    assert c.abstract("p1") == d.abstract
    assert c.abstract("p4") is None
    body = [p.text for p in d.paragraphs if p.text.strip()]
    assert c.full_text("p1") == "\n\n".join([d.abstract, *body])
    assert c.full_text("p3") == documents()[2].abstract
    assert c.full_text("p4") is None
    text = c.full_text("p1")
    for idx, _, a, b in c.paragraphs("p1"):
        assert text[a:b] == body[idx - 1]


def test_chunk_offsets_and_token_limit(built):
    _, c, _ = built
    enc = c.encoder
    for cid in c.all_ids():
        text = c.full_text(cid)
        chunks = c.chunks(cid)
        assert [ch.chunk_id for ch in chunks] == [f"{cid}:{i}" for i in range(len(chunks))]
        for ch in chunks:
            assert text[ch.char_start:ch.char_end] == ch.text
            assert enc.count_tokens(ch.text) <= SETTINGS.chunk_tokens
    p1 = c.chunks("p1")
    abstract = [ch for ch in p1 if ch.section == "Abstract"]
    assert [ch.text for ch in abstract] == [
        "We propose the Transformer, based solely on attention mechanisms.",
        "Experiments on two translation tasks show it is superior, e.g. 28.4 BLEU on WMT 2014."]
    assert {ch.section for ch in p1} == {"Abstract", "Introduction", "Model"}
    assert len([ch for ch in p1 if ch.section == "Model"]) > 3  # the long sentence was split
    assert c.chunks("p3")[0].section == "Abstract"  # abstract-only papers have evidence
    assert c.chunks("p4") == []


def test_citations_merge_and_title_resolution(built):
    _, c, _ = built
    refs = {r.cited_id: r for r in c.references("p1")}
    assert set(refs) == {"p2", "p3"}
    assert refs["p2"].method == "title"
    assert refs["p2"].contexts == ["Residual connections [12] are used around each sub-layer."]
    assert refs["p3"].method == "source"
    assert set(refs["p3"].contexts) == {"Adam [20] was used.", "Optimiser as in [20]."}
    assert refs["p3"].intents == ["methodology"]
    # p5 cites p1 by a title differing only in case/punctuation; p4's year is 14 years off.
    assert [r.cited_id for r in c.references("p5")] == ["p1"]
    assert sorted(x.citing_id for x in c.citations("p3")) == ["p1", "p2"]
    assert c.citations("p4") == []


def test_lookups(built):
    _, c, _ = built
    assert c.find_by_external_id("doi", "https://doi.org/10.5555/abc.123") == "p1"
    assert c.find_by_external_id("arxiv", "arXiv:1706.03762") == "p1"
    assert c.find_by_external_id("arxiv", "1512.03385v2") == "p2"
    assert c.find_by_external_id("doi", "10.1/none") is None
    with pytest.raises(ValueError):
        c.find_by_external_id("isbn", "1")
    assert c.find_by_title("ADAM: a method for stochastic optimization.") == ["p3"]
    assert c.find_by_title("Adam: A Method for Stochastic Optimization", year=2015) == ["p3"]
    assert c.find_by_title("Adam: A Method for Stochastic Optimization", year=2020) == []
    assert ("p3", "adam a method for stochastic optimization") in c.title_index()


def test_semantic_search(built):
    _, c, _ = built
    hits = c.semantic_search("residual networks for deep image classification", k=3)
    assert hits[0].corpus_id == "p2"
    assert hits[0].score >= hits[1].score
    restricted = c.semantic_search("residual networks for deep image classification", k=5, ids={"p3", "p5"})
    assert {h.corpus_id for h in restricted} == {"p3", "p5"}
    vec = c.encode(["stochastic gradient optimizer with adaptive moments"])[0]
    assert c.semantic_search(vec, k=1)[0].corpus_id == "p3"


def test_lexical_search(built):
    _, c, _ = built
    hits = c.lexical_search("sentiment of movie reviews", k=3)
    assert hits[0].corpus_id == "p5"
    assert c.lexical_search("zzzunknownword", k=3) == []


def test_vectors_and_samples(built):
    _, c, _ = built
    chunks, vecs = c.chunk_vectors("p1")
    assert vecs.shape == (len(chunks), 384) and vecs.dtype.name == "float32"
    assert abs(float((vecs ** 2).sum(axis=1).max()) - 1.0) < 1e-4
    ids, sample = c.sample_abstract_vectors(3)
    assert len(ids) == 3 and sample.shape == (3, 384)
    assert c.stats()["chunk_vectors_mode"] == "eager"


def test_manifest_and_noop_rebuild(built, tmp_path):
    path, c, _ = built
    before = c.dump()
    fingerprint = c.fingerprint()
    manifest = c.manifest()
    assert [(m["source_key"], m["documents"], m["citations"], m["rejects"]) for m in manifest] == [
        ("in/a.jsonl", 5, 2, 1)]
    c.close()
    timings = build(path)  # the same input: skipped, nothing re-embedded or rebuilt
    assert "faiss" not in timings and "bm25" not in timings
    with Corpus.open(path) as again:
        assert again.dump() == before
        assert again.fingerprint() == fingerprint


def test_open_errors(tmp_path):
    with pytest.raises(CorpusError, match="does not exist"):
        Corpus.open(tmp_path / "missing")
    (tmp_path / "notcorpus").mkdir()
    (tmp_path / "notcorpus" / "x.txt").write_text("x")
    with pytest.raises(CorpusError, match="notcorpus"):
        Corpus.open(tmp_path / "notcorpus")
    with pytest.raises(CorpusError, match="not a corpus"):
        CorpusWriter.open(tmp_path / "notcorpus")


def test_build_connections_run_under_the_configured_duckdb_memory_limit(tmp_path):
    """``corpus.duckdb_memory_limit`` caps DuckDB in a build (past it DuckDB spills to disk); a
    value DuckDB would not read is refused by the settings, naming the field."""
    import duckdb
    import pydantic

    from litnav.core.settings import CorpusSettings
    from litnav.corpus import CorpusWriter

    reference = duckdb.connect()
    reference.execute("SET memory_limit = '300MB'")
    expected = reference.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    with CorpusWriter.open(tmp_path / "c", CorpusSettings(duckdb_memory_limit="300MB")) as w:
        assert w.conn.execute("SELECT current_setting('memory_limit')").fetchone()[0] == expected
    for bad in ("plenty", "0MB", "1KB", "99999999999999999999TB"):  # 0 or a few KB: DuckDB fails mid-build
        with pytest.raises(pydantic.ValidationError, match="duckdb_memory_limit"):
            CorpusSettings(duckdb_memory_limit=bad)
    assert CorpusSettings(duckdb_memory_limit="2gb").duckdb_memory_limit == "2GB"
