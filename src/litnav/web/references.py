"""Read a reference list (BibTeX, RIS, CSL-JSON or plain titles) into ``Reference``s.

The format is chosen by extension (``.bib``, ``.ris``, ``.json``) and, for any other name (``.txt``
too), by content (``@`` -> BibTeX, ``TY  -`` -> RIS, a JSON array or object -> CSL-JSON, else one
title, DOI or arXiv id per line). An entry without a title is matched by its ids (no id either: not
found, with the reason).
Errors raise ``ReferenceParseError`` naming the file and the line or entry.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .normalise import GREEK as _GREEK
from .records import ExternalRecord

RefFormat = Literal["bibtex", "ris", "csl-json", "titles"]


class ReferenceParseError(ValueError):
    """A reference file cannot be read; the message names the file and line or entry."""


class Reference(BaseModel):
    """One entry of a reference list: its key (BibTeX key, CSL id, or ``line N``), its 1-based
    line in the file when known, and its bibliographic fields as an ``ExternalRecord``
    (provider ``"bibliography"``)."""

    model_config = ConfigDict(extra="forbid")

    key: str
    line: int | None = None
    record: ExternalRecord
    unreadable: list[str] = []
    """Fields the entry gives in a form that cannot be read (``"year 'twenty twenty'"``): not compared."""


_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d)")
_ANY_ID = re.compile(r"\S{1,64}")
_ARXIV_ID = re.compile(r"(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?")
_ACL_ID = re.compile(r"[A-Z]\d{2}-\d{4}|\d{4}\.[a-z][\w-]*\.\d+")
_PUBMED_ID = re.compile(r"\d{1,9}")
_ID_SHAPES = {"corpus_id": _ANY_ID, "arxiv": _ARXIV_ID, "acl": _ACL_ID, "pubmed": _PUBMED_ID}
_ARXIV_IN_TEXT = re.compile(r"arxiv(?:\.org)?[:\s/]+(?:abs/|pdf/)?(\d{4}\.\d{4,5}|[a-z\-]+/\d{7})", re.I)
_DOI_IN_TEXT = re.compile(r"(?:doi\.org/|doi:\s*)(10\.\d{4,9}/[^\s,;]+)", re.I)


def _year(v: Any) -> int | None:
    m = _YEAR.search(str(v)) if v not in (None, "") else None
    return int(m.group(1)) if m else None


_GREEK_MACRO = re.compile(r"\\(" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")(?![a-zA-Z])")
"""LaTeX Greek letters ("\\epsilon", "\\varphi", "\\Omega"): a corpus from S2 or arXiv writes them as
Unicode ("$ε$"), which ``normalise_title`` folds with its symbol variants (ϕ, ϵ)."""


_FOOTNOTE = re.compile(r"\\footnote\s*\{[^{}]*\}")
"""A footnote in a title: no part of it."""


def _unreadable_year(raw: Any) -> list[str]:
    """``["year 'twenty twenty'"]`` when a given year holds no year of 1500-2099, else []."""
    text = str(raw).strip() if raw not in (None, "") else ""
    return [f"year {text[:40]!r}"] if text and _year(text) is None else []


def _clean(s: str) -> str:
    s = _GREEK_MACRO.sub(lambda m: _GREEK[m.group(1)], s)
    s = _FOOTNOTE.sub("", s)
    s = s.replace("\\-", "").replace("\u00ad", "")  # TeX's and Unicode's soft hyphens
    s = re.sub(r"\\[a-zA-Z]+\s*(?=\{)", "", s)  # \emph{x} -> {x}
    return " ".join(s.replace("{", "").replace("}", "").split())


def _record(title: str, authors: list[str], year: int | None, venue: str | None,
            ids: dict[str, str], key: str) -> ExternalRecord:
    return ExternalRecord(
        title=_clean(title), authors=[_clean(a) for a in authors if a.strip()], year=year,
        venue=_clean(venue) if venue else None, external_ids={k: v for k, v in ids.items() if v},
        provider="bibliography", provider_id=key,
    )


def detect_format(path: Path, text: str) -> RefFormat:
    """The format of a reference file, by extension then by content."""
    suffix = path.suffix.lower()
    by_ext = {".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris", ".json": "csl-json"}
    if suffix in by_ext:
        return by_ext[suffix]  # type: ignore[return-value]
    head = text.lstrip()  # any other name (".txt" too: a BibTeX file saved as text) by its content
    if head.startswith("@"):
        return "bibtex"
    if re.match(r"TY  - ", head):
        return "ris"
    if head[:1] in "[{" and head[1:2] in ("", "{", "[", '"', " ", "\n", "\r", "\t"):
        return "csl-json"  # "[2] A title" is a numbered list
    return "titles"


_BIBTEX_FIELDS = frozenset({"title", "author", "year", "date", "journal", "booktitle", "doi", "eprint", "archiveprefix", "arxiv",
                            "url", "note", "howpublished", "pmid", "acl", "corpusid"})
"""The BibTeX fields an audit reads; the others (abstracts, reviews, files) are never decoded."""
MAX_AUTHORS = 100
"""Authors kept of an author field longer than :data:`MAX_FIELD_CHARS` (a large collaboration)."""
MAX_FIELD_CHARS = 20_000
"""No field an audit reads is longer (LaTeX decoding of one field grows with its square)."""


def _used_fields_only(path: Path):
    """A bibtexparser middleware that keeps only :data:`_BIBTEX_FIELDS`, cuts an author list
    longer than :data:`MAX_FIELD_CHARS` to its first :data:`MAX_AUTHORS` names and refuses any
    other field that long (``ReferenceParseError`` naming the entry): a 2 MB abstract took 23 s to
    decode and was never read."""
    from bibtexparser.middlewares.middleware import BlockMiddleware

    class UsedFieldsOnly(BlockMiddleware):
        def transform_entry(self, entry, library):
            for field in list(entry.fields):
                key = field.key.lower()
                if key not in _BIBTEX_FIELDS:
                    entry.pop(field.key)
                    continue
                if key == "title" and isinstance(field.value, str):  # before LaTeX decoding makes it "[...]"
                    field.value = _FOOTNOTE.sub("", field.value)
                if key == "author" and len(str(field.value)) > MAX_FIELD_CHARS:
                    # a collaboration's 1,800 names: the audit compares the first authors only
                    field.value = " and ".join(re.split(r"\s+and\s+", str(field.value), flags=re.I)[:MAX_AUTHORS])
                if len(str(field.value)) > MAX_FIELD_CHARS:
                    raise ReferenceParseError(f"{path}:{entry.start_line + 1}: entry {entry.key!r}: field "
                                              f"{field.key!r} has {len(str(field.value)):,} characters; no "
                                              f"reference field is longer than {MAX_FIELD_CHARS:,}")
            return entry

    return UsedFieldsOnly()


def _bibtex(path: Path, text: str) -> list[Reference]:
    """Entries with their LaTeX decoded (``Doesn{\\textquoteright}t`` -> "Doesn’t", ``Z\\"urich``
    -> "Zürich"; math such as ``$\\ell_2$`` kept); ids from ``doi``, ``eprint``, ``pmid``, ``acl``
    and litnav's own ``corpusid``."""
    from bibtexparser.model import DuplicateBlockKeyBlock

    lib = _parse_bibtex(path, text)
    duplicates = [b for b in lib.failed_blocks if isinstance(b, DuplicateBlockKeyBlock)]
    failed = [b for b in lib.failed_blocks if not isinstance(b, DuplicateBlockKeyBlock)]
    if failed:
        b = failed[0]
        err = getattr(b, "error", None)
        detail = getattr(err, "abort_reason", None) or str(err or "") or type(err).__name__
        first_line = detail.strip().splitlines()[0] if detail.strip() else "unparseable block"
        raise ReferenceParseError(
            f"{path}:{b.start_line + 1}: BibTeX entry cannot be parsed ({first_line}); "
            f"{len(failed)} bad block(s) in all"
        )
    entries = [(e.key, e, e.start_line + 1) for e in lib.entries]
    for b in duplicates:  # BibTeX warns and goes on; each copy is audited, its key marked
        again = _parse_bibtex(path, b.raw.replace(b.key, f"{b.key}~dup", 1)).entries
        entries += [(f"{b.key} (duplicate key)", e, b.start_line + 1 + e.start_line) for e in again]
    refs = []
    for key, e, line in entries:
        f = {k.lower(): _concatenated(str(v.value)) for k, v in e.fields_dict.items()}
        authors = [a for a in re.split(r"\s+and\s+", f" {f.get('author', '')} ") if a.strip() and a.strip() != "and"]
        ids = {"doi": f.get("doi", "").split(",")[0].strip()}
        eprint = re.sub(r"^arxiv:\s*", "", f.get("eprint", "") or f.get("arxiv", ""), flags=re.I).strip()
        if eprint and ("arxiv" in f.get("archiveprefix", "").lower() or re.fullmatch(r"\d{4}\.\d{4,5}(v\d+)?", eprint)
                       or "arxiv" in f):
            ids["arxiv"] = eprint
        elsewhere = " ".join(f.get(k, "") for k in ("url", "journal", "note", "howpublished"))
        m = _ARXIV_IN_TEXT.search(elsewhere)
        if m and "arxiv" not in ids:
            ids["arxiv"] = m.group(1)
        if not ids["doi"] and (m := _DOI_IN_TEXT.search(elsewhere)):
            ids["doi"] = m.group(1)
        if f.get("pmid"):
            ids["pubmed"] = f["pmid"]
        for field, kind in (("acl", "acl"), ("corpusid", "corpus_id")):
            if f.get(field):
                ids[kind] = f[field].strip()
        venue = f.get("journal") or f.get("booktitle")
        raw_year = f.get("year") or f.get("date")  # biblatex writes date = {2020-07-05}
        refs.append(Reference(key=key, line=line, unreadable=_unreadable_year(raw_year),
                              record=_record(f.get("title", ""), authors, _year(raw_year), venue, ids, key)))
    return sorted(refs, key=lambda r: r.line or 0)


