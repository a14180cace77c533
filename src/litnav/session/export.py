"""Exporting a session's results in standard formats: BibTeX, RIS, CSL-JSON, CSV, JSONL and a
TREC run.

Every bibliographic field comes from the corpus record of the paper (``Corpus.papers``), never
from the session's copy: the session names the corpus it searched, and the export re-reads it.
CSV and JSONL add the final score, the holistic probability and, per checkpoint, the score with
its verbatim quote. Writers are the well-kept libraries: ``bibtexparser`` (v2) with
``pylatexenc`` escaping, ``rispy``, ``csv`` and ``json``; CSL-JSON follows the CSL 1.0.2 item
schema (``type``, ``title``, ``author`` as family/given, ``issued.date-parts``, ``DOI``, ``URL``,
``PMID``, ``PMCID``, ``container-title``, ``number`` for the arXiv id).
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from litnav.core.records import Result, Session
from litnav.core.text import NAME_PARTICLES, split_name, visible_text
from litnav.corpus.records import Paper
from litnav.ingest.venues import venue_kind

logger = logging.getLogger(__name__)

ExportFormat = Literal["bibtex", "ris", "csljson", "csv", "jsonl", "trec"]
FORMATS: tuple[str, ...] = get_args(ExportFormat)
SUFFIXES: dict[str, ExportFormat] = {
    ".bib": "bibtex", ".bibtex": "bibtex", ".ris": "ris", ".json": "csljson", ".csljson": "csljson",
    ".csv": "csv", ".jsonl": "jsonl", ".trec": "trec", ".run": "trec",
}
"""File extension -> format, for ``litnav search --export FILE``."""
FORMAT_ALIASES: dict[str, ExportFormat] = {"csl-json": "csljson", "json": "csljson"}
"""Other spellings of a format (``litnav verify`` and the reference readers say "csl-json")."""

RUN_TAG = "litnav"
TEXT_FIELDS = ("title", "author", "booktitle", "journal", "howpublished")
"""BibTeX fields holding prose (LaTeX-escaped); identifiers and URLs are written verbatim."""


class ExportError(ValueError):
    """An export cannot be made; the message names the file, format or corpus at fault."""


@dataclass(frozen=True)
class ExportRow:
    """One exported result: the session's ``Result`` (rank, scores, judgements) and the corpus
    ``Paper`` (all bibliographic fields)."""

    result: Result
    paper: Paper

    @property
    def ids(self) -> dict[str, str]:
        """External ids of the corpus record (keys among ``corpus.records.EXTERNAL_ID_KINDS``), each
        on one line without control characters: a line break in an id forged RIS records."""
        return {k: _line(v) for k, v in self.paper.external_ids.items() if _line(v)}

    @property
    def s2_url(self) -> str | None:
        """The Semantic Scholar URL of a record whose source gave its S2 corpus id (external id
        ``s2``: the S2ORC and Datasets API readers, or ``--map s2=FIELD``), else None: a numeric
        id of another source ("1", "2", ...) is no S2 corpus id."""
        s2 = self.paper.external_ids.get("s2")
        return f"https://api.semanticscholar.org/CorpusID:{s2}" if s2 and s2.isdigit() else None

    @property
    def urls(self) -> list[str]:
        """Landing pages, most specific first: DOI, ACL Anthology, arXiv, PubMed, S2."""
        ids, out = self.ids, []
        if ids.get("doi"):
            out.append(f"https://doi.org/{ids['doi']}")
        if ids.get("acl"):
            out.append(f"https://aclanthology.org/{ids['acl']}")
        if ids.get("arxiv"):
            out.append(f"https://arxiv.org/abs/{ids['arxiv']}")
        if ids.get("pubmed"):
            out.append(f"https://pubmed.ncbi.nlm.nih.gov/{ids['pubmed']}/")
        if self.s2_url:
            out.append(self.s2_url)
        return out


def format_for_path(path: str | Path) -> ExportFormat:
    """The export format of a file name by its extension; raises ``ExportError`` listing the known ones."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ExportError(f"{path}: cannot tell the export format from the extension {suffix or '(none)'!r}; "
                          f"use one of {', '.join(sorted(SUFFIXES))}")
    return SUFFIXES[suffix]


