"""`build_on_ray` (`litnav build --engine ray`): a distributed build equals the local build of the same inputs, and an
interrupted one resumes without recomputing the shards it finished.

The inputs are the S2ORC samples of ../shared/data: the Datasets API sample (papers joined with
abstracts and s2orc, citations), the doc2json fixtures (per-paper S2ORC JSON and 2020 pdf_parses),
and, kept small, 43 rows of the 2020 metadata sample (among them the 3 papers whose pdf_parses are
fixtures, so metadata and pdf_parses join across units) and one unarXive full text.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray is an optional extra (pip install 'litnav[ray]')")

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "data" / "s2orc-samples"
pytestmark = pytest.mark.skipif(not SAMPLES.is_dir(), reason=f"S2ORC samples not found at {SAMPLES}")

JOINED = ('"paper_id": "18980380"', '"paper_id": "18980463"', '"paper_id": "94551546"')


@pytest.fixture(scope="module")
def ray_instance():
    """One local Ray instance for the module (starting Ray takes seconds)."""
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> list[str]:
    folder = tmp_path_factory.mktemp("samples")
    meta = (SAMPLES / "release-2020" / "metadata_sample.jsonl").read_text().splitlines()
    keep = meta[:40] + [line for line in meta[40:] if line.startswith(JOINED)]
    (folder / "metadata_sample.jsonl").write_text("\n".join(keep) + "\n")
    unarxive = (SAMPLES / "unarxive" / "sample" / "arXiv_src_2212_086.jsonl").read_text().splitlines()
    (folder / "unarxive.jsonl").write_text(min(unarxive, key=len) + "\n")
    return [str(SAMPLES / "datasets-api"), str(SAMPLES / "doc2json-fixtures"), str(folder)]


@pytest.fixture(scope="module")
def local_corpus(sources, tmp_path_factory) -> Path:
    from litnav.ingest import build

    path = tmp_path_factory.mktemp("local") / "corpus"
    build(sources, path, progress=False)
    return path


def _tables(path: Path) -> dict:
    """What a corpus holds: every table's rows (vectors apart), the manifest without times, meta counts."""
    conn = duckdb.connect(str(path / "corpus.duckdb"), read_only=True)
    try:
        out = {t: conn.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in (
            "papers", "external_ids", "abstracts", "paragraphs", "chunks", "citations", "refs", "rejects")}
        out["manifest"] = conn.execute("SELECT * EXCLUDE (ingested_at) FROM manifest ORDER BY ALL").fetchall()
        out["meta"] = dict(conn.execute("SELECT key, value FROM meta WHERE key IN "
                                        "('counts', 'model', 'chunking', 'chunk_vectors_mode', 'faiss')").fetchall())
        vectors = conn.execute("SELECT corpus_id, text_hash, vec FROM vectors ORDER BY corpus_id").fetchall()
    finally:
        conn.close()
    out["vector_keys"] = [(cid, h) for cid, h, _ in vectors]
    return out, np.array([v for _, _, v in vectors], dtype=np.float32)


def _assert_same_corpus(local: Path, other: Path) -> None:
    (want, want_vecs), (got, got_vecs) = _tables(local), _tables(other)
    assert want["meta"]["counts"] == got["meta"]["counts"]
    for name in want:
        assert want[name] == got[name], name
    assert want_vecs.shape == got_vecs.shape and want_vecs.shape[0] > 100
    if '"fp32"' in want["meta"]["model"]:
        np.testing.assert_allclose(got_vecs, want_vecs, atol=1e-5)
    else:  # bf16: a text's vector moves with the batch it is padded in (the shards batch differently)
        assert float((got_vecs * want_vecs).sum(1).min()) > 0.9999


def test_ray_build_equals_local_build(ray_instance, sources, local_corpus, tmp_path):
    from litnav.ingest.ray_build import build_on_ray

    report = build_on_ray(sources, tmp_path / "corpus", progress=False)
    _assert_same_corpus(local_corpus, tmp_path / "corpus")
    units = len(report.ingested_files)
    assert report.shards["computed"] == units and report.shards["reused"] == 0
    # the cluster chunked and embedded every paper: finalize had nothing left to embed
    papers = report.corpus["papers"]
    assert report.shards["vectors"] == papers and report.shards["papers_chunked"] == papers
    assert not (tmp_path / "corpus" / "staging").exists()


def test_interrupted_ray_build_resumes_without_redoing_shards(ray_instance, sources, local_corpus, tmp_path,
                                                              monkeypatch):
    from litnav.ingest import ray_build

    merge = ray_build._merge
    merged: list[str] = []

    def merge_then_die(writer, u, *args, **kwargs):
        if len(merged) == 2:  # the driver dies after committing two shards
            raise KeyboardInterrupt
        merge(writer, u, *args, **kwargs)
        merged.append(u.key)

    monkeypatch.setattr(ray_build, "_merge", merge_then_die)
    with pytest.raises(KeyboardInterrupt):
        ray_build.build_on_ray(sources, tmp_path / "corpus", progress=False)
    staged = [p for p in (tmp_path / "corpus" / "staging").iterdir() if not p.name.startswith(".")]
    assert len(staged) >= 3  # the third shard was published before the driver died
    monkeypatch.setattr(ray_build, "_merge", merge)

    report = ray_build.build_on_ray(sources, tmp_path / "corpus", progress=False)
    assert sorted(report.skipped_files) == sorted(merged)
    assert report.shards["reused"] >= len(staged) - 2 >= 1
    assert report.shards["computed"] + report.shards["reused"] == len(report.ingested_files)
    _assert_same_corpus(local_corpus, tmp_path / "corpus")

    again = ray_build.build_on_ray(sources, tmp_path / "corpus", progress=False)
    assert again.ingested_files == [] and again.shards["computed"] == 0