def _parse_bibtex(path: Path, text: str):
    """``bibtexparser.Library`` of ``text``: the fields an audit reads (:func:`_used_fields_only`),
    LaTeX decoded; bibtexparser's own log is silenced (it repeats our errors with other line numbers)."""
    import logging

    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    quiet = logging.getLogger("bibtexparser")
    level, quiet.level = quiet.level, logging.CRITICAL
    try:
        return bibtexparser.parse_string(text, append_middleware=[_used_fields_only(path), LatexDecodingMiddleware()])
    finally:
        quiet.setLevel(level)


_PIECE = re.compile(r'\s*(?:"([^"]*)"|\{([^{}]*)\})\s*')


def _concatenated(value: str) -> str:
    """A BibTeX value joined with ``#`` (``"Coach: A Coarse-to-Fine Approach for " # "Cross-domain"``)
    as one string; any other value as it is."""
    if "#" not in value:
        return value
    parts = value.split("#")
    pieces = [_PIECE.fullmatch(p) for p in parts]
    if len(parts) < 2 or not all(pieces):
        return value
    return "".join(m.group(1) if m.group(1) is not None else m.group(2) for m in pieces)


def _check_ris_ends(path: Path, text: str) -> None:
    """Raise ``ReferenceParseError`` naming the line of an entry that has no ``ER  -`` end line
    (the next ``TY  -`` or the end of the file comes first): rispy would drop that entry silently."""
    open_at = None
    for n, line in enumerate(text.splitlines(), 1):
        tag = line[:6].rstrip()
        if tag == "TY  -":
            if open_at is not None:
                break
            open_at = n
        elif tag == "ER  -":
            open_at = None
    if open_at is not None:
        raise ReferenceParseError(f"{path}:{open_at}: RIS entry starting here has no end line 'ER  - ' before "
                                  "the next entry or the end of the file; every entry ends with 'ER  - '")