def select_results(session: Session, top: int | None = None, min_score: float | None = None) -> list[Result]:
    """The session's results in rank order, at most ``top``, each with ``final_score >= min_score``.
    Raises ``ExportError`` for a ``min_score`` outside 0-1 (NaN included: final scores lie in 0-1)."""
    if min_score is not None and not 0.0 <= min_score <= 1.0:
        raise ExportError(f"min_score must be within 0 and 1 (final scores are), got {min_score}")
    results = [r for r in session.results if min_score is None or r.final_score >= min_score]
    return results[:top] if top is not None else results


def _line(text: str | None) -> str | None:
    return " ".join(visible_text(text).split()) if text else text


def _one_line_fields(paper: Paper) -> Paper:
    """``paper`` with its title, venue and author names on one line and without control
    characters or terminal escapes (a NUL or a newline in a title broke RIS lines and reached
    BibTeX, CSV and the report as they were)."""
    return paper.model_copy(update={
        "title": _line(paper.title), "venue": _line(paper.venue), "venue_raw": _line(paper.venue_raw),
        "authors": [a.model_copy(update={"name": _line(a.name)}) for a in paper.authors]})


def export_rows(session: Session, corpus, *, top: int | None = None,
                min_score: float | None = None) -> list[ExportRow]:
    """Pair each selected result with its corpus record (a fresh read of ``corpus``).

    A result whose id the corpus no longer holds is left out with a warning (never exported
    from the session's copy). When the corpus fingerprint differs from the session's, a warning
    says the metadata is the corpus's current one. Raises ``ExportError`` when ``corpus`` is
    another corpus than the session's (another directory and other contents) or holds none of
    the results.
    """
    from litnav.navigator.refine import check_same_corpus

    results = select_results(session, top, min_score)
    try:
        check_same_corpus(session, corpus, "an export reads its results' records")
    except ValueError as exc:
        raise ExportError(str(exc)) from None
    if session.corpus_fingerprint and corpus.fingerprint() != session.corpus_fingerprint:
        logger.warning("corpus %s changed since this search; exporting its current records", corpus.directory)
    papers = corpus.papers([r.corpus_id for r in results])
    rows = []
    for r in results:
        paper = papers.get(r.corpus_id)
        if paper is None:
            logger.warning("result %s is not in corpus %s; left out of the export", r.corpus_id, corpus.directory)
            continue
        rows.append(ExportRow(r, _one_line_fields(paper)))
    if results and not rows:
        raise ExportError(f"none of the {len(results)} results is in corpus {corpus.directory}; nothing to export")
    return rows


def open_session_corpus(session: Session, corpus_path: str | Path | None = None):
    """Open the corpus a session searched (``session.corpus``) or ``corpus_path``, read-only.

    Raises ``ExportError`` naming the path when it is missing or not a corpus.
    """
    from litnav.corpus import Corpus, CorpusError

    path = Path(corpus_path) if corpus_path is not None else (Path(session.corpus) if session.corpus else None)
    if path is None:
        raise ExportError("the session names no corpus; pass the corpus directory (--corpus)")
    try:
        return Corpus.open(path)
    except CorpusError as exc:
        raise ExportError(f"{exc}" + ("" if corpus_path is not None else
                                     " (the corpus this session searched; pass another with --corpus)")) from None


# -- BibTeX ---------------------------------------------------------------------------------------

def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


