"""The source of a pasted passage: the corpus paper an intent is quoted from.

A researcher who pastes sentences of a paper (passage mode, ``intent.parser.reading``: an
abstract, a CSFCube-style facet of one) asks for papers *like* it; the paper the text is taken
from matches it best of all and answers nothing. When that paper is in the corpus it is the
search's source, not a result: :func:`find_source` finds it (and any duplicate record of it),
``Checklist.source_ids`` keeps it for every round and turn, and the planner's workflow drops it
after the fusion (``navigator.planner.assemble``, node ``not_source``), as an anchor-paper search
drops its anchor. ``navigator.exclude_source = false`` keeps it.

A paper is the source when (:func:`find_source`, over the passage's BM25 top :data:`CANDIDATES`):

- the passage's sentences (and lines: a pasted first page puts title, authors and "Abstract" on
  lines of their own) are found in its title + abstract almost verbatim, in
  any order (a CSFCube facet is the abstract's sentences of one kind, not always adjacent ones):
  a sentence is found when ``rapidfuzz.fuzz.partial_ratio`` (the best-aligned substring's
  similarity, 0-100) of the normalised words >= :data:`SOURCE_SIMILARITY` and every number and
  content word it states is a word of the paper's text: a word may be lost in copying, none may
  be changed ("sparse" for "dense", "tai chi" for "exercise", "82.1%" for "80.5%": a claim with
  other numbers is refuted by the paper, not quoted from it); citation markers ("(Peters et al., 2018)", "[12]", TeX cite commands) are
  dropped first, and so are quotation marks around the whole text;
- the sentences found hold >= :data:`SOURCE_SHARE` of the passage's words (request words such
  as "Find papers similar to this abstract:" count against it), and a text read as a request
  quotes two sentences or more: a typed request is never mistaken for a quotation, though its
  words may all stand in some abstract;
- the sentences found in this paper's *abstract* and in no other candidate (template sentences
  such as "This paper describes our submission to SemEval-2020 Task 12" open many papers) hold
  >= :data:`SOURCE_MIN_WORDS` words: a title typed as a query is a known-item search for that
  paper, never its source. Only the best candidate can be the source, with any duplicate record of
  it (the same title of :data:`DUPLICATE_TITLE_WORDS` words or more, or the same text): papers
  written from one template (Cochrane protocols) are each other's neighbours, not duplicates;
- a question is never found, nor counted (a research question put in an abstract's words asks,
  it does not quote; an abstract's rhetorical question leaves the rest a quotation);
- a text read as a claim (``intent.claims``) has at least :data:`CLAIM_SOURCE_MIN_WORDS` words:
  a short claim stated verbatim in an abstract ("LDL cholesterol has a causal role in the
  development of cardiovascular disease.") is that paper's finding, the evidence a claim search
  is for (2 of SciFact's 564 training claim-evidence pairs; none of 20 words or more), while a
  long one is a facet of a pasted abstract (67 of the 353 held-out facet queries of
  ``bench/citations.py`` read as claims). A shorter one in the paper's own voice (:data:`OWN_VOICE`:
  "Experiments show that our method outperforms ...") is quoted, never a claim to check (none of
  SciFact's 505 training claims speaks so). A whole abstract shorter than that, pasted alone and
  in no such voice, is read as a claim and keeps its paper.
"""

from __future__ import annotations

import re
import unicodedata

from rapidfuzz import fuzz

from litnav.core.records import Checklist
from litnav.core.settings import Settings
from litnav.core.text import normalise_title, split_sentences, stop_words, tokens

