"""Citation edges from a list-of-ids field of any JSONL (generic reader): auto-detected field
names, ``--map citations=FIELD``, OpenAlex-style ids, objects with ids, and bad values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litnav.ingest.readers.generic import generic_document, parse_mapping


def _doc(record: dict, mapping: dict | None = None):
    return generic_document(record, mapping or {}, "x.jsonl", 1)


@pytest.mark.parametrize("field", ["outbound_citations", "references", "referenced_works"])
def test_known_citation_fields_become_references(field: str) -> None:
    doc = _doc({"id": "a", "title": "Paper A", field: ["b", "c", "b", "a"]})
    assert [r.cited_id for r in doc.references] == ["b", "c"]  # deduplicated, no self-citation


def test_mapped_field_and_objects_with_ids() -> None:
    mapping = parse_mapping(["citations=cites"])
    doc = _doc({"id": "a", "title": "Paper A", "cites": [{"paperId": "b"}, {"title": "unlinked"}, 7]}, mapping)
    assert [r.cited_id for r in doc.references] == ["b", "7"]


def test_bad_citation_field_names_the_field() -> None:
    with pytest.raises(ValueError, match="'outbound_citations'"):
        _doc({"id": "a", "title": "Paper A", "outbound_citations": "b"})
    with pytest.raises(ValueError, match="'references'"):
        _doc({"id": "a", "title": "Paper A", "references": [1.5]})


def test_build_keeps_internal_edges(tmp_path: Path) -> None:
    from litnav.corpus import Corpus
    from litnav.ingest.build import build

    rows = [
        {"id": "p1", "title": "Graph neural networks for molecules", "year": 2019, "outbound_citations": []},
        {"id": "p2", "title": "Message passing on molecular graphs", "year": 2020, "outbound_citations": ["p1"]},
        {"id": "p3", "title": "A survey of molecular property prediction", "year": 2021,
         "outbound_citations": ["p1", "p2", "elsewhere"]},
    ]
    src = tmp_path / "papers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    build([src], tmp_path / "corpus", progress=False)
    with Corpus.open(tmp_path / "corpus") as c:
        assert sorted(e.cited_id for e in c.references("p3") if e.cited_id in {"p1", "p2"}) == ["p1", "p2"]
        assert sorted(e.citing_id for e in c.citations("p1")) == ["p2", "p3"]


def test_neurips_icml_file_reads_with_its_edges(shared_data: Path) -> None:
    """The NeurIPS/ICML citation corpus is plain generic JSONL: no mapping needed, every
    outbound citation becomes an edge (30,762 in all)."""
    from litnav.corpus.records import Document
    from litnav.ingest.build import iter_unit
    from litnav.ingest.join import ContentStore
    from litnav.ingest.plan import plan
    from litnav.ingest.readers import ReadContext

    path = shared_data / "corpora" / "neurips_icml_arxiv_citations.jsonl.gz"
    units, unsupported = plan([path], None)
    assert not unsupported and [u.fmt for u in units] == ["jsonl"]
    with ContentStore() as store:
        docs = [d for u in units for d in iter_unit(u, ReadContext(store, {})) if isinstance(d, Document)]
    assert len(docs) == 6545
    assert sum(len(d.references) for d in docs) == 30762