_STOP = {"a", "an", "the", "on", "of", "for", "and", "in", "to", "with", "towards", "toward", "from", "by", "via", "is",
         "are", "not", "do", "does", "can", "what", "how", "why", "when", "where", "which", "who", "it", "its", "all",
         "we", "you", "your", "our", "at", "as", "or", "be", "beyond", "into", "more", "than", "less"}


def bibtex_key(paper: Paper) -> str:
    """A citation key from the record alone: first author's surname, year, first significant
    title word (ASCII, lower case), e.g. ``karpukhin2020dense``; without an author the title word
    comes first (``attention2017``: a key opening with a year reads as a number); with neither
    author nor year the title word and the corpus id (``randomized13716045``, never a bare word
    such as ``long``); ``corpus_id`` based when all are empty."""
    surname = split_name(paper.authors[0].name)[0] if paper.authors else ""
    words = [w for w in re.findall(r"[a-z0-9]+", _ascii(paper.title).lower())
             if w not in _STOP and w[0].isalpha()]  # a key never opens with a digit ("3D ..." -> "object")
    cid = re.sub(r"[^A-Za-z0-9]", "", paper.corpus_id)
    surname = re.sub(r"[^a-z0-9]", "", _ascii(surname).lower())
    year = str(paper.year) if paper.year else ""
    if not surname:
        return (words[0] if words else "litnav") + (year or cid)
    return surname + year + (words[0] if words else "")


def unique_keys(papers: list[Paper]) -> list[str]:
    """``bibtex_key`` of each paper, made unique in list order by suffixes ``a``, ``b``, ... on
    repeats (the first keeps the bare key), so a key depends only on the records before it."""
    seen: dict[str, int] = {}
    used: set[str] = set()
    out = []
    for p in papers:
        base = bibtex_key(p)
        key = base
        n = seen.get(base, 0)
        while key in used:
            key = base + _suffix(n)
            n += 1
        seen[base] = n
        used.add(key)
        out.append(key)
    return out


def _suffix(n: int) -> str:
    letters = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(ord("a") + r) + letters
    return letters


_LATIN = re.compile("[\u0000-\u036f\u1e00-\u1eff\u2000-\u206f]+")
"""Runs of Latin-script text (ASCII, Latin-1, Latin Extended, combining marks, Latin Extended
Additional) and general punctuation: what the LaTeX encoder escapes in BibTeX fields."""


_MATH = re.compile(r"\$(?:[^$\s]{1,12}|[^$\n]{0,80}?\\[A-Za-z]+[^$\n]{0,80}?)\$")
"""A candidate inline math span of an arXiv title ("$\\ell_2$", "$k$-means++", "$O(n \\log n)$"):
a token without spaces, or a span holding a TeX command; :func:`_is_math` decides."""
_MATH_COMMANDS = frozenset("""
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi rho sigma tau
upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega ell log ln exp sqrt frac
cdot times leq geq le ge neq approx sim infty sum prod int partial nabla mathcal mathbb mathbf mathrm mathit
boldsymbol bm text tilde hat bar widetilde widehat overline left right mid in notin subset subseteq cup cap
to rightarrow leftarrow min max arg sup inf lim star ast circ dots ldots cdots pm mp top perp prime
""".split())
"""TeX commands an inline math span of a title may hold and stay unescaped: math only (a title from
someone's data is no place for ``\\input`` or ``\\write``)."""


def _is_math(span: str) -> bool:
    """A candidate :data:`_MATH` span that is math: it holds a letter or a TeX command (``$5,$``
    from "$5,$10" holds neither), every command it holds is in :data:`_MATH_COMMANDS`, its
    braces nest, and it holds nothing of :data:`_TEX_UNSAFE`."""
    body = span[1:-1]
    commands = re.findall(r"\\([A-Za-z]+)", body)
    return (bool(re.search(r"[A-Za-z]", body)) and all(c in _MATH_COMMANDS for c in commands)
            and _braces_nest(body) and (commands or " " not in body) and not _TEX_UNSAFE.search(body))


