"""Readers over the hand-written fixtures in tests/fixtures/ingest (no corpus needed)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
import zstandard

from litnav.core.text import sentence_spans
from litnav.corpus.predicates import looks_like_review
from litnav.corpus.records import Citation, Document, Reject
from litnav.ingest.build import ReadStats, iter_unit
from litnav.ingest.join import ContentStore
from litnav.ingest.plan import plan
from litnav.ingest.readers import CONTENT_FORMATS, ReadContext, Skipped, detect_format
from litnav.ingest.readers.generic import MappingError, parse_mapping
from litnav.ingest.venues import normalise_venue, parse_acl_id


def read_all(paths: list[Path], mapping: dict | None = None) -> list:
    units, unsupported = plan(sorted(p.resolve() for p in paths), "jsonl" if mapping else None)
    assert not unsupported
    with ContentStore() as store:
        for u in units:
            if u.fmt in CONTENT_FORMATS:
                store.add_file(u.path, u.fmt)
        ctx = ReadContext(store, mapping or {})
        return [it for u in units for it in iter_unit(u, ctx)]


def docs_by_id(items: list) -> dict[str, Document]:
    return {d.paper.corpus_id: d for d in items if isinstance(d, Document)}


@pytest.fixture(scope="module")
def fx(fixtures: Path) -> Path:
    return fixtures / "ingest"


def test_generic_acl_ids_mapping_and_rejects(fx: Path) -> None:
    items = read_all([fx / "generic.jsonl"])
    docs = docs_by_id(items)
    assert set(docs) == {"2020.acl-main.207", "N18-3011", "W19-1234"}
    specter = docs["2020.acl-main.207"].paper
    assert (specter.year, specter.venue) == (2020, "ACL")
    assert specter.external_ids == {"doi": "10.18653/v1/2020.acl-main.207", "acl": "2020.acl-main.207"}
    assert [a.name for a in docs["N18-3011"].paper.authors] == ["Waleed Ammar", "Dirk Groeneveld"]
    assert (docs["N18-3011"].paper.year, docs["N18-3011"].paper.venue) == (2018, "NAACL")
    survey = docs["W19-1234"]
    assert survey.abstract == "First sentence. Second sentence."
    assert survey.paper.venue == "WS" and survey.paper.publication_types == ["Review"]
    rejects = [r for r in items if isinstance(r, Reject)]
    assert [r.line for r in rejects] == [4, 5, 6, 8]
    assert rejects[0].reason.startswith("invalid JSON")
    assert "'id'" in rejects[1].reason and "'year'" in rejects[2].reason and "'authors'" in rejects[3].reason


def test_generic_explicit_mapping(tmp_path: Path) -> None:
    src = tmp_path / "x.jsonl"
    src.write_text('{"doc_id": "4983", "name": "T", "abstract_sentences": ["A.", "B."]}\n')
    docs = docs_by_id(read_all([src], parse_mapping(["id=doc_id", "title=name", "s2=doc_id"])))
    assert docs["4983"].abstract == "A. B." and docs["4983"].paper.external_ids == {"s2": "4983"}
    with pytest.raises(MappingError, match="unknown target"):
        parse_mapping(["nope=x"])


def test_s2orc_2020_join_contexts_and_orphans(fx: Path) -> None:
    items = read_all([fx / "metadata_0.jsonl", fx / "pdf_parses_0.jsonl"])
    docs = docs_by_id(items)
    d = docs["1001"]
    assert d.abstract == "We study MDPs under uncertainty." and len(d.paragraphs) == 1
    assert [(r.cited_id, r.contexts) for r in d.references] == [
        ("2002", ["Robust MDPs were studied before (Xu and Mannor, 2012)."]),
        (None, ["Later work extended them, e.g. to games [2]."]),
        ("3003", []),
    ]
    assert d.references[1].title == "Robust stochastic games" and d.references[1].year == 2014
    assert d.paper.venue == "Math. Oper. Res" and d.paper.external_ids["doi"] == "10.1287/moor.1120.0540"
    assert docs["1002"].paper.publication_types == ["Review"]
    reasons = {(Path(r.source_file).name, r.line): r.reason for r in items if isinstance(r, Reject)}
    assert set(reasons) == {("metadata_0.jsonl", 3), ("metadata_0.jsonl", 4), ("pdf_parses_0.jsonl", 2)}
    assert "'year'" in reasons[("metadata_0.jsonl", 4)] and "no metadata" in reasons[("pdf_parses_0.jsonl", 2)]


def test_datasets_api_merge_citations_annotations(fx: Path) -> None:
    names = ["s2_papers.jsonl", "s2_abstracts.jsonl", "s2_s2orc.jsonl", "s2_citations.jsonl"]
    items = read_all([fx / n for n in names])
    docs = docs_by_id(items)
    assert set(docs) == {"501", "502", "888"}
    d = docs["501"]
    assert d.abstract == "The findings abstract." and d.paper.venue == "Findings"
    assert d.paper.external_ids["mag"] == "123" and d.paper.external_ids["acl"] == "2021.findings-acl.5"
    assert d.paragraphs[0].section == "Intro"
    assert [(r.cited_id, r.title, r.year, r.contexts) for r in d.references] == [
        ("502", "Prior work title", 2019, ["We build on prior work [1]."]),
        (None, "Second title", 2018, ["Another claim [2]."]),
    ]
    assert docs["502"].paper.publication_types == ["Review"] and docs["502"].abstract is None
    assert docs["888"].paper.title == "Findings paper" and docs["888"].paragraphs
    cites = [c for c in items if isinstance(c, Citation)]
    assert [(c.citing_id, c.cited_id, c.intents) for c in cites] == [
        ("502", "501", ["methodology", "background"]), ("501", "1001", ["result"])]
    assert sum(isinstance(s, Skipped) for s in items) == 1
    reasons = sorted(r.reason for r in items if isinstance(r, Reject))
    assert len(reasons) == 4
    assert any("citingcorpusid" in r for r in reasons) and any("corpusid" in r for r in reasons)
    assert any("annotations.paragraph" in r for r in reasons) and any("Orphan" in r or "777" in r for r in reasons)


def test_per_paper_json_uses_acl_id_from_file_name(fx: Path) -> None:
    docs = docs_by_id(read_all(list((fx / "papers").glob("*.json"))))
    d = docs["2020.acl-main.999"]
    assert (d.paper.year, d.paper.venue, d.paper.external_ids) == (2020, "ACL", {"acl": "2020.acl-main.999"})
    assert [a.name for a in d.paper.authors] == ["Jane Q Doe"]
    assert [r.contexts for r in d.references] == [
        ["Summarisation is old (Luhn, 1958)."], ["Neural methods came later (See et al., 2017)."]]
    assert [p.section for p in d.paragraphs] == ["Introduction"]
    assert docs["P19-1001"].paper.venue == "ACL" and docs["P19-1001"].paper.year == 2019


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_compressed_variants_read_identically(fx: Path, tmp_path: Path, suffix: str) -> None:
    plain = read_all([fx / "generic.jsonl"])
    packed = tmp_path / ("generic.jsonl" + suffix)
    data = (fx / "generic.jsonl").read_bytes()
    packed.write_bytes(gzip.compress(data) if suffix == ".gz" else zstandard.ZstdCompressor().compress(data))
    again = read_all([packed])
    strip = lambda xs: [x.model_dump(exclude={"source_file"}) if isinstance(x, Reject)
                        else x.model_copy(update={"paper": x.paper.model_copy(update={"source_file": None})}).model_dump()
                        for x in xs]
    assert strip(again) == strip(plain)


def test_detect_format_from_keys() -> None:
    assert detect_format({"citingcorpusid": 1}) == "s2-citations"
    assert detect_format({"corpusid": 1, "content": {}}) == "s2-s2orc"
    assert detect_format({"corpusid": 1, "abstract": "", "openaccessinfo": {}}) == "s2-abstracts"
    assert detect_format({"corpusid": 1, "title": "x"}) == "s2-papers"
    assert detect_format({"corpusid": 1, "model": "tldr", "text": "x"}) is None
    assert detect_format({"paper_id": "1", "has_pdf_parse": True}) == "s2orc-metadata"
    assert detect_format({"paper_id": "1", "body_text": []}) == "s2orc-pdf-parse"
    assert detect_format({"paper_id": "1", "pdf_parse": {}}) == "s2orc-json"
    assert detect_format({"acl_id": "x", "title": "t"}) == "jsonl"
    assert detect_format([1, 2]) is None


@pytest.mark.parametrize("acl_id,expected", [
    ("2020.acl-main.207", (2020, "ACL")), ("N18-3011", (2018, "NAACL")), ("D19-1001", (2019, "EMNLP")),
    ("Q17-1010", (2017, "TACL")), ("J93-2004", (1993, "CL")), ("W18-6501", (2018, "WS")),
    ("2021.findings-emnlp.3", (2021, "Findings")), ("2022.bionlp-1.1", (2022, "WS")),
    ("K16-1002", (2016, "CoNLL")), ("S17-2001", (2017, "SemEval")), ("not-an-id", (None, None)),
])
def test_parse_acl_id(acl_id: str, expected: tuple) -> None:
    assert parse_acl_id(acl_id) == expected


def test_venue_and_review_rules() -> None:
    assert normalise_venue("Findings of the Association for Computational Linguistics: EMNLP 2020") == "Findings"
    assert normalise_venue("Proceedings of the 5th Workshop on NLP at ACL") == "WS"
    assert normalise_venue("Annual Meeting of the Association for Computational Linguistics") == "ACL"
    assert normalise_venue("Computational Linguistics") == "CL"
    assert normalise_venue("Nature") == "Nature"
    assert normalise_venue(None, "E17-1001") == "EACL"
    assert looks_like_review("A Survey of Neural Summarization")
    assert looks_like_review("Deep learning for NER: a review")
    assert looks_like_review("Overview of the BioASQ Shared Task")
    assert not looks_like_review("Using survey data to predict turnout")
    assert not looks_like_review("Attention is all you need")


def test_sentence_spans_keep_abbreviations() -> None:
    text = "As Smith et al. (2019) show, see Fig. 2 and Eq. 3. Second one! Third?"
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "As Smith et al. (2019) show, see Fig. 2 and Eq. 3.", "Second one!", "Third?"]


def test_read_stats_counts(fx: Path) -> None:
    stats = ReadStats()
    for it in read_all([fx / "s2_citations.jsonl"]):
        stats.count(it)
    assert (stats.citations, stats.rejects, stats.skipped_rows) == (2, 1, {"cited paper has no corpus id": 1})


def test_a_footnote_marker_read_as_an_author_is_dropped_and_marks_are_stripped() -> None:
    from litnav.ingest.text import author_name

    assert author_name({"first": "†", "middle": [], "last": "Nlp", "suffix": ""}) == ""
    assert author_name({"first": "Jingbo", "middle": [], "last": "Zhu†", "suffix": ""}) == "Jingbo Zhu"
    assert author_name({"first": "Derek", "middle": ["F"], "last": "Wong", "suffix": ""}) == "Derek F Wong"
    assert author_name("  Yoav   Goldberg* ") == "Yoav Goldberg"


@pytest.mark.parametrize(("raw", "stored"), [
    ("Deep Recurrent Generative Decoder for Abstractive Text Summarization *",
     "Deep Recurrent Generative Decoder for Abstractive Text Summarization"),
    ("HMM Specialization with Selective Lexicalization*", "HMM Specialization with Selective Lexicalization"),
    ("Oxysterol Binding to the Gene 2 (GPR183)*", "Oxysterol Binding to the Gene 2 (GPR183)"),
    ("Differentiation of effector CD4 T cell populations (*).", "Differentiation of effector CD4 T cell populations."),
    ("Gender Bias Throughout the  Lifecycle†‡", "Gender Bias Throughout the Lifecycle"),
    # control characters and terminal escapes: every output strips them, so the corpus does not keep them
    ("Control\x07 Characters \x1b[31min\x1b[0m a \x00Title", "Control Characters in a Title"),
    # marks that are part of a name stay
    ("Fast Approximate String Matching with Suffix Arrays and A* Parsing", None),
    ("Efficient Parsing with A*", None),
    ("GLR*", None),
    ("Which *BERT? A Survey Organizing Contextualized Encoders", None),
    ("G*Power 3: a flexible statistical power analysis program", None),
    ("*", None),
])
def test_a_title_footnote_mark_is_not_part_of_the_stored_title(tmp_path: Path, raw: str, stored: str | None) -> None:
    import json

    src = tmp_path / "x.jsonl"
    src.write_text(json.dumps({"doc_id": "1", "name": raw, "abstract_sentences": ["A."]}) + "\n")
    docs = docs_by_id(read_all([src], parse_mapping(["id=doc_id", "title=name"])))
    assert docs["1"].paper.title == (stored or raw)


def test_an_id_with_whitespace_rejects_its_record_with_the_field(tmp_path: Path) -> None:
    import json

    src = tmp_path / "x.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "ok-1", "title": "Kept"}, {"id": "id with space", "title": "Rejected"},
        {"id": "new\nline", "title": "Rejected"}, {"id": "  padded  ", "title": "Kept, stripped"}]))
    items = read_all([src], parse_mapping(["id=id"]))
    assert set(docs_by_id(items)) == {"ok-1", "padded"}
    rejects = [r for r in items if isinstance(r, Reject)]
    assert [r.line for r in rejects] == [2, 3] and all("'id'" in r.reason and "whitespace" in r.reason
                                                        for r in rejects)


@pytest.mark.parametrize(("paragraphs", "message"), [
    ('[{"start": 0, "end": 5}, {"start": 6, "end": 500}]', "lies outside the text of 20 characters"),
    ('[{"start": 9, "end": 3}]', "is reversed"),
    ('[{"start": 0, "end": 10}, {"start": 5, "end": 12}]', "overlaps [0, 10)"),
])
def test_datasets_api_paragraph_spans_that_would_repeat_or_lose_text_are_named(paragraphs, message) -> None:
    """A span past the text had stored every later paragraph again; a reversed one lost its paragraph."""
    from litnav.ingest.readers.datasets_api import AnnotationError, annotations

    with pytest.raises(AnnotationError, match=r"content\.annotations\.paragraph.*" + re.escape(message)):
        annotations({"paragraph": paragraphs}, 20)
    assert annotations({"paragraph": '[{"start": 0, "end": 5}]', "bibref": '[{"start": 90, "end": 99}]'}, 20)
