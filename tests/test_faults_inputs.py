"""Fault injection: damaged and changed input files (issue 12, cases 3 and 4)."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma

import pytest
import zstandard
from typer.testing import CliRunner

from litnav.cli import _register, app
from litnav.corpus import Corpus
from litnav.ingest import build

COMPRESS = {
    ".gz": gzip.compress,
    ".zst": lambda b: zstandard.ZstdCompressor().compress(b),
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
}


def papers(n, prefix="p"):
    return [{"id": f"{prefix}{i:04d}", "title": f"Study number {i} of retrieval methods",
             "abstract": f"Abstract {i} about dense and sparse retrieval."} for i in range(n)]


def jsonl_bytes(records):
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def stored_ids(corpus):
    with Corpus.open(corpus) as c:
        return c.all_ids()


@pytest.fixture(scope="module")
def runner():
    _register()
    return CliRunner()


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_cut_compressed_file_keeps_the_records_before_the_damage(tmp_path, suffix):
    records = papers(300)
    full = COMPRESS[suffix](jsonl_bytes(records))
    src = tmp_path / f"papers.jsonl{suffix}"
    src.write_bytes(full[: int(len(full) * 0.6)])
    report = build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert list(report.damaged_files) == [str(src)]
    assert "damaged or truncated" in report.damaged_files[str(src)]
    ids = stored_ids(tmp_path / "c")
    # a prefix of the file, in order, and counted
    assert ids == [r["id"] for r in records[: len(ids)]]
    assert report.read.papers == len(ids) < 300
    with Corpus.open(tmp_path / "c") as c:
        [entry] = c.manifest()
        assert entry["incomplete"] and "damaged or truncated" in entry["incomplete"]
    # the same bytes again: skipped, still reported as incomplete
    again = build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert again.still_incomplete == [str(src)] and not again.damaged_files
    # the repaired file: the build continues and the mark goes away
    src.write_bytes(full)
    report = build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert not report.damaged_files
    assert stored_ids(tmp_path / "c") == [r["id"] for r in records]
    with Corpus.open(tmp_path / "c") as c:
        assert c.manifest()[0]["incomplete"] is None


def test_multi_frame_zstd_keeps_whole_frames_before_the_cut(tmp_path):
    records = papers(200)
    frames = b"".join(zstandard.ZstdCompressor().compress(jsonl_bytes(records[i:i + 20]))
                      for i in range(0, 200, 20))
    src = tmp_path / "p.jsonl.zst"
    src.write_bytes(frames[: len(frames) // 2])
    report = build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    ids = stored_ids(tmp_path / "c")
    assert report.damaged_files and len(ids) >= 80 and ids == [r["id"] for r in records[: len(ids)]]


def test_good_file_and_cut_file_leave_a_searchable_corpus_and_a_fix_that_works(runner, tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_bytes(jsonl_bytes(papers(5, "g")))
    cut_full = gzip.compress(jsonl_bytes(papers(100, "c")))
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(cut_full[: len(cut_full) // 2])
    corpus = tmp_path / "c"
    res = runner.invoke(app, ["build", str(good), str(cut), "--corpus", str(corpus), "--no-progress"])
    assert res.exit_code == 1
    assert "cut.jsonl.gz: damaged or truncated" in res.output and "Traceback" not in res.output
    assert "rerun this same build" in res.output
    with Corpus.open(corpus) as c:
        assert not c.stats()["indexes_dirty"]
        assert {h.corpus_id for h in c.lexical_search("retrieval methods", 5)} <= set(c.all_ids())
        assert {f"g{i:04d}" for i in range(5)} <= set(c.all_ids())
    # the fix the message gives: replace the file, rerun the same build
    cut.write_bytes(cut_full)
    res = runner.invoke(app, ["build", str(good), str(cut), "--corpus", str(corpus), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert len(stored_ids(corpus)) == 105


def test_damaged_before_the_first_record_is_reported_and_others_still_build(runner, tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_bytes(jsonl_bytes(papers(3, "g")))
    bad = tmp_path / "bad.jsonl.xz"
    bad.write_bytes(lzma.compress(jsonl_bytes(papers(50)))[:40])
    res = runner.invoke(app, ["build", str(good), str(bad), "--corpus", str(tmp_path / "c"), "--no-progress"])
    assert res.exit_code == 1 and "bad.jsonl.xz: damaged or truncated before its first record" in res.output
    assert stored_ids(tmp_path / "c") == [f"g{i:04d}" for i in range(3)]


def test_changed_source_file_replaces_its_records_exactly(tmp_path):
    src = tmp_path / "a.jsonl"
    records = papers(4)
    src.write_bytes(jsonl_bytes(records) + b"{not json\n")
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert len(c.all_ids()) == 4 and len(c.rejects()) == 1
    src.write_bytes(jsonl_bytes([records[0], records[2]]))  # two deleted, the bad line fixed
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert c.all_ids() == [records[0]["id"], records[2]["id"]]
        assert c.rejects() == []
        assert c.abstract(records[1]["id"]) is None


@pytest.mark.parametrize("damage", ["cut mid-record", "emptied", "a wrong --map"])
def test_a_plain_jsonl_cut_emptied_or_misread_keeps_the_papers_it_held(tmp_path, damage):
    """A plain JSONL file ingested whole and then cut mid-record (no final newline), emptied, or
    rebuilt with a --map that no record satisfies: refused, and every stored paper stays."""
    records = papers(60)
    src = tmp_path / "p.jsonl"
    src.write_bytes(jsonl_bytes(records))
    corpus = tmp_path / "c"
    build([src], corpus, fmt="jsonl", progress=False, finalize=False)
    mapping = None
    if damage == "cut mid-record":
        data = jsonl_bytes(records)
        src.write_bytes(data[: len(data) // 2 + 7].rstrip(b"\n") + b'{"id": "x')
    elif damage == "emptied":
        src.write_bytes(b"")
    else:
        mapping = {"id": "no_such_field"}
    report = build([src], corpus, fmt="jsonl", mapping=mapping, progress=False, finalize=False)
    assert list(report.kept_complete) == [str(src)]
    assert stored_ids(corpus) == [r["id"] for r in records]


def test_a_damaged_copy_never_replaces_a_complete_one(runner, tmp_path):
    """A half-finished download over an input ingested whole: the build refuses it, keeps every
    stored paper, exits 1 saying so, and the complete file later rebuilds as before. A rerun while
    a file stays incomplete keeps exiting 1."""
    records = papers(120)
    full = gzip.compress(jsonl_bytes(records))
    src = tmp_path / "p.jsonl.gz"
    src.write_bytes(full)
    corpus = tmp_path / "c"
    build([src], corpus, fmt="jsonl", progress=False, finalize=False)
    src.write_bytes(full[: len(full) // 3])
    report = build([src], corpus, fmt="jsonl", progress=False, finalize=False)
    assert list(report.kept_complete) == [str(src)] and not report.damaged_files
    assert stored_ids(corpus) == [r["id"] for r in records]
    with Corpus.open(corpus) as c:
        assert c.manifest()[0]["incomplete"] is None
    res = runner.invoke(app, ["build", str(src), "--corpus", str(corpus), "--no-progress"])
    assert res.exit_code == 1 and "complete copy ingested before is kept" in res.output
    assert len(stored_ids(corpus)) == 120


def test_a_rerun_with_a_file_still_incomplete_exits_1(runner, tmp_path):
    full = gzip.compress(jsonl_bytes(papers(100)))
    src = tmp_path / "cut.jsonl.gz"
    src.write_bytes(full[: len(full) // 2])
    args = ["build", str(src), "--corpus", str(tmp_path / "c"), "--no-progress"]
    assert runner.invoke(app, args).exit_code == 1
    again = runner.invoke(app, args)
    assert again.exit_code == 1 and "still incomplete" in again.output


def test_an_unreadable_input_is_named_and_the_others_are_ingested(runner, tmp_path, monkeypatch):
    """A file this process may not read (permissions; root reads everything, so the check is
    stubbed) no longer aborts the build with a bare errno: the others are ingested, exit 1."""
    import os
    import sys

    build_module = sys.modules["litnav.ingest.build"]  # the package's ``build`` is the function
    ok, secret = tmp_path / "ok.jsonl", tmp_path / "secret.jsonl"
    ok.write_bytes(jsonl_bytes(papers(3, "o")))
    secret.write_bytes(jsonl_bytes(papers(3, "s")))
    monkeypatch.setattr(build_module.os, "access", lambda p, mode: os.path.basename(p) != "secret.jsonl")
    res = runner.invoke(app, ["build", str(ok), str(secret), "--corpus", str(tmp_path / "c"), "--no-progress"])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert "secret.jsonl: not a readable file" in " ".join(res.output.split())
    assert stored_ids(tmp_path / "c") == [f"o{i:04d}" for i in range(3)]


def test_searching_a_corpus_that_holds_no_papers_says_so(runner, tmp_path):
    """After a build of an input without records (exit 1), a search named a damaged BM25 index and
    a repair that reported every tier clean."""
    src = tmp_path / "empty.jsonl"
    src.write_text("\n\n")
    corpus = str(tmp_path / "c")
    assert runner.invoke(app, ["build", str(src), "--corpus", corpus, "--map", "id=acl_id", "--no-progress"]).exit_code == 1
    res = runner.invoke(app, ["search", "parsing", "--corpus", corpus])
    assert res.exit_code == 1 and "holds no papers" in res.output and "damaged" not in res.output


def _show(corpus, cid):
    with Corpus.open(corpus) as c:
        return c.paper(cid), c.abstract(cid)


def test_a_changed_file_sharing_papers_with_an_unchanged_one_rebuilds_as_a_fresh_build(tmp_path):
    """Two files give copies of P1 (merged field by field). Changing only the second one kept none
    of the first one's fields (abstract, year, authors), and dropping P1 from it removed P1 though
    the first still holds it: every build must equal a fresh build of the same files."""
    a, b = tmp_path / "A.jsonl", tmp_path / "B.jsonl"
    a.write_text(json.dumps({"id": "P1", "title": "Paper one on parsing", "abstract": "Dependency parsing.",
                             "year": 2019, "authors": ["Ann A"]}) + "\n")

    def rebuild(b_records):
        b.write_text("".join(json.dumps(r) + "\n" for r in b_records))
        build([a, b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
        fresh = tmp_path / f"fresh{len(list(tmp_path.iterdir()))}"
        build([a, b], fresh, fmt="jsonl", progress=False, finalize=False)
        with Corpus.open(tmp_path / "c") as inc, Corpus.open(fresh) as new:
            assert inc.all_ids() == new.all_ids()
            for cid in inc.all_ids():
                got, want = inc.paper(cid), new.paper(cid)
                assert (got.title, got.year, [x.name for x in got.authors], inc.abstract(cid)) == \
                       (want.title, want.year, [x.name for x in want.authors], new.abstract(cid))
        return _show(tmp_path / "c", "P1")

    paper, abstract = rebuild([{"id": "P1", "title": "Paper one (revised)"}])
    assert paper.title == "Paper one (revised)" and abstract == "Dependency parsing." and paper.year == 2019
    paper, abstract = rebuild([{"id": "P1", "title": "Paper one (rev 2)"}])
    assert paper.title == "Paper one (rev 2)" and abstract == "Dependency parsing." and paper.authors
    paper, _ = rebuild([{"id": "P2", "title": "Another paper"}])
    assert paper.title == "Paper one on parsing"


def test_a_changed_file_sharing_papers_with_a_file_left_out_of_the_build_is_refused(tmp_path):
    from litnav.corpus import CorpusError

    a, b = tmp_path / "A.jsonl", tmp_path / "B.jsonl"
    a.write_text(json.dumps({"id": "P1", "title": "Paper one", "abstract": "Parsing."}) + "\n")
    b.write_text(json.dumps({"id": "P1", "title": "Paper one (revised)"}) + "\n")
    build([a, b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    b.write_text(json.dumps({"id": "P1", "title": "Paper one (rev 2)"}) + "\n")
    with pytest.raises(CorpusError, match="shares papers with .*A.jsonl"):
        build([b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    paper, abstract = _show(tmp_path / "c", "P1")
    assert paper.title == "Paper one (revised)" and abstract == "Parsing."



@pytest.mark.parametrize("abstract, review", [
    ("This review summarizes the evidence on PD-1 blockade in solid tumors.", True),
    ("Here, we review recent advances in lineage reprogramming.", True),
    ("We conducted a systematic review and meta-analysis of statin trials.", True),
    ("We review existing approaches and propose a new parser that is twice as fast.", False),
    ("This survey of 2,000 households measured migration intentions.", False),
    ("From this perspective, parsing is search.", False),
    ("We performed a retrospective chart review of 312 patients.", False),
    ("In this survey, 1,200 nurses were asked about burnout.", False),
    ("We propose this review-based recommendation model.", False),
    ("In this survey, we review neural approaches to parsing.", True),
])
def test_a_paper_whose_abstract_says_it_is_a_review_is_typed_review(tmp_path, abstract, review):
    """"not reviews" checked only titles: "Beyond melanoma: inhibiting the PD-1/PD-L1 pathway in
    solid tumors" ("This review will focus on ...") passed as a primary study."""
    src = tmp_path / "p.jsonl"
    src.write_text(json.dumps({"id": "p1", "title": "PD-1 blockade in solid tumors", "abstract": abstract}) + "\n")
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert (c.paper("p1").publication_types == ["Review"]) is review


