"""S2ORC readers: the 2020 release (``metadata_*`` joined with ``pdf_parses_*``) and the
per-paper JSON layouts of the S2ORC tooling (aclsum, doc2json ``pdf/`` GROBID parses, the
20190928, 20200705 and 20210101 variants)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from litnav.corpus.records import Author, BibReference, Document, Reject
from litnav.ingest.io import base_name, iter_records
from litnav.ingest.papers import external_ids, make_paper
from litnav.ingest.readers import Item, ReadContext
from litnav.ingest.readers.fulltext import from_parse
from litnav.ingest.schemas import (
    AuthorIn,
    MetadataIn,
    PaperJsonIn,
    ParseIn,
    converted_records,
    reason,
    validated_records,
)
from litnav.ingest.text import author_name
from litnav.ingest.venues import is_acl_id


def _authors(raw: list[AuthorIn | str]) -> list[Author]:
    out = []
    for a in raw:
        name = author_name(a if isinstance(a, str) else a.model_dump())
        if name:
            out.append(Author(name=name))
    return out


def _merge_refs(linked: list[BibReference], outbound: list[str]) -> list[BibReference]:
    """Bib-entry references plus the metadata's outbound citations not already linked."""
    have = {r.cited_id for r in linked if r.cited_id}
    return linked + [BibReference(cited_id=c) for c in dict.fromkeys(outbound) if c not in have]


_LINE_MARK = re.compile(r"[ \t]*(?::::[ \t]*)+")


def metadata_abstract(text: str | None) -> str | None:
    """An S2ORC 2020 metadata abstract with its line marks (" ::: ", between paragraphs and
    around headings: "... mortality. ::: ::: ::: RESULTS ::: The overall ...") made line breaks,
    so no quote or evidence chunk carries them; None when empty."""
    return _LINE_MARK.sub("\n", text or "").strip() or None


def metadata_document(
    meta: MetadataIn, parse: ParseIn | None, source_file: str, line: int
) -> Document:
    """One ``Document`` from an S2ORC 2020 metadata row and its pdf_parse (if any)."""
    ids = external_ids(
        None, s2=meta.paper_id, arxiv=meta.arxiv_id, acl=meta.acl_id, pmc=meta.pmc_id,
        pubmed=meta.pubmed_id, doi=meta.doi, mag=meta.mag_id,
    )
    abstract, paragraphs, refs = (None, [], []) if parse is None else from_parse(parse)
    paper = make_paper(
        meta.paper_id or "", meta.title or "",
        authors=_authors(meta.authors), year=meta.year, venue_raw=meta.venue or meta.journal, journal=meta.journal,
        fields_of_study=meta.mag_field_of_study, ids=ids,
        citation_count=len(meta.inbound_citations) if meta.inbound_citations else None,
        reference_count=len(meta.outbound_citations) if meta.outbound_citations else None,
        source_file=source_file, source_line=line,
    )
    return Document(
        paper=paper,
        abstract=metadata_abstract(meta.abstract) or abstract,
        paragraphs=paragraphs,
        references=_merge_refs(refs, meta.outbound_citations),
    )


def read_metadata(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """S2ORC 2020 ``metadata_*.jsonl``: one Document per row, joined with the row's pdf_parse
    from the build's content store (by ``paper_id``)."""
    src = str(path)
    for item in validated_records(path, MetadataIn):
        if isinstance(item, Reject):
            yield item
            continue
        line, meta = item
        if not meta.paper_id:
            yield Reject(source_file=src, line=line, reason="field 'paper_id': missing")
            continue
        if not meta.title or not meta.title.strip():
            yield Reject(source_file=src, line=line, reason="field 'title': missing or empty")
            continue
        parse = None
        if ctx.content is not None and (hit := ctx.content.take("s2orc-pdf-parse", meta.paper_id)):
            try:
                parse = ParseIn.model_validate(hit[2])
            except ValidationError as exc:
                yield Reject(source_file=hit[0], line=hit[1], reason=reason(exc))
        yield metadata_document(meta, parse, src, line)


def read_pdf_parse_leftovers(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """The pdf_parses of ``path`` that no metadata row of the build took: rejected, because a
    2020 pdf_parse carries no title (pass its metadata shard in the same build)."""
    src = str(path)
    if ctx.content is None:
        raise ValueError("s2orc-pdf-parse needs the build's content store")
    for line, why in ctx.content.bad(path):
        yield Reject(source_file=src, line=line, reason=why)
    for line, value in ctx.content.leftovers(path):
        yield Reject(
            source_file=src, line=line,
            reason=f"pdf_parse {value.get('paper_id')}: no metadata record in this build "
            "(S2ORC 2020 pdf_parses carry no title; pass the metadata shard with it)",
        )


def _pick_parse(rec: PaperJsonIn) -> ParseIn:
    for parse in (rec.latex_parse, rec.pdf_parse, rec.grobid_parse):
        if parse is not None and parse.body_text:
            return parse
    for parse in (rec.pdf_parse, rec.grobid_parse, rec.latex_parse):
        if parse is not None:
            return parse
    return ParseIn(abstract=[], body_text=rec.body_text, bib_entries=rec.bib_entries)


def _flat_abstract(value: Any) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list):
        texts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in value]
        return "\n\n".join(t.strip() for t in texts if t and t.strip()) or None
    return None


def paper_json_document(rec: PaperJsonIn, path: Path, line: int, single: bool) -> Document:
    """One ``Document`` from a per-paper S2ORC JSON.

    corpus_id: the ACL id when the file name (``2020.acl-main.207.json``) or ``paper_id`` is one
    (aclsum's own ``paper_id`` is unreliable, e.g. ``"2020"``), else ``paper_id``.
    Raises ``ValueError`` naming the field when there is no id or no title.
    """
    meta = rec.metadata or MetadataIn()
    name = base_name(path)
    acl = meta.acl_id
    if single and is_acl_id(name):
        corpus_id, acl = name, name
    elif rec.paper_id and is_acl_id(rec.paper_id):
        corpus_id, acl = rec.paper_id, rec.paper_id
    elif rec.paper_id:
        corpus_id = rec.paper_id
    else:
        raise ValueError("field 'paper_id': missing")
    title = rec.title or meta.title
    if not title or not title.strip():
        raise ValueError("field 'title': missing or empty")
    parse = _pick_parse(rec)
    abstract, paragraphs, refs = from_parse(parse)
    abstract = _flat_abstract(rec.abstract) or abstract or metadata_abstract(meta.abstract)
    ids = external_ids(
        None, s2=corpus_id if corpus_id.isdigit() else None, arxiv=meta.arxiv_id, acl=acl,
        pmc=meta.pmc_id, pubmed=meta.pubmed_id, doi=meta.doi, mag=meta.mag_id,
    )
    paper = make_paper(
        corpus_id, title, authors=_authors(rec.authors or meta.authors),
        year=rec.year or meta.year, venue_raw=rec.venue or meta.venue or meta.journal, journal=meta.journal,
        fields_of_study=meta.mag_field_of_study, ids=ids,
        source_file=str(path), source_line=line,
    )
    return Document(paper=paper, abstract=abstract, paragraphs=paragraphs, references=refs)


def read_paper_json(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """Per-paper S2ORC JSON files (one object per file, or one per line)."""
    src = str(path)
    records = list(iter_records(path)) if path.name.lower().endswith((".json", ".json.gz", ".json.zst")) else None
    stream = records if records is not None else iter_records(path)
    single = records is not None and len(records) == 1
    yield from converted_records(
        stream, src, lambda rec: paper_json_document(PaperJsonIn.model_validate(rec.value), path, rec.line, single))
