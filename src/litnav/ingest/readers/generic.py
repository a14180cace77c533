"""Generic JSONL of papers with a field mapping, for sources without a dedicated reader
(the ACL Anthology exports with ``acl_id``, SciFact's ``corpus.jsonl`` ...).

The mapping is ``target -> source field`` (dotted paths reach into objects: ``metadata.title``);
targets are ``MAPPABLE``. Unmapped targets take the first source field present among
``DEFAULT_SOURCES``. A list abstract (sentences) is joined with spaces; authors may be strings or
objects with ``name`` or ``first``/``last``. When the id comes from an ``acl_id``/``acl`` field,
the corpus id is the ACL id and year and venue are derived from it where missing.

``citations`` is a list of the ids of the papers this record cites (S2 ``outbound_citations``,
``references`` as a list of ids, OpenAlex ``referenced_works``); each becomes a citation edge
``record -> id`` that the corpus keeps when the cited id is (or later becomes) a corpus paper.
Lists of objects (``[{"paperId": ...}]``, ``[{"id": ...}]``) are read by their id key.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from litnav.core.text import visible_text
from litnav.corpus.records import BibReference, Document
from litnav.ingest.io import iter_records
from litnav.ingest.papers import external_ids, make_paper, parse_date
from litnav.ingest.readers import Item, ReadContext
from litnav.ingest.schemas import converted_records, parse_year
from litnav.ingest.text import author_name

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
    "citations": ("outbound_citations", "references", "referenced_works", "cited_ids"),
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


def _get(record: dict, parts: tuple[str, ...]) -> Any:
    node: Any = record
    for part in parts:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


class _Resolver:
    """Finds each target's value in a record: the first source field (mapped, else among
    ``DEFAULT_SOURCES``) holding a non-empty value. Which candidates can hit depends only on
    the record's key set, so the candidate lists are filtered once per key set (dumps repeat
    one or a few) instead of probing every candidate of every target per record."""

    MAX_SHAPES = 1024

    def __init__(self, mapping: dict[str, str]) -> None:
        self.plan = [
            (target, [(src, tuple(src.split(".")) if "." in src else None)
                      for src in ((mapping[target],) if target in mapping else candidates)])
            for target, candidates in DEFAULT_SOURCES.items()
        ]
        self.shapes: dict[tuple[str, ...], list[tuple[str, list[tuple[str, tuple[str, ...] | None]]]]] = {}

    def _for_shape(self, keys: tuple[str, ...]) -> list[tuple[str, list[tuple[str, tuple[str, ...] | None]]]]:
        present = set(keys)
        plan = [(t, c) for t, cands in self.plan
                if (c := [(src, parts) for src, parts in cands if parts is not None or src in present])]
        if len(self.shapes) >= self.MAX_SHAPES:
            self.shapes.clear()
        self.shapes[keys] = plan
        return plan

    def __call__(self, record: dict) -> tuple[dict[str, Any], dict[str, str]]:
        keys = tuple(record)
        plan = self.shapes.get(keys)
        if plan is None:
            plan = self._for_shape(keys)
        values: dict[str, Any] = {}
        fields: dict[str, str] = {}
        for target, sources in plan:
            for src, parts in sources:
                value = record[src] if parts is None else _get(record, parts)
                if value is not None and value != "" and value != []:
                    values[target] = value
                    fields[target] = src
                    break
        return values, fields


@lru_cache(maxsize=64)
def _resolver(mapping_items: tuple[tuple[str, str], ...]) -> _Resolver:
    return _Resolver(dict(mapping_items))


def _resolve(record: dict, mapping: dict[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """Values per target and the source field each came from."""
    return _resolver(tuple(sorted(mapping.items())))(record)


def _authors(value: Any, field: str) -> list[dict[str, str]]:
    if isinstance(value, str):
        value = [a for part in value.replace(";", " and ").split(" and ") if (a := part.strip(" ,"))]
    if not isinstance(value, list):
        raise ValueError(f"field {field!r}: expected a list or a string")
    out = []
    for a in value:
        if isinstance(a, dict):
            a = a.get("name") or author_name(a)
        if not isinstance(a, str):
            raise ValueError(f"field {field!r}: items must be strings or author objects")
        if name := " ".join(a.split()):
            out.append({"name": name})
    return out


def _opt_str(values: dict[str, Any], fields: dict[str, str], target: str) -> str | None:
    value = values.get(target)
    if value is None or isinstance(value, str):
        return value
    raise ValueError(f"field {fields[target]!r}: expected a string")


def _str_list(values: dict[str, Any], fields: dict[str, str], target: str) -> list[str]:
    value = values.get(target)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise ValueError(f"field {fields[target]!r}: expected a list of strings")


def _abstract(values: dict[str, Any], fields: dict[str, str]) -> str | None:
    value = values.get("abstract")
    if isinstance(value, list):
        value = " ".join(" ".join(str(s).split()) for s in value if str(s).strip())
    elif value is not None and not isinstance(value, str):
        raise ValueError(f"field {fields['abstract']!r}: expected a string or a list of sentences")
    return (value or "").strip() if _has_text(value) else None


def _has_text(value: str | None) -> bool:
    """True when ``value`` holds a visible character once control characters, terminal escapes
    (``core.text.visible_text``) and zero-width format characters are gone: an abstract of
    "\x00\x01\x1b[31m" or of zero-width spaces is none, and a title of them is empty."""
    return bool(value) and any(not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in visible_text(value))


def _id(value: Any, field: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"field {field!r}: expected a string id")
    return str(value).strip()


_REF_ID_KEYS = ("id", "paperId", "paper_id", "corpus_id", "corpusId", "cited_id")


def _cited_ids(value: Any, field: str, own_id: str) -> list[str]:
    """A citations field -> the distinct cited ids (own id dropped); raises ``ValueError``
    naming ``field`` when it is not a list of ids or of objects carrying one."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"field {field!r}: expected a list of cited paper ids")
    out: dict[str, None] = {}
    for item in value:
        if isinstance(item, dict):
            item = next((item[k] for k in _REF_ID_KEYS if item.get(k) not in (None, "")), None)
            if item is None:
                continue  # an unlinked bibliography entry: nothing to link
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise ValueError(f"field {field!r}: items must be ids (strings) or objects with an id")
        if (cid := str(item).strip()) and cid != own_id:
            out[cid] = None
    return list(out)