SOURCE_SIMILARITY = 90.0
"""Least ``partial_ratio`` (0-100) of a passage's sentence against a paper's title + abstract."""
SOURCE_SHARE = 0.8
"""Least share of the passage's words in sentences found in the paper's text."""
SOURCE_MIN_WORDS = 12
"""Words of sentences found in the source's abstract alone (in no other candidate) it needs."""
CLAIM_SOURCE_MIN_WORDS = 20
"""Words a text read as a claim needs before a paper can be its source, unless it speaks in a
paper's own voice (:data:`OWN_VOICE`; module doc)."""
OWN_VOICE = re.compile(r"\b(?:[Ww]e|[Oo]ur|[Tt]his (?:paper|work|study|article)|[Tt]he proposed)\b")
"""A paper speaking of its own work ("we", "our", "this paper", "the proposed"; "US" is no "us")."""
DUPLICATE_TITLE_WORDS = 3
"""Words a title needs before another candidate with the same (normalised) title is the same paper
recorded twice (a preprint and its published version, a record without its abstract)."""
CANDIDATES = 5
"""BM25 hits of the passage examined."""

_CITATION = re.compile(
    r"\s*(?:\((?=[^()]*\b(?:19|20)\d\d[a-z]?\b)[^()]*\)"  # (Peters et al., 2018a; Radford et al., 2018)
    r"|\[\s*\d+(?:\s*[-–,]\s*\d+)*\s*\]"  # [12], [3, 4], [5-7]
    r"|\\(?:cite[a-z]*|ref|eqref|footnote)\*?(?:\[[^\]]*\])*\{[^{}]*\})")  # \cite{x}, ~\citep[p.~2]{y}
_QUOTES = "\"'“”‘’«»"
_LINE = re.compile(r"\s*\n\s*")
_LABEL = re.compile(r"(?<=:)\s+|(?<=[a-z]:)(?=[A-Z])")
_BRACKET_LABEL = re.compile(r"^[ \t]*[\[(<][ \t]*([A-Za-z][A-Za-z /_-]{0,30}?)[ \t]*[\])>][ \t]*(?=\S)", re.M)
"""A line's leading label in brackets ("[method] We ...", "(background) ..."): a label, as "method:" is."""
_LINE_BREAK_HYPHEN = re.compile(r"(\w)-[ \t]*\r?\n[ \t]*(\w)")
_ELLIPSIS = re.compile(r"\s*(?:\u2026|\.\.\.+)\s*")
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_APOSTROPHES = str.maketrans("\u2019\u2018\u02bc", "'" * 3)


def _normalised(text: str) -> str:
    """Lower-case words of ``text`` (NFKC: "ﬁ" ligatures become "fi"; curly apostrophes straight;
    zero-width characters and soft hyphens dropped)."""
    return " ".join(tokens(unicodedata.normalize("NFKC", text).translate(_INVISIBLE).translate(_APOSTROPHES)))


def _pieces(text: str) -> list[tuple[str, bool]]:
    """The passage's sentences, normalised, each with True when it is a question: each line apart
    (a pasted first page puts title, authors and "Abstract" on lines of their own; a hard-wrapped
    sentence's lines are each still found in the paper), cut after a colon ("Find papers like
    this abstract: ...", "Abstract:We") or a bracketed label ("[method] We ...") and at an
    ellipsis (a search engine's snippet), words hyphenated across a line break joined, citation
    markers dropped."""
    text = _BRACKET_LABEL.sub(r"\1: ", text)
    text = _ELLIPSIS.sub("\n\n", _CITATION.sub("", _LINE_BREAK_HYPHEN.sub(r"\1\2", text)))
    return [(n, clause.rstrip().endswith("?")) for paragraph in _LINE.split(text)
            for sentence in split_sentences(" ".join(paragraph.split()))
            for clause in _LABEL.split(sentence) if (n := _normalised(clause))]


def _words(text: str) -> list[str]:
    """The words of normalised ``text``, hyphenated ones split ("dual-encoder" is "dual encoder")."""
    return text.replace("-", " ").split()


def _found(piece: str, record: str, vocabulary: set[str]) -> bool:
    """``piece`` is in ``record`` almost verbatim (module doc): every number and content word of
    it is a word of the record (``vocabulary``), and their ``partial_ratio`` >= :data:`SOURCE_SIMILARITY`."""
    stop = stop_words()
    words = {w for w in _words(piece) if w.isdigit() or (len(w) > 2 and w not in stop)}
    return (len(piece) <= len(record) and words <= vocabulary
            and fuzz.partial_ratio(piece, record, score_cutoff=SOURCE_SIMILARITY) > 0)


