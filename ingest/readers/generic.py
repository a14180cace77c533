"""Generic JSONL of papers with a field mapping, for sources without a dedicated reader
(the ACL Anthology exports with ``acl_id``, SciFact's ``corpus.jsonl`` ...).

The mapping is ``target -> source field`` (dotted paths reach into objects: ``metadata.title``);
targets are ``MAPPABLE``. Unmapped targets take the first source field present among
``DEFAULT_SOURCES``. A list abstract (sentences) is joined with spaces; authors may be strings or
objects with ``name`` or ``first``/``last``. When the id comes from an ``acl_id``/``acl`` field,
the corpus id is the ACL id and year and venue are derived from it where missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from corpus.records import Author, Document, Reject

from ingest.io import iter_records
from ingest.papers import external_ids, make_paper, parse_date
from ingest.readers import Item, ReadContext
from ingest.schemas import GenericIn, reason
from ingest.text import author_name

ID_KINDS = ("doi", "arxiv", "acl", "pubmed", "pmc", "mag", "s2")

DEFAULT_SOURCES: dict[str, tuple[str, ...]] = {
    "id": ("corpus_id", "corpusid", "paper_id", "id", "doc_id", "acl_id", "_id"),
    "title": ("title",),
    "abstract": ("abstract", "abstract_sentences", "summary"),
    "year": ("year",),
    "venue": ("venue", "journal", "booktitle"),
    "authors": ("authors",),
    "publication_date": ("publication_date", "publicationdate", "date"),
    "publication_types": ("publication_types", "publicationtypes"),
    "fields_of_study": ("fields_of_study", "fieldsofstudy"),
    "doi": ("doi",),
    "arxiv": ("arxiv_id", "arxiv"),
    "acl": ("acl_id", "acl"),
    "pubmed": ("pubmed_id", "pmid", "pubmed"),
    "pmc": ("pmc_id", "pmcid", "pmc"),
    "mag": ("mag_id", "mag"),
    "s2": ("corpusid", "corpus_id"),
}
MAPPABLE = tuple(DEFAULT_SOURCES)
"""Targets accepted by ``--map target=source``."""


class MappingError(ValueError):
    """A ``--map`` item is malformed or names an unknown target."""


def parse_mapping(items: list[str] | None) -> dict[str, str]:
    """``["id=acl_id", ...]`` -> ``{"id": "acl_id"}``; raises ``MappingError`` naming the item."""
    out: dict[str, str] = {}
    for item in items or []:
        target, sep, source = item.partition("=")
        target, source = target.strip(), source.strip()
        if not sep or not target or not source:
            raise MappingError(f"--map {item!r}: expected target=source_field")
        if target not in MAPPABLE:
            raise MappingError(f"--map {item!r}: unknown target {target!r} (known: {', '.join(MAPPABLE)})")
        out[target] = source
    return out


def _get(record: dict, path: str) -> Any:
    node: Any = record
    for part in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _resolve(record: dict, mapping: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Values per target and the source field each came from."""
    values: dict[str, Any] = {}
    fields: dict[str, str] = {}
    for target, candidates in DEFAULT_SOURCES.items():
        for src in (mapping[target],) if target in mapping else candidates:
            value = _get(record, src)
            if value not in (None, "", []):
                values[target], fields[target] = value, src
                break
    return values, fields


def _authors(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [a for part in value.replace(";", " and ").split(" and ") if (a := part.strip(" ,"))]
    if not isinstance(value, list):
        raise ValueError("field 'authors': expected a list or a string")
    out = []
    for a in value:
        if isinstance(a, dict):
            a = a.get("name") or author_name(a)
        if not isinstance(a, str):
            raise ValueError("field 'authors': items must be strings or author objects")
        if a.strip():
            out.append(" ".join(a.split()))
    return out


def generic_document(record: Any, mapping: dict[str, str], source_file: str, line: int) -> Document:
    """One ``Document`` from a generic record; raises ``ValueError``/``ValidationError`` naming
    the field when the record lacks an id or title or has a wrongly typed field."""
    if not isinstance(record, dict):
        raise ValueError("record: expected a JSON object")
    values, fields = _resolve(record, mapping)
    abstract = values.get("abstract")
    if isinstance(abstract, list):
        abstract = " ".join(" ".join(str(s).split()) for s in abstract if str(s).strip())
    raw_ids = {k: values[k] for k in ID_KINDS if k in values}
    if fields.get("id") in ("acl_id", "acl"):
        raw_ids.setdefault("acl", values["id"])
    for k, v in raw_ids.items():
        if not isinstance(v, (str, int)) or isinstance(v, bool):
            raise ValueError(f"field {fields[k]!r}: expected a string id")
    if "id" not in values:
        raise ValueError(f"field {mapping.get('id', 'id')!r}: missing (map it with --map id=FIELD)")
    row = GenericIn.model_validate({
        "id": values.get("id"), "title": values.get("title"), "abstract": abstract,
        "year": values.get("year"), "venue": values.get("venue"),
        "publication_date": values.get("publication_date"),
        "authors": _authors(values.get("authors") or []),
        "publication_types": values.get("publication_types") or [],
        "fields_of_study": values.get("fields_of_study") or [],
        "external_ids": {k: str(v) for k, v in raw_ids.items()},
    })
    if not row.title.strip():
        raise ValueError(f"field {fields.get('title', 'title')!r}: empty")
    paper = make_paper(
        row.id, row.title, authors=[Author(name=a) for a in row.authors], year=row.year,
        publication_date=parse_date(row.publication_date), venue_raw=row.venue,
        publication_types=row.publication_types, fields_of_study=row.fields_of_study,
        ids=external_ids(row.external_ids), source_file=source_file, source_line=line,
    )
    return Document(paper=paper, abstract=(row.abstract or "").strip() or None)


def read_generic(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """Every record of a generic JSONL file, mapped with ``ctx.mapping``."""
    src = str(path)
    for rec in iter_records(path):
        if rec.error:
            yield Reject(source_file=src, line=rec.line, reason=rec.error)
            continue
        try:
            yield generic_document(rec.value, ctx.mapping, src, rec.line)
        except ValidationError as exc:
            errs = exc.errors()
            for e in errs:  # name the source field rather than the internal target
                if e["loc"] and e["loc"][0] in DEFAULT_SOURCES:
                    src_field = ctx.mapping.get(str(e["loc"][0]), str(e["loc"][0]))
                    e["loc"] = (src_field, *e["loc"][1:])
            yield Reject(source_file=src, line=rec.line, reason="; ".join(
                f"field {'.'.join(map(str, e['loc']))!r}: {e['msg']}" for e in errs[:3]))
        except ValueError as exc:
            yield Reject(source_file=src, line=rec.line, reason=str(exc))