MAX_ID_CHARS = 512
"""Longest corpus id a generic record may carry (DOIs and URLs fit; a 5,000-character id squeezed
every other column of the results table to nothing)."""
MAX_TITLE_CHARS = 5000
"""Longest title a generic record may carry (the longest of the 73,970 ACL Anthology titles in
``shared/data`` has 818 characters; a 1.1 MB one printed a 3 MB results table)."""


def generic_document(record: Any, mapping: dict[str, str], source_file: str, line: int,
                     found: Counter | None = None) -> Document:
    """One ``Document`` from a generic record.

    Each field is checked explicitly (type, emptiness) and the ``Paper`` model is the one
    pydantic validation; raises ``ValueError`` naming the *source* field (``'acl_id'``,
    ``'year'``, ``'authors'`` ...) when the record lacks an id or title or has a wrongly typed
    field.
    """
    if isinstance(record, list):
        raise ValueError("record: a JSON array, not an object; litnav reads JSON Lines, one paper object per line "
                         "(a file holding one array of papers converts with: jq -c '.[]' FILE > FILE.jsonl)")
    if not isinstance(record, dict):
        raise ValueError("record: expected a JSON object")
    values, fields = _resolve(record, mapping)
    if found is not None:  # which --map targets found a value: a typo in a field name shows as none
        found.update(t for t in fields if t in mapping and t != "id")
    if "id" not in values:
        raise ValueError(f"field {mapping.get('id', 'id')!r}: missing (map it with --map id=FIELD)")
    corpus_id = _id(values["id"], fields["id"])
    if not corpus_id:
        raise ValueError(f"field {fields['id']!r}: empty")
    if any(ch.isspace() for ch in corpus_id):  # a corpus id is one token in run files, RIS and URLs
        raise ValueError(f"field {fields['id']!r}: an id may not contain whitespace ({corpus_id!r})")
    if len(corpus_id) > MAX_ID_CHARS or any(unicodedata.category(ch) in ("Cc", "Cf") for ch in corpus_id):
        raise ValueError(f"field {fields['id']!r}: an id has at most {MAX_ID_CHARS} characters and no control "
                         f"characters ({corpus_id[:40]!r}{'...' if len(corpus_id) > 40 else ''})")
    title = values.get("title")
    title_field = fields.get("title", mapping.get("title", "title"))
    if isinstance(title, str) and len(title) > MAX_TITLE_CHARS:
        raise ValueError(f"field {title_field!r}: {len(title):,} characters; a title has at most {MAX_TITLE_CHARS:,} "
                         "(is the field mapped to the right source field?)")
    if title is None:
        raise ValueError(f"field {title_field!r}: missing")
    if not isinstance(title, str):
        raise ValueError(f"field {title_field!r}: expected a string")
    if not _has_text(title):
        raise ValueError(f"field {title_field!r}: empty (no visible character)")
    raw_ids = {k: _id(values[k], fields[k]) for k in ID_KINDS if k in values}
    if fields["id"] in ("acl_id", "acl"):
        raw_ids.setdefault("acl", corpus_id)
    try:
        year = parse_year(values.get("year"))
    except ValueError as exc:
        raise ValueError(f"field {fields['year']!r}: {exc}") from None
    paper = make_paper(
        corpus_id, title,
        authors=_authors(values["authors"], fields["authors"]) if "authors" in values else [],
        year=year,
        publication_date=parse_date(_opt_str(values, fields, "publication_date")),
        venue_raw=_opt_str(values, fields, "venue"),
        publication_types=_str_list(values, fields, "publication_types"),
        fields_of_study=_str_list(values, fields, "fields_of_study"),
        ids=external_ids(raw_ids), source_file=source_file, source_line=line,
    )
    refs = [BibReference(cited_id=c)
            for c in _cited_ids(values.get("citations"), fields.get("citations", "citations"), corpus_id)]
    return Document(paper=paper, abstract=_abstract(values, fields), references=refs)


def read_generic(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """Every record of a generic JSONL file, mapped with ``ctx.mapping``."""
    src = str(path)
    yield from converted_records(iter_records(path), src,
                                 lambda rec: generic_document(rec.value, ctx.mapping, src, rec.line, found=ctx.mapped))
