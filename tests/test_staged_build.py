"""Staged builds: a corpus is searchable with BM25 as soon as its lexical indexes are built, while
the build embeds the abstracts; dense retrieval joins when the vectors are in; a build killed while
embedding resumes the embedding without reading its sources again.

The corpus is the search fixture's fourteen papers written as a generic JSONL file.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from litnav.core.settings import Settings
from litnav.corpus import Corpus, DenseUnavailableError
from litnav.ingest import build
from litnav.navigator import search

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
QUERY = "dense retrieval for question answering"


@pytest.fixture()
def source(search_jsonl: Path) -> Path:
    """The search fixture papers as one generic JSONL file (``conftest.search_jsonl``)."""
    return search_jsonl

def _notes(session) -> list[str]:
    return [run.note for r in session.rounds for run in r.operator_runs if run.note]


def test_lexical_stage_searches_with_bm25_only_and_dense_joins_when_built(source: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    stages: list[str] = []
    report = build([source], corpus, progress=False, stop_after="lexical",
                   on_stage=lambda stage, seconds: stages.append(stage))
    assert stages == ["lexical"] and "searchable" in report.seconds and "dense" not in report.seconds
    assert (corpus / "embed").is_dir()  # what the dense phase will embed is listed there

    with Corpus.open(corpus) as c:
        assert c.build_stage() == "lexical" and c.stats()["build_stage"] == "lexical"
        assert set(c.missing_channels()) == {"semantic"}
        assert c.lexical_search("dense passage retrieval open-domain question answering", 3)[0].corpus_id == "dpr"
        with pytest.raises(DenseUnavailableError, match="not built yet"):
            c.semantic_search(QUERY, 3)
        assert c.abstract_vectors(["dpr"])[0] == []
        assert c.stats()["chunks"] == 0  # not chunked yet: a reader makes a paper's chunks on demand
        on_demand = {cid: c.chunks(cid) for cid in ("dpr", "bird", "survey")}
        assert all(on_demand.values())
        session = search(QUERY, c, Settings(), rounds=1, top_k=5)
    assert session.results, "a corpus in the lexical stage must answer searches with BM25"
    found = {f.channel for r in session.results for f in r.found_by}
    assert "lexical" in found and "semantic" not in found
    retrieval = session.engines["retrieval"]
    assert retrieval.startswith("lexical (bm25); missing: semantic") and "not built yet" in retrieval
    assert any(n.startswith("semantic channel skipped") for n in _notes(session))

    stages.clear()
    report = build([source], corpus, progress=False, on_stage=lambda stage, seconds: stages.append(stage))
    assert report.ingested_files == [] and report.skipped_files  # the source is not read again
    assert stages == ["lexical", "dense"] and not (corpus / "embed").exists()
    with Corpus.open(corpus) as c:
        assert c.build_stage() == "complete" and not c.missing_channels()
        assert c.semantic_search(QUERY, 14)  # every paper has a vector now
        assert c.stats()["vectors"] == 14
        assert {cid: c.chunks(cid) for cid in on_demand} == on_demand  # the build stored the same chunks
        session = search(QUERY, c, Settings(), rounds=1, top_k=5)
    assert session.engines["retrieval"] == "semantic (dense) + lexical (bm25)"
    assert "semantic" in {f.channel for r in session.results for f in r.found_by}
    assert not any(n.startswith("semantic channel skipped") for n in _notes(session))


def test_other_processes_search_while_the_build_embeds(source: Path, tmp_path: Path) -> None:
    """The build holds no read-write connection while it embeds: another process opens the corpus
    and searches it with BM25 meanwhile; the build then publishes the vectors."""
    corpus = tmp_path / "corpus"
    script = textwrap.dedent(f"""
        import sys
        import litnav.corpus.build as b
        real = b._embed_abstracts
        def paused(*a, **k):
            print("embedding", flush=True)
            sys.stdin.readline()
            return real(*a, **k)
        b._embed_abstracts = paused
        from litnav.ingest import build
        build([{str(source)!r}], {str(corpus)!r}, progress=False)
        print("done", flush=True)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    try:
        assert proc.stdout.readline().strip() == "embedding", proc.stderr.read()[-2000:]
        probe = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(f"""
                from litnav.corpus import Corpus
                with Corpus.open({str(corpus)!r}) as c:
                    print(c.build_stage(), sorted(c.missing_channels()), c.lexical_search("songbird", 1)[0].corpus_id)
            """)], cwd=ROOT, capture_output=True, text=True, timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        assert probe.returncode == 0, probe.stderr[-2000:]
        assert probe.stdout.split() == ["lexical", "['semantic']", "bird"]
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "done", proc.stderr.read()[-2000:]
    finally:
        proc.stdin.close()
        proc.wait(timeout=300)
    assert proc.returncode == 0
    with Corpus.open(corpus) as c:
        assert c.build_stage() == "complete" and c.semantic_search(QUERY, 1)


