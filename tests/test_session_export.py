"""Exports of a real session: every format parses back with the library that reads it and
gives the corpus record's fields (titles and names with braces, accents, &, %, $, _), BibTeX
keys are stable and unique, CSV/JSONL carry scores and quotes, and the CLI writes them."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litnav.corpus import Corpus
from litnav.session.export import (
    ExportError,
    bibtex_key,
    csl_name,
    export_rows,
    export_session,
    format_for_path,
    query_id,
    ris_name,
    unique_keys,
)
from litnav.session.io import read_session

SPECIAL_ID = "215737187"


@pytest.fixture(scope="module")
def session(export_session):
    return read_session(export_session)


@pytest.fixture(scope="module")
def corpus(export_corpus):
    c = Corpus.open(export_corpus)
    yield c
    c.close()


@pytest.fixture(scope="module")
def records(session, corpus):
    return {row.paper.corpus_id: row.paper for row in export_rows(session, corpus)}


def test_the_search_returned_the_special_records(session):
    ids = [r.corpus_id for r in session.results]
    assert {SPECIAL_ID, "215737188", "2104.08663v2"} <= set(ids), ids


def _bib_entries(text: str):
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    decoded = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    raw = bibtexparser.parse_string(text)
    assert not decoded.failed_blocks and not raw.failed_blocks
    return decoded.entries, {e.key: e for e in raw.entries}


def test_bibtex_round_trip_gives_the_corpus_fields(session, corpus, records):
    entries, raw = _bib_entries(export_session(session, corpus, "bibtex"))
    assert len(entries) == len(session.results)
    by_id = {raw[e.key]["corpusid"]: e for e in entries}
    for cid, paper in records.items():
        e = by_id[cid]
        assert e["title"] == paper.title
        assert e["author"].split(" and ") == [a.name for a in paper.authors]
        assert e["year"] == str(paper.year)
    special = by_id[SPECIAL_ID]
    assert special.entry_type == "inproceedings"
    assert special["booktitle"] == records[SPECIAL_ID].venue_raw
    # identifiers and URLs are verbatim (never LaTeX-escaped)
    assert raw[special.key]["doi"] == "10.18653/v1/2020.emnlp-main.550"
    assert raw[special.key]["acl"] == "2020.emnlp-main.550"
    assert raw[special.key]["url"] == "https://doi.org/10.18653/v1/2020.emnlp-main.550"
    arxiv = raw[by_id["2104.08663v2"].key]
    assert arxiv["eprint"] == "2104.08663" and arxiv["archiveprefix"] == "arXiv" and arxiv["pmid"] == "34567890"


def test_bibtex_escapes_special_characters(session, corpus):
    text = export_session(session, corpus, "bibtex")
    line = next(ln for ln in text.splitlines() if "BERT" in ln and "Recall" in ln)
    for escaped in (r"\{BERT\}", r"\&", r"100\%", r"\$5", r"top\_k"):
        assert escaped in line, (escaped, line)
    # BibTeX counts every brace, escaped or not: each entry's braces balance
    for entry in text.split("\n@")[1:]:
        assert entry.count("{") == entry.count("}"), entry


def test_bibtex_names_brace_each_special_character(session, corpus):
    """BibTeX reads "N{\\'u}{\\~n}ez" as one name; unbraced, it splits "N\\'u\\~nez" at the "~"."""
    text = export_session(session, corpus, "bibtex")
    author = next(ln for ln in text.splitlines() if ln.strip().startswith("author") and "ez" in ln and "Jos" in ln)
    assert r"Jos{\'e} N{\'u}{\~n}ez" in author, author


def test_bibtex_keys_are_stable_and_unique(session, corpus, records):
    full, raw = _bib_entries(export_session(session, corpus, "bibtex"))
    keys = [e.key for e in full]
    assert len(set(keys)) == len(keys)
    # the two Núñez 2020 BERT papers share a base key; rank order decides the suffix
    assert bibtex_key(records[SPECIAL_ID]) == bibtex_key(records["215737188"]) == "nunez2020bert"
    assert {raw[k]["corpusid"] for k in keys if k.startswith("nunez2020bert")} == {SPECIAL_ID, "215737188"}
    again, _ = _bib_entries(export_session(session, corpus, "bibtex"))
    assert [e.key for e in again] == keys
    top3, _ = _bib_entries(export_session(session, corpus, "bibtex", top=3))
    assert [e.key for e in top3] == keys[:3]


def test_unique_keys_suffixes():
    from litnav.corpus.records import Paper

    p = Paper(corpus_id="x", title="Attention", year=2017)
    assert unique_keys([p, p, p]) == ["attention2017", "attention2017a", "attention2017b"]
    assert bibtex_key(Paper(corpus_id="y", title="Not All Images are Worth 16x16 Words", year=2021)) == "images2021"
    assert bibtex_key(Paper(corpus_id="z", title="3D Object Detection", year=2020)) == "object2020"
    assert bibtex_key(Paper(corpus_id="7", title="123 Numbers")) == "numbers7"
    assert bibtex_key(Paper(corpus_id="a:b", title="")) == "litnavab"
    # no author, no year (SciFact records): the title word alone would repeat ("long", "longa")
    assert bibtex_key(Paper(corpus_id="13716045", title="Long-term effects of statins")) == "long13716045"


def test_ris_round_trip(session, corpus, records, tmp_path):
    import rispy

    text = export_session(session, corpus, "ris")
    assert text.startswith("TY  - ")
    entries = rispy.loads(text)
    assert len(entries) == len(session.results)
    by_id = {e["accession_number"]: e for e in entries}
    assert not any(k.startswith("custom") for e in entries for k in e)  # Zotero: C1 place, C3 proceedings title
    assert all(e["name_of_database"] == "litnav" for e in entries)
    for cid, paper in records.items():
        e = by_id[cid]
        assert e["title"] == paper.title
        assert e["authors"] == [ris_name(a.name) for a in paper.authors]
        assert all(", " in a for a in e["authors"] if " " in a)  # RIS's "Family, Given"
        assert e["year"] == str(paper.year)
    assert by_id[SPECIAL_ID]["doi"] == "10.18653/v1/2020.emnlp-main.550"
    assert by_id[SPECIAL_ID]["secondary_title"] == records[SPECIAL_ID].venue_raw
    assert "https://aclanthology.org/2020.emnlp-main.550" in by_id[SPECIAL_ID]["urls"]
    assert "https://api.semanticscholar.org/CorpusID:215737187" in by_id[SPECIAL_ID]["urls"]
    assert "arXiv: 2104.08663" in by_id["2104.08663v2"]["notes"][0]
    # `litnav verify` reads its own ids back from AN and the note
    from litnav.web.references import read_references

    path = tmp_path / "refs.ris"
    path.write_text(text, encoding="utf-8")
    read = {r.record.external_ids["corpus_id"]: r.record.external_ids for r in read_references(path, "ris")[1]}
    assert set(read) == {r.corpus_id for r in session.results}
    assert read["2104.08663v2"]["arxiv"] == "2104.08663"
    assert by_id["2104.08663v2"]["journal_name"] == "Bioinformatics"


def test_csljson_round_trip(session, corpus, records):
    items = json.loads(export_session(session, corpus, "csljson"))
    by_id = {i["custom"]["corpus_id"]: i for i in items}
    assert len(items) == len(session.results)
    for cid, paper in records.items():
        item = by_id[cid]
        assert item["title"] == paper.title
        assert item["issued"]["date-parts"][0][0] == paper.year
        assert len(item["author"]) == len(paper.authors)
    s = by_id[SPECIAL_ID]
    assert s["type"] == "paper-conference" and s["DOI"] == "10.18653/v1/2020.emnlp-main.550"
    assert s["author"][0] == {"family": "Núñez", "given": "José"}
    assert by_id["2104.08663v2"]["type"] == "article-journal" and by_id["2104.08663v2"]["PMID"] == "34567890"
    assert csl_name("Vaswani, Ashish") == {"family": "Vaswani", "given": "Ashish"}
    assert csl_name("Plato") == {"literal": "Plato"}


def test_csv_has_scores_and_quotes(session, corpus, records):
    rows = list(csv.DictReader(io.StringIO(export_session(session, corpus, "csv"))))
    assert [int(r["rank"]) for r in rows] == [r.rank for r in session.results]
    for row, res in zip(rows, session.results):
        assert row["title"] == records[res.corpus_id].title
        assert float(row["final_score"]) == pytest.approx(res.final_score, abs=5e-5)  # 4 decimals
        assert float(row["probability"]) == pytest.approx(res.probability, abs=5e-5)
        assert len(row["final_score"].split(".")[-1]) <= 4
        for j in res.checkpoints:
            assert float(row[f"{j.checkpoint_id} score"]) == pytest.approx(j.score, abs=5e-3)  # 2 decimals
            assert row[f"{j.checkpoint_id} quote"] == (j.quote or "")
    special = next(r for r in rows if r["corpus_id"] == SPECIAL_ID)
    assert special["authors"] == "José Núñez; Zoë O'Brien-Łukasiewicz"
    assert special["s2_url"] == "https://api.semanticscholar.org/CorpusID:215737187"
    # a numeric id its source did not give as an S2 corpus id links to no (unrelated) S2 paper
    assert all(not r["s2_url"] for r in rows if r["corpus_id"] != SPECIAL_ID)


def test_jsonl_has_every_field_and_the_evidence(session, corpus, records):
    lines = [json.loads(ln) for ln in export_session(session, corpus, "jsonl").splitlines()]
    assert len(lines) == len(session.results)
    for obj, res in zip(lines, session.results):
        paper = records[res.corpus_id]
        assert obj["title"] == paper.title and obj["external_ids"] == paper.external_ids
        assert obj["final_score"] == res.final_score
        for cp, j in zip(obj["checkpoints"], res.checkpoints):
            assert cp["id"] == j.checkpoint_id and cp["score"] == j.score and cp["quote"] == j.quote
            if j.quote:
                assert cp["section"]


def test_trec_run_reads_back_in_rank_order(session, corpus):
    import ir_measures

    run = list(ir_measures.read_trec_run(export_session(session, corpus, "trec", top=5)))
    assert [r.doc_id for r in sorted(run, key=lambda r: -r.score)] == [r.corpus_id for r in session.results[:5]]
    assert {r.query_id for r in run} == {query_id(session)}


def test_filters(session, corpus):
    cut = sorted(r.final_score for r in session.results)[len(session.results) // 2]
    rows = export_rows(session, corpus, min_score=cut)
    assert rows and all(r.result.final_score >= cut for r in rows)
    assert len(export_rows(session, corpus, top=2)) == 2


def test_format_for_path():
    assert format_for_path("refs.bib") == "bibtex" and format_for_path("x.RIS") == "ris"
    assert format_for_path("x.json") == "csljson" and format_for_path("run.trec") == "trec"
    with pytest.raises(ExportError, match="extension"):
        format_for_path("refs.docx")


@pytest.fixture(scope="module")
def runner():
    from litnav.cli import _register

    _register()
    return CliRunner()


def test_cli_export_and_errors(runner, export_session, tmp_path):
    from litnav.cli import app

    out = tmp_path / "refs.bib"
    res = runner.invoke(app, ["export", str(export_session), "--format", "bibtex", "--top", "3", "--out", str(out)])
    assert res.exit_code == 0, res.output
    entries, _ = _bib_entries(out.read_text())
    assert len(entries) == 3
    for spelling in ("csljson", "csl-json"):  # the README's spelling too, as the HTTP and MCP exports take it
        res = runner.invoke(app, ["export", str(export_session), "--format", spelling, "--top", "2"])
        assert res.exit_code == 0 and len(json.loads(res.stdout)) == 2, res.output
    res = runner.invoke(app, ["export", str(export_session), "--format", "bibtex", "--min-score", "1",
                              "--out", str(tmp_path / "none.bib")])
    assert res.exit_code == 0 and "no results with final score >= 1.0" in res.output
    for bad in ("1.01", "nan", "-0.5"):  # final scores lie in 0-1, as the HTTP API says too
        assert runner.invoke(app, ["export", str(export_session), "--format", "csv", "--min-score", bad]).exit_code == 2
    res = runner.invoke(app, ["export", str(export_session), "--top", "2", "--out", str(tmp_path / "by-name.ris")])
    assert res.exit_code == 0 and (tmp_path / "by-name.ris").read_text().startswith("TY  -")
    res = runner.invoke(app, ["export", str(export_session)])
    assert res.exit_code == 2 and "--format" in res.output
    res = runner.invoke(app, ["export", str(export_session), "--format", "docx"])
    assert res.exit_code == 2 and "bibtex" in res.output
    res = runner.invoke(app, ["export", str(export_session), "--format", "ris", "--corpus", str(tmp_path / "nope")])
    assert res.exit_code == 1 and "nope" in res.output


def test_cli_search_export(runner, export_corpus, tmp_path):
    import rispy

    from litnav.cli import app

    out = tmp_path / "found.ris"
    res = runner.invoke(app, ["search", "dense retrieval for question answering", "--corpus", str(export_corpus),
                              "--top", "4", "--rounds", "1", "--json", str(tmp_path / "s.json"),
                              "--export", str(out), "--no-interactive"])
    assert res.exit_code == 0, res.output
    assert len(rispy.loads(out.read_text())) == 4
    bad = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(export_corpus), "--export",
                              str(tmp_path / "x.docx"), "--no-interactive"])
    assert bad.exit_code == 2 and "extension" in bad.output


def test_a_lone_brace_never_unbalances_a_bibtex_field():
    from litnav.core.records import Result
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import ExportRow, to_bibtex

    paper = Paper(corpus_id="u1", title="Left brace { only in graph networks", year=2020, venue_raw="ACL",
                  authors=[Author(name="Right } Only")])
    result = Result(rank=1, corpus_id="u1", title=paper.title, final_score=0.5, probability=0.5, checkpoints=[])
    text = to_bibtex([ExportRow(result=result, paper=paper)])
    for line in text.splitlines():
        if line.strip().startswith(("title", "author")):
            assert line.count("{") == line.count("}"), line
    assert r"$\lbrace$" in text and r"$\rbrace$" in text


@pytest.mark.parametrize(("title", "kept"), [
    ("On the Optimal Weighted $\\ell_2$ Regularization in Linear Regression", "$\\ell_2$"),
    ("$k$-means++: Few More Steps Yield Constant Approximation", "$k$-means++"),
    ("Sorting in $O(n \\log n)$ Time", "$O(n \\log n)$"),
])
def test_the_math_of_an_arxiv_title_stays_math_in_bibtex(title, kept):
    from litnav.core.records import Result
    from litnav.corpus.records import Paper
    from litnav.session.export import ExportRow, to_bibtex

    paper = Paper(corpus_id="m1", title=title, year=2022)
    result = Result(rank=1, corpus_id="m1", title=title, final_score=0.5, probability=0.5, checkpoints=[])
    text = to_bibtex([ExportRow(result=result, paper=paper)])
    assert kept in text and "textbackslash" not in text and "\\$" not in text
    assert text.count("{") == text.count("}")
    # money is no math, and a TeX command outside math's vocabulary is escaped, never run
    for title, escaped in [("Earn $5 and $10: Pricing with top_k Offers", r"\$5 and \$10"),
                           ("Prices of $5,$10 items", r"\$5,\$10"), ("Save $3 per user_id, not $4", r"user\_id"),
                           (r"Trojan $\input{/etc/passwd}$ Titles", r"{\textbackslash}input")]:
        paper = Paper(corpus_id="m2", title=title, year=2022)
        text = to_bibtex([ExportRow(result=result.model_copy(update={"corpus_id": "m2"}), paper=paper)])
        assert escaped in text, (title, text)


def test_a_latex_escape_already_in_the_metadata_is_escaped_once():
    from litnav.core.records import Result
    from litnav.corpus.records import Paper
    from litnav.session.export import ExportRow, to_bibtex

    venue = r"Actes de TALN PFIA 2019. Terminologie et Intelligence Artificielle (atelier TALN-RECITAL \& IC)"
    paper = Paper(corpus_id="t1", title=r"Terms in 100\% of cases", year=2019, venue=venue, venue_raw=venue)
    result = Result(rank=1, corpus_id="t1", title=paper.title, final_score=0.5, probability=0.5, checkpoints=[])
    text = to_bibtex([ExportRow(result=result, paper=paper)])
    assert r"TALN-RECITAL \& IC" in text and r"100\%" in text and "textbackslash" not in text


def test_an_identifier_cannot_close_its_bibtex_field_and_add_fields():
    import bibtexparser

    from litnav.core.records import Result
    from litnav.corpus.records import Paper
    from litnav.session.export import ExportRow, to_bibtex

    paper = Paper(corpus_id="d1", title="Real title", year=2020,
                  external_ids={"doi": "10.1/a} , title={pwn", "arxiv": "2001.00001{"})
    result = Result(rank=1, corpus_id="d1", title=paper.title, final_score=0.5, probability=0.5, checkpoints=[])
    library = bibtexparser.parse_string(to_bibtex([ExportRow(result=result, paper=paper)]))
    assert not library.failed_blocks
    [entry] = library.entries
    assert entry["title"] == "{Real title}" and "pwn" in entry["doi"] and "%7D" in entry["doi"]
    assert [f.key for f in entry.fields].count("title") == 1
    slash = paper.model_copy(update={"corpus_id": "d2", "external_ids": {"doi": "10.1/a\\"}})
    text = to_bibtex([ExportRow(result=result.model_copy(update={"corpus_id": "d2"}), paper=slash),
                      ExportRow(result=result, paper=paper)])
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks and len(library.entries) == 2 and "%5C" in library.entries[0]["doi"]


def test_a_trec_run_refuses_an_id_with_whitespace():
    from litnav.core.records import Result, Session
    from litnav.corpus.records import Paper
    from litnav.session.export import ExportError, ExportRow, to_trec

    paper = Paper(corpus_id="u6 with space", title="T")
    row = ExportRow(result=Result(rank=1, corpus_id=paper.corpus_id, title="T", final_score=0.5, probability=0.5,
                                  checkpoints=[]), paper=paper)
    with pytest.raises(ExportError, match="'u6 with space'.*whitespace"):
        to_trec([row], Session(intent="x", corpus="", rounds=[], results=[]))


def test_non_latin_names_stay_text_in_bibtex_and_read_back_exactly():
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    from litnav.core.records import Result
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import ExportRow, to_bibtex

    names = ["Δημήτρης Παπαδόπουλος", "Иван Петров", "José Núñez", "王小明"]
    paper = Paper(corpus_id="g1", title="Ζητήματα of {BERT} & 100% Zürich", year=2020, venue_raw="ACL",
                  authors=[Author(name=n) for n in names])
    result = Result(rank=1, corpus_id="g1", title=paper.title, final_score=0.5, probability=0.5, checkpoints=[])
    text = to_bibtex([ExportRow(result=result, paper=paper)])
    assert "ensuremath" not in text and "\\cyr" not in text
    [entry] = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()]).entries
    assert entry["author"].split(" and ") == names and entry["title"] == paper.title


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csljson"])
def test_litnav_verify_finds_every_exported_record_in_the_corpus_it_came_from(session, corpus, tmp_path, fmt):
    # a fresh user's export of a title with "Doesn't" read back as "Doesn{\textquoteright}t" and
    # "not in corpus": the reader decodes LaTeX and uses the exported ids (corpus id, ACL, arXiv)
    from litnav.core.settings import WebSettings
    from litnav.corpus.records import Author, Paper
    from litnav.web import verify_references

    path = tmp_path / f"refs.{ {'bibtex': 'bib', 'ris': 'ris', 'csljson': 'json'}[fmt] }"
    path.write_text(export_session(session, corpus, fmt), encoding="utf-8")
    report = verify_references(path, corpus, WebSettings())
    assert report.totals["verified"] == report.totals["references"] == len(session.results), report.references
    assert {r.corpus_id for r in report.references} == {r.corpus_id for r in session.results}
    # a corpus id of another corpus does not override the title
    other = Paper(corpus_id=SPECIAL_ID, title="A Completely Different Study of Coral Reefs", year=2020,
                  authors=[Author(name="Ann Other")])
    from litnav.core.records import Result
    from litnav.session.export import ExportRow, to_bibtex

    row = ExportRow(result=Result(rank=1, corpus_id=SPECIAL_ID, title=other.title, final_score=0.5,
                                  probability=0.5, checkpoints=[]), paper=other)
    path.with_suffix(".bib").write_text(to_bibtex([row]), encoding="utf-8")
    [ref] = verify_references(path.with_suffix(".bib"), corpus, WebSettings()).references
    assert ref.status == "not_found"


def test_an_author_named_with_and_stays_one_bibtex_author():
    import bibtexparser
    from bibtexparser.middlewares import SeparateCoAuthors

    from litnav.core.records import Result
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import ExportRow, to_bibtex

    names = ["Others and Co", "and", "Ann Smith", "AND Partners", "José Núñez & Sons"]
    paper = Paper(corpus_id="a1", title="T", year=2020, authors=[Author(name=n) for n in names])
    row = ExportRow(result=Result(rank=1, corpus_id="a1", title="T", final_score=0.5, probability=0.5,
                                  checkpoints=[]), paper=paper)
    [entry] = bibtexparser.parse_string(to_bibtex([row]), append_middleware=[SeparateCoAuthors()]).entries
    assert len(entry["author"]) == len(names) and entry["author"][0] == "{Others and Co}"


def test_a_csv_cell_never_runs_as_a_spreadsheet_formula():
    import csv
    import io

    from litnav.core.records import Result, Session
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import ExportRow, to_csv

    paper = Paper(corpus_id="f1", title='=HYPERLINK("http://x","click")', year=2020,
                  authors=[Author(name="@SUM(A1)")], venue_raw="-cmd|' /C calc'!A0")
    row = ExportRow(result=Result(rank=1, corpus_id="f1", title=paper.title, final_score=0.5, probability=0.5,
                                  checkpoints=[]), paper=paper)
    [head, line] = list(csv.reader(io.StringIO(to_csv([row], Session(intent="x", corpus="", rounds=[], results=[])))))
    cells = dict(zip(head, line))
    assert cells["title"] == "'" + paper.title and cells["authors"] == "'@SUM(A1)" and cells["venue"].startswith("'-")


@pytest.mark.parametrize(("name", "ris"), [("Ashish Vaswani", "Vaswani, Ashish"), ("Robert L. Logan IV", "Logan, Robert L., IV"),
                                         ("Martin Luther King Jr.", "King, Martin Luther, Jr."), ("Plato", "Plato")])
def test_ris_names_are_family_given_suffix(name, ris):
    assert ris_name(name) == ris


def test_exporting_with_another_corpus_is_refused_not_an_empty_file(session, tmp_path):
    """A session's results belong to its corpus: another corpus (another folder, other contents)
    is an error, as in refine; so is a corpus that holds none of the results."""
    from litnav.session.export import ExportError

    class Other:
        directory = tmp_path / "other"

        def fingerprint(self) -> str:
            return "f" * 64

        def papers(self, ids):
            return {}

    with pytest.raises(ExportError, match="is not the corpus this session searched"):
        export_rows(session, Other())
    moved = session.model_copy(update={"corpus": str(Other.directory)})
    with pytest.raises(ExportError, match="none of the .* results is in corpus"):
        export_rows(moved, Other())


@pytest.mark.parametrize(("edit", "message"), [
    (lambda rs: rs.append(dict(rs[0], rank=len(rs) + 1)), r"corpus_id: .* is listed twice"),
    (lambda rs: rs[1].update(rank=1), r"results\.1\.rank: 1; the results' ranks run 1, 2, 3"),
    (lambda rs: rs[0].update(final_score=float("nan")), r"results\.0\.final_score: Input should be a finite number"),
    (lambda rs: rs[0].update(probability=42), r"results\.0\.probability: Input should be less than or equal to 1"),
])
def test_a_hand_edited_session_with_impossible_results_is_an_error_naming_the_field(export_session, tmp_path,
                                                                                      edit, message):
    """Duplicate ids would make a TREC run that trec_eval rejects; NaN scores sort anywhere."""
    from litnav.session.io import SessionFileError

    data = json.loads(Path(export_session).read_text())
    edit(data["results"])
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(SessionFileError, match=message):
        read_session(bad)


def test_control_characters_and_line_breaks_of_a_record_stay_out_of_every_export(session, corpus, monkeypatch):
    from litnav.session import export as export_module

    real = corpus.papers

    def dirty(ids):
        return {cid: p.model_copy(update={"title": "Line one\nline two\x00 \x1b[2J end",
                                          "venue_raw": "Venue\r\nSplit"}) for cid, p in real(ids).items()}

    monkeypatch.setattr(corpus, "papers", dirty)
    for fmt in ("bibtex", "ris", "csv"):
        text = export_module.export_session(session, corpus, fmt, top=2)
        assert "\x00" not in text and "\x1b" not in text and "Line one line two" in text, fmt
        assert "Venue Split" in text, fmt


@pytest.mark.parametrize(("name", "family", "given", "suffix"), [
    ("Robert L. Logan IV", "Logan", "Robert L.", "IV"),
    ("Hal Daumé III", "Daumé", "Hal", "III"),
    ("Ann Smith, Jr.", "Smith", "Ann", "Jr."),
    ("Logan, Robert L., IV", "Logan", "Robert L.", "IV"),
    ("Anand Kumar V", "V", "Anand Kumar", None),  # a bare V is an initial, not "the fifth"
])
def test_a_generational_suffix_is_no_family_name_in_any_format(name, family, given, suffix):
    """Real ACL authors ("Robert L. Logan IV", "Hal Daumé III"): CSL-JSON, BibTeX (as bibtexparser
    splits the name), RIS and the citation key all read the family name, not "IV"."""
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware, SeparateCoAuthors, SplitNameParts

    from litnav.core.records import Result
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import ExportRow, to_bibtex

    csl = csl_name(name)
    assert (csl["family"], csl["given"], csl.get("suffix")) == (family, given, suffix)
    assert ris_name(name).startswith(f"{family}, {given}")
    paper = Paper(corpus_id="n1", title="Importance of names", year=2020, authors=[Author(name=name)])
    assert bibtex_key(paper).startswith(family.lower().replace("é", "e") + "2020")
    row = ExportRow(result=Result(rank=1, corpus_id="n1", title=paper.title, final_score=0.5, probability=0.5,
                                  checkpoints=[]), paper=paper)
    [entry] = bibtexparser.parse_string(to_bibtex([row]), append_middleware=[
        LatexDecodingMiddleware(), SeparateCoAuthors(), SplitNameParts()]).entries
    [person] = entry["author"]
    assert " ".join(person.last) == family and " ".join(person.jr) == (suffix or "")


def test_a_result_below_the_scored_top_n_is_exported_unscored_not_as_zero(session, corpus):
    tail = session.results[-1].model_copy(update={"checkpoints": [], "final_score": 0.0, "probability": 0.0})
    unscored = session.model_copy(update={"results": session.results[:-1] + [tail]})
    lines = [json.loads(ln) for ln in export_session(unscored, corpus, "jsonl").splitlines()]
    assert lines[-1]["scored"] is False and lines[-1]["final_score"] is None and lines[-1]["probability"] is None
    assert all(obj["scored"] and obj["final_score"] is not None for obj in lines[:-1])
    rows = list(csv.DictReader(io.StringIO(export_session(unscored, corpus, "csv"))))
    assert rows[-1]["final_score"] == "" and rows[-1]["probability"] == ""
    assert all(float(r["final_score"]) >= 0 for r in rows[:-1])
    # with no scorer at all, every score is the fused retrieval score and is exported as one
    retrieval = unscored.model_copy(update={"engines": {**unscored.engines, "scorer": "none (retrieval score)"}})
    lines = [json.loads(ln) for ln in export_session(retrieval, corpus, "jsonl").splitlines()]
    assert lines[-1]["scored"] is True and lines[-1]["final_score"] == 0.0


@pytest.mark.parametrize("venue", ["arXiv", "ArXiv", "CoRR", "bioRxiv", "medRxiv", None])
def test_a_preprint_is_exported_as_a_preprint_not_a_conference_paper(venue):
    """A paper on a preprint server, or with no venue but an arXiv id (RIS gave it GEN while CSL-JSON
    made it a preprint), is a preprint in every format."""
    import bibtexparser
    import rispy

    from litnav.core.records import Result
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import ExportRow, to_bibtex, to_csl_items, to_ris

    paper = Paper(corpus_id="p1", title="Scaling Laws for Preprints", year=2019, venue=venue,
                  publication_types=["JournalArticle", "Review"], authors=[Author(name="Ada Lovelace")],
                  external_ids={"arxiv": "1901.00001"})
    row = ExportRow(result=Result(rank=1, corpus_id="p1", title=paper.title, final_score=0.5, probability=0.5,
                                  checkpoints=[]), paper=paper)
    entry = bibtexparser.parse_string(to_bibtex([row])).entries[0]
    assert entry.entry_type == "misc" and "booktitle" not in entry.fields_dict
    assert entry.fields_dict["eprint"].value == "1901.00001"
    ris = rispy.loads(to_ris([row]))[0]
    assert ris["type_of_reference"] == "UNPB" and ris["publisher"] == (venue or "arXiv") and "secondary_title" not in ris
    csl = to_csl_items([row])[0]
    assert csl["type"] == "article" and csl["publisher"] == (venue or "arXiv") and "container-title" not in csl


def test_a_family_name_keeps_its_particle_in_every_format():
    import bibtexparser
    import rispy
    from bibtexparser.middlewares import SeparateCoAuthors, SplitNameParts

    from litnav.core.records import Result
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import ExportRow, bibtex_key, csl_name, to_bibtex, to_ris

    paper = Paper(corpus_id="d1", title="Query Expansion", year=2016, venue="SIGIR",
                  authors=[Author(name="Maarten De Rijke"), Author(name="Ludwig van Beethoven"),
                           Author(name="Quang Van Nguyen")])
    row = ExportRow(result=Result(rank=1, corpus_id="d1", title=paper.title, final_score=0.5, probability=0.5,
                                  checkpoints=[]), paper=paper)
    library = bibtexparser.parse_string(to_bibtex([row]), append_middleware=[SeparateCoAuthors(), SplitNameParts()])
    names = library.entries[0].fields_dict["author"].value
    assert [(n.von, n.last) for n in names] == [([], ["De", "Rijke"]), (["van"], ["Beethoven"]), ([], ["Nguyen"])]
    assert rispy.loads(to_ris([row]))[0]["authors"][:2] == ["De Rijke, Maarten", "van Beethoven, Ludwig"]
    assert csl_name("Maarten De Rijke") == {"family": "De Rijke", "given": "Maarten"}
    assert csl_name("Ludwig van Beethoven") == {"family": "Beethoven", "given": "Ludwig",
                                                "non-dropping-particle": "van"}
    assert bibtex_key(paper) == "derijke2016query"


def test_straight_double_quotes_in_a_title_are_written_as_an_opening_and_a_closing_quote():
    from litnav.core.records import Result
    from litnav.core.text import normalise_title
    from litnav.corpus.records import Paper
    from litnav.session.export import ExportRow, to_bibtex

    paper = Paper(corpus_id="q1", title='Who is "You"? Let\'s do it "again"', year=2009, venue="EACL")
    row = ExportRow(result=Result(rank=1, corpus_id="q1", title=paper.title, final_score=0.5, probability=0.5,
                                  checkpoints=[]), paper=paper)
    entries, _ = _bib_entries(to_bibtex([row]))
    title = entries[0]["title"]
    assert title.count("\u201c") == title.count("\u201d") == 2 and "''" not in title
    assert normalise_title(title) == normalise_title(paper.title)


@pytest.mark.parametrize(("venue", "types", "bibtex", "ris", "csl"), [
    ("Blood", ["JournalArticle"], "article", "JOUR", "article-journal"),  # typed by the source (S2ORC's journal field)
    ("Physical Review Letters", [], "article", "JOUR", "article-journal"),  # named as a journal is
    ("Transactions of the Association for Computational Linguistics, Volume 9", [], "article", "JOUR", "article-journal"),
    ("Proceedings of the National Academy of Sciences", [], "article", "JOUR", "article-journal"),
    ("Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics", [], "inproceedings",
     "CPAPER", "paper-conference"),
    ("2016 IEEE International Conference on Big Data (Big Data)", [], "inproceedings", "CPAPER", "paper-conference"),
    ("EMNLP", [], "inproceedings", "CPAPER", "paper-conference"),  # named by neither: as before
    ("arXiv: High Energy Physics - Theory", [], "misc", "UNPB", "article"),
    # S2ORC 2020 stores arXiv journal references as the venue: a year cites the issue
    ("Journal of Sound and Vibration (2018), vol. 433, pp. 124-128", [], "article", "JOUR", "article-journal"),
    ("Phys. Rev. B 74, 184430 (2006)", [], "article", "JOUR", "article-journal"),
    ("Proc. Natl. Acad. Sci. USA 101, 2004", [], "article", "JOUR", "article-journal"),
    ("QELS 2001", [], "inproceedings", "CPAPER", "paper-conference"),
])
def test_a_journal_article_is_exported_as_one(venue, types, bibtex, ris, csl):
    """Every journal article of an S2ORC 2020 corpus (Blood, Journal of Clinical Oncology) was
    exported as a conference paper: Zotero would file most biomedical references wrongly."""
    import bibtexparser
    import rispy

    from litnav.core.records import Result
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import ExportRow, to_bibtex, to_csl_items, to_ris

    paper = Paper(corpus_id="p1", title="A Study", year=2011, venue=venue, publication_types=types,
                  authors=[Author(name="Ada Lovelace")])
    row = ExportRow(result=Result(rank=1, corpus_id="p1", title=paper.title, final_score=0.5, probability=0.5,
                                  checkpoints=[]), paper=paper)
    assert bibtexparser.parse_string(to_bibtex([row])).entries[0].entry_type == bibtex
    assert rispy.loads(to_ris([row]))[0]["type_of_reference"] == ris
    assert to_csl_items([row])[0]["type"] == csl


def _row(paper):
    from litnav.core.records import Result
    from litnav.session.export import ExportRow

    return ExportRow(result=Result(rank=1, corpus_id=paper.corpus_id, title=paper.title, final_score=0.5,
                                   probability=0.5, checkpoints=[]), paper=paper)


@pytest.mark.parametrize("title", [
    r"Leak $\mathrm{^^5cinput{/etc/hostname}}$ Titles",  # ^^5c is a backslash to TeX
    r"Run $\text{^^5cimmediate^^5cwrite18{touch x}}$",
    r"Tabs $a&b$ in math",
    r"Comment $x%y$ here",
])
def test_a_math_span_that_tex_would_run_or_choke_on_is_escaped(title):
    """A break-it trial read /etc/hostname into a compiled bibliography through ``^^5c`` inside a
    title's math, which the command allow-list never saw; ``$a&b$`` stopped pdflatex."""
    from litnav.corpus.records import Paper
    from litnav.session.export import to_bibtex

    text = to_bibtex([_row(Paper(corpus_id="m9", title=title, year=2022))])
    [line] = [ln for ln in text.splitlines() if ln.strip().startswith("title")]
    span = title[title.index("$"):title.rindex("$") + 1]
    assert span not in line and line.count(r"\$") == 2  # both dollar signs are text


