"""Supervision mined from a corpus: one positive per query (its own paper), hard negatives from
other papers, and nothing that gives the answer away (no title beside a title query, no query
sentence left in its own passage)."""

from __future__ import annotations

import gzip
import json
import zlib

import numpy as np
import pytest

from litnav.training.mine import mine_rows, read_papers

TOPICS = ["protein folding", "coral reefs", "topological insulators", "perovskite solar cells", "minimum wage",
          "machine translation", "graph neural networks", "sepsis prediction", "dark matter", "soil carbon"]


def fake_encoder(texts: list[str]) -> np.ndarray:
    """Bag-of-words vectors hashed into 64 dimensions, L2-normalised (deterministic)."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, zlib.crc32(w.encode()) % 64] += 1.0
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


@pytest.fixture()
def papers(tmp_path):
    path = tmp_path / "papers.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for i, topic in enumerate(TOPICS):
            abstract = (f"We study {topic} in detail. The {topic} problem matters for science. "
                        f"Our {topic} method improves results by ten percent. We release code for {topic}.")
            fh.write(json.dumps({"id": f"p{i}", "title": f"A new look at {topic}", "abstract": abstract}) + "\n")
        fh.write(json.dumps({"id": "short", "title": "Too short", "abstract": "One sentence only."}) + "\n")
    return read_papers(path)


def test_read_papers_skips_short_abstracts_and_names_bad_lines(papers, tmp_path):
    assert len(papers) == len(TOPICS) and all(len(p["sentences"]) >= 3 for p in papers)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "title": "x", "abstract": "y"}\nnot json\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        read_papers(bad)


def test_each_query_has_its_own_paper_as_the_only_positive(papers):
    rows = list(mine_rows(papers, encoder=fake_encoder, seed=0))
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(r.group.split(":", 1)[0], []).append(r)
    assert {g.split("-")[2] for g in groups} == {"title", "sentence"}
    for key, rs in groups.items():
        src = key.rsplit("-", 1)[1]
        pos = [r for r in rs if r.label_score == 5.0]
        assert [r.paper.corpus_id for r in pos] == [src]
        assert all(r.paper.corpus_id != src for r in rs if r.label_score == 0.0)
        assert len(rs) >= 3 and all(r.source == "mined" for r in rs)
        query = rs[0].checkpoint.text
        if "-title-" in key:
            assert all(r.paper.title == "" for r in rs)  # the title would give the answer away
        else:
            assert query not in (pos[0].paper.abstract or "")  # the query sentence is removed
            assert all(query not in e.text for e in pos[0].evidence)


def test_mining_is_deterministic(papers):
    a = [r.model_dump_json() for r in mine_rows(papers, encoder=fake_encoder, seed=3)]
    b = [r.model_dump_json() for r in mine_rows(papers, encoder=fake_encoder, seed=3)]
    assert a == b


def test_run_reports_heldout_auc_with_base_rate(papers, tmp_path):
    """``training.cross_encoder_run`` (feature engine: no torch training) trains on mined rows
    and reports held-out AUC and accuracy beside the base rate, for every engine."""
    from litnav.training.cross_encoder_run import main
    from litnav.training.data import write_rows

    train, test = tmp_path / "train.jsonl", tmp_path / "test.jsonl"
    write_rows(mine_rows(papers[:7], encoder=fake_encoder, seed=0, n_bm25=1, n_dense=1, n_random=1), train)
    write_rows(mine_rows(papers, encoder=fake_encoder, seed=1, n_bm25=1, n_dense=1, n_random=1), test)
    report_path = tmp_path / "report.json"
    assert main(["--mined", str(train), "--heldout-mined", str(test), "--engine", "feature",
                 "--feature-out", str(tmp_path / "student.json"), "--report", str(report_path)]) == 0
    report = json.loads(report_path.read_text())
    (held,) = report["heldout"].values()
    assert set(held) == {"feature_student_bundled", "feature_student_mixed", "dense_cosine_only"}
    for numbers in held.values():
        assert 0.0 <= numbers["auc"] <= 1.0 and numbers["base_rate_accuracy"] >= 0.5
        assert numbers["n"] == sum(1 for _ in open(test))
    from litnav.scorer import load_student
    from litnav.scorer.student import calibration

    student = load_student(tmp_path / "student.json")
    assert calibration(student) == ("mined", ("topic",))


def test_command_reports_a_bad_second_file_before_loading_the_encoder(tmp_path, monkeypatch, capsys):
    import litnav.training.mine as mine

    def no_encoder():
        raise AssertionError("the encoder was loaded before the input was read")

    monkeypatch.setattr(mine, "default_encoder", no_encoder)
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"id": "1", "title": "t", "abstract": "a"}) + "\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(SystemExit) as exc:
        mine.main(["--jsonl", str(good), "--jsonl", str(bad), "--out", str(tmp_path / "rows.jsonl")])
    assert exc.value.code == 2
    assert "bad.jsonl:1" in capsys.readouterr().err
    assert not (tmp_path / "rows.jsonl").exists()
