"""Upserts, crashes and reruns, the writer lock, model mismatch, and lazy vs eager chunk vectors."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from fixtures.corpus.docs import citations, documents, rejects

import litnav.corpus.build
from litnav.corpus import Corpus, CorpusSettings, CorpusWriter, Encoder, ModelMismatchError
from litnav.corpus.errors import CorpusLockedError
from litnav.corpus.records import Document, Paper, Paragraph

EAGER = CorpusSettings(chunk_tokens=32, chunk_embeddings="eager")
LAZY = CorpusSettings(chunk_tokens=32, chunk_embeddings="lazy")
TESTS = Path(__file__).resolve().parent


def ingest(w, key, docs, extra=True):
    with w.source(key, len(key), f"sha-{key}") as tx:
        tx.add_documents(docs)
        if extra:
            tx.add_citations(citations())
            tx.add_rejects(rejects())


def replacement() -> Document:
    return Document(paper=Paper(corpus_id="p2", title="Graph neural networks for molecules", year=2020),
                    abstract="We predict molecular properties with message passing graph networks.",
                    paragraphs=[Paragraph(section="Method", text="Atoms are nodes and bonds are edges.")])


def test_upsert_replaces_everywhere(tmp_path):
    path = tmp_path / "c"
    with CorpusWriter.open(path, EAGER) as w:
        ingest(w, "a", documents())
        w.finalize(progress=False)
    with Corpus.open(path) as c:
        assert c.semantic_search("residual learning image recognition", 1)[0].corpus_id == "p2"
        old_vec = c.abstract_vectors(["p2"])[1][0]
        assert any(r.cited_id == "p2" for r in c.references("p1"))
    with CorpusWriter.open(path) as w:
        ingest(w, "b", [replacement()], extra=False)
        w.finalize(progress=False)
    with Corpus.open(path) as c:
        assert c.paper("p2").title == "Graph neural networks for molecules"
        assert c.abstract("p2") == replacement().abstract
        assert [ch.text for ch in c.chunks("p2")] == [
            replacement().abstract, "Atoms are nodes and bonds are edges."]
        chunks, vecs = c.chunk_vectors("p2")
        assert vecs.shape[0] == len(chunks) == 2
        assert not np.allclose(c.abstract_vectors(["p2"])[1][0], old_vec)
        assert c.stats()["papers"] == 5 and c.stats()["vectors"] == 5
        # the old title no longer resolves p1's reference, the dump edge p2->p3 stays
        assert all(r.cited_id != "p2" for r in c.references("p1"))
        assert [r.cited_id for r in c.references("p2")] == ["p3"]
        # the later copy has no arXiv id: merging field by field keeps the earlier one (issue 12)
        assert c.find_by_external_id("arxiv", "1512.03385") == "p2"
        assert "p2" not in [h.corpus_id for h in c.lexical_search("residual learning", 5)]
        assert c.semantic_search("message passing on molecular graphs", 1)[0].corpus_id == "p2"


def test_exception_in_source_rolls_back_and_rerun_matches(tmp_path):
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    with CorpusWriter.open(clean, EAGER) as w:
        ingest(w, "a", documents())
        w.finalize(progress=False)
    with CorpusWriter.open(crashed, EAGER) as w:
        with pytest.raises(RuntimeError):
            with w.source("a", 1, "sha-a") as tx:
                tx.add_documents(documents()[:3])
                raise RuntimeError("killed mid-file")
        assert not w.is_ingested("a", 1, "sha-a")
        ingest(w, "a", documents())
        # a crash inside finalize (while embedding chunks), then finalize again
        original = litnav.corpus.build._embed_chunks

        def boom(*args, **kwargs):
            raise KeyboardInterrupt

        litnav.corpus.build._embed_chunks = boom
        try:
            with pytest.raises(KeyboardInterrupt):
                w.finalize(progress=False)
        finally:
            litnav.corpus.build._embed_chunks = original
        w.finalize(progress=False)
    with Corpus.open(clean) as a, Corpus.open(crashed) as b:
        assert a.dump() == b.dump()


CRASH_SCRIPT = textwrap.dedent("""
    import os, sys
    sys.path[:0] = [{tests!r}]  # the fixtures; litnav comes from the environment
    from litnav.corpus import CorpusSettings, CorpusWriter
    from fixtures.corpus.docs import documents
    w = CorpusWriter.open(sys.argv[1], CorpusSettings(chunk_tokens=32, chunk_embeddings="eager"))
    with w.source("first", 5, "sha-first") as tx:
        tx.add_documents(documents()[:2])
    with w.source("second", 6, "sha-second") as tx:
        tx.add_documents(documents()[2:])
        os._exit(9)  # killed mid-file: no rollback, no close, lock left behind
