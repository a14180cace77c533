"""Bad input at the CLI: clear one-line errors, nothing stored touched."""

from __future__ import annotations

import gzip
import json

import pytest
from typer.testing import CliRunner

from litnav.cli import _register, app

RECORDS = [{"id": "a1", "title": "Dense retrieval for question answering", "abstract": "We retrieve passages."},
           {"id": "a2", "title": "Sentiment of movie reviews", "abstract": "We classify reviews."}]


@pytest.fixture(scope="module")
def runner():
    _register()
    return CliRunner()


def _write_gz(path, records):
    with gzip.open(path, "wt") as fh:
        for r in records:
            fh.write(json.dumps(r) + "\n")


def test_truncated_gzip_source_names_the_file(runner, tmp_path):
    good = tmp_path / "good.jsonl.gz"
    _write_gz(good, RECORDS)
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(good.read_bytes()[:30])
    res = runner.invoke(app, ["build", str(bad), "--corpus", str(tmp_path / "c"), "--format", "jsonl"])
    assert res.exit_code != 0
    assert "bad.jsonl.gz" in res.output and "damaged or truncated" in res.output
    assert "Traceback" not in res.output


def test_interrupted_corpus_is_refused_for_search_with_a_hint(runner, tmp_path):
    from litnav.ingest import build

    src = tmp_path / "p.jsonl.gz"
    _write_gz(src, RECORDS)
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(tmp_path / "c")])
    assert res.exit_code != 0 and "rerun the same `litnav build" in res.output
    res = runner.invoke(app, ["stats", "--corpus", str(tmp_path / "c"), "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["indexes_dirty"] is True


def test_stats_lists_rejects_with_file_line_and_reason(runner, tmp_path):
    src = tmp_path / "r.jsonl"
    src.write_text(json.dumps(RECORDS[0]) + "\n{broken\n" + json.dumps({"id": "x", "title": 5}) + "\n")
    res = runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c"), "--format", "jsonl"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["stats", "--corpus", str(tmp_path / "c"), "--json", "--rejects", "10"])
    data = json.loads(res.output)
    assert data["rejects"] == 2
    lines = sorted(r["line"] for r in data["rejected"])
    assert lines == [2, 3] and all(r["source_file"].endswith("r.jsonl") and r["reason"] for r in data["rejected"])


def test_verify_with_no_references_is_an_error(runner, tmp_path):
    src = tmp_path / "p.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    assert runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c"), "--format", "jsonl"]).exit_code == 0
    empty = tmp_path / "refs.bib"
    empty.write_text("no entries here\n")
    res = runner.invoke(app, ["verify", str(empty), "--corpus", str(tmp_path / "c")])
    assert res.exit_code != 0 and "no references found" in res.output


def test_build_that_stores_nothing_is_an_error(runner, tmp_path):
    src = tmp_path / "papers.jsonl"
    src.write_text(json.dumps({"acl_id": "a1", "title": "A title"}) + "\n")
    res = runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c"), "--map", "id=no_such_field",
                              "--no-progress"])
    assert res.exit_code != 0 and "every record of" in res.output and "--rejects" in res.output
    assert "is searchable with BM25" not in res.output  # it said "searchable with BM25 ... works now" before the error
    assert "a --map field that no record has" in res.output


def test_full_texts_built_without_their_metadata_say_to_name_it(runner, tmp_path, shared_data):
    """The hint blamed a --map field the user never gave: S2ORC 2020 pdf_parses carry no title and
    need their metadata shard in the same build."""
    src = shared_data / "s2orc-samples" / "doc2json-fixtures" / "s2orc_20200705"
    res = runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c"), "--no-progress"])
    assert res.exit_code != 0 and "name the metadata file in the same build" in res.output and "--map" not in res.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    res = runner.invoke(app, ["build", str(empty), "--corpus", str(tmp_path / "e"), "--format", "jsonl",
                              "--no-progress"])
    assert res.exit_code != 0 and "no records" in res.output