def _ris(path: Path, text: str) -> list[Reference]:
    import rispy
    starts = [i + 1 for i, line in enumerate(text.splitlines()) if line.startswith("TY  -")]
    _check_ris_ends(path, text)
    try:
        entries = rispy.loads(text)
    except Exception as exc:  # rispy raises several types for malformed input
        raise ReferenceParseError(f"{path}: RIS cannot be parsed ({exc})") from exc
    if not entries and text.strip():
        raise ReferenceParseError(f"{path}:1: no RIS entries (each must start with 'TY  - ')")
    refs = []
    for i, e in enumerate(entries):
        line = starts[i] if i < len(starts) else None
        title = e.get("title") or e.get("primary_title") or e.get("translated_title") or ""
        authors = list(e.get("first_authors") or []) + list(e.get("authors") or [])
        raw_year = e.get("year") or e.get("publication_year") or e.get("date")
        year = _year(raw_year)
        ids = {"doi": e.get("doi", "")}
        m = _ARXIV_IN_TEXT.search(" ".join(e.get("urls") or []) + " " + str(e.get("url", "")))
        if m:
            ids["arxiv"] = m.group(1)
        # litnav's own RIS: AN corpus id (DB litnav) and an N1 note naming the ids (earlier exports: C1
        # corpus id, C2 arXiv, C3 ACL, C4 PubMed); another tool's fields hold other things, so each
        # counts only in its id's own shape (and a corpus id only beside its title)
        note = " ".join(n for n in e.get("notes") or [] if isinstance(n, str))
        found = [("corpus_id", e.get("accession_number") if e.get("name_of_database") == "litnav" else None)]
        found += [(kind, e.get(tag)) for tag, kind in (("custom1", "corpus_id"), ("custom2", "arxiv"),
                                                       ("custom3", "acl"), ("custom4", "pubmed"))]
        found += [(kind, m.group(1)) for kind, label in (("corpus_id", "litnav corpus_id"), *RIS_NOTE_IDS)
                  if (m := re.search(rf"\b{re.escape(label)}: (\S+)", note))]
        for kind, raw in found:
            value = raw.strip() if isinstance(raw, str) else ""
            if value and _ID_SHAPES[kind].fullmatch(value) and kind not in ids:
                ids[kind] = value
        venue = e.get("journal_name") or e.get("secondary_title")
        key = e.get("id") or f"entry {i + 1}"
        refs.append(Reference(key=str(key), line=line, unreadable=_unreadable_year(raw_year),
                              record=_record(title, authors, year, venue, ids, str(key))))
    return refs


