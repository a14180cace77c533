"""The cross-encoder student: learns a tiny separable set in one epoch (16 pairs, 64 tokens),
round-trips through its folder, is picked by ``load_student`` and plugs into ``score_papers``."""

from __future__ import annotations

import numpy as np
import pytest

from litnav.core.records import Checklist, Checkpoint, Evidence
from litnav.corpus.records import Paper
from litnav.scorer import load_student, score_papers
from litnav.scorer.student import StudentError
from litnav.training.agreement import agreement
from litnav.training.data import RowCheckpoint, RowEvidence, RowPaper, TrainingRow
from litnav.training.train import row_input

TOPICS = ["machine translation", "protein folding", "graph neural networks", "speech recognition",
          "sentiment analysis", "image segmentation", "drug discovery", "question answering"]
OTHER = "We describe pottery styles and kiln temperatures."


def rows() -> list[TrainingRow]:
    out = []
    for i, topic in enumerate(TOPICS):
        for label in (1, 0):
            out.append(TrainingRow(
                checkpoint=RowCheckpoint(kind="topic", text=f"papers on {topic}"),
                paper=RowPaper(title=f"Advances in {topic}" if label else f"Pottery {i}"),
                evidence=[RowEvidence(text=f"We propose a new method for {topic} and evaluate it." if label else OTHER,
                                      similarity=0.5)],
                label_score=5.0 * label, label_relevant=label, source="teacher", group=f"q{i}:{label}"))
    return out


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from litnav.training.cross_encoder import train_cross_encoder

    student = train_cross_encoder(rows(), seed=0, epochs=1, batch_size=4, learning_rate=3e-4, max_seq_length=64,
                                  name="student:ce-test")
    folder = tmp_path_factory.mktemp("ce") / "student"
    student.save(folder)
    return student, folder


def test_learns_separable_pairs(trained):
    student, _ = trained
    m = agreement(student, rows())
    assert m["accuracy"] == 1.0 and m["auc"] == 1.0 and m["spearman"] > 0.8
    p = student.predict_satisfaction([row_input(r) for r in rows()])
    assert (p[::2] > 0.5).all() and (p[1::2] < 0.5).all()
    assert student.training["kind"] == "cross-encoder" and student.training["seed"] == 0


def test_folder_round_trip_and_load_student_picks_the_kind(trained):
    student, folder = trained
    loaded = load_student(folder)
    assert type(loaded).__name__ == "CrossEncoderStudent" and loaded.name == "student:ce-test"
    items = [row_input(r) for r in rows()]
    np.testing.assert_allclose(loaded.predict_satisfaction(items), student.predict_satisfaction(items), atol=1e-6)


def test_plugs_into_score_papers(trained):
    student, _ = trained
    paper = Paper(corpus_id="p1", title="Advances in machine translation")
    checklist = Checklist(intent="machine translation", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="papers on machine translation")])
    ev = Evidence(chunk_id="p1:0", corpus_id="p1", section="Abstract", char_start=0, char_end=52,
                  text="We propose a new method for machine translation and evaluate it.", similarity=0.5)
    [scored] = score_papers([paper], checklist, {"p1": {"c1": [ev]}}, student)
    assert scored.judgements[0].engine == "student:ce-test" and scored.judgements[0].score > 2.5
    assert scored.probability_engine == "student:ce-test" and 0.0 <= scored.final_score <= 1.0


def test_bad_student_folder_is_named(tmp_path):
    with pytest.raises(StudentError, match="needs student.json"):
        load_student(tmp_path)
    (tmp_path / "student.json").write_text('{"format": "nope"}')
    with pytest.raises(StudentError, match="format 'nope'"):
        load_student(tmp_path)


def _ranked(n: int) -> list:
    from litnav.core.records import ScoredPaper
    return [ScoredPaper(corpus_id=f"p{i}", judgements=[], probability=0.5, final_score=0.5) for i in range(n)]


def test_reranker_lifts_what_the_model_prefers_and_keeps_every_candidate(trained):
    from litnav.reranker.cross_encoder import cross_encoder_rerank
    from litnav.scorer.cross_encoder import pair_scorer

    _, folder = trained
    score = pair_scorer(str(folder))
    ranked = _ranked(8)
    texts = {f"p{i}": f"Pottery {i}. {OTHER}" for i in range(8)}
    texts["p5"] = "Advances in protein folding. We propose a new method for protein folding and evaluate it."
    cache: dict[str, float] = {}
    out = cross_encoder_rerank("papers on protein folding", ranked, texts, score, top_n=6, weight=50.0,
                               cache=cache)
    assert max(cache, key=cache.get) == "p5" and out[0].corpus_id == "p5"
    assert sorted(p.corpus_id for p in out) == sorted(p.corpus_id for p in ranked)
    assert [p.corpus_id for p in out[6:]] == ["p6", "p7"]  # past top_n: untouched
    assert set(cache) == {f"p{i}" for i in range(6)}
    same = cross_encoder_rerank("papers on protein folding", ranked, texts, score, top_n=6, weight=0.0)
    assert [p.corpus_id for p in same] == [p.corpus_id for p in ranked]


def test_reranker_uses_cached_logits_and_ranks_papers_without_text_last():
    from litnav.reranker.cross_encoder import cross_encoder_rerank

    def no_call(pairs):
        raise AssertionError(f"scored {pairs} although every paper with text is cached")

    ranked = _ranked(4)
    cache = {"p0": -5.0, "p1": -4.0, "p2": 9.0}
    out = cross_encoder_rerank("anything", ranked, {"p0": "a", "p1": "b", "p2": "c"}, no_call, top_n=4,
                               weight=10.0, cache=cache)
    assert [p.corpus_id for p in out] == ["p2", "p1", "p0", "p3"]