_TEX_UNSAFE = re.compile(r"\^\^|[&#%~]|\\[^A-Za-z,;:! ]")
"""What keeps a math span from being written as it is: TeX's ``^^5c`` character notation (a
backslash that no command list sees: ``$\\mathrm{^^5cinput{/etc/hostname}}$``), an alignment tab,
a parameter or comment character, a tie, or a backslash before anything but a letter or a math
space (``\\,``); such a span is escaped as text."""


_STORED_ESCAPE = re.compile(r"\\([&%#_])")
"""A LaTeX-escaped special character already in the metadata ("atelier TALN-RECITAL \\& IC" in
the ACL Anthology): the character itself, escaped once, not a backslash and the character."""


_STRAIGHT_QUOTES = re.compile(r'"([^"]*)"')
"""A pair of straight double quotes ('Who is "You"?'): written as opening and closing quotes, which
LaTeX typesets and decodes as such (the encoder writes each straight quote as a closing one)."""


def _escape_text(enc, value: str) -> str:
    """``value`` LaTeX-escaped for a BibTeX text field: Latin-script runs through ``enc``, other
    scripts (Greek, Cyrillic, CJK, ...) kept as UTF-8 text, which biber and UTF-8 LaTeX read, and
    the inline math spans of a title (:data:`_MATH`, when the "$" signs pair up) kept as written."""
    def text(part: str) -> str:
        part = _STRAIGHT_QUOTES.sub("\u201c\\1\u201d", _STORED_ESCAPE.sub(r"\1", part))
        return _LATIN.sub(lambda m: enc.unicode_to_latex(m.group(0)), part)

    spans = [m for m in _MATH.finditer(value) if _is_math(m.group(0))]
    if not spans or value.count("$") % 2:
        return text(value)
    out, at = [], 0
    for m in spans:
        out += [text(value[at:m.start()]), m.group(0)]
        at = m.end()
    return "".join(out) + text(value[at:])


def _latex_encoder(protection: str = "braces"):
    from pylatexenc.latexencode import UnicodeToLatexEncoder

    # every character is text (keep_math off): "$", "_", "%", "&", "#", "{", "}" are escaped; a
    # character LaTeX has no macro for ("ș") is kept as UTF-8, which BibTeX and biber read, unlogged.
    # Names take "braces-all": BibTeX reads "N{\'u}{\~n}ez" as one name with two special
    # characters, while it splits "N\'u\~nez" at the "~" and labels "\v{Z}eljko" by the "v"
    return UnicodeToLatexEncoder(non_ascii_only=False, unknown_char_policy="keep", unknown_char_warning=False,
                                 replacement_latex_protection=protection)


def _braces_nest(value: str) -> bool:
    """True when every "}" of ``value`` closes an earlier "{" and every "{" is closed: a value
    BibTeX reads whole inside the braces of its field."""
    depth = 0
    for ch in value:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


def _entry_type(paper: Paper) -> str:
    """``misc`` (on a preprint server, ``ingest.venues.venue_kind``, or without a venue: BibTeX
    ``@misc`` with its eprint, RIS ``UNPB``, CSL ``article``; never a conference paper "in arXiv"),
    ``article`` (a journal article: typed ``JournalArticle`` by the source, or a venue named as a
    journal is, "Physical Review Letters", "Transactions of ...") or ``inproceedings`` (any other
    venue: typed ``Conference``, named as a conference is, or named by neither)."""
    types = {t.lower() for t in paper.publication_types}
    venue = paper.venue or paper.venue_raw
    kind = venue_kind(paper.venue_raw) or venue_kind(paper.venue)
    if not venue or kind == "preprint":
        return "misc"
    if "journalarticle" in types or ("conference" not in types and kind == "journal"):
        return "article"
    return "inproceedings"