def test_a_damaged_database_is_a_one_line_error_not_a_traceback(tmp_path, monkeypatch, capsys):
    import sys

    import duckdb

    from litnav.cli import main
    from litnav.corpus import Corpus

    def damaged(*args, **kwargs):
        raise duckdb.IOException('IO Error: Could not read enough bytes from file "corpus.duckdb"\nmore')

    (tmp_path / "c").mkdir()
    monkeypatch.setattr(Corpus, "open", damaged)
    monkeypatch.setattr(sys, "argv", ["litnav", "stats", "--corpus", str(tmp_path / "c")])
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 1
    err = capsys.readouterr().err
    assert "corpus database cannot be read" in err and "litnav check" in err and "more" not in err


def test_a_folder_without_a_model_is_refused_and_never_stored(runner, tmp_path):
    src = tmp_path / "p.jsonl.gz"
    _write_gz(src, RECORDS)
    corpus = tmp_path / "c"
    res = runner.invoke(app, ["build", str(src), "--corpus", str(corpus), "--format", "jsonl",
                              "--set", f"corpus.model_path={tmp_path}"])
    assert res.exit_code != 0 and "holds no sentence-transformers model" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["build", str(src), "--corpus", str(corpus), "--format", "jsonl",
                              "--set", "corpus.abstract_embeddings=false"])
    assert res.exit_code == 0, res.output  # the bad path was not kept for the next build


def test_a_missing_student_file_is_a_clear_error():
    from litnav.scorer import StudentError, load_student

    with pytest.raises(StudentError, match="no such student file"):
        load_student("/nonexistent/student.json")


def test_a_missing_cross_encoder_folder_fails_before_the_search_with_its_setting(runner, tmp_path):
    src = tmp_path / "p.jsonl.gz"
    _write_gz(src, RECORDS)
    corpus = tmp_path / "c"
    res = runner.invoke(app, ["build", str(src), "--corpus", str(corpus), "--format", "jsonl",
                              "--set", "corpus.abstract_embeddings=false"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(corpus),
                              "--set", f"reranker.cross_encoder_path={tmp_path / 'nope'}"])
    assert res.exit_code != 0 and "no such cross-encoder folder (reranker.cross_encoder_path)" in res.output
    assert "Traceback" not in res.output