def test_an_abstract_or_title_of_control_characters_is_no_text(tmp_path):
    """An abstract of control or zero-width characters is no abstract (it was embedded as one);
    a title of them is empty, as a whitespace title is."""
    src = tmp_path / "p.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in [
        {"id": "a", "title": "A real title", "abstract": "\x00\x01\x02\x1b[31m\x07"},
        {"id": "b", "title": "Another title", "abstract": "\u200b\ufeff"},
        {"id": "c", "title": "\x00\x1b[2J\u200b", "abstract": "Text."},
    ]) + "\n")
    report = build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert c.all_ids() == ["a", "b"] and c.abstract("a") is None and c.abstract("b") is None
        assert any("empty (no visible character)" in r[3] for r in c.rejects())
    assert report.read.abstracts == 0


def test_a_cut_per_paper_json_is_damage_not_an_unknown_format(runner, tmp_path, shared_data):
    """A per-paper S2ORC JSON cut short was skipped as "not a format litnav ingests", exit 0."""
    pdf = shared_data / "s2orc-samples" / "doc2json-fixtures" / "pdf"
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "2020.acl-main.207.json").write_bytes((pdf / "2020.acl-main.207.json").read_bytes())
    (folder / "N18-3011.json").write_bytes((pdf / "N18-3011.json").read_bytes()[:4000])
    res = runner.invoke(app, ["build", str(folder), "--corpus", str(tmp_path / "c"), "--no-progress"])
    out = " ".join(res.output.split())
    assert res.exit_code == 1 and "N18-3011.json: damaged or truncated" in out and "invalid or truncated JSON" in out
    assert "not a format" not in out and len(stored_ids(tmp_path / "c")) == 1