def _bib_name(enc, name: str) -> str:
    """One author of a BibTeX ``author`` field, escaped; braced when it holds the word "and"
    (BibTeX splits the field on "and" at brace level 0, in any case), braces added after the
    escaping so they stay braces."""
    family, given, suffix = split_name(name)
    if suffix:  # BibTeX's "von Last, Jr, First": else "IV" is read as the family name
        name = f"{family}, {suffix}, {given}"
    elif given and " " in family and family[:1].isupper():  # BibTeX reads a capitalised "De" as given
        name = f"{family}, {given}"  # "De Rijke, Maarten" ("van der Berg" it reads right)
    text = _escape_text(enc, name)
    return "{" + text + "}" if re.search(r"(?:^|\s)and(?:\s|$)", name, re.I) else text


def to_bibtex(rows: list[ExportRow]) -> str:
    """BibTeX entries (``@article``/``@inproceedings``/``@misc``, a preprint's server as
    ``howpublished``) with LaTeX-escaped text fields;
    DOI, ``eprint`` (arXiv), ``pmid``, ``url`` and ``corpusid`` verbatim (a backslash, and braces
    that do not nest, percent-encoded, so a field never ends early and adds fields of its own). Text round-trips through
    ``bibtexparser`` with its ``LatexDecodingMiddleware`` except ``^``, which is written as
    ``\\textasciicircum`` and decodes as U+02C6."""
    import bibtexparser
    from bibtexparser.library import Library
    from bibtexparser.model import Entry, Field

    enc, name_enc = _latex_encoder(), _latex_encoder("braces-all")
    keys = unique_keys([r.paper for r in rows])
    entries = []
    for key, row in zip(keys, rows):
        p, ids = row.paper, row.ids
        etype = _entry_type(p)
        fields: list[tuple[str, str]] = [("title", p.title)]
        if p.authors:
            fields.append(("author", " and ".join(_bib_name(name_enc, a.name) for a in p.authors)))
        if p.year:
            fields.append(("year", str(p.year)))
        venue = p.venue_raw or p.venue
        if venue:
            fields.append(({"article": "journal", "inproceedings": "booktitle"}.get(etype, "howpublished"), venue))
        for kind, field in (("doi", "doi"), ("pubmed", "pmid"), ("pmc", "pmcid"), ("acl", "acl")):
            if ids.get(kind):
                fields.append((field, ids[kind]))
        if ids.get("arxiv"):
            fields += [("eprint", ids["arxiv"]), ("archiveprefix", "arXiv")]
        if row.urls:
            fields.append(("url", row.urls[0]))
        fields.append(("corpusid", p.corpus_id))
        out = []
        for name, value in fields:
            if name in TEXT_FIELDS:
                if name != "author":  # escaped name by name (_bib_name)
                    value = _escape_text(enc, value)
                if not _braces_nest(value):
                    # BibTeX counts braces even after a backslash: a lone \{ would end the field
                    value = value.replace("\\{", "$\\lbrace$").replace("\\}", "$\\rbrace$")
                if name == "title":
                    value = "{" + value + "}"  # keep the record's capitalisation in any style
            else:  # verbatim: a DOI "10.1/a} , title={x" would close the field and add one; "10.1/a\\" too
                value = value.replace("\\", "%5C")
                if not _braces_nest(value):
                    value = value.replace("{", "%7B").replace("}", "%7D")
            out.append(Field(name, value))
        entries.append(Entry(etype, key, out))
    return bibtexparser.write_string(Library(entries))


# -- RIS ------------------------------------------------------------------------------------------

