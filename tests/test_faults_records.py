"""Fault injection: duplicate ids, id collisions and bad cite spans (issue 12, case 3)."""

from __future__ import annotations

import json

from litnav.corpus import Corpus
from litnav.corpus.records import Document, Reject
from litnav.ingest import build, read_file


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_duplicate_ids_across_files_merge_field_by_field_and_are_reported(tmp_path):
    a = _jsonl(tmp_path / "a.jsonl", [{"id": "x1", "title": "Dense retrieval", "abstract": "Earlier abstract.",
                                       "venue": "ACL"}])
    b = _jsonl(tmp_path / "b.jsonl", [{"id": "x1", "title": "Dense retrieval revisited", "year": 2020}])
    report = build([a, b], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert report.duplicates == 1
    with Corpus.open(tmp_path / "c") as c:
        paper = c.paper("x1")
        assert paper.title == "Dense retrieval revisited" and paper.year == 2020  # the later copy's values
        assert c.abstract("x1") == "Earlier abstract."  # never erased by a copy without one
        assert paper.venue_raw == "ACL"
        [row] = c.rejects()
        assert row[1] == str(b) and row[2] == 1 and f"{a}:1" in row[3] and "merged" in row[3]
        assert c.stats()["rejects"] == 0  # a merged duplicate is not a rejected record


def test_duplicate_ids_within_one_file_merge_the_same_way(tmp_path):
    src = _jsonl(tmp_path / "a.jsonl", [{"id": "x1", "title": "T one", "abstract": "Kept."},
                                        {"id": "x2", "title": "Other"},
                                        {"id": "x1", "title": "T one", "year": 2019}])
    report = build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert report.duplicates == 1
    with Corpus.open(tmp_path / "c") as c:
        assert c.abstract("x1") == "Kept." and c.paper("x1").year == 2019
        assert len(c.all_ids()) == 2


def test_external_ids_are_normalised_and_collisions_reported(tmp_path):
    src = _jsonl(tmp_path / "a.jsonl", [{"id": "p1", "title": "First", "doi": "10.1000/ABC.def"},
                                        {"id": "p2", "title": "Second", "doi": "https://doi.org/10.1000/abc.DEF"}])
    report = build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    assert report.id_collisions == 1
    with Corpus.open(tmp_path / "c") as c:
        assert c.paper("p2").external_ids["doi"] == "10.1000/abc.def"
        assert c.find_by_external_id("doi", "DOI:10.1000/ABC.DEF") == "p1"
        [row] = c.rejects()
        assert "doi:10.1000/abc.def" in row[3] and "p1" in row[3] and "p2" in row[3]


def _s2orc_json(spans):
    return {"paper_id": "s1", "title": "A paper with citations",
            "pdf_parse": {"abstract": [], "bib_entries": {"BIBREF0": {"title": "Cited work on retrieval"}},
                          "body_text": [{"text": "Retrieval helps. It was shown before [1].", "section": "Intro",
                                         "cite_spans": spans}]}}


def test_cite_span_outside_the_text_is_rejected_with_a_reason(tmp_path):
    bad = _jsonl(tmp_path / "bad.jsonl", [_s2orc_json([{"start": 80, "end": 83, "ref_id": "BIBREF0"}])])
    items = list(read_file(bad, fmt="s2orc-json"))
    assert len(items) == 1 and isinstance(items[0], Reject)
    assert "cite_span [80, 83)" in items[0].reason and "outside" in items[0].reason
    good = _jsonl(tmp_path / "good.jsonl", [_s2orc_json([{"start": 37, "end": 40, "ref_id": "BIBREF0"}])])
    [doc] = list(read_file(good, fmt="s2orc-json"))
    assert isinstance(doc, Document)
    assert all("[1]" in ctx for ref in doc.references for ctx in ref.contexts)
    assert any(ref.contexts for ref in doc.references)
    # an empty span marks a position inside the text (S2ORC emits them): kept, not a reject
    empty = _jsonl(tmp_path / "empty.jsonl", [_s2orc_json([{"start": 37, "end": 37, "ref_id": "BIBREF0"}])])
    [doc] = list(read_file(empty, fmt="s2orc-json"))
    assert isinstance(doc, Document) and any(ref.contexts for ref in doc.references)
    reversed_ = _jsonl(tmp_path / "rev.jsonl", [_s2orc_json([{"start": 38, "end": 37, "ref_id": "BIBREF0"}])])
    [item] = list(read_file(reversed_, fmt="s2orc-json"))
    assert isinstance(item, Reject) and "cite_span [38, 37) (ref BIBREF0) is reversed" in item.reason


def test_numbers_too_large_for_their_column_reject_only_their_record(tmp_path):
    src = _jsonl(tmp_path / "a.jsonl", [{"id": "g1", "title": "Good", "abstract": "Parsing.", "year": 2010},
                                        {"id": "y1", "title": "Bad year", "year": 3000000000},
                                        {"id": "y2", "title": "Bad year", "year": 10**20},
                                        {"id": "y3", "title": "Year zero", "year": 0},
                                        {"id": "y4", "title": "Year zero", "year": "0000-05"},
                                        {"id": "y5", "title": "Five digits", "year": "20190"},
                                        {"id": "y6", "title": "A letter", "year": "2019a"},
                                        {"id": "d1", "title": "A date", "year": "2019-05-01T00:00:00Z"}])
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert c.all_ids() == ["d1", "g1"] and c.paper("d1").year == 2019
        reasons = {row[2]: row[3] for row in c.rejects()}
        assert set(reasons) == {2, 3, 4, 5, 6, 7} and all("'year'" in r and "not a year" in r for r in reasons.values())


def test_a_year_no_date_can_have_is_unknown_to_a_date_predicate():
    # corpora built before year 0 was refused: "since 2018" must not fail on such a record
    from datetime import date

    from litnav.core.records import MetadataPredicate
    from litnav.corpus.predicates import evaluate
    from litnav.corpus.records import Paper

    since = MetadataPredicate(field="year", start=date(2018, 1, 1))
    assert evaluate(since, Paper.model_construct(corpus_id="z", title="Z", year=0, publication_date=None,
                                                 venue=None, venue_raw=None, publication_types=[]))[0] is None


def test_s2_rows_with_out_of_range_counts_or_bad_offsets_are_rejected_with_the_field():
    import pytest
    from pydantic import ValidationError

    from litnav.ingest.readers.datasets_api import AnnotationError, annotations
    from litnav.ingest.schemas import PaperIn as S2PaperIn

    with pytest.raises(ValidationError, match="citationcount"):
        S2PaperIn.model_validate({"corpusid": 1, "title": "T", "citationcount": 5_000_000_000})
    with pytest.raises(ValidationError, match="year"):
        S2PaperIn.model_validate({"corpusid": 1, "title": "T", "year": 3_000_000_000})
    with pytest.raises(AnnotationError, match="paragraph.*not an integer"):
        annotations({"paragraph": '[{"start": "a", "end": "b"}]'})


def test_a_corrected_mapping_re_reads_the_file(tmp_path):
    # a tester mapped venue=title by mistake; the corrected build skipped the file as "already
    # ingested" and the wrong venues stayed
    rows = [{"acl_id": f"P{i}", "title": f"Title {i}", "booktitle": "ACL", "abstract": "We parse."} for i in range(3)]
    src = _jsonl(tmp_path / "k.jsonl", rows)
    build([src], tmp_path / "c", mapping={"id": "acl_id", "venue": "title"}, progress=False, finalize=False)
    again = build([src], tmp_path / "c", mapping={"id": "acl_id", "venue": "booktitle"}, progress=False,
                  finalize=False)
    assert again.ingested_files == [str(src.resolve())] and not again.skipped_files
    with Corpus.open(tmp_path / "c") as c:
        assert c.all_ids() == ["P0", "P1", "P2"] and {c.paper(i).venue_raw for i in c.all_ids()} == {"ACL"}
    same = build([src], tmp_path / "c", mapping={"venue": "booktitle", "id": "acl_id"}, progress=False,
                 finalize=False)
    assert same.skipped_files and not same.ingested_files  # the same mapping in another order


def test_building_a_folder_never_reads_a_corpus_inside_it(tmp_path):
    (tmp_path / "data").mkdir()
    src = _jsonl(tmp_path / "data" / "k.jsonl", [{"id": "a", "title": "Parsing", "abstract": "We parse."}])
    build([src.parent], src.parent / "corpus", progress=False)  # the corpus lands inside the source folder
    again = build([src.parent], src.parent / "corpus", progress=False)  # its index files are not inputs
    assert again.files == 1 and again.skipped_files == [str(src.resolve())] and not again.read.rejects


def test_a_publication_date_that_contradicts_the_year_does_not_decide_date_constraints(tmp_path):
    from datetime import date

    src = _jsonl(tmp_path / "d.jsonl", [
        {"id": "p", "title": "Placeholder date", "year": 2019, "publication_date": "0001-01-01"},
        {"id": "o", "title": "Online first", "year": 2019, "publication_date": "2018-12-20"}])
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert c.paper("p").publication_date is None and c.paper("p").year == 2019
        assert c.paper("o").publication_date == date(2018, 12, 20)  # a year apart: kept


def test_a_json_array_of_papers_is_rejected_with_how_to_convert_it(tmp_path):
    src = tmp_path / "papers.jsonl"
    src.write_text(json.dumps([{"id": "a1", "title": "One"}, {"id": "a2", "title": "Two"}]) + "\n")
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        [reject] = c.rejects()
        assert "JSON array" in reject[3] and "jq -c" in reject[3]


def test_an_abstract_too_large_to_ingest_rejects_its_record_naming_the_field(tmp_path):
    from litnav.ingest.schemas import MAX_ABSTRACT_CHARS

    src = _jsonl(tmp_path / "a.jsonl", [{"id": "g1", "title": "Good", "abstract": "Parsing."},
                                        {"id": "h1", "title": "Huge", "abstract": "word " * (MAX_ABSTRACT_CHARS // 5 + 1)}])
    build([src], tmp_path / "c", fmt="jsonl", progress=False, finalize=False)
    with Corpus.open(tmp_path / "c") as c:
        assert c.all_ids() == ["g1"]
        [(_, _, line, reason, *_)] = c.rejects()
        assert line == 2 and "'abstract'" in reason and f"{MAX_ABSTRACT_CHARS:,}" in reason
