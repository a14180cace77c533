"""Pydantic models of the input records, used to validate each raw record before it becomes a
``Document`` so that a rejected line's reason names the offending field.

The models ignore fields litnav does not use, accept the type variations real dumps show
(ids as int or str, years as int, ``""`` or ``"2011-11"``) and reject everything else.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator


def _id(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value.strip()
    return value


def _opt_id(value: Any) -> Any:
    value = _id(value)
    return None if value in ("", None) else value


_YEAR = re.compile(r"^\s*(\d{4})(?:[-/.T ][\d:.+\-TZ/ ]*)?\s*$")
"""A year as a string: four digits alone or opening a date ("2011", "2011-11", "2011-11-05",
"2011/11/05", "2011-11-05T10:00:00Z"); not "20190" or "2019a"."""


def _year(value: Any) -> Any:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        m = _YEAR.match(value)
        if not m or int(m.group(1)) == 0:
            raise ValueError(f"not a year: {value!r}")
        return int(m.group(1))
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not 1 <= value <= 9999:
        raise ValueError(f"not a year: {value!r}")  # the years a calendar date can have (1-9999)
    return value


def parse_year(value: Any) -> int | None:
    """A year from an int, an integral float or a string of four digits alone or opening a date
    (``"2011"``, ``"2011-11"``; not ``"20190"`` or ``"2019a"``); None/``""`` give None. Raises ``ValueError("not a year: ...")``
    for anything else (booleans and numbers outside 1-9999 included: year 0 has no date)."""
    value = _year(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError(f"not a year: {value!r}")


def _null_list(value: Any) -> Any:
    return [] if value is None else value


def _null_dict(value: Any) -> Any:
    return {} if value is None else value


Id = Annotated[str, BeforeValidator(_id), Field(min_length=1)]
OptId = Annotated[str | None, BeforeValidator(_opt_id)]
Year = Annotated[int | None, BeforeValidator(_year)]
Count = Annotated[int, Field(ge=0, le=2**31 - 1)] | None  # stored as int32
OptStr = str | None


class In(BaseModel):
    """Base of input models: unknown fields are ignored."""

    model_config = ConfigDict(extra="ignore")


class SpanIn(In):
    start: int
    end: int
    ref_id: OptId = None


class ParagraphIn(In):
    text: str
    section: OptStr = None
    cite_spans: Annotated[list[SpanIn], BeforeValidator(_null_list)] = []

    @model_validator(mode="after")
    def _spans_inside_text(self) -> ParagraphIn:
        """A cite span must lie inside its paragraph (``0 <= start <= end <= len(text)``; an empty
        span marks a position, as S2ORC's parser emits for markers it could not delimit): one that
        does not points at some other text, so the record is rejected with the span and the length
        rather than clamped onto a sentence that does not hold the citation."""
        n = len(self.text)
        for span in self.cite_spans:
            if span.start > span.end:
                raise ValueError(f"cite_span [{span.start}, {span.end}) (ref {span.ref_id}) is reversed")
            if not 0 <= span.start <= span.end <= n:
                raise ValueError(f"cite_span [{span.start}, {span.end}) (ref {span.ref_id}) lies outside its "
                                 f"paragraph of {n} characters")
        return self


class AuthorIn(In):
    first: OptStr = ""
    middle: Annotated[list[str], BeforeValidator(_null_list)] = []
    last: OptStr = ""
    suffix: OptStr = ""


class BibEntryIn(In):
    title: OptStr = None
    year: Year = None
    authors: Annotated[list[AuthorIn], BeforeValidator(_null_list)] = []
    link: OptId = None
    links: OptId = None


class ParseIn(In):
    """The full-text part of the S2ORC JSON layouts (pdf_parse / grobid_parse / top level)."""

    abstract: Annotated[list[ParagraphIn], BeforeValidator(_null_list)] = []
    body_text: Annotated[list[ParagraphIn], BeforeValidator(_null_list)] = []
    bib_entries: Annotated[dict[str, BibEntryIn], BeforeValidator(_null_dict)] = {}


class MetadataIn(In):
    """S2ORC 2020 ``metadata_*.jsonl`` row (and the ``metadata`` object of per-paper JSON)."""

    paper_id: OptId = None
    title: OptStr = None
    authors: Annotated[list[AuthorIn | str], BeforeValidator(_null_list)] = []
    abstract: OptStr = None
    year: Year = None
    arxiv_id: OptId = None
    acl_id: OptId = None
    pmc_id: OptId = None
    pubmed_id: OptId = None
    doi: OptId = None
    mag_id: OptId = None
    venue: OptStr = None
    journal: OptStr = None
    mag_field_of_study: Annotated[list[str], BeforeValidator(_null_list)] = []
    outbound_citations: Annotated[list[Id], BeforeValidator(_null_list)] = []
    inbound_citations: Annotated[list[Id], BeforeValidator(_null_list)] = []
    has_pdf_parse: bool | None = None


class PaperJsonIn(In):
    """A per-paper S2ORC JSON (aclsum, doc2json ``pdf/``, 20190928, 20200705, 20210101)."""

    paper_id: OptId = None
    title: OptStr = None
    authors: Annotated[list[AuthorIn | str], BeforeValidator(_null_list)] = []
    year: Year = None
    venue: OptStr = None
    abstract: Any = None
    metadata: MetadataIn | None = None
    pdf_parse: ParseIn | None = None
    grobid_parse: ParseIn | None = None
    latex_parse: ParseIn | None = None
    body_text: Annotated[list[ParagraphIn], BeforeValidator(_null_list)] = []
    bib_entries: Annotated[dict[str, BibEntryIn], BeforeValidator(_null_dict)] = {}


class S2AuthorIn(In):
    authorId: OptId = None
    name: OptStr = None


class FieldOfStudyIn(In):
    category: str
    source: OptStr = None


class PaperIn(In):
    """Datasets API ``papers`` row."""

    corpusid: Id
    externalids: Annotated[dict[str, OptId], BeforeValidator(_null_dict)] = {}
    title: str
    authors: Annotated[list[S2AuthorIn], BeforeValidator(_null_list)] = []
    venue: OptStr = None
    year: Year = None
    referencecount: Count = None
    citationcount: Count = None
    isopenaccess: bool | None = None
    s2fieldsofstudy: Annotated[list[FieldOfStudyIn], BeforeValidator(_null_list)] = []
    publicationtypes: Annotated[list[str], BeforeValidator(_null_list)] = []
    publicationdate: OptStr = None
    journal: Annotated[dict[str, Any], BeforeValidator(_null_dict)] = {}


class OpenAccessIn(In):
    externalids: Annotated[dict[str, OptId], BeforeValidator(_null_dict)] = {}


class AbstractIn(In):
    """Datasets API ``abstracts`` row."""

    corpusid: Id
    abstract: OptStr = None
    openaccessinfo: OpenAccessIn | None = None


class CitationIn(In):
    """Datasets API ``citations`` row."""

    citingcorpusid: Id
    citedcorpusid: OptId = None
    contexts: Annotated[list[str], BeforeValidator(_null_list)] = []
    intents: Annotated[list[str | list[str] | None], BeforeValidator(_null_list)] = []


class ContentIn(In):
    text: OptStr = None
    annotations: Annotated[dict[str, Any], BeforeValidator(_null_dict)] = {}


class S2orcIn(In):
    """Datasets API ``s2orc`` row."""

    corpusid: Id
    externalids: Annotated[dict[str, OptId], BeforeValidator(_null_dict)] = {}
    content: ContentIn


def reason(exc: ValidationError) -> str:
    """A one-line reason naming each failing field, e.g. ``field 'year': not a year: 'abc'``."""
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(x) for x in err["loc"]) or "record"
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"field {loc!r}: {msg}")
    return "; ".join(parts)



MAX_ABSTRACT_CHARS = 100_000
"""Longest abstract a record may carry (the longest of the ACL Anthology's in ``shared/data`` has
under 10,000 characters): a 10 MB "abstract" took 2 GiB and 30 s to ingest, a 100 MB one 14 GiB."""
MAX_FULL_TEXT_CHARS = 10_000_000
"""Longest body text (all paragraphs) a record may carry: a book-length thesis has about 1 MB."""


def oversized(doc) -> str | None:
    """Why ``doc`` (a ``Document``) is too large to ingest, or None: an abstract over
    :data:`MAX_ABSTRACT_CHARS` or a body over :data:`MAX_FULL_TEXT_CHARS` characters."""
    if doc.abstract and len(doc.abstract) > MAX_ABSTRACT_CHARS:
        return (f"field 'abstract': {len(doc.abstract):,} characters; an abstract has at most {MAX_ABSTRACT_CHARS:,} "
                "(is the field mapped to the right source field?)")
    body = sum(len(p.text) for p in doc.paragraphs)
    if body > MAX_FULL_TEXT_CHARS:
        return f"full text: {body:,} characters in its paragraphs; a paper's body has at most {MAX_FULL_TEXT_CHARS:,}"
    return None


def converted_records(records, source_file: str, convert, expected: tuple[type[Exception], ...] = (ValueError,)):
    """Yield ``convert(record)`` for each ``RawRecord``, and instead a ``Reject`` naming the file,
    line and reason for bad JSON, a failed pydantic validation (the failing fields), one of the
    ``expected`` errors (its message) or a ``Document`` too large to ingest (:func:`oversized`)."""
    from litnav.corpus.records import Document, Reject

    for rec in records:
        if rec.error:
            yield Reject(source_file=source_file, line=rec.line, reason=rec.error)
            continue
        try:
            out = convert(rec)
            too_large = oversized(out) if isinstance(out, Document) else None
            yield Reject(source_file=source_file, line=rec.line, reason=too_large) if too_large else out
        except ValidationError as exc:
            yield Reject(source_file=source_file, line=rec.line, reason=reason(exc))
        except expected as exc:
            yield Reject(source_file=source_file, line=rec.line, reason=str(exc))


def validated_records(path, model: type[BaseModel]):
    """Yield ``(line, instance)`` for each record of ``path`` that ``model`` validates, and a
    ``Reject`` naming the file, line and failing field for bad JSON or a failed validation."""
    from litnav.ingest.io import iter_records

    return converted_records(iter_records(path), str(path), lambda rec: (rec.line, model.model_validate(rec.value)),
                             expected=())