def test_build_killed_while_embedding_resumes_without_reading_sources(source: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    corpus, reference = tmp_path / "corpus", tmp_path / "reference"
    build([source], reference, progress=False)
    # shards of 4 texts; the process dies (no cleanup, like SIGKILL) while embedding the third shard
    script = textwrap.dedent(f"""
        import os
        import litnav.corpus.build as b
        from litnav.corpus.encoder import Encoder
        b.EMBED_BATCH = 4
        real, calls = Encoder.encode, []
        def encode(self, texts, *a, **k):
            calls.append(len(texts))
            if len(calls) == 3:
                os._exit(9)
            return real(self, texts, *a, **k)
        Encoder.encode = encode
        from litnav.ingest import build
        build([{str(source)!r}], {str(corpus)!r}, progress=False)
    """)
    killed = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert killed.returncode == 9, killed.stderr[-2000:]
    assert len(list((corpus / "embed").glob("abstracts-*.npz"))) == 2
    with Corpus.open(corpus) as c:  # the killed build left a corpus searchable with BM25
        assert c.build_stage() == "lexical" and c.lexical_search("songbird", 1)[0].corpus_id == "bird"

    import importlib

    from litnav.corpus.encoder import Encoder

    ingest_build = importlib.import_module("litnav.ingest.build")  # the module (the package exports the function)

    def no_reading(*a, **k):
        raise AssertionError("the sources were read again")

    monkeypatch.setattr(ingest_build, "iter_unit", no_reading)
    embedded: list[int] = []
    real = Encoder.encode

    def counting(self, texts, *a, **k):
        embedded.append(len(texts))
        return real(self, texts, *a, **k)

    monkeypatch.setattr(Encoder, "encode", counting)
    report = build([source], corpus, progress=False)
    assert report.ingested_files == [] and report.skipped_files
    assert sum(embedded) == 14 - 2 * 4  # only the papers of the shards the killed build had not written
    with Corpus.open(corpus) as c, Corpus.open(reference) as ref:
        assert c.build_stage() == "complete"
        got, want = c.dump(), ref.dump()
        for table in ("papers", "chunks", "citations"):
            assert got[table] == want[table], table
        assert [r[:2] for r in got["vectors"]] == [r[:2] for r in want["vectors"]]  # ids and text hashes
        assert np.allclose([r[2] for r in got["vectors"]], [r[2] for r in want["vectors"]], atol=1e-4)
        assert [h.corpus_id for h in c.semantic_search(QUERY, 14)] == [h.corpus_id for h in ref.semantic_search(QUERY, 14)]


def test_publish_waits_for_readers_and_a_rerun_publishes_without_embedding(
        source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that keeps the corpus open past the build's wait stops the build with an error that
    says to rerun it; the rerun publishes the vectors already embedded (nothing is embedded again)."""
    import importlib

    from litnav.corpus import CorpusBusyError
    from litnav.corpus.encoder import Encoder

    corpus = tmp_path / "corpus"
    stage_module = importlib.import_module("litnav.corpus.build")
    writer_module = importlib.import_module("litnav.corpus.writer")
    monkeypatch.setattr(writer_module, "PUBLISH_WAIT_S", 1.0)
    real = stage_module._embed_abstracts
    holders: list[subprocess.Popen] = []

    def embed_then_a_reader_opens(*a, **k):
        n = real(*a, **k)
        holder = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(f"""
                import sys
                from litnav.corpus import Corpus
                with Corpus.open({str(corpus)!r}) as c:
                    print("holding", c.build_stage(), flush=True)
                    sys.stdin.read()
            """)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        holders.append(holder)
        assert holder.stdout.readline().split() == ["holding", "lexical"]
        return n

    monkeypatch.setattr(stage_module, "_embed_abstracts", embed_then_a_reader_opens)
    try:
        with pytest.raises(CorpusBusyError, match="rerun the same build"):
            build([source], corpus, progress=False)
    finally:
        for h in holders:
            h.stdin.close()
            h.wait(timeout=60)
    monkeypatch.setattr(stage_module, "_embed_abstracts", real)
    embedded: list[int] = []
    encode = Encoder.encode
    monkeypatch.setattr(Encoder, "encode", lambda self, texts, *a, **k: embedded.append(len(texts)) or
                        encode(self, texts, *a, **k))
    build([source], corpus, progress=False)
    assert embedded == []
    with Corpus.open(corpus) as c:
        assert c.build_stage() == "complete" and c.stats()["vectors"] == 14


def test_papers_added_to_a_complete_corpus_keep_dense_retrieval_over_the_last_build(source: Path,
                                                                                   tmp_path: Path) -> None:
    """While a build embeds papers added to (or removed from) a complete corpus, dense retrieval
    keeps searching the last complete build's vectors, says so, and never returns a removed paper;
    a build that drops the vectors (another model) does not serve the old index meanwhile."""
    import json

    corpus = tmp_path / "corpus"
    lines = source.read_text().splitlines()
    first = tmp_path / "first.jsonl"
    first.write_text("\n".join(lines) + "\n")
    build([first], corpus, progress=False)
    with Corpus.open(corpus) as c:
        before = [h.corpus_id for h in c.semantic_search(QUERY, 14)]
    removed = before[0]
    first.write_text("\n".join(line for line in lines if json.loads(line)["id"] != removed) + "\n")
    added = tmp_path / "added.jsonl"
    added.write_text(json.dumps({"id": "new-dr", "title": "Dense retrieval for open question answering",
                                 "abstract": "We train dense retrieval for question answering.", "year": 2021}) + "\n")
    build([first, added], corpus, progress=False, stop_after="lexical")

    with Corpus.open(corpus) as c:
        assert c.build_stage() == "lexical" and not c.missing_channels()
        why = c.partial_channels()["semantic"]
        assert "14 papers; the corpus now holds 14" in why and "until the build" in why
        hits = [h.corpus_id for h in c.semantic_search(QUERY, 14)]
        assert hits == [cid for cid in before if cid != removed]  # the old index, less the removed paper
        assert c.lexical_search("dense retrieval open question answering", 3)[0].corpus_id == "new-dr"
        session = search(QUERY, c, Settings(), rounds=1, top_k=5)
    assert "semantic (dense) + lexical (bm25); partial: semantic" in session.engines["retrieval"]
    assert any(n.startswith("semantic channel partial") for n in _notes(session))
    assert removed not in {r.corpus_id for r in session.results}
    from litnav.corpus.integrity import verify
    report = verify(corpus)
    assert not report.problems and "last complete build" in report.checked["dense"]

    build([first, added], corpus, progress=False)
    with Corpus.open(corpus) as c:
        assert c.build_stage() == "complete" and not c.partial_channels()
        assert "new-dr" in {h.corpus_id for h in c.semantic_search(QUERY, 3)}

    build([first, added], corpus, progress=False, reembed=True, stop_after="lexical")  # every vector dropped
    with Corpus.open(corpus) as c:
        assert set(c.missing_channels()) == {"semantic"} and not c.partial_channels()
        with pytest.raises(DenseUnavailableError, match="not built yet"):
            c.semantic_search(QUERY, 3)


def test_a_changed_paper_is_re_embedded_alone_and_never_found_by_its_old_vector(source: Path, tmp_path: Path,
                                                                                 monkeypatch) -> None:
    """Changing one record of a file re-embeds that paper only (the others keep their vectors);
    until it is embedded, dense retrieval over the last complete build never returns it for the
    text it no longer has."""
    import json

    from litnav.corpus.encoder import Encoder

    corpus = tmp_path / "corpus"
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    build([papers], corpus, progress=False)
    with Corpus.open(corpus) as c:
        changed = c.semantic_search(QUERY, 1)[0].corpus_id
    for r in rows:
        if r["id"] == changed:
            r.update(title="Lattice QCD at finite temperature", abstract="We simulate quarks and gluons on a lattice.")
    papers.write_text("".join(json.dumps(r) + "\n" for r in rows))

    build([papers], corpus, progress=False, stop_after="lexical")
    with Corpus.open(corpus) as c:
        assert c.partial_channels() and changed not in {h.corpus_id for h in c.semantic_search(QUERY, 14)}

    encoded: list[str] = []
    real = Encoder.encode
    monkeypatch.setattr(Encoder, "encode", lambda self, texts, *a, **k: encoded.extend(texts) or real(self, texts, *a, **k))
    build([papers], corpus, progress=False)
    unchanged = [r["title"] for r in rows if r["id"] != changed]
    assert encoded and not any(t in text for t in unchanged for text in encoded)
    with Corpus.open(corpus) as c:
        assert c.semantic_search("lattice quarks and gluons", 1)[0].corpus_id == changed
        assert c.stats()["vectors"] == len(rows)
