"""Normalisers for titles, external ids and author surnames used by the matcher.

Titles go through ``corpus.text.normalise_title`` (the corpus's own normaliser, so both sides
agree); ids are normalised to the form the corpus stores (``Corpus.find_by_external_id``).
"""

from __future__ import annotations

import re
import unicodedata
from litnav.corpus.text import normalise_external_id as _corpus_normalise_id
from litnav.corpus.text import normalise_title as _corpus_normalise_title

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_SPACE = re.compile(r"\s+")


def _strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def normalise_title(title: str) -> str:
    """Lower-case, accents and punctuation stripped, whitespace collapsed.

    Delegates to ``corpus.text.normalise_title`` so matcher keys equal corpus keys.
    """
    return _corpus_normalise_title(title)


_SUBTITLE = re.compile(r"\s*[:?!]\s+|\s+[-\u2013\u2014]{1,2}\s+")


def main_title(title: str) -> str | None:
    """The part of a raw title before its subtitle separator (``"Title: Subtitle"``,
    ``"Title - Subtitle"``, ``"Title? Subtitle"``), or None when there is no subtitle."""
    parts = _SUBTITLE.split(title.strip(), maxsplit=1)
    if len(parts) == 2 and parts[0] and parts[1]:
        return parts[0]
    return None


_DOI = re.compile(r"(10\.\d{4,9}/\S+)", re.I)
_ARXIV_NEW = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?", re.I)
_ARXIV_OLD = re.compile(r"([a-z\-]+(?:\.[a-z]{2})?/\d{7})(v\d+)?", re.I)


def normalise_external_id(kind: str, value: str | int) -> str | None:
    """Normalise one external id for lookup; returns None when ``value`` is not such an id.
    More lenient than ``corpus.text.normalise_external_id`` (it finds the id inside a URL or
    a bibliography field), whose canonical form it finally applies:

    - ``doi``: the ``10.xxxx/...`` part, lower-case (``https://doi.org/`` and ``doi:`` dropped).
    - ``arxiv``: ``YYMM.NNNNN`` or ``archive/NNNNNNN`` without version or ``arXiv:`` prefix.
    - ``s2``, ``pubmed``: the digits (``CorpusID:``/``PMID`` prefixes dropped).
    - ``acl``: the Anthology id as printed, trimmed (``P19-1001``, ``2020.acl-main.207``).
    """
    found = _lenient_id(kind, value)
    return (_corpus_normalise_id(kind, found) or None) if found else None


def _lenient_id(kind: str, value: str | int) -> str | None:
    v = str(value).strip()
    if not v:
        return None
    if kind == "doi":
        m = _DOI.search(v)
        return m.group(1).rstrip(".").lower() if m else None
    if kind == "arxiv":
        v = re.sub(r"^(arxiv:|https?://arxiv\.org/(abs|pdf)/)", "", v, flags=re.I)
        m = _ARXIV_NEW.fullmatch(v.removesuffix(".pdf")) or _ARXIV_OLD.fullmatch(v.removesuffix(".pdf"))
        return m.group(1).lower() if m else None
    if kind in ("s2", "pubmed", "pmc", "mag"):
        digits = re.sub(r"\D", "", v)
        return digits or None
    if kind == "acl":
        v = re.sub(r"^https?://(www\.)?aclanthology\.org/", "", v).strip("/").removesuffix(".pdf")
        return v or None
    return v


def surname(name: str) -> str:
    """The normalised family name of a display name: the part before a comma
    (``"Vaswani, Ashish"``), else the last token (``"Ashish Vaswani"``); lower-case, no accents,
    no punctuation. Suffixes such as ``Jr`` are skipped."""
    name = name.strip()
    if "," in name:
        fam = name.split(",", 1)[0]
    else:
        toks = [t for t in re.split(r"\s+", name) if t]
        while len(toks) > 1 and toks[-1].strip(".").lower() in {"jr", "sr", "ii", "iii", "iv"}:
            toks.pop()
        fam = toks[-1] if toks else ""
    return _SPACE.sub(" ", _PUNCT.sub("", _strip_accents(fam).lower())).strip()
