"""Human labels as a teacher: the BEIR converter (graded qrels, hard and random negatives,
evidence sentences), bad input named by file and line, and the CLI ``scorer convert``."""

from __future__ import annotations

import hashlib
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from litnav.training.beir import from_beir
from litnav.training.data import DataError, TrainingRow, read_rows


def hash_encoder(texts: list[str]) -> np.ndarray:
    """A deterministic bag-of-words encoder (no model): hashed word counts, L2-normalised."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, int(hashlib.md5(w.strip(".,").encode()).hexdigest(), 16) % 64] += 1
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_beir_rows(fixtures):
    rows = list(from_beir(fixtures / "scorer" / "beir", encoder=hash_encoder, n_hard=1, n_random=1, seed=0))
    by = {(r.group.split(":")[0], r.paper.corpus_id): r for r in rows}
    assert {q for q, _ in by} == {"q1", "q2"}  # q3 is unjudged
    assert by["q1", "d1"].label_score == 5.0 and by["q1", "d1"].label_relevant == 1
    assert by["q1", "d2"].label_score == 2.5 and by["q1", "d2"].label_relevant == 1  # graded: 1 of max 2
    assert by["q1", "d4"].label_score == 0.0 and by["q1", "d4"].label_relevant == 0  # judged negative
    assert len([k for k in by if k[0] == "q1"]) == 5  # 3 judged + 1 hard + 1 random
    r = by["q1", "d1"]
    assert r.source == "beir" and r.checkpoint.text == "attention for machine translation"
    assert all(e.text in r.paper.abstract for e in r.evidence) and len(r.evidence) == 2
    assert r.evidence[0].similarity >= r.evidence[1].similarity
    assert rows == list(from_beir(fixtures / "scorer" / "beir", encoder=hash_encoder, n_hard=1, n_random=1, seed=0))


def test_beir_bad_qrels_named(fixtures, tmp_path):
    shutil.copytree(fixtures / "scorer" / "beir", tmp_path / "b")
    (tmp_path / "b" / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td9\t1\n")
    with pytest.raises(DataError, match=r"qrels.tsv: query 'q1' judges documents absent"):
        list(from_beir(tmp_path / "b", encoder=hash_encoder))
    (tmp_path / "b" / "qrels.tsv").write_text("q1\td1\n")
    with pytest.raises(DataError, match=r"qrels.tsv:1: expected query-id"):
        list(from_beir(tmp_path / "b", encoder=hash_encoder))


def test_later_optional_fields_do_not_change_the_stable_dump():
    row = TrainingRow.model_validate({"checkpoint": {"kind": "topic", "text": "t"}, "paper": {"title": "x"},
                                      "label_score": 5, "source": "scifact"})
    dump = row.dump_stable()
    assert "teacher" not in dump and "retrieval_rank" not in dump
    assert "bm25_relative" not in dump
    assert dump == row.model_dump_json(exclude={"teacher": True, "paper": {"retrieval_rank", "bm25_relative", "doc_similarity"}})
    ranked = row.model_copy(update={"paper": row.paper.model_copy(update={"retrieval_rank": 3})})
    assert '"retrieval_rank":3' in ranked.dump_stable()


def test_cli_convert_beir(fixtures, tmp_path, monkeypatch):
    import litnav.training.data
    from litnav.cli import _register, app

    monkeypatch.setattr(litnav.training.data, "default_encoder", lambda batch_size=128: hash_encoder)
    _register()
    out = tmp_path / "beir.jsonl"
    res = CliRunner().invoke(app, ["scorer", "convert", "--format", "beir", str(fixtures / "scorer" / "beir"),
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert len(list(read_rows(out))) > 0 and "rows ->" in res.output
    res = CliRunner().invoke(app, ["scorer", "convert", "--format", "trec", str(tmp_path), "--out", str(out)])
    assert res.exit_code == 2 and "expected scifact or beir" in res.output
    rows = out.read_bytes()  # an existing file (teacher labels paid for) is never overwritten unasked
    res = CliRunner().invoke(app, ["scorer", "convert", "--format", "beir", str(fixtures / "scorer" / "beir"),
                                   "--out", str(out)])
    assert res.exit_code == 2 and "exists" in res.output and "--force" in res.output and out.read_bytes() == rows
    res = CliRunner().invoke(app, ["scorer", "convert", "--format", "beir", str(fixtures / "scorer" / "beir"),
                                   "--out", str(out), "--force"])
    assert res.exit_code == 0, res.output