def test_a_damaged_copy_of_a_file_sharing_papers_is_refused_before_anything_is_released(tmp_path):
    """A.jsonl and B.jsonl.gz share p0000; a cut copy of B took both out of the manifest and kept
    27 of 120 papers. Now it is refused first: every stored paper stays."""
    a, b = tmp_path / "A.jsonl", tmp_path / "B.jsonl.gz"
    a.write_bytes(jsonl_bytes(papers(1)))
    full = gzip.compress(jsonl_bytes(papers(120)))
    b.write_bytes(full)
    build([a, b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    b.write_bytes(full[: len(full) // 3])
    report = build([a, b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert list(report.kept_complete) == [str(b)] and not report.damaged_files
    assert len(stored_ids(tmp_path / "c")) == 120


def test_an_interrupted_release_is_finished_by_the_next_build_that_names_its_files(tmp_path):
    """A build killed after un-committing the files that share papers: a later build that leaves
    one of them out is refused, naming it; one that names them all restores every paper."""
    from litnav.corpus import CorpusError, CorpusWriter

    a, b = tmp_path / "A.jsonl", tmp_path / "B.jsonl"
    a.write_text(json.dumps({"id": "P1", "title": "Paper one", "abstract": "Parsing."}) + "\n"
                 + json.dumps({"id": "P2", "title": "Paper two"}) + "\n")
    b.write_text(json.dumps({"id": "P1", "title": "Paper one (revised)"}) + "\n")
    build([a, b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with CorpusWriter.open(tmp_path / "c") as w:  # what a build killed right after its release leaves
        w.release([str(a), str(b)])
    with pytest.raises(CorpusError, match="A.jsonl"):
        build([b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    build([a, b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert stored_ids(tmp_path / "c") == ["P1", "P2"]
    with CorpusWriter.open(tmp_path / "c") as w:
        assert w.released_sources() == []


def test_an_overlong_title_or_id_and_an_id_with_control_characters_are_rejected_by_field(tmp_path):
    """A 1.1 MB title printed a 3 MB results table; a 5,000-character id or one holding NUL was
    stored. Each is a reject naming its field; the good record is stored."""
    src = tmp_path / "p.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in [
        {"id": "ok", "title": "A real title"},
        {"id": "long-title", "title": "x" * 1_100_000},
        {"id": "i" * 5000, "title": "Long id"},
        {"id": "\x00nul", "title": "NUL id"},
    ]) + "\n")
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert c.all_ids() == ["ok"]
        reasons = [r[3] for r in c.rejects()]
    assert sum("field 'title': 1,100,000 characters" in r for r in reasons) == 1
    assert sum("field 'id': an id has at most 512 characters" in r for r in reasons) == 2


@pytest.mark.parametrize("abstract, trial", [
    ("DESIGN Randomized, blinded, placebo-controlled trial. SETTING Eleven clinical centers.", True),
    ("We conducted a multicentre, open-label, randomised controlled trial in 31 hospitals.", True),
    ("In this double-blind randomized trial, 412 adults received vitamin D or placebo.", True),
    ("Patients with type 2 diabetes were randomly assigned to liraglutide or placebo.", True),
    ("METHODS We randomly assigned 6595 men, 45 to 64 years of age, to receive pravastatin or placebo.", True),
    ("We randomized 151 patients to folic acid or placebo.", True),
    ("We randomly assigned 40 male Wistar rats to three diets.", False),
    ("Male Wistar rats were randomized into three groups.", False),
    ("We did a meta-analysis of randomised controlled trials of statins.", False),
    ("Of 1,017 registered randomised trials, 21% were discontinued.", False),
])
def test_a_paper_whose_abstract_reports_its_own_randomised_trial_is_typed_a_trial(tmp_path, abstract, trial):
    """"only randomised trials" read trials from titles alone: the Fracture Intervention Trial
    ("DESIGN Randomized, blinded, placebo-controlled trial.", no "trial" in its title) was filtered out."""
    src = tmp_path / "p.jsonl"
    src.write_text(json.dumps({"id": "p1", "title": "Alendronate and fracture risk", "abstract": abstract}) + "\n")
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert (c.paper("p1").publication_types == ["ClinicalTrial"]) is trial


def test_a_changed_papers_shard_read_without_its_joined_abstracts_is_refused(tmp_path, shared_data):
    """A Datasets API papers shard rebuilt alone wrote its papers again without the abstracts its
    abstracts shard gave (exit 0); now the build is refused naming that shard, nothing changes,
    and naming both rebuilds with the abstracts."""
    from litnav.corpus import CorpusError

    samples = shared_data / "s2orc-samples" / "datasets-api"
    papers = [json.loads(line) for line in (samples / "papers" / "papers-sample.jsonl").open()][10:15]
    abstracts = [json.loads(line) for line in (samples / "abstracts" / "abstracts-sample.jsonl").open()][:5]
    for p, a in zip(papers, abstracts):  # the samples share no ids: give the abstracts the papers' ids
        a["corpusid"] = p["corpusid"]
    (tmp_path / "rel" / "papers").mkdir(parents=True)
    (tmp_path / "rel" / "abstracts").mkdir()
    pfile, afile = tmp_path / "rel" / "papers" / "papers-1.jsonl", tmp_path / "rel" / "abstracts" / "abstracts-1.jsonl"
    pfile.write_text("".join(json.dumps(p) + "\n" for p in papers))
    afile.write_text("".join(json.dumps(a) + "\n" for a in abstracts))
    corpus = tmp_path / "c"
    build([tmp_path / "rel"], corpus, progress=False, finalize=False)
    papers[1]["citationcount"] = 12345
    pfile.write_text("".join(json.dumps(p) + "\n" for p in papers))
    with pytest.raises(CorpusError, match="abstracts-1.jsonl joined into its papers"):
        build([pfile], corpus, progress=False, finalize=False)
    with Corpus.open(corpus) as c:
        assert sum(bool(c.abstract(str(p["corpusid"]))) for p in papers) == 5
    build([pfile, afile], corpus, progress=False, finalize=False)
    with Corpus.open(corpus) as c:
        assert sum(bool(c.abstract(str(p["corpusid"]))) for p in papers) == 5
        assert c.paper(str(papers[1]["corpusid"])).citation_count == 12345


def test_a_first_record_missing_its_title_is_a_reject_not_a_foreign_file(runner, tmp_path):
    """A file whose first record lacked a title was skipped whole as "not a format litnav ingests"
    (exit 0 inside a folder, its other papers lost): it is a generic JSONL with one reject."""
    records = papers(30)
    del records[0]["title"]
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "first.jsonl").write_bytes(jsonl_bytes(records))
    (folder / "other.jsonl").write_bytes(jsonl_bytes(papers(5, prefix="q")))
    result = runner.invoke(app, ["build", str(folder), "--corpus", str(tmp_path / "c"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "not a format litnav ingests" not in result.output
    assert len(stored_ids(tmp_path / "c")) == 29 + 5
    with Corpus.open(tmp_path / "c") as c:
        assert any("title" in r[3] for r in c.rejects())


def test_an_empty_input_is_said_to_be_empty(runner, tmp_path):
    (tmp_path / "empty.jsonl").write_bytes(b"")
    result = runner.invoke(app, ["build", str(tmp_path / "empty.jsonl"), "--corpus", str(tmp_path / "c"),
                                 "--no-progress"])
    assert result.exit_code != 0 and "empty: no JSON record" in result.output


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_a_compressed_file_saved_without_its_suffix_is_read(tmp_path, suffix):
    """A Datasets API download saved as "part1" (gzip) was reported "damaged or truncated ...
    not valid UTF-8": the leading bytes tell the compression."""
    src = tmp_path / "part1"
    src.write_bytes(COMPRESS[suffix](jsonl_bytes(papers(7))))
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert len(stored_ids(tmp_path / "c")) == 7


def test_a_directory_without_data_files_is_said_to_exist(runner, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "part0").write_bytes(jsonl_bytes(papers(3)))
    result = runner.invoke(app, ["build", str(tmp_path / "in"), "--corpus", str(tmp_path / "c"), "--no-progress"])
    assert result.exit_code != 0 and "a directory with no data file in it" in result.output


def test_a_line_of_bytes_that_are_not_utf8_is_rejected_at_the_bad_byte(tmp_path):
    """The reason said "surrogates not allowed: line 1 column 1" for a stray byte in a title."""
    src = tmp_path / "p.jsonl"
    src.write_bytes(jsonl_bytes(papers(2)) + b'{"id": "x", "title": "caf\xe9 au lait"}\n')
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        [reject] = c.rejects()
    assert reject[2] == 3 and "not UTF-8 at byte 26 of the line" in reject[3] and "line 1" not in reject[3]


def test_a_per_paper_json_file_with_a_byte_that_is_not_utf8_is_its_reject_and_the_rest_is_stored(fixtures, tmp_path):
    """It had stopped the build: "damaged or truncated before its first record ... line 1 column 1",
    advice to replace the file, and the same failure on every rerun."""
    src = tmp_path / "in"
    src.mkdir()
    good = fixtures / "ingest" / "papers" / "P19-1001.json"
    (src / "P19-1001.json").write_bytes(good.read_bytes())
    data = (fixtures / "ingest" / "papers" / "2020.acl-main.999.json").read_bytes()
    at = data.index(b'"title"') + 12
    (src / "2020.acl-main.999.json").write_bytes(data[:at] + b"\xe9" + data[at:])
    build([src], tmp_path / "c", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        [reject] = c.rejects()
    assert stored_ids(tmp_path / "c") == ["P19-1001"]
    assert reject[1].endswith("2020.acl-main.999.json") and f"not UTF-8 at byte {at + 1} of the file" in reject[3]