def to_ris(rows: list[ExportRow]) -> str:
    """RIS records (``JOUR``/``CPAPER``/``UNPB`` for a preprint, with its server as PB/``GEN``): TI, AU (``Family, Given``: :func:`ris_name`), PY, JO or T2, DO, UR (every landing
    page), ID (the citation key), AN (the corpus id: the accession number in the database DB
    ``litnav``) and N1, a note naming every id ("litnav corpus_id: ... | arXiv: ... | ACL
    Anthology: ... | PubMed: ..."). Not C1-C4: Zotero's RIS import reads them as a conference
    paper's place and proceedings title."""
    import rispy

    from litnav.web.references import RIS_NOTE_IDS

    keys = unique_keys([r.paper for r in rows])
    entries = []
    for key, row in zip(keys, rows):
        p, ids = row.paper, row.ids
        etype = _entry_type(p)
        # unpublished work on a preprint server, or without a venue but with an arXiv id (as CSL-JSON reads it)
        preprint = etype == "misc" and bool(p.venue or p.venue_raw or ids.get("arxiv"))
        e: dict = {"type_of_reference": {"article": "JOUR", "inproceedings": "CPAPER"}.get(
                       etype, "UNPB" if preprint else "GEN"),
                   "id": key, "title": p.title}
        if p.authors:
            e["authors"] = [ris_name(a.name) for a in p.authors]
        if p.year:
            e["year"] = str(p.year)
        venue = p.venue_raw or p.venue or ("arXiv" if preprint else None)
        if venue:
            e["journal_name" if etype == "article" else "publisher" if preprint else "secondary_title"] = venue
        if ids.get("doi"):
            e["doi"] = ids["doi"]
        if row.urls:
            e["urls"] = row.urls
        e["accession_number"] = p.corpus_id
        e["name_of_database"] = "litnav"
        e["notes"] = [" | ".join([f"litnav corpus_id: {p.corpus_id}"] + [
            f"{label}: {ids[kind]}" for kind, label in RIS_NOTE_IDS if ids.get(kind)])]
        entries.append(e)
    return rispy.dumps(entries, implementation=_ris_writer())


def ris_name(name: str) -> str:
    """An author as RIS writes one, ``Family, Given[, Suffix]`` ("Ashish Vaswani" -> "Vaswani,
    Ashish"; "Robert L. Logan IV" -> "Logan, Robert L., IV"; ``core.text.split_name``); a
    one-word name as it is."""
    family, given, suffix = split_name(name)
    out = f"{family}, {given}" if given else family
    return f"{out}, {suffix}" if suffix else out


def _ris_writer():
    from rispy.writer import RisWriter

    class PlainRisWriter(RisWriter):
        """rispy's writer without its ``1.`` numbering line before each record."""

        def set_header(self, count: int) -> str:
            return ""

    return PlainRisWriter


# -- CSL-JSON -------------------------------------------------------------------------------------

def csl_name(name: str) -> dict[str, str]:
    """A CSL name object: ``Family, Given`` and ``Given Family`` split into family/given, a
    generational suffix into ``suffix`` ("Robert L. Logan IV": family "Logan", given "Robert L.",
    suffix "IV"; ``core.text.split_name``), a lower-case particle into ``non-dropping-particle``
    ("Ludwig van Beethoven": family "Beethoven", particle "van"; a capitalised one stays in the
    family, "De Rijke"); one-word names stay ``literal``."""
    family, given, suffix = split_name(name)
    if not given:
        return {"literal": " ".join(name.split()).strip(", ")}
    out = {"family": family, "given": given, **({"suffix": suffix} if suffix else {})}
    words = family.split(" ")
    lead = next((i for i, w in enumerate(words) if w not in NAME_PARTICLES), len(words))
    if 0 < lead < len(words):  # "van Beethoven": CSL's particle, so styles sort and print it right
        out.update({"family": " ".join(words[lead:]), "non-dropping-particle": " ".join(words[:lead])})
    return out


