"""External paper ids (DOI, arXiv, PubMed, PMC, ACL Anthology, ...): one canonical form.

:func:`normalise_external_id` is the form the corpus stores and looks up, applied at ingest, in
``Corpus.find_by_external_id`` and by the web matcher, so an id found anywhere meets the stored
one. :func:`find_external_id` is its lenient front end for ids printed inside URLs and
bibliography fields (``https://doi.org/...``, ``PMID: 123``); it returns None when the text holds
no such id.

Canonical forms:

- ``doi``: lower-case, without ``https://doi.org/``, ``http://dx.doi.org/`` or ``doi:`` prefixes
  (DOIs are case-insensitive).
- ``arxiv``: without ``arXiv:`` / ``https://arxiv.org/abs/`` prefix, ``.pdf`` suffix and version
  (``2101.00001v2`` -> ``2101.00001``: all versions are one paper), lower-case
  (``hep-th/9901001``).
- ``pmc``: ``PMC`` followed by the digits (``"123"``, ``"pmc123"`` -> ``"PMC123"``, the form PubMed
  Central prints).
- ``pubmed``, ``s2``, ``mag``: as given, stripped (:func:`find_external_id` keeps the digits).
- ``acl`` and other kinds: stripped, case kept (``P19-1001``, ``2020.acl-main.207``).
"""

from __future__ import annotations

import re

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.IGNORECASE)
_ARXIV_VERSION = re.compile(r"v\d+$", re.IGNORECASE)
_PMC = re.compile(r"^(?:pmc)?\s*(\d+)$", re.IGNORECASE)


def normalise_external_id(kind: str, value: str) -> str:
    """Canonical form of an external id of ``kind`` (see the module docstring); never drops an
    id: a value that does not look like its kind comes back stripped."""
    v = (value or "").strip()
    kind = kind.lower()
    if kind == "doi":
        return _DOI_PREFIX.sub("", v).strip().lower()
    if kind == "arxiv":
        v = _ARXIV_PREFIX.sub("", v).strip()
        if v.lower().endswith(".pdf"):
            v = v[:-4]
        return _ARXIV_VERSION.sub("", v).lower()
    if kind == "pmc":
        m = _PMC.match(v)
        return f"PMC{m.group(1)}" if m else v
    return v


_DOI = re.compile(r"(10\.\d{4,9}/\S+)", re.I)
_ARXIV_NEW = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?", re.I)
_ARXIV_OLD = re.compile(r"([a-z\-]+(?:\.[a-z]{2})?/\d{7})(v\d+)?", re.I)


def find_external_id(kind: str, value: str | int) -> str | None:
    """The id of ``kind`` inside ``value`` (a URL, a bibliography field, a bare id), in canonical
    form; None when ``value`` holds no such id.

    - ``doi``: the ``10.xxxx/...`` part (a trailing period dropped).
    - ``arxiv``: ``YYMM.NNNNN`` or ``archive/NNNNNNN`` (prefixes, ``.pdf`` and version dropped).
    - ``s2``, ``pubmed``, ``pmc``, ``mag``: the digits (``CorpusID:``/``PMID`` prefixes dropped).
    - ``acl``: the Anthology id, also from an ``aclanthology.org`` URL.
    """
    v = str(value).strip()
    if not v:
        return None
    found: str | None = v
    if kind == "doi":
        m = _DOI.search(v)
        found = m.group(1).rstrip(".") if m else None
    elif kind == "arxiv":
        v = _ARXIV_PREFIX.sub("", v).removesuffix(".pdf")
        m = _ARXIV_NEW.fullmatch(v) or _ARXIV_OLD.fullmatch(v)
        found = m.group(1) if m else None
    elif kind in ("s2", "pubmed", "pmc", "mag"):
        found = re.sub(r"\D", "", v) or None
    elif kind == "acl":
        found = re.sub(r"^https?://(www\.)?aclanthology\.org/", "", v).strip("/").removesuffix(".pdf") or None
    return (normalise_external_id(kind, found) or None) if found else None
