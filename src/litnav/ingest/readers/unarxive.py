"""unarXive JSONL (https://github.com/IllDepence/unarXive, ``data_format.md``).

The corpus id is the arXiv id (``2212.11867``), so references whose bib entry contains an arXiv
id are linked to that id (they resolve within a corpus built from unarXive). Body paragraphs keep
their ``{{cite:...}}``/``{{formula:...}}`` markers as the source prints them; citation contexts
are the sentences holding a cite span of the entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from litnav.corpus.records import Author, BibReference, Document
from litnav.ingest.io import iter_records
from litnav.ingest.papers import external_ids, make_paper, parse_date
from litnav.ingest.readers import Item, ReadContext
from litnav.ingest.readers.fulltext import cite_contexts, paragraphs_of
from litnav.ingest.schemas import ParagraphIn, converted_records

_NEW_ARXIV = re.compile(r"^(\d{2})(\d{2})\.\d{4,5}")


def _year(arxiv_id: str, meta: dict[str, Any]) -> int | None:
    if m := _NEW_ARXIV.match(arxiv_id):
        return 2000 + int(m.group(1))
    date = parse_date(meta.get("update_date"))
    return date.year if date else None


def unarxive_document(rec: dict[str, Any], source_file: str, line: int) -> Document:
    """One ``Document`` from a unarXive paper; raises ``ValueError`` naming a missing field."""
    paper_id = rec.get("paper_id")
    if not isinstance(paper_id, str) or not paper_id.strip():
        raise ValueError("field 'paper_id': missing")
    meta = rec.get("metadata") or {}
    title = meta.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ValueError("field 'metadata.title': missing")
    body = [ParagraphIn.model_validate(p) for p in rec.get("body_text") or []]
    contexts = cite_contexts(body)
    refs = []
    for key, entry in (rec.get("bib_entries") or {}).items():
        arx = [a.get("id") for a in entry.get("contained_arXiv_ids") or [] if isinstance(a, dict)]
        refs.append(BibReference(cited_id=arx[0] if arx and arx[0] else None, contexts=contexts.get(key, [])))
    parsed = meta.get("authors_parsed") or []
    authors = [Author(name=" ".join(p for p in (a[1], a[0], a[2] if len(a) > 2 else "") if p))
               for a in parsed if isinstance(a, list) and len(a) >= 2]
    abstract = (rec.get("abstract") or {}).get("text") if isinstance(rec.get("abstract"), dict) else meta.get("abstract")
    paper = make_paper(
        paper_id.strip(), title, authors=authors, year=_year(paper_id, meta),
        venue_raw=meta.get("journal-ref"),
        fields_of_study=[rec["discipline"]] if isinstance(rec.get("discipline"), str) else [],
        ids=external_ids(None, arxiv=paper_id.strip(), doi=meta.get("doi")),
        source_file=source_file, source_line=line,
    )
    return Document(paper=paper, abstract=" ".join((abstract or "").split()) or None,
                    paragraphs=paragraphs_of(body), references=refs)


def read_unarxive(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """Every paper of a unarXive JSONL file."""
    src = str(path)

    def convert(rec):
        if not isinstance(rec.value, dict):
            raise ValueError("record: expected a JSON object")
        return unarxive_document(rec.value, src, rec.line)

    yield from converted_records(iter_records(path), src, convert, expected=(ValueError, TypeError, AttributeError))