def to_csl_items(rows: list[ExportRow]) -> list[dict]:
    """CSL-JSON items (``paper-conference``, ``article-journal`` or ``article``, a preprint's server
    as its ``publisher``); ``id`` is the
    citation key; ``custom`` keeps the corpus id and the ids CSL has no variable for."""
    keys = unique_keys([r.paper for r in rows])
    items = []
    for key, row in zip(keys, rows):
        p, ids = row.paper, row.ids
        etype = _entry_type(p)
        item: dict = {"id": key,
                      "type": {"article": "article-journal", "inproceedings": "paper-conference"}.get(etype, "article"),
                      "title": p.title}
        if p.authors:
            item["author"] = [csl_name(a.name) for a in p.authors]
        if p.publication_date:
            d = p.publication_date
            item["issued"] = {"date-parts": [[d.year, d.month, d.day]]}
        elif p.year:
            item["issued"] = {"date-parts": [[p.year]]}
        venue = p.venue_raw or p.venue
        if venue:  # a preprint server publishes the paper; it contains nothing
            item["publisher" if etype == "misc" else "container-title"] = venue
        if ids.get("doi"):
            item["DOI"] = ids["doi"]
        if ids.get("pubmed"):
            item["PMID"] = ids["pubmed"]
        if ids.get("pmc"):
            item["PMCID"] = ids["pmc"]
        if ids.get("arxiv"):
            item["number"] = f"arXiv:{ids['arxiv']}"
            if etype == "misc":
                item.setdefault("publisher", "arXiv")
        if row.urls:
            item["URL"] = row.urls[0]
        item["custom"] = {"corpus_id": p.corpus_id, **{k: v for k, v in ids.items()}}
        items.append(item)
    return items


def to_csljson(rows: list[ExportRow]) -> str:
    """``to_csl_items`` as an indented JSON array."""
    return json.dumps(to_csl_items(rows), indent=2, ensure_ascii=False) + "\n"


# -- CSV / JSONL / TREC -----------------------------------------------------------------------------

def _checkpoint_ids(session: Session) -> list[str]:
    if session.rounds:
        return [c.id for c in session.rounds[-1].checklist.checkpoints]
    return list(dict.fromkeys(j.checkpoint_id for r in session.results for j in r.checkpoints))


def result_record(row: ExportRow, scored: bool = True) -> dict:
    """The JSONL object of one result: rank, every corpus field, ``scored``, scores (None when not
    ``scored``: a result below the scored top N, ``Session.is_scored``), and per checkpoint
    ``{id, kind, text, score, rationale, quote, section, quote_start, quote_end, engine}``."""
    p, r = row.paper, row.result
    sections = {e.chunk_id: e.section for j in r.checkpoints for e in j.evidence}
    return {
        "rank": r.rank, "corpus_id": p.corpus_id, "title": p.title, "authors": [a.name for a in p.authors],
        "year": p.year, "publication_date": p.publication_date.isoformat() if p.publication_date else None,
        "venue": p.venue, "venue_raw": p.venue_raw, "publication_types": p.publication_types,
        "external_ids": row.ids, "urls": row.urls, "s2_url": row.s2_url,
        "scored": scored, "final_score": r.final_score if scored else None,
        "probability": r.probability if scored else None,
        "checkpoints": [{
            "id": j.checkpoint_id, "kind": j.kind, "text": j.text, "score": None if j.unknown else j.score,
            "rationale": j.rationale,
            "quote": j.quote, "section": sections.get(j.quote_chunk_id) if j.quote_chunk_id else None,
            "quote_start": j.quote_start, "quote_end": j.quote_end, "engine": j.engine,
        } for j in r.checkpoints],
    }


def to_jsonl(rows: list[ExportRow], session: Session) -> str:
    """One ``result_record`` JSON object per line, in rank order."""
    return "".join(json.dumps(result_record(row, session.is_scored(row.result)), ensure_ascii=False) + "\n"
                   for row in rows)


