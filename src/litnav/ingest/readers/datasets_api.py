"""Semantic Scholar Datasets API readers: ``papers`` (merged with ``abstracts`` and ``s2orc`` of
the same corpus id through the build's content store), ``citations``, and ``s2orc`` rows that
have no ``papers`` row in the build (stored alone, titled from their ``title`` annotation).

``s2orc`` rows hold the full text as one string plus ``content.annotations``: a dict of
JSON-encoded lists of ``{start, end, attributes}`` offsets into that string (any may be null).
Paragraphs take the section of the last ``sectionheader`` starting before them; each
``bibentry`` (``attributes.id``, optional ``matched_paper_id``) becomes a reference whose
contexts are the sentences holding a ``bibref`` with that ``ref_id`` (bibrefs without
``ref_id`` cannot be attached and are ignored).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from litnav.core.text import sentence_at, sentence_spans
from litnav.corpus.records import BibReference, Citation, Document, Paragraph, Reject
from litnav.ingest.papers import external_ids, make_paper, parse_date
from litnav.ingest.readers import Item, ReadContext, Skipped
from litnav.ingest.readers.fulltext import DEFAULT_SECTION
from litnav.ingest.schemas import (
    AbstractIn,
    CitationIn,
    PaperIn,
    S2orcIn,
    converted_records,
    reason,
    validated_records,
)
from litnav.ingest.text import unique

_YEAR = re.compile(r"\b(19|20)\d{2}\b")


class AnnotationError(ValueError):
    """An annotation list is not valid JSON or not a list of spans."""


def annotations(content: dict[str, Any], length: int | None = None) -> dict[str, list[dict]]:
    """Decode ``content.annotations``: name -> list of spans sorted by offset (null lists become
    empty). With ``length`` (of ``content.text``), every span of text (:data:`_TEXT_SPANS`) must lie in ``[0, length]`` with
    ``start <= end``, and paragraphs must not overlap (a paragraph read twice would repeat its
    text as evidence). Raises ``AnnotationError`` naming the annotation and the span."""
    out: dict[str, list[dict]] = {}
    for name, raw in (content or {}).items():
        if raw is None:
            continue
        try:
            spans = orjson.loads(raw) if isinstance(raw, (str, bytes)) else raw
        except orjson.JSONDecodeError as exc:
            raise AnnotationError(f"field 'content.annotations.{name}': invalid JSON ({exc})") from exc
        if not isinstance(spans, list) or not all(isinstance(s, dict) and "start" in s and "end" in s for s in spans):
            raise AnnotationError(f"field 'content.annotations.{name}': not a list of spans")
        try:
            spans = [{**s, "start": int(s["start"]), "end": int(s["end"])} for s in spans]
        except (TypeError, ValueError) as exc:
            raise AnnotationError(f"field 'content.annotations.{name}': a span offset is not an integer ({exc})") from exc
        out[name] = sorted(spans, key=lambda s: (s["start"], s["end"]))
        if length is not None and name in _TEXT_SPANS:
            _check_spans(name, out[name], length)
    return out


_TEXT_SPANS = ("paragraph", "sectionheader", "abstract", "title")
"""The annotations whose spans become stored text (a citation span out of range is only skipped)."""


def _check_spans(name: str, spans: list[dict], length: int) -> None:
    for i, span in enumerate(spans):
        start, end = span["start"], span["end"]
        if start > end:
            raise AnnotationError(f"field 'content.annotations.{name}': span [{start}, {end}) is reversed")
        if start < 0 or end > length:
            raise AnnotationError(f"field 'content.annotations.{name}': span [{start}, {end}) lies outside the "
                                  f"text of {length} characters")
        if name == "paragraph" and i and start < spans[i - 1]["end"]:
            raise AnnotationError(f"field 'content.annotations.{name}': span [{start}, {end}) overlaps "
                                  f"[{spans[i - 1]['start']}, {spans[i - 1]['end']})")


def _text(text: str, span: dict) -> str:
    return " ".join(text[int(span["start"]) : int(span["end"])].split())


def _inside(spans: list[dict], outer: dict) -> list[dict]:
    s, e = int(outer["start"]), int(outer["end"])
    return [x for x in spans if s <= int(x["start"]) and int(x["end"]) <= e]


def s2orc_fulltext(row: S2orcIn) -> tuple[str | None, str | None, list[Paragraph], list[BibReference]]:
    """``(title, abstract, paragraphs, references)`` of one ``s2orc`` row."""
    text = row.content.text or ""
    ann = annotations(row.content.annotations, len(text))
    title = next((t for s in ann.get("title", []) if (t := _text(text, s))), None)
    abstract = "\n\n".join(t for s in ann.get("abstract", []) if (t := _text(text, s))) or None
    headers = ann.get("sectionheader", [])
    header_starts = [int(h["start"]) for h in headers]
    paras = ann.get("paragraph", [])
    para_starts = [int(p["start"]) for p in paras]
    paragraphs = []
    for p in paras:
        body = text[int(p["start"]) : int(p["end"])].strip()
        if not body:
            continue
        i = bisect.bisect_right(header_starts, int(p["start"])) - 1
        section = _text(text, headers[i]) if i >= 0 else ""
        paragraphs.append(Paragraph(section=section or DEFAULT_SECTION, text=body))
    contexts: dict[str, list[str]] = {}
    sentence_cache: dict[int, list[tuple[int, int]]] = {}
    for ref in ann.get("bibref", []):
        ref_id = (ref.get("attributes") or {}).get("ref_id")
        j = bisect.bisect_right(para_starts, int(ref["start"])) - 1
        if not ref_id or j < 0 or int(ref["start"]) >= int(paras[j]["end"]):
            continue
        ps, pe = int(paras[j]["start"]), int(paras[j]["end"])
        spans = sentence_cache.setdefault(j, sentence_spans(text[ps:pe]))
        sent = sentence_at(text[ps:pe], int(ref["start"]) - ps, spans)
        if sent:
            contexts.setdefault(ref_id, []).append(sent)
    refs = []
    for entry in ann.get("bibentry", []):
        attrs = entry.get("attributes") or {}
        matched = attrs.get("matched_paper_id")
        btitle = next((t for s in _inside(ann.get("bibtitle", []), entry) if (t := _text(text, s))), None)
        year = _YEAR.search(_text(text, entry))
        refs.append(BibReference(
            cited_id=str(matched) if matched not in (None, "") else None,
            title=btitle,
            year=int(year.group(0)) if year else None,
            authors=[a for s in _inside(ann.get("bibauthor", []), entry) if (a := _text(text, s))],
            contexts=unique(contexts.get(attrs.get("id") or "", [])),
        ))
    return title, abstract, paragraphs, refs


def paper_document(
    row: PaperIn, abstract: AbstractIn | None, full: S2orcIn | None, source_file: str, line: int
) -> Document:
    """One ``Document`` from a ``papers`` row merged with its ``abstracts`` and ``s2orc`` rows."""
    ids = external_ids(row.externalids)
    for extra in (abstract.openaccessinfo.externalids if abstract and abstract.openaccessinfo else {},
                  full.externalids if full else {}):
        for k, v in external_ids(extra).items():
            ids.setdefault(k, v)
    ids.setdefault("s2", row.corpusid)
    paragraphs: list[Paragraph] = []
    refs: list[BibReference] = []
    text_abstract = None
    if full is not None:
        _, text_abstract, paragraphs, refs = s2orc_fulltext(full)
    journal = row.journal.get("name") if isinstance(row.journal.get("name"), str) else None
    paper = make_paper(
        row.corpusid, row.title,
        authors=[{"name": a.name, "author_id": a.authorId} for a in row.authors if a.name],  # see make_paper
        year=row.year, publication_date=parse_date(row.publicationdate),
        venue_raw=row.venue or journal, journal=journal, publication_types=row.publicationtypes,
        fields_of_study=[f.category for f in row.s2fieldsofstudy], ids=ids,
        citation_count=row.citationcount, reference_count=row.referencecount,
        is_open_access=row.isopenaccess, source_file=source_file, source_line=line,
    )
    text = (abstract.abstract if abstract else None) or text_abstract
    return Document(paper=paper, abstract=(text or "").strip() or None, paragraphs=paragraphs, references=refs)


def _take(ctx: ReadContext, fmt: str, key: str, model: type) -> tuple[Any, Reject | None]:
    if ctx.content is None or (hit := ctx.content.take(fmt, key)) is None:
        return None, None
    try:
        return model.model_validate(hit[2]), None
    except ValidationError as exc:
        return None, Reject(source_file=hit[0], line=hit[1], reason=reason(exc))


def read_papers(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """``papers`` rows, each merged with the build's ``abstracts``/``s2orc`` row of its id."""
    src = str(path)
    for item in validated_records(path, PaperIn):
        if isinstance(item, Reject):
            yield item
            continue
        line, row = item
        if not row.title.strip():
            yield Reject(source_file=src, line=line, reason="field 'title': empty")
            continue
        abstract, bad_a = _take(ctx, "s2-abstracts", row.corpusid, AbstractIn)
        full, bad_f = _take(ctx, "s2-s2orc", row.corpusid, S2orcIn)
        for bad in (bad_a, bad_f):
            if bad:
                yield bad
        try:
            yield paper_document(row, abstract, full, src, line)
        except AnnotationError as exc:
            yield Reject(source_file=src, line=line, reason=f"s2orc row of {row.corpusid}: {exc}")