def test_an_author_with_a_closing_brace_first_keeps_the_field_whole():
    """"Mary}" then "O'Brien{" balanced in count but not in order: bibtex cut the field."""
    from litnav.corpus.records import Author, Paper
    from litnav.session.export import _braces_nest, to_bibtex

    paper = Paper(corpus_id="b9", title="Braces", year=2020, venue_raw="ACL",
                  authors=[Author(name="Mary}"), Author(name="O'Brien{")])
    [line] = [ln for ln in to_bibtex([_row(paper)]).splitlines() if ln.strip().startswith("author")]
    assert _braces_nest(line.split("=", 1)[1])


def test_an_identifier_cannot_forge_a_ris_record_or_run_in_a_spreadsheet():
    import csv
    import io

    import rispy

    from litnav.core.records import Session
    from litnav.corpus.records import Paper
    from litnav.session.export import to_csv, to_ris

    paper = Paper(corpus_id="r9", title="Real", year=2020,
                  external_ids={"acl": "2020.x-1\r\nER  - \r\nTY  - JOUR\r\nTI  - INJECTED\u2028", "doi": "=1+1",
                                "pubmed": "@SUM(A1)", "arxiv": "-2+3"})
    records = rispy.loads(to_ris([_row(paper)]))
    assert len(records) == 1 and records[0]["title"] == "Real"
    [head, line] = list(csv.reader(io.StringIO(to_csv([_row(paper)], Session(intent="x", corpus="", rounds=[],
                                                                              results=[])))))
    cells = dict(zip(head, line))
    assert all(cells[k].startswith("'") for k in ("doi", "pubmed", "arxiv")), cells