""")


def test_killed_process_then_rerun_matches_clean_build(tmp_path):
    script = tmp_path / "crash.py"
    script.write_text(CRASH_SCRIPT.format(tests=str(TESTS)))
    crashed, clean = tmp_path / "crashed", tmp_path / "clean"
    proc = subprocess.run([sys.executable, str(script), str(crashed)], capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr

    def full_build(path):
        with CorpusWriter.open(path, EAGER) as w:
            for key, size, docs in (("first", 5, documents()[:2]), ("second", 6, documents()[2:])):
                if not w.is_ingested(key, size, f"sha-{key}"):
                    with w.source(key, size, f"sha-{key}") as tx:
                        tx.add_documents(docs)
            assert w.is_ingested("first", 5, "sha-first")
            w.finalize(progress=False)

    with CorpusWriter.open(crashed, EAGER) as w:
        assert w.is_ingested("first", 5, "sha-first") and not w.is_ingested("second", 6, "sha-second")
    full_build(crashed)
    full_build(clean)
    with Corpus.open(clean) as a, Corpus.open(crashed) as b:
        assert a.dump() == b.dump()
        assert a.stats()["papers"] == 5


def test_second_writer_is_refused(tmp_path):
    with CorpusWriter.open(tmp_path / "c"):
        with pytest.raises(CorpusLockedError, match="another process"):
            CorpusWriter.open(tmp_path / "c")
    CorpusWriter.open(tmp_path / "c").close()  # released


def test_model_mismatch_and_reembed(tmp_path, monkeypatch):
    path = tmp_path / "c"
    with CorpusWriter.open(path, EAGER) as w:
        ingest(w, "a", documents()[:3])
        w.finalize(progress=False)
    other = Encoder()
    other.__dict__["weights_hash"] = "0" * 64
    with pytest.raises(ModelMismatchError, match="--reembed"):
        Corpus.open(path, encoder=other)
    # the writer's model changes (fake weights hash): finalize refuses, reembed redoes all vectors
    monkeypatch.setattr(Encoder, "weights_hash", property(lambda self: "f" * 64))
    with CorpusWriter.open(path) as w:
        with pytest.raises(ModelMismatchError, match="NEW_DIR"):
            w.finalize(progress=False)
        timings = w.reembed(progress=False)
        assert "faiss" in timings
    with Corpus.open(path) as c:
        assert c.stats()["model"]["weights_hash"] == "f" * 64
        assert c.stats()["vectors"] == 3


def test_lazy_chunk_vectors_match_eager_and_are_cached(tmp_path):
    eager, lazy = tmp_path / "eager", tmp_path / "lazy"
    for path, settings in ((eager, EAGER), (lazy, LAZY)):
        with CorpusWriter.open(path, settings) as w:
            ingest(w, "a", documents()[:3], extra=False)
            w.finalize(progress=False)
    with Corpus.open(eager) as e, Corpus.open(lazy) as z:
        assert z.stats()["chunk_vectors_mode"] == "lazy"
        ce, ve = e.chunk_vectors("p1")
        cz, vz = z.chunk_vectors("p1")
        assert ce == cz and np.allclose(ve, vz, atol=1e-5)
        many = z.chunk_vectors_many(["p1", "p2", "p3"])
        assert set(many) == {"p1", "p2", "p3"}
    assert len(list((lazy / "chunk_cache").rglob("*.npz"))) == 3
    # a cut or garbled cache file reads as missing (re-embedded), never an error
    for cid, damage in (("p1", lambda b: b[:50]), ("p2", lambda b: b"not a zip file at all")):
        with Corpus.open(lazy) as z:
            path = next(p for p in (z._cache_path(cid, r) for r in z._cache_roots()) if p.is_file())
            path.write_bytes(damage(path.read_bytes()))
            assert z._read_cache(cid) is None


def test_title_and_chosen_chunk_vectors_are_cached_across_processes(tmp_path, monkeypatch):
    for path, settings in ((tmp_path / "eager", EAGER), (tmp_path / "lazy", LAZY)):
        with CorpusWriter.open(path, settings) as w:
            ingest(w, "a", documents()[:3], extra=False)
            w.finalize(progress=False)
    with Corpus.open(tmp_path / "eager") as e, Corpus.open(tmp_path / "lazy") as z:
        chunks, all_vecs = e.chunk_vectors("p1")
        picked = [chunks[-1], chunks[0]]
        for c in (e, z):  # the stored table (eager) and the lazy caches give the same vectors, in order
            got = c.vectors_of({"p1": picked})["p1"]
            assert np.allclose(got, all_vecs[[len(chunks) - 1, 0]], atol=1e-5)
        titles = z.title_vectors({"p1": "A title", "p2": "Another title"})
        assert np.allclose(titles["p1"], z.encode(["A title"])[0], atol=1e-5)
    calls = []
    with Corpus.open(tmp_path / "lazy") as z:  # a new reader: vectors come from DIR/chunk_cache
        monkeypatch.setattr(z.encoder, "encode", lambda texts, *a, **k: calls.append(texts) or np.zeros((len(texts), 384)))
        z.title_vectors({"p1": "A title"})
        z.vectors_of({"p1": picked})
        assert calls == []
        z.title_vectors({"p1": "A changed title"})  # a different text is never served a stale vector
        assert calls == [["A changed title"]]
