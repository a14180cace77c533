"""Text utilities shared by the corpus: title normalisation, identifier normalisation, sentences.

* :func:`normalise_title` — the one title key used for exact title lookup and reference resolution.
* :func:`normalise_external_id` — DOI / arXiv / other id canonical forms used by lookups.
* :func:`sentence_spans` — a small rule-based sentence splitter returning character spans, so chunk
  offsets stay exact (``text[start:end]`` is the sentence). It treats as non-boundaries: periods of
  common scholarly abbreviations (``et al.``, ``e.g.``, ``i.e.``, ``Fig.``, ``Eq.``, ``Sec.``, ``cf.``,
  ``vs.`` ...), single-letter initials (``J. Smith``), and decimals (``3.5`` has no space after the
  dot). A boundary is ``[.!?]`` plus optional closing quotes/brackets, whitespace, then a character
  that can open a sentence (upper-case letter, digit, quote, bracket) — or a blank line.
"""

from __future__ import annotations

import re
import unicodedata
_PUNCT = re.compile(r"[^\w\s]|_", re.UNICODE)
_ASCII_PUNCT = bytes(b if chr(b).isalnum() or chr(b).isspace() else 32 for b in range(256))
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def normalise_title(s: str | None) -> str:
    """Title key: NFKD accents stripped, lower-case, punctuation removed, whitespace collapsed.

    ``normalise_title("Attention Is All You Need!")  == "attention is all you need"``;
    ``None`` or empty input gives ``""``.
    """
    if not s:
        return ""
    if s.isascii():
        return " ".join(s.lower().encode("ascii").translate(_ASCII_PUNCT).decode("ascii").split())
    s = _COMBINING.sub("", unicodedata.normalize("NFKD", s))
    return " ".join(_PUNCT.sub(" ", s.lower()).split())


_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:https?://arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.IGNORECASE)
_ARXIV_VERSION = re.compile(r"v\d+$")


def normalise_external_id(kind: str, value: str) -> str:
    """Canonical form of an external id.

    * ``doi``: lower-case, without ``https://doi.org/`` / ``doi:`` prefixes.
    * ``arxiv``: without ``arXiv:`` / URL prefix, ``.pdf`` suffix and version (``2101.00001v2`` ->
      ``2101.00001``), lower-case.
    * other kinds: stripped; ``acl`` ids keep their case, numeric kinds are stripped of whitespace.
    """
    v = (value or "").strip()
    kind = kind.lower()
    if kind == "doi":
        return _DOI_PREFIX.sub("", v).strip().lower()
    if kind == "arxiv":
        v = _ARXIV_PREFIX.sub("", v).strip()
        if v.lower().endswith(".pdf"):
            v = v[:-4]
        return _ARXIV_VERSION.sub("", v).lower()
    return v


_ABBREVIATIONS = frozenset(
    """al e.g i.e eg ie fig figs eq eqs sec secs tab tabs vs cf etc approx resp ref refs no nos
    vol vols pp p ch chap dept univ dr mr mrs ms prof st jr sr inc ltd co corp jan feb mar apr jun
    jul aug sep sept oct nov dec viz ca est min max avg std var incl ed eds op cit""".split()
)
_BOUNDARY = re.compile(r"""([.!?]+)(["'”’)\]]*)(\s+)(?=["'“‘(\[]?[A-Z0-9\u00C0-\u024F])|\n\s*\n""")
_WORD_BEFORE = re.compile(r"([\w.]+)$")


def _is_abbreviation(text: str, dot: int) -> bool:
    """True when the ``.`` at ``text[dot]`` ends an abbreviation or an initial, not a sentence."""
    m = _WORD_BEFORE.search(text, 0, dot)
    if not m:
        return False
    word = m.group(1).lower().rstrip(".")
    if word in _ABBREVIATIONS:
        return True
    # single capital initial: "J. Smith", but not a sentence ending in a one-letter word like "A."
    token = m.group(1)
    return len(token) == 1 and token.isalpha() and token.isupper()


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences; returns ``[(start, end)]`` char spans, whitespace trimmed.

    Every non-blank character of ``text`` belongs to exactly one span; spans are in order and
    ``text[start:end]`` is a sentence without leading/trailing whitespace.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.group(1) is not None:
            if m.group(1) == "." and _is_abbreviation(text, m.start(1)):
                continue
            end = m.end(2)
        else:
            end = m.start()
        _append_trimmed(text, start, end, spans)
        start = m.end()
    _append_trimmed(text, start, len(text), spans)
    return spans


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see :func:`sentence_spans`)."""
    return [text[a:b] for a, b in sentence_spans(text)]