def test_stats_lists_the_venues_and_years_constraints_can_name(runner, search_corpus_dir):
    res = runner.invoke(app, ["stats", "--corpus", str(search_corpus_dir), "--json", "--venues", "2"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["venues"] == {"ACL": 5, "EMNLP": 5}  # most papers first, ties by name
    assert sum(data["papers_per_year"].values()) == data["papers"] == 14


def test_outputs_never_destroy_a_corpus_an_input_or_a_session(runner, search_corpus_dir, tmp_path):
    """A tester's `refine ... --out CORPUS/corpus.duckdb` destroyed the corpus and `search --json
    papers.jsonl` an input file; both are refused before any work, and nothing is changed."""
    import shutil

    corpus = tmp_path / "corpus"
    shutil.copytree(search_corpus_dir, corpus)
    db = corpus / "corpus.duckdb"
    before = db.read_bytes()
    data = tmp_path / "papers.jsonl"
    data.write_text(json.dumps(RECORDS[0]) + "\n")
    session = tmp_path / "s.json"
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(corpus), "--json", str(session),
                              "--no-interactive"])
    assert res.exit_code == 0, res.output
    for args, why in [
        (["search", "dense retrieval", "--corpus", str(corpus), "--json", str(data)], "not a litnav session"),
        (["search", "dense retrieval", "--corpus", str(corpus), "--json", str(corpus / "s.json")], "inside the corpus"),
        (["refine", str(session), "show 3 results", "--out", str(db)], "inside the corpus"),
        (["export", str(session), "--format", "csv", "--out", str(session)], "is a litnav session file"),
        (["report", str(session), "--out", str(session)], "is a litnav session file"),
    ]:
        res = runner.invoke(app, args)
        assert res.exit_code != 0 and why in res.output, (args, res.output)
    # nor over the input it reads, a file the corpus was built from, or through a file posing as a folder
    bib = tmp_path / "refs.bib"
    assert runner.invoke(app, ["export", str(session), "--format", "bibtex", "--out", str(bib)]).exit_code == 0
    bib_before = bib.read_text()
    built = tmp_path / "built.jsonl"
    built.write_text(json.dumps(RECORDS[1]) + "\n")
    small = tmp_path / "small"
    assert runner.invoke(app, ["build", str(built), "--corpus", str(small)]).exit_code == 0
    small_session = tmp_path / "small.json"
    assert runner.invoke(app, ["search", "sentiment", "--corpus", str(small), "--json", str(small_session),
                               "--no-interactive"]).exit_code == 0
    for args, why in [
        (["verify", str(bib), "--corpus", str(corpus), "--json", str(bib)], "is an input of this command"),
        (["export", str(small_session), "--format", "csv", "--out", str(built)], "the corpus was built from"),
        (["report", str(small_session), "--out", str(built)], "the corpus was built from"),
        (["search", "dense retrieval", "--corpus", str(corpus), "--json", str(data / "x.json")], "is a file, not a folder"),
    ]:
        res = runner.invoke(app, args)
        assert res.exit_code != 0 and why in " ".join(res.output.split()), (args, res.output)
        assert "references:" not in res.output  # refused before the work
    assert bib.read_text() == bib_before and json.loads(built.read_text()) == RECORDS[1]
    assert db.read_bytes() == before and json.loads(data.read_text()) == RECORDS[0]
    assert json.loads(session.read_text())["intent"] == "dense retrieval"
    assert not (corpus / "s.json").exists()
    # a session may replace a session, an export any other file
    res = runner.invoke(app, ["refine", str(session), "show 3 results"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["export", str(session), "--format", "csv", "--out", str(data)])
    assert res.exit_code == 0 and data.read_text().startswith("rank,"), res.output


def test_refining_on_another_corpus_is_refused(runner, search_corpus_dir, tmp_path):
    other = tmp_path / "other"
    res = runner.invoke(app, ["build", *_records_file(tmp_path), "--corpus", str(other)])
    assert res.exit_code == 0, res.output
    session = tmp_path / "s.json"
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(search_corpus_dir), "--json",
                              str(session), "--no-interactive"])
    assert res.exit_code == 0, res.output
    before = session.read_text()
    res = runner.invoke(app, ["refine", str(session), "show 3 results", "--corpus", str(other)])
    assert res.exit_code != 0 and "is not the corpus this session searched" in res.output, res.output
    assert session.read_text() == before
    # a report too reads its evidence from the session's corpus (it was written silently)
    res = runner.invoke(app, ["report", str(session), "--corpus", str(other), "--out", str(tmp_path / "r.html")])
    assert res.exit_code != 0 and "is not the corpus this session searched" in res.output, res.output
    assert not (tmp_path / "r.html").exists()


def _records_file(tmp_path) -> list[str]:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return [str(path)]


def test_a_date_refinement_on_a_corpus_without_years_says_it_cannot_apply(runner, tmp_path):
    # a fresh user's "more recent" on the SciFact corpus (no years) changed nothing, silently
    res = runner.invoke(app, ["build", *_records_file(tmp_path), "--corpus", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    session = tmp_path / "s.json"
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(tmp_path / "c"), "--json", str(session),
                              "--no-interactive"])
    assert res.exit_code == 0, res.output
    for feedback in ("more recent", "only papers after 2019"):
        res = runner.invoke(app, ["refine", str(session), feedback])
        assert res.exit_code != 0 and "no paper of this corpus has a publication year" in " ".join(res.output.split())
