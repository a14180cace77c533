"""Golden conformance over every file in ../shared/data/s2orc-samples (ir_datasets style):
format, counts (papers, rejects, references, linked references, citations) and the records at
positions 0, 9 and last (corpus_id, title prefix, year)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litnav.corpus.records import Document
from litnav.ingest import ReadStats, read_file
from litnav.ingest.build import iter_unit
from litnav.ingest.join import ContentStore
from litnav.ingest.plan import detect, plan
from litnav.ingest.readers import CONTENT_FORMATS, ReadContext

GOLDEN = {
    "datasets-api/abstracts/abstracts-sample.jsonl": ("s2-abstracts", (0, 100, 0, 0, 0), []),
    "datasets-api/authors/authors-sample.jsonl": None,
    "datasets-api/citations/citations-sample.jsonl": ("s2-citations", (0, 0, 0, 0, 77), []),
    "datasets-api/embeddings/embeddings-sample.jsonl": None,
    "datasets-api/paper-ids/paper-ids-sample.jsonl": None,
    "datasets-api/papers/papers-sample.jsonl": ("s2-papers", (100, 0, 0, 0, 0), [("108228682", "Optimization, characterization and immob", 2018), ("125999022", "Group Resume Learning through Drama in I", 2017), ("103457404", "Polyurethane compound rubber", 2007)]),
    "datasets-api/publication-venues/publication-venues-sample.jsonl": None,
    "datasets-api/s2orc/s2orc-sample.jsonl": ("s2-s2orc", (3, 0, 113, 93, 0), [("256867980", "Erratum Hypoxia-induced up-regulation of", None), ("256868353", "CiteSee: Augmenting Citations in Scienti", None)]),
    "datasets-api/tldrs/tldrs-sample.jsonl": None,
    "doc2json-fixtures/pdf/2020.acl-main.207.json": ("s2orc-json", (1, 0, 54, 0, 0), [("2020.acl-main.207", "SPECTER: Document-level Representation L", 2020)]),
    "doc2json-fixtures/pdf/N18-3011.json": ("s2orc-json", (1, 0, 27, 0, 0), [("N18-3011", "Construction of the Literature Graph in ", 2018)]),
    "doc2json-fixtures/s2orc_20190928/10002293.json": ("s2orc-json", (1, 0, 61, 50, 0), [("10002293", "Antimicrobial Photodynamic Therapy again", 2017)]),
    "doc2json-fixtures/s2orc_20190928/10042064.json": ("s2orc-json", (1, 0, 25, 12, 0), [("10042064", "Unionisation and Foreign Direct Investme", 2000)]),
    "doc2json-fixtures/s2orc_20190928/10045593.json": ("s2orc-json", (1, 0, 36, 34, 0), [("10045593", "Postmortem muscle protein degradation in", 2016)]),
    "doc2json-fixtures/s2orc_20200705/18980380.json": ("s2orc-pdf-parse", (0, 1, 0, 0, 0), []),
    "doc2json-fixtures/s2orc_20200705/18980463.json": ("s2orc-pdf-parse", (0, 1, 0, 0, 0), []),
    "doc2json-fixtures/s2orc_20200705/94551546.json": ("s2orc-pdf-parse", (0, 1, 0, 0, 0), []),
    "doc2json-fixtures/s2orc_20210101/24e6b80e338a4e543de6b49cada07156c9149d22.json": ("s2orc-json", (1, 0, 67, 0, 0), [("24e6b80e338a4e543de6b49cada07156c9149d22", "Niche Partitioning of Marine Group I Cre", 2011)]),
    "doc2json-fixtures/s2orc_20210101/f2235cd28c171f9f3b6a8bcebe246159c464980c.json": ("s2orc-json", (1, 0, 39, 0, 0), [("f2235cd28c171f9f3b6a8bcebe246159c464980c", "M P RA Munich Personal RePEc Archive Ter", 2006)]),
    "release-2020/metadata_sample.jsonl": ("s2orc-metadata", (1000, 0, 3094, 3094, 0), [("77490025", "State of external ocular muscles in stra", 1975), ("77490837", '["Is there a physician on board?" The hi', 2001), ("123626555", "A neutron reflectometer on thermal neutr", 2011)]),
    "unarxive/sample/arXiv_src_2212_086.jsonl": ("unarxive", (49, 0, 1786, 112, 0), [("2212.11867", "Zeros of a growing number of derivatives", 2022), ("2212.11798", "Analyticity of stationary spacetimes fro", 2022), ("2212.11827", "Differential Dynamic Microscopy can be a", 2022)]),
}


def test_golden_covers_every_sample_file(shared_data: Path) -> None:
    root = shared_data / "s2orc-samples"
    found = {str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".json", ".jsonl")}
    assert found == set(GOLDEN)


@pytest.mark.parametrize("rel", sorted(GOLDEN))
def test_reader_golden(shared_data: Path, rel: str) -> None:
    path = shared_data / "s2orc-samples" / rel
    expected = GOLDEN[rel]
    fmt = detect(path)
    if expected is None:
        assert fmt is None
        return
    assert fmt == expected[0]
    stats, docs = ReadStats(), []
    for item in read_file(path):
        stats.count(item)
        if isinstance(item, Document):
            docs.append(item.paper)
    assert (stats.papers, stats.rejects, stats.references, stats.linked_references, stats.citations) == expected[1]
    picks = [0, 9, -1] if len(docs) >= 10 else ([0, -1] if len(docs) > 1 else [0][: len(docs)])
    assert [(docs[i].corpus_id, docs[i].title[:40], docs[i].year) for i in picks] == expected[2]


def test_metadata_joins_20200705_pdf_parses(shared_data: Path) -> None:
    root = shared_data / "s2orc-samples"
    paths = [root / "release-2020/metadata_sample.jsonl", *sorted((root / "doc2json-fixtures/s2orc_20200705").glob("*.json"))]
    units, _ = plan(paths)
    stats = ReadStats()
    full = {}
    with ContentStore() as store:
        for u in units:
            if u.fmt in CONTENT_FORMATS:
                store.add_file(u.path, u.fmt)
        ctx = ReadContext(store)
        for u in units:
            for item in iter_unit(u, ctx):
                stats.count(item)
                if isinstance(item, Document) and item.paragraphs:
                    full[item.paper.corpus_id] = item
    assert set(full) == {"18980380", "18980463", "94551546"}
    assert (stats.papers, stats.rejects, stats.full_texts) == (1000, 0, 3)
    assert all(any(r.contexts for r in d.references) for d in full.values())


def test_s2orc_journal_names_type_journal_articles(shared_data: Path) -> None:
    """S2ORC 2020's ``journal`` field names the journal of most rows ("Blood"), but also
    conferences ("2016 IEEE International Conference on ...") and arXiv categories: only a journal
    makes the paper a ``JournalArticle`` (what the exports read as an article)."""
    from litnav.ingest.venues import venue_kind

    units, _ = plan([shared_data / "s2orc-samples/release-2020/metadata_sample.jsonl"])
    raw = {json.loads(line)["paper_id"]: (json.loads(line).get("journal") or "").strip()
           for line in (shared_data / "s2orc-samples/release-2020/metadata_sample.jsonl").open()}
    docs = [d for u in units for d in iter_unit(u, ReadContext(None)) if isinstance(d, Document)]
    typed = {d.paper.corpus_id for d in docs if "JournalArticle" in d.paper.publication_types}
    assert typed == {pid for pid, j in raw.items() if j and venue_kind(j) not in ("conference", "preprint")}
    assert 400 < len(typed) < 700  # 700 of the 1,000 rows name a journal


def test_s2orc_metadata_abstracts_lose_their_line_marks(shared_data: Path) -> None:
    """S2ORC 2020 metadata abstracts mark line breaks with " ::: "; quotes carried them
    ("Photodynamic ::: therapy (PDT) using ...")."""
    units, _ = plan([shared_data / "s2orc-samples/release-2020/metadata_sample.jsonl"])
    docs = [d for u in units for d in iter_unit(u, ReadContext(None)) if isinstance(d, Document) and d.abstract]
    assert len(docs) > 400 and not any(":::" in d.abstract for d in docs)
    assert any("\nMETHODS\n" in d.abstract for d in docs)