RIS_NOTE_IDS = (("arxiv", "arXiv"), ("acl", "ACL Anthology"), ("pubmed", "PubMed"))
"""The ids the N1 note of litnav's RIS export names after its corpus id, as ``(kind, label)``
("litnav corpus_id: X | arXiv: Y | ACL Anthology: Z | PubMed: W"; ``session.export.to_ris``)."""


def _csl_name(a: dict[str, Any]) -> str:
    if a.get("family"):
        return f"{a['family']}, {a.get('given', '')}".strip(", ")
    return str(a.get("literal", ""))


def _csl(path: Path, text: str) -> list[Reference]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReferenceParseError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from exc
    except RecursionError:
        raise ReferenceParseError(f"{path}: invalid JSON (nested too deeply)") from None
    if isinstance(data, dict):
        data = data.get("items", [data])
    if not isinstance(data, list):
        raise ReferenceParseError(f"{path}: CSL-JSON must be a list of items")
    refs = []
    for i, item in enumerate(data):
        key = str(item.get("id", f"item {i + 1}")) if isinstance(item, dict) else f"item {i + 1}"
        if not isinstance(item, dict):
            raise ReferenceParseError(f"{path}: CSL-JSON item {i + 1} is not an object")
        for field in ("title", "container-title", "DOI"):
            value = item.get(field)
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                item = {**item, field: value[0]}  # some exporters write a list of titles
            elif value is not None and not isinstance(value, str):
                raise ReferenceParseError(f"{path}: CSL-JSON item {i + 1} ({key}): field {field!r} must be "
                                          f"text, not {type(value).__name__}")
        issued = item.get("issued")
        try:
            raw_year = ((issued or {}).get("date-parts") or [[None]])[0][0]
        except (AttributeError, IndexError, TypeError, KeyError):
            raw_year = None
        if raw_year is None and isinstance(issued, dict):
            raw_year = issued.get("raw") or issued.get("literal")
        elif raw_year is None and isinstance(issued, (str, int)):
            raw_year = issued
        if isinstance(raw_year, float) and not raw_year.is_integer():
            raw_year = repr(raw_year)  # NaN, 1e400: no year
        elif isinstance(raw_year, float):
            raw_year = int(raw_year) if abs(raw_year) < 1e6 else repr(raw_year)
        year = _year(raw_year)
        given = item.get("author") or []
        given = [given] if isinstance(given, (str, dict)) else given if isinstance(given, list) else []
        authors = [_csl_name(a) if isinstance(a, dict) else a.strip() for a in given
                   if isinstance(a, dict) or (isinstance(a, str) and a.strip())]
        ids = {"doi": item.get("DOI", ""), "pubmed": str(item.get("PMID", ""))}
        custom = item.get("custom") if isinstance(item.get("custom"), dict) else {}  # litnav's own CSL-JSON
        for kind in ("corpus_id", "acl", "arxiv"):
            if isinstance(custom.get(kind), str) and custom[kind].strip():
                ids.setdefault(kind, custom[kind].strip())
        m = _ARXIV_IN_TEXT.search(str(item.get("URL", "")) + " " + str(item.get("number", "")))
        if m:
            ids["arxiv"] = m.group(1)
        refs.append(Reference(key=key, line=None, unreadable=_unreadable_year(raw_year), record=_record(
            item.get("title") or "", authors, year, item.get("container-title"), ids, key)))
    return refs