def to_csv(rows: list[ExportRow], session: Session) -> str:
    """A spreadsheet: rank, corpus_id, title, authors (``; ``-joined), year, venue, doi, arxiv,
    acl, pubmed, url, s2_url, final_score, probability (4 decimals), then ``<id> score`` (0-5, 2
    decimals) and ``<id> quote`` per checkpoint of the final checklist (empty where the paper has
    no judgement; the JSONL export keeps full precision and each checkpoint's text). A result
    below the scored top N (``Session.is_scored``) has empty score cells, not 0; a metadata field the
    record lacks scores "?" (``Judgement.unknown``; null in JSONL). A text or id cell
    that a spreadsheet would run as a formula (it begins with ``=``, ``+``, ``-``, ``@``, a tab or a
    carriage return) starts with an apostrophe (:func:`_cell`, OWASP's CSV-injection advice)."""
    cids = _checkpoint_ids(session)
    head = ["rank", "corpus_id", "title", "authors", "year", "venue", "doi", "arxiv", "acl", "pubmed", "url",
            "s2_url", "final_score", "probability"]
    for c in cids:
        head += [f"{c} score", f"{c} quote"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    for row in rows:
        p, r, ids = row.paper, row.result, row.ids
        by_id = {j.checkpoint_id: j for j in r.checkpoints}
        line = [r.rank, _cell(p.corpus_id), _cell(p.title), _cell("; ".join(a.name for a in p.authors)),
                p.year or "", _cell(p.venue_raw or p.venue or ""),
                *(_cell(ids.get(k, "")) for k in ("doi", "arxiv", "acl", "pubmed")),
                _cell(row.urls[0]) if row.urls else "", row.s2_url or "",
                *("" if v is None else round(v, 4) for v in session.shown_scores(r))]
        for c in cids:
            j = by_id.get(c)
            line += ["" if not j else "?" if j.unknown else round(j.score, 2), _cell(j.quote or "") if j else ""]
        w.writerow(line)
    return buf.getvalue()


def _cell(text: str) -> str:
    """``text`` safe for a spreadsheet: an apostrophe before a leading ``= + - @``, tab or CR."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def query_id(session: Session) -> str:
    """A TREC query id for the session: 12 hex chars of the intent's SHA-256."""
    import hashlib

    return hashlib.sha256(session.intent.encode()).hexdigest()[:12]


def to_trec(rows: list[ExportRow], session: Session) -> str:
    """A TREC run: ``qid Q0 corpus_id rank score litnav`` per line. trec_eval orders a run by its
    score column, so the score is ``N + 1 - rank`` (N rows), which keeps litnav's ranking; the
    final scores themselves are in the CSV and JSONL exports. Raises ``ExportError`` for a
    corpus_id with whitespace (a TREC run's columns are whitespace-separated)."""
    qid = query_id(session)
    n = len(rows)
    bad = next((row.paper.corpus_id for row in rows if re.search(r"\s", row.paper.corpus_id)), None)
    if bad is not None:
        raise ExportError(f"corpus_id {bad!r} contains whitespace, which a TREC run cannot hold; "
                          "export it as CSV or JSONL")
    return "".join(f"{qid} Q0 {row.paper.corpus_id} {i} {n + 1 - i} {RUN_TAG}\n"
                   for i, row in enumerate(rows, start=1))


def render(rows: list[ExportRow], fmt: ExportFormat, session: Session) -> str:
    """The export text of ``rows`` in ``fmt``; raises ``ExportError`` for an unknown format."""
    if fmt == "bibtex":
        return to_bibtex(rows)
    if fmt == "ris":
        return to_ris(rows)
    if fmt == "csljson":
        return to_csljson(rows)
    if fmt == "csv":
        return to_csv(rows, session)
    if fmt == "jsonl":
        return to_jsonl(rows, session)
    if fmt == "trec":
        return to_trec(rows, session)
    raise ExportError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")


def export_session(session: Session, corpus, fmt: ExportFormat, *, top: int | None = None,
                   min_score: float | None = None) -> str:
    """``render(export_rows(...))``: the session's results as ``fmt`` text, fields from ``corpus``."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    return render(export_rows(session, corpus, top=top, min_score=min_score), fmt, session)