def test_pair_scorer_names_a_missing_folder(tmp_path):
    from litnav.scorer.cross_encoder import pair_scorer

    with pytest.raises(StudentError, match="nope: no such cross-encoder folder"):
        pair_scorer(str(tmp_path / "nope"))


def test_abstract_passage_and_bf16_round_trip(tmp_path):
    from litnav.training.cross_encoder import train_cross_encoder

    data = [r.model_copy(update={"evidence": [], "paper": r.paper.model_copy(
        update={"abstract": r.evidence[0].text})}) for r in rows()]
    student = train_cross_encoder(data, seed=0, epochs=1, batch_size=4, learning_rate=3e-4, max_seq_length=64,
                                  passage="abstract", precision="bf16")
    student.save(tmp_path / "s")
    loaded = load_student(tmp_path / "s")
    assert loaded.passage == "abstract" and student.training["precision"] == "bf16"
    p = loaded.predict_satisfaction([row_input(r) for r in data])
    assert np.corrcoef(p, [r.label_score for r in data])[0, 1] > 0.5


def test_delta_weights_round_trip_and_name_foreign_tensors(trained, tmp_path):
    from safetensors.torch import save_file

    student, _ = trained
    student.save(tmp_path / "d", delta=True)
    assert not list((tmp_path / "d").glob("cross_encoder*"))
    loaded = load_student(tmp_path / "d")
    items = [row_input(r) for r in rows()]
    np.testing.assert_allclose(loaded.predict_satisfaction(items), student.predict_satisfaction(items), atol=2e-2)
    import torch
    (weights,) = (tmp_path / "d").glob("delta-*.safetensors")
    save_file({"not.a.tensor.of.minilm": torch.zeros(2)}, str(weights))
    with pytest.raises(StudentError, match=r"delta-\w+\.safetensors: .*tensors not of the bundled"):
        load_student(tmp_path / "d")


def test_a_save_killed_midway_leaves_the_previous_model_whole(trained, tmp_path):
    """Weights were written in place and student.json after them: a retrain killed during the save
    left new weights beside the old document, and the folder loaded without a word. New weights now
    get a new name that only the new document names; a truncated file is an error naming it."""
    student, _ = trained
    folder = tmp_path / "m"
    student.save(folder, delta=True)
    doc = (folder / "student.json").read_text()
    items = [row_input(r) for r in rows()]
    before = load_student(folder).predict_satisfaction(items)
    # a second save killed after writing its weights, before its document: the old model stands
    (folder / "delta-deadbeef.safetensors").write_bytes(b"partial")
    assert (folder / "student.json").read_text() == doc
    np.testing.assert_allclose(load_student(folder).predict_satisfaction(items), before)
    (folder / "cross_encoder_notes.txt").write_text("mine")  # a user's own file in the folder
    student.save(folder, delta=True)  # a completed save removes the weights no document names
    assert len(list(folder.glob("delta*.safetensors"))) == 1 and not (folder / "delta-deadbeef.safetensors").exists()
    assert (folder / "cross_encoder_notes.txt").read_text() == "mine"
    (weights,) = folder.glob("delta-*.safetensors")
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(StudentError, match=r"delta-\w+\.safetensors: cannot load the cross-encoder weights"):
        load_student(folder)
    with pytest.raises(StudentError, match="a weights file; give the model's folder"):
        load_student(weights)


def test_cli_trains_an_abstract_reranker_saved_as_a_delta(tmp_path):
    from typer.testing import CliRunner

    from litnav.cli import _register, app
    from litnav.training.data import write_rows

    data = tmp_path / "rows.jsonl"
    write_rows(rows(), data)
    runner = CliRunner()
    _register()
    out = tmp_path / "reranker"
    res = runner.invoke(app, ["scorer", "train", str(data), "--out", str(out), "--kind", "cross-encoder",
                              "--passage", "abstract", "--trainable-layers", "2", "--delta", "--epochs", "1",
                              "--max-seq-length", "64", "--heldout", "0", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "\"kind\": \"cross-encoder\"" in res.output
    assert len(list(out.glob("delta-*.safetensors"))) == 1 and not list(out.glob("cross_encoder*"))
    assert load_student(out).passage == "abstract"
    res = runner.invoke(app, ["scorer", "train", str(data), "--out", str(tmp_path / "s.json"), "--delta"])
    assert res.exit_code == 2 and "--kind cross-encoder" in res.output
    weights = sorted(p.name for p in out.iterdir())  # a feature student never silently replaces it
    res = runner.invoke(app, ["scorer", "train", str(data), "--out", str(out), "--heldout", "0", "--no-progress"])
    assert res.exit_code == 2 and "holds a cross-encoder student" in res.output
    assert sorted(p.name for p in out.iterdir()) == weights and load_student(out).passage == "abstract"
    res = runner.invoke(app, ["scorer", "train", str(data), "--out", str(out / "student.json"), "--heldout", "0",
                              "--no-progress"])
    assert res.exit_code == 2 and "holds a cross-encoder student" in res.output
    res = runner.invoke(app, ["scorer", "train", str(data), "--out", str(out), "--heldout", "0", "--no-progress",
                              "--force"])
    assert res.exit_code == 0, res.output