def find_source(text: str, corpus, k: int = CANDIDATES) -> list[str]:
    """Corpus ids of the paper ``text`` is quoted from and of its duplicate records (module doc),
    the best match first; ``[]`` when there is none, for blank text, for a claim
    (``intent.parser.reading``) under :data:`CLAIM_SOURCE_MIN_WORDS` words not in a paper's own voice
    (:data:`OWN_VOICE`), and when the corpus
    has no BM25 index yet (``librarians.operators.base.missing_channels``). ``corpus`` needs
    ``lexical_search``, ``papers`` and ``abstracts``."""
    from litnav.librarians.operators.base import missing_channels
    from litnav.navigator.intent.parser import reading

    text = text.strip().strip(_QUOTES).strip()
    pieces = _pieces(text)
    words = [0 if question else len(p.split()) for p, question in pieces]  # a question quotes nothing
    if sum(words) < SOURCE_MIN_WORDS or "lexical" in missing_channels(corpus):
        return []
    mode = reading(text)
    if sum(words) < CLAIM_SOURCE_MIN_WORDS and mode == "claim" and not OWN_VOICE.search(text):
        return []
    ids = [h.corpus_id for h in corpus.lexical_search(" ".join(text.split()), k)]
    papers, abstracts = corpus.papers(ids), corpus.abstracts(ids)
    records, found, in_abstract = {}, {}, {}
    for cid in (c for c in ids if c in papers):
        abstract = _normalised(abstracts.get(cid) or "")
        records[cid] = f"{_normalised(papers[cid].title)} {abstract}"
        record_words = records[cid].split()  # hyphenated words both apart and joined ("cryo-electron")
        vocabulary = set(_words(records[cid])) | {w.replace("-", "") for w in record_words if "-" in w}
        found[cid] = {i for i, (p, question) in enumerate(pieces)
                      if not question and _found(p, records[cid], vocabulary)}
        in_abstract[cid] = {i for i in found[cid] if _found(pieces[i][0], abstract, vocabulary)}
    if not found:
        return []
    best = max(found, key=lambda c: sum(words[i] for i in found[c]))  # ties: BM25 order
    if sum(words[i] for i in found[best]) < SOURCE_SHARE * sum(words) or (mode == "request" and len(found[best]) < 2):
        return []
    title = normalise_title(papers[best].title)
    same = [c for c in found if c == best or records[c] == records[best]
            or (len(title.split()) >= DUPLICATE_TITLE_WORDS and normalise_title(papers[c].title) == title)]
    elsewhere = set().union(*(found[c] for c in found if c not in same))
    if sum(words[i] for i in in_abstract[best] - elsewhere) < SOURCE_MIN_WORDS:
        return []
    by_title = getattr(corpus, "find_by_title", None)  # records the BM25 top k missed (no abstract)
    if by_title is not None and len(title.split()) >= DUPLICATE_TITLE_WORDS:
        same += [c for c in by_title(papers[best].title) if c not in same]
    return same


def with_source(checklist: Checklist, corpus, settings: Settings, text: str | None = None) -> Checklist:
    """``checklist`` with ``source_ids`` set to :func:`find_source` of ``text`` (the intent as the
    user gave it, line breaks kept; default ``checklist.intent``, whose whitespace is collapsed)
    when none are set yet and the source is used: left out (``navigator.exclude_source``) or
    searched by example (``librarians.source_weight`` > 0); else ``checklist`` unchanged."""
    used = settings.navigator.exclude_source or settings.librarians.source_weight > 0
    if not used or checklist.source_ids:
        return checklist
    found = find_source(checklist.intent if text is None else text, corpus)
    return checklist.model_copy(update={"source_ids": found}) if found else checklist