_LIST_MARKER = re.compile(r"^(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}[.)]|[-*•·–])\s+")
"""A list's marker before a title: "1. ", "[2] ", "(3) ", "4) ", "- ", "• "."""
_DOI_LINE = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.I)
_ARXIV_LINE = re.compile(r"^(?:arxiv:\s*|https?://arxiv\.org/(?:abs|pdf)/)?(\d{4}\.\d{4,5}(?:v\d+)?)(?:\.pdf)?$", re.I)


def _titles(path: Path, text: str) -> list[Reference]:
    """One reference per line: a title (after a list marker, :data:`_LIST_MARKER`), or a bare DOI
    or arXiv id (also as a doi.org / arxiv.org address), matched by that id."""
    refs = []
    for i, line in enumerate(text.splitlines(), start=1):
        title = _LIST_MARKER.sub("", line.strip())
        if not title or title.startswith("#"):
            continue
        ids = {}
        if m := _DOI_LINE.match(title):
            ids, title = {"doi": m.group(1)}, ""
        elif m := _ARXIV_LINE.match(title):
            ids, title = {"arxiv": m.group(1)}, ""
        refs.append(Reference(key=f"line {i}", line=i, record=_record(title, [], None, None, ids, f"line {i}")))
    return refs


MAX_REFERENCE_BYTES = 64 << 20
"""The largest reference file read (64 MiB; 6,000 BibTeX entries are about 7 MB): more is refused
before it fills the memory (a link to ``/dev/zero`` once took 14 GB)."""


def _decoded(path: Path, data: bytes) -> str:
    """The text of a reference file: UTF-8 (with or without its BOM), UTF-16/32 by their BOM (Windows
    and EndNote exports), or UTF-16 without one (every other byte zero); else ``ReferenceParseError``
    naming the line and column of the first bad byte."""
    import codecs

    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                       (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(codec)
            except UnicodeDecodeError as exc:
                raise ReferenceParseError(f"{path}: not valid {codec.upper()} ({exc.reason})") from None
    half = len(data) // 2
    if half >= 8 and max(data[0::2].count(0), data[1::2].count(0)) > 0.4 * half:  # UTF-16 saved without its BOM
        codec = "utf-16-le" if data[1::2].count(0) > data[0::2].count(0) else "utf-16-be"
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line, column = before.count(b"\n") + 1, exc.start - (before.rfind(b"\n") + 1) + 1
        raise ReferenceParseError(f"{path}:{line}: not UTF-8 at line {line}, column {column} (byte "
                                  f"0x{data[exc.start]:02x}); save the file as UTF-8") from None


def read_references(path: str | Path, fmt: RefFormat | None = None) -> tuple[RefFormat, list[Reference]]:
    """``(format, references)`` of a reference file. Raises ``ReferenceParseError`` (file and
    line/entry named) for unreadable files and syntax errors; an entry without a title is kept (its ids
    match it, or it is not found with that reason)."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_REFERENCE_BYTES + 1)
        if len(data) > MAX_REFERENCE_BYTES:
            raise ReferenceParseError(f"{path}: larger than {MAX_REFERENCE_BYTES >> 20} MiB; no reference list is "
                                      "this large (split it)")
        text = _decoded(path, data)
    except OSError as exc:
        raise ReferenceParseError(f"{path}: cannot read ({exc})") from exc
    fmt = fmt or detect_format(path, text)
    reader = {"bibtex": _bibtex, "ris": _ris, "csl-json": _csl, "titles": _titles}[fmt]
    return fmt, reader(path, text)
