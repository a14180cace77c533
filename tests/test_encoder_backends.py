"""Encoder backends (torch, ONNX Runtime fp32/int8, OpenVINO fp32/bf16) and evidence embedded where it is read."""

from __future__ import annotations

import numpy as np
import pytest
from fixtures.corpus.docs import documents

from litnav.corpus import Corpus, CorpusSettings, CorpusWriter, Encoder, ModelMismatchError
from litnav.corpus.encoder import backend_of
from litnav.corpus.lexical import passage_scores

pytest.importorskip("onnxruntime", reason="the ONNX backends need onnxruntime")

TEXTS = ["Deeper neural networks are more difficult to train.",
         "We propose the Transformer, based solely on attention mechanisms, for machine translation. " * 3,
         "BLEU"]


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    """One export cache for this module's tests (the first test exports, the rest reuse)."""
    monkeypatch.setenv("LITNAV_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "encoder-cache"))


def test_onnx_backends_agree_with_torch_and_exports_are_reused():
    ref = Encoder(backend="torch").encode(TEXTS)
    fp32 = Encoder(backend="onnx").encode(TEXTS)
    int8 = Encoder(backend="onnx-int8").encode(TEXTS)
    assert fp32.shape == int8.shape == ref.shape and fp32.dtype == np.float32
    assert np.allclose(np.linalg.norm(int8, axis=1), 1, atol=1e-4)
    assert (fp32 * ref).sum(1).min() > 0.9999
    assert (int8 * ref).sum(1).min() > 0.97
    # fp32 vectors do not depend on the batch a text is in
    single = np.concatenate([Encoder(backend="onnx").encode([t]) for t in TEXTS])
    assert np.allclose(single, fp32, atol=1e-5)
    from litnav.corpus.onnx_export import exported_model

    enc = Encoder(backend="onnx-int8")
    path = exported_model(enc.path, enc.weights_hash, "onnx-int8")
    before = path.stat().st_mtime_ns
    assert exported_model(enc.path, enc.weights_hash, "onnx-int8").stat().st_mtime_ns == before


def test_openvino_backends_pin_their_precision_and_serve_threads():
    from concurrent.futures import ThreadPoolExecutor

    ref = Encoder(backend="onnx").encode(TEXTS)
    fp32 = Encoder(backend="openvino")
    bf16 = Encoder(backend="openvino-bf16")
    assert (fp32.identity()["precision"], bf16.identity()["precision"]) == ("fp32", "bf16")
    assert backend_of(bf16.identity()) == "openvino-bf16" and not bf16.matches(fp32.identity())
    # fp32 is pinned (the plugin's own choice would be bf16 or fp16 on CPUs that have them)
    assert np.allclose(fp32.encode(TEXTS), ref, atol=1e-5)
    assert (bf16.encode(TEXTS) * ref).sum(1).min() > 0.999
    with ThreadPoolExecutor(4) as pool:  # one infer request per thread: concurrent calls never mix
        got = list(pool.map(lambda t: bf16.encode([t] * 3)[0], TEXTS * 4))
    single = np.concatenate([bf16.encode([t] * 3)[:1] for t in TEXTS])
    assert np.allclose(np.stack(got), np.tile(single, (4, 1)), atol=1e-6)


def test_identity_names_backend_and_precision():
    assert Encoder(backend="onnx-int8").identity()["precision"] == "int8"
    assert Encoder(backend="torch").identity()["backend"] == "torch"
    legacy = {k: v for k, v in Encoder(backend="torch").identity().items() if k not in ("backend", "precision")}
    assert Encoder(backend="torch").matches(legacy) and not Encoder(backend="onnx").matches(legacy)
    assert backend_of(legacy) == "torch" and backend_of(Encoder(backend="onnx").identity()) == "onnx"
    with pytest.raises(ValueError, match="unknown encoder backend"):
        Encoder(backend="tensorrt")


def test_corpus_of_one_backend_refuses_another(tmp_path):
    path = tmp_path / "c"
    with CorpusWriter.open(path, CorpusSettings(encoder_backend="onnx", chunk_tokens=32)) as w:
        with w.source("a", 1, "sha-a") as tx:
            tx.add_documents(documents()[:2])
        w.finalize(progress=False)
    with pytest.raises(ModelMismatchError, match="onnxruntime int8"):
        Corpus.open(path, encoder=Encoder(backend="onnx-int8"))
    with Corpus.open(path) as c:  # the recorded backend embeds the queries
        assert c.encoder.backend == "onnx"
        assert c.semantic_search("residual learning", 1)[0].corpus_id == "p2"


def test_passage_scores_rank_chunks_with_query_terms():
    scores = passage_scores(["residual networks ease training", "attention for translation", "nothing"],
                            ["residual training", "machine translation"])
    assert scores.shape == (3, 2)
    assert scores[0, 0] > 0 and scores[1, 0] == 0 and scores[1, 1] > 0 and not scores[2].any()


def test_lazy_evidence_embeds_only_preselected_chunks_once(tmp_path, monkeypatch):
    path = tmp_path / "lazy"
    with CorpusWriter.open(path, CorpusSettings(encoder_backend="onnx", chunk_tokens=32,
                                                chunk_embeddings="lazy")) as w:
        with w.source("a", 1, "sha-a") as tx:
            tx.add_documents(documents())
        w.finalize(progress=False)
    calls: list[int] = []
    original = Encoder.encode

    def counting(self, texts, batch_size=None):
        calls.append(len(texts))
        return original(self, texts, batch_size)

    monkeypatch.setattr(Encoder, "encode", counting)
    with Corpus.open(path) as c:
        all_chunks = {cid: c.chunks(cid) for cid in ("p1", "p2")}
        got = c.evidence_chunks(["p1", "p2"], ["self-attention feed-forward decoder"], per_query=1)
        assert len(calls) == 1  # one batch for both papers
        p1_chunks, p1_vecs = got["p1"]
        assert len(p1_chunks) < len(all_chunks["p1"]) and p1_vecs.shape == (len(p1_chunks), 384)
        assert any("self-attention" in ch.text for ch in p1_chunks)
        assert all(ch.section == "Abstract" for ch in got["p2"][0])  # nothing else matches in p2
        # same vectors as embedding those chunks directly
        assert np.allclose(p1_vecs, original(c.encoder, [ch.text for ch in p1_chunks]), atol=1e-5)
    assert list((path / "chunk_cache").rglob("*.npz"))
    import litnav.corpus.reader as reader

    reader._SHARED.clear()  # a new process: only the disk cache is left
    calls.clear()
    with Corpus.open(path) as c:
        again = c.evidence_chunks(["p1", "p2"], ["self-attention feed-forward decoder"], per_query=1)
        assert calls == [] and np.allclose(again["p1"][1], p1_vecs)


def test_length_batches_cover_every_text_once_and_do_not_mix_long_and_short():
    from litnav.corpus.encoder import length_batches

    lengths = [256, 12, 250, 130, 129, 60, 31, 30, 14, 255]
    batches = length_batches(lengths, size=3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len(b) <= 3 for b in batches)
    for b in batches:  # longest first, none under three quarters of its batch's longest
        assert lengths[b[0]] == max(lengths[i] for i in b)
        assert all(4 * lengths[i] >= 3 * lengths[b[0]] for i in b)
    budgeted = length_batches(lengths, size=64, max_tokens=300)  # padded word pieces per batch
    assert sorted(i for b in budgeted for i in b) == list(range(len(lengths)))
    assert all(len(b) * lengths[b[0]] <= 300 or len(b) == 1 for b in budgeted)
    assert max(map(len, budgeted)) > 1


def test_mixed_length_batches_give_the_vectors_of_one_text_at_a_time():
    enc = Encoder(backend="onnx")
    texts = ["a short one", "knowledge distillation " * 60, "dense retrieval for open-domain question answering"]
    together = enc.encode(texts)
    alone = np.vstack([enc.encode([t]) for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_a_model_folder_without_tokenizer_json_is_a_clear_error(tmp_path):
    import shutil

    from litnav.corpus import CorpusError
    from litnav.corpus.encoder import bundled_model_path

    folder = tmp_path / "model"
    shutil.copytree(bundled_model_path(), folder)
    (folder / "tokenizer.json").unlink()
    encoder = Encoder(folder, backend="onnx")
    encoder.warm().join()  # a failed warm-up is left to encode
    with pytest.raises(CorpusError, match="tokenizer.json"):
        encoder.encode(["dense retrieval"])


def test_a_corpus_of_an_earlier_default_backend_opens_with_settings_and_sessions_record_its_backend(tmp_path):
    """A corpus built with ``onnx`` (the default before ``openvino-bf16``) opens with settings that
    name a model path but no backend, searches record the backend that ran, and an explicitly set
    other backend is refused by name, through a path and through an open corpus alike."""
    import litnav
    from litnav.core.settings import load_settings
    from litnav.corpus.encoder import bundled_model_path

    path = tmp_path / "c"
    with CorpusWriter.open(path, CorpusSettings(encoder_backend="onnx", chunk_tokens=32)) as w:
        with w.source("a", 1, "sha-a") as tx:
            tx.add_documents(documents()[:3])
        w.finalize(progress=False)
    with_path = load_settings(None, [f"corpus.model_path={bundled_model_path()}"])
    with Corpus.open(path, settings=with_path.corpus) as c:
        assert c.encoder_backend == "onnx" and c.encoder.backend == "onnx"
    session = litnav.search("transformer attention", path, settings=load_settings(None, []), rounds=1)
    assert session.settings["corpus"]["encoder_backend"] == "onnx"
    other = load_settings(None, ["corpus.encoder_backend=openvino-bf16"])
    with pytest.raises(ModelMismatchError, match="openvino bf16"):
        Corpus.open(path, settings=other.corpus)
    with Corpus.open(path) as c, pytest.raises(ModelMismatchError, match="onnxruntime fp32"):
        litnav.search("transformer attention", c, settings=other, rounds=1)