def _citation(row: CitationIn) -> Citation | Skipped:
    """The edge of a validated ``citations`` row (``Skipped`` when the cited paper has no id)."""
    if row.citedcorpusid is None:
        return Skipped("cited paper has no corpus id")
    intents: list[str] = []
    for it in row.intents:
        intents.extend([it] if isinstance(it, str) else (it or []))
    return Citation.model_construct(
        citing_id=row.citingcorpusid, cited_id=row.citedcorpusid,
        contexts=unique(c for c in row.contexts if c), intents=unique(i for i in intents if i), method="source")


def _plain_id(value: Any, optional: bool) -> str | None | bool:
    """``value`` as the id ``CitationIn`` would make of it, or False when only pydantic can tell."""
    if type(value) is int:
        return str(value)
    if type(value) is str:
        v = value.strip()
        return v if v else (None if optional else False)
    return None if optional and value is None else False


def _plain_citation(value: Any) -> Citation | Skipped | None:
    """The item of a plainly typed ``citations`` row without running pydantic (ids int or str,
    contexts a list of strings, intents strings or lists of strings): the same result as
    validating it with ``CitationIn``; None for anything else (then pydantic validates it)."""
    if type(value) is not dict:
        return None
    citing, cited = _plain_id(value.get("citingcorpusid"), False), _plain_id(value.get("citedcorpusid"), True)
    contexts, intents = value.get("contexts") or [], value.get("intents") or []
    if citing is False or cited is False or type(contexts) is not list or type(intents) is not list:
        return None
    if any(type(c) is not str for c in contexts):
        return None
    flat: list[str] = []
    for it in intents:
        if type(it) is str:
            flat.append(it)
        elif type(it) is list and all(type(i) is str for i in it):
            flat.extend(it)
        elif it is not None:
            return None
    if cited is None:
        return Skipped("cited paper has no corpus id")
    # model_validate, not model_construct: pydantic's compiled validator builds it in about half the time
    return Citation.model_validate({"citing_id": citing, "cited_id": cited, "contexts": unique(c for c in contexts if c),
                                    "intents": unique(i for i in flat if i), "method": "source"})


