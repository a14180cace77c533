"""Conversion between records and columnar rows (pyarrow tables in, DuckDB rows out)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from litnav.core.ids import normalise_external_id
from litnav.core.text import normalise_title
from litnav.corpus.chunking import ABSTRACT_SECTION, PARAGRAPH_SEPARATOR
from litnav.corpus.records import Author, Citation, Document, Paper, Reject

_AUTHOR = pa.struct([("name", pa.string()), ("author_id", pa.string())])
_STR_LIST = pa.list_(pa.string())

PAPER_SCHEMA = pa.schema([
    ("corpus_id", pa.string()), ("title", pa.string()), ("norm_title", pa.string()),
    ("authors", pa.list_(_AUTHOR)), ("year", pa.int32()), ("publication_date", pa.date32()),
    ("venue", pa.string()), ("venue_raw", pa.string()), ("publication_types", _STR_LIST),
    ("fields_of_study", _STR_LIST), ("external_ids", pa.map_(pa.string(), pa.string())),
    ("citation_count", pa.int32()), ("reference_count", pa.int32()), ("is_open_access", pa.bool_()),
    ("source_file", pa.string()), ("source_line", pa.int32()), ("chunked", pa.bool_()),
])
PAPER_COLUMNS = [f.name for f in PAPER_SCHEMA if f.name not in ("norm_title", "chunked")]


def document_tables(docs: Sequence[Document]) -> dict[str, pa.Table]:
    """Arrow tables for papers, external_ids, abstracts, paragraphs, refs and doc-linked citations.

    Empty abstracts and blank paragraphs are dropped (they carry no text and would only shift
    offsets). Paragraph ``idx`` counts the abstract as paragraph 0 when there is one, and
    ``char_start``/``char_end`` are offsets into the full text (abstract, then body, joined by a
    blank line).
    """
    p_cols: dict[str, list[Any]] = {name: [] for name in PAPER_SCHEMA.names}
    ext_id: list[str] = []
    ext_kind: list[str] = []
    ext_val: list[str] = []
    ab_id: list[str] = []
    ab_text: list[str] = []
    pg: dict[str, list[Any]] = {k: [] for k in ("corpus_id", "idx", "section", "char_start", "char_end", "text")}
    rf: dict[str, list[Any]] = {k: [] for k in ("citing_id", "ordinal", "title", "norm_title", "year", "authors", "contexts")}
    ct: dict[str, list[Any]] = {k: [] for k in ("citing_id", "cited_id", "contexts", "intents", "method", "origin")}
    sep = len(PARAGRAPH_SEPARATOR)
    au_name: list[str] = []
    au_id: list[str | None] = []
    au_off = [0]
    ex_key: list[str] = []
    ex_val: list[str] = []
    ex_off = [0]
    for d in docs:
        p = d.paper
        cid = p.corpus_id
        p_cols["corpus_id"].append(cid)
        p_cols["title"].append(p.title)
        p_cols["norm_title"].append(normalise_title(p.title))
        for a in p.authors:
            au_name.append(a.name)
            au_id.append(a.author_id)
        au_off.append(len(au_name))
        p_cols["year"].append(p.year)
        p_cols["publication_date"].append(p.publication_date)
        p_cols["venue"].append(p.venue)
        p_cols["venue_raw"].append(p.venue_raw)
        p_cols["publication_types"].append(p.publication_types)
        p_cols["fields_of_study"].append(p.fields_of_study)
        for kind, value in p.external_ids.items():
            ex_key.append(kind)
            ex_val.append(value)
        ex_off.append(len(ex_key))
        p_cols["citation_count"].append(p.citation_count)
        p_cols["reference_count"].append(p.reference_count)
        p_cols["is_open_access"].append(p.is_open_access)
        p_cols["source_file"].append(p.source_file)
        p_cols["source_line"].append(p.source_line)
        p_cols["chunked"].append(False)
        for kind, value in p.external_ids.items():
            ext_id.append(cid)
            ext_kind.append(kind.lower())
            ext_val.append(normalise_external_id(kind, value))
        pos = 0
        idx = 0
        if d.abstract and d.abstract.strip():
            ab_id.append(cid)
            ab_text.append(d.abstract)
            pos = len(d.abstract) + sep
            idx = 1
        for para in d.paragraphs:
            if not para.text.strip():
                continue
            pg["corpus_id"].append(cid)
            pg["idx"].append(idx)
            pg["section"].append(para.section)
            pg["char_start"].append(pos)
            pg["char_end"].append(pos + len(para.text))
            pg["text"].append(para.text)
            pos += len(para.text) + sep
            idx += 1
        if d.references:
            _references(cid, d, rf, ct)
    p_cols["authors"] = pa.ListArray.from_arrays(
        pa.array(au_off, pa.int32()),
        pa.StructArray.from_arrays([pa.array(au_name, pa.string()), pa.array(au_id, pa.string())],
                                   fields=list(_AUTHOR)))
    p_cols["external_ids"] = pa.MapArray.from_arrays(
        pa.array(ex_off, pa.int32()), pa.array(ex_key, pa.string()), pa.array(ex_val, pa.string()))
    return {
        "papers": pa.table(p_cols, schema=PAPER_SCHEMA),
        "external_ids": pa.table({"corpus_id": ext_id, "kind": ext_kind, "value": ext_val}),
        "abstracts": pa.table({"corpus_id": ab_id, "abstract": ab_text}, schema=pa.schema(
            [("corpus_id", pa.string()), ("abstract", pa.string())])),
        "paragraphs": pa.table(pg, schema=pa.schema([
            ("corpus_id", pa.string()), ("idx", pa.int32()), ("section", pa.string()),
            ("char_start", pa.int32()), ("char_end", pa.int32()), ("text", pa.string())])),
        "refs": pa.table(rf, schema=pa.schema([
            ("citing_id", pa.string()), ("ordinal", pa.int32()), ("title", pa.string()),
            ("norm_title", pa.string()), ("year", pa.int32()), ("authors", _STR_LIST),
            ("contexts", _STR_LIST)])),
        "citations": citation_table(ct),
    }


def _references(cid: str, d: Document, rf: dict[str, list[Any]], ct: dict[str, list[Any]]) -> None:
    linked: dict[str, list[str]] = {}
    for i, r in enumerate(d.references):
        if r.cited_id:
            if r.cited_id != cid:
                linked.setdefault(r.cited_id, []).extend(r.contexts)
        elif r.title:
            rf["citing_id"].append(cid)
            rf["ordinal"].append(i)
            rf["title"].append(r.title)
            rf["norm_title"].append(normalise_title(r.title))
            rf["year"].append(r.year)
            rf["authors"].append(r.authors)
            rf["contexts"].append(r.contexts)
    for cited, contexts in linked.items():
        ct["citing_id"].append(cid)
        ct["cited_id"].append(cited)
        ct["contexts"].append(list(dict.fromkeys(contexts)))
        ct["intents"].append([])
        ct["method"].append("source")
        ct["origin"].append("doc")


_CITATION_SCHEMA = pa.schema([
    ("citing_id", pa.string()), ("cited_id", pa.string()), ("contexts", _STR_LIST),
    ("intents", _STR_LIST), ("method", pa.string()), ("origin", pa.string())])


def citation_table(cols: dict[str, list[Any]]) -> pa.Table:
    """Arrow table of citation rows (columns as in the ``citations`` table)."""
    return pa.table(cols, schema=_CITATION_SCHEMA)


def dump_citation_table(cits: Sequence[Citation]) -> pa.Table:
    """Rows for edges given by a citations dump (origin ``'dump'``); the last of duplicate pairs wins."""
    last = {(c.citing_id, c.cited_id): c for c in cits}
    return citation_table({
        "citing_id": [k[0] for k in last], "cited_id": [k[1] for k in last],
        "contexts": [c.contexts for c in last.values()], "intents": [c.intents for c in last.values()],
        "method": [c.method for c in last.values()], "origin": ["dump"] * len(last)})


def reject_table(source_key: str, rejects: Sequence[Reject]) -> pa.Table:
    """Rows of the ``rejects`` table."""
    return pa.table({
        "source_key": [source_key] * len(rejects), "source_file": [r.source_file for r in rejects],
        "line": pa.array([r.line for r in rejects], pa.int32()), "reason": [r.reason for r in rejects]})


PAPER_SELECT = ", ".join(PAPER_COLUMNS)


def paper_from_row(row: Sequence[Any]) -> Paper:
    """A :class:`Paper` from a row selected as ``SELECT {PAPER_SELECT} FROM papers``."""
    (cid, title, authors, year, pdate, venue, venue_raw, ptypes, fos, ext, cc, rc, oa, sf, sl) = row
    return Paper.model_construct(
        corpus_id=cid, title=title,
        authors=[Author.model_construct(name=a["name"], author_id=a["author_id"]) for a in authors or []],
        year=year, publication_date=pdate, venue=venue, venue_raw=venue_raw,
        publication_types=list(ptypes or []), fields_of_study=list(fos or []),
        external_ids=dict(ext or {}), citation_count=cc, reference_count=rc, is_open_access=oa,
        source_file=sf, source_line=sl)


__all__ = ["ABSTRACT_SECTION", "PAPER_SELECT", "document_tables", "paper_from_row"]