def read_citations(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """``citations`` rows -> ``Citation``; rows whose cited paper has no corpus id are skipped
    (counted as ``Skipped('cited paper has no corpus id')``). Plainly typed rows skip pydantic
    (:func:`_plain_citation`, the same result); others are validated with ``CitationIn``."""
    from litnav.ingest.io import iter_records

    def convert(rec: Any) -> Citation | Skipped:
        fast = _plain_citation(rec.value)
        return fast if fast is not None else _citation(CitationIn.model_validate(rec.value))

    yield from converted_records(iter_records(path), str(path), convert, expected=())


def read_abstract_leftovers(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """``abstracts`` rows no ``papers`` row of the build took: rejected (no title)."""
    src = str(path)
    for line, why in ctx.content.bad(path) if ctx.content else []:
        yield Reject(source_file=src, line=line, reason=why)
    for line, value in ctx.content.leftovers(path) if ctx.content else []:
        yield Reject(source_file=src, line=line,
                     reason=f"abstract of {value.get('corpusid')}: no papers record in this build")


def read_s2orc_leftovers(path: Path, ctx: ReadContext) -> Iterator[Item]:
    """``s2orc`` rows no ``papers`` row of the build took: stored alone, titled from the
    ``title`` annotation (rejected when there is none)."""
    src = str(path)
    for line, why in ctx.content.bad(path) if ctx.content else []:
        yield Reject(source_file=src, line=line, reason=why)
    for line, value in ctx.content.leftovers(path) if ctx.content else []:
        try:
            row = S2orcIn.model_validate(value)
            title, abstract, paragraphs, refs = s2orc_fulltext(row)
        except ValidationError as exc:
            yield Reject(source_file=src, line=line, reason=reason(exc))
            continue
        except AnnotationError as exc:
            yield Reject(source_file=src, line=line, reason=str(exc))
            continue
        if not title:
            yield Reject(source_file=src, line=line, reason=f"s2orc {row.corpusid}: no papers record and no title annotation")
            continue
        ids = external_ids(row.externalids)
        ids.setdefault("s2", row.corpusid)
        paper = make_paper(row.corpusid, title, ids=ids, source_file=src, source_line=line)
        yield Document(paper=paper, abstract=abstract, paragraphs=paragraphs, references=refs)
