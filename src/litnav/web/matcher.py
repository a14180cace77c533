"""Map an external record (a provider hit or a bibliography entry) to a corpus paper.

Order of evidence:

1. An exact external id (DOI, arXiv, S2 corpus id, ACL Anthology, PubMed) found by
   ``Corpus.find_by_external_id`` -> method = that id kind, confidence 1.
2. Otherwise by title over the corpus title index (:class:`TitleIndex`; fuzzy lookups in a big
   corpus are blocked by shared words): exact normalised title (``title_exact``,
   similarity 1), the title with its subtitle dropped or added (``title_main``, similarity
   ``SUBTITLE_SIMILARITY``), or fuzzy (``title_fuzzy``: the best of rapidfuzz ``ratio``,
   ``token_sort_ratio`` and ``ratio`` with spaces removed, divided by 100).

Every candidate is then checked against the first author's surname and the year
(within ``year_tolerance``, since an arXiv preprint and its published version often differ by
a year). ``confidence = title_similarity * f_author * f_year`` with f = 1 when the field
agrees, ``UNKNOWN_FACTOR`` when either side lacks it, ``DISAGREE_AUTHOR``/``DISAGREE_YEAR``
when it disagrees. A candidate whose title similarity reaches ``match_threshold`` but whose
author or year disagrees is a ``metadata_mismatch``; one whose confidence reaches
``min_confidence`` with nothing disagreeing is ``verified``; everything else is ``not_found``
(the closest candidate is kept for the report, never returned as a result).
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz import fuzz, process

from litnav.core.ids import find_external_id
from litnav.core.text import normalise_title, surname
from litnav.corpus.records import Paper

from .normalise import greek_letters, main_title
from .records import ExternalRecord, Match

ID_KINDS: tuple[str, ...] = ("doi", "arxiv", "s2", "acl", "pubmed")
SUBTITLE_SIMILARITY = 0.92
UNKNOWN_FACTOR = 0.97
DISAGREE_AUTHOR = 0.8
DISAGREE_YEAR = 0.85
SURNAME_AGREE = 85.0  # rapidfuzz ratio at which two surnames count as the same (transliteration, typos)
SHORT_SURNAME = 4  # at most this long, two surnames agree only when equal ("Zhou" is not "Zhu")
EXTENDING_LIMIT = 200
FUZZY_CANDIDATES = 5


_ET_AL = frozenset({"others", "et al", "al"})
"""Surnames of a reference's "and others" (BibTeX's "et al."): no author the record lacks."""


def same_surname(a: str, b: str) -> bool:
    """Two surnames (``core.text.surname`` forms) of one person: equal, or, when both are longer than
    :data:`SHORT_SURNAME`, at rapidfuzz ratio >= :data:`SURNAME_AGREE` (a typo, a transliteration)."""
    if a == b:
        return True
    return min(len(a), len(b)) > SHORT_SURNAME and fuzz.ratio(a, b) >= SURNAME_AGREE


def family_forms(display_name: str) -> list[str]:
    """The family names a corpus display name may have, in ``core.text.surname`` form: its surname
    and its last two and three words ("Bernal Jimenez Gutierrez" -> "gutierrez", "jimenez
    gutierrez", "bernal jimenez gutierrez"), so a reference's "Jimenez Gutierrez, Bernal" or "Boula
    de Mareüil, Philippe" matches the display name and "Garcia Gutierrez, Bernal" does not."""
    forms = [surname(display_name)]
    if "," not in display_name:  # "Given Family": its words, normalised as surname() does ("Family, x")
        words = surname(f"{display_name}, x").split()
        forms += [" ".join(words[-k:]) for k in (2, 3) if len(words) > k]
    return list(dict.fromkeys(f for f in forms if f))


def same_author(reference_surname: str, display_name: str) -> bool:
    """A reference's surname (``core.text.surname``) names the author of a corpus display name: it
    agrees (:func:`same_surname`) with one of the name's :func:`family_forms`."""
    return any(same_surname(reference_surname, f) for f in family_forms(display_name))


class CorpusLookup(Protocol):
    """The part of ``corpus.Corpus`` the matcher uses (see corpus/CONTRACT.md)."""

    def find_by_external_id(self, kind: str, value: str) -> str | None: ...

    def title_index(self) -> list[tuple[str, str]]: ...

    def papers(self, ids: Iterable[str]) -> dict[str, Paper]: ...


@dataclass(frozen=True)
class MatcherConfig:
    """Thresholds: ``match_threshold`` (0-100, title similarity that counts as the same
    title), ``min_confidence`` (0-1, to verify), ``year_tolerance`` (years)."""

    match_threshold: float = 90.0
    min_confidence: float = 0.9
    year_tolerance: int = 1


BLOCK_FROM = 20_000
"""Distinct titles from which fuzzy lookups are blocked (below it rapidfuzz scans them all)."""
BLOCK_CAP = 50_000
"""Most titles one blocked fuzzy lookup scores."""


class TitleIndex:
    """Normalised corpus titles, precomputed once: an exact dict (title -> corpus ids), the
    list of distinct titles for rapidfuzz, and a sorted copy for subtitle (prefix) lookups.

    Fuzzy lookups over ``block_from`` titles or more are *blocked*: an inverted index (word ->
    titles holding it, built on first use) gives the titles sharing a word with the query,
    rarest words first, up to ``block_cap`` titles, and only those are scored. A title scoring
    80+ shares words with the query; one sharing only very common words with a query whose other
    words all have typos can be missed past the cap."""

    def __init__(self, entries: Iterable[tuple[str, str]], block_from: int = BLOCK_FROM,
                 block_cap: int = BLOCK_CAP):
        self.by_title: dict[str, list[str]] = {}
        for cid, title in entries:
            if title:
                self.by_title.setdefault(title, []).append(cid)
        self.titles: list[str] = list(self.by_title)
        self.sorted_titles: list[str] = sorted(self.titles)
        self.block_from = block_from
        self.block_cap = block_cap
        self._postings: dict[str, list[int]] | None = None

    def candidates(self, norm: str) -> list[str]:
        """The titles a fuzzy lookup of ``norm`` scores, in index order: all of them below
        ``block_from`` titles, else those sharing a word with ``norm`` (rarest words first, up to
        ``block_cap``)."""
        if len(self.titles) < self.block_from:
            return self.titles
        if self._postings is None:
            postings: dict[str, list[int]] = {}
            for i, title in enumerate(self.titles):
                for word in set(title.split()):
                    postings.setdefault(word, []).append(i)
            self._postings = postings
        rows: set[int] = set()
        for hits in sorted((self._postings.get(w, []) for w in set(norm.split())), key=len):
            if rows and len(rows) + len(hits) > self.block_cap:
                break
            rows.update(hits)
        return [self.titles[i] for i in sorted(rows)]

    def __len__(self) -> int:
        return len(self.titles)

    def exact(self, norm: str) -> list[str]:
        """Corpus ids whose normalised title equals ``norm``."""
        return self.by_title.get(norm, [])

    def extending(self, norm: str, limit: int = EXTENDING_LIMIT) -> list[str]:
        """Normalised titles that are ``norm`` followed by more words (a subtitle)."""
        key = norm + " "
        i = bisect.bisect_left(self.sorted_titles, key)
        out: list[str] = []
        while i < len(self.sorted_titles) and self.sorted_titles[i].startswith(key) and len(out) < limit:
            out.append(self.sorted_titles[i])
            i += 1
        return out

    def fuzzy(self, norm: str, cutoff: float, limit: int = FUZZY_CANDIDATES) -> list[str]:
        """Distinct titles scoring at least ``cutoff`` (0-100) by ratio or token_sort_ratio."""
        found: dict[str, None] = {}
        choices = self.candidates(norm)
        for scorer in (fuzz.ratio, fuzz.token_sort_ratio):
            for title, _score, _ in process.extract(
                norm, choices, scorer=scorer, processor=None, limit=limit, score_cutoff=cutoff
            ):
                found[title] = None
        return list(found)


FUNCTION_WORDS = frozenset(
    "a an the of for in on at to and or with by from via using toward towards into over under "
    "is are be as its their this that these those based".split()
)
"""Words whose addition or removal does not change which paper a title names (``not`` is
deliberately absent)."""
TYPO_TOKEN_RATIO = 80.0
SPLIT_TYPO_RATIO = 85.0
CONTENT_ONLY_FACTOR = 0.95
SUBSTITUTION_CAP = 0.89


ROMAN = {r: str(i) for i, r in enumerate("i ii iii iv v vi vii viii ix x xi xii".split(), 1)}
ROMAN.update({d: r for r, d in list(ROMAN.items())})
"""Roman numerals I-XII and their digits, both ways."""


def differing_words(a_norm: str, b_norm: str) -> tuple[list[str], list[str]]:
    """The content words of each title with no counterpart in the other, in title order. A word
    has a counterpart when it is a function word, occurs inside the other title with spaces removed
    (hyphenation: "pre training" / "pretraining"), is a 1-2 character edit of a word there
    (rapidfuzz ratio >= ``TYPO_TOKEN_RATIO``), or (5+ letters) aligns with part of the other
    title at partial_ratio >= ``SPLIT_TYPO_RATIO`` (a typo that split or merged words), or is a
    Roman numeral the other title writes in digits ("type II diabetes", "type 2 diabetes": :data:`ROMAN`)."""

    def unmatched(xs: list[str], ys: list[str]) -> list[str]:
        joined, yset, out = "".join(ys), set(ys), []
        for w in dict.fromkeys(xs):
            if w in yset or w in FUNCTION_WORDS or (len(w) >= 2 and w in joined) or ROMAN.get(w) in yset:
                continue
            if any(fuzz.ratio(w, y) >= TYPO_TOKEN_RATIO for y in yset):
                continue
            if len(w) >= 5 and fuzz.partial_ratio(w, joined) >= SPLIT_TYPO_RATIO:
                continue
            out.append(w)
        return out

    a_toks, b_toks = a_norm.split(), b_norm.split()
    return unmatched(a_toks, b_toks), unmatched(b_toks, a_toks)


def substituted_words(a_norm: str, b_norm: str) -> int:
    """How many content words were replaced, added or dropped between two normalised titles: the
    larger of the two sides' counts of :func:`differing_words`, so one replaced word counts 1."""
    return max(map(len, differing_words(a_norm, b_norm)))


def _content(norm: str) -> str:
    return " ".join(w for w in norm.split() if w not in FUNCTION_WORDS)


def title_similarity(a_norm: str, b_norm: str) -> float:
    """Similarity in [0, 1] of two normalised titles: max of ratio, token_sort_ratio (at most
    ``SUBSTITUTION_CAP``: "Fine-to-Coarse" is not "Coarse-to-Fine", and a title's words shuffled
    are no citation of it) and ratio with spaces removed (so "pre training" meets "pretraining"), divided by 100, and
    ``CONTENT_ONLY_FACTOR`` times the ratio of the titles without function words ("Towards
    X" vs "X"); capped
    at ``SUBSTITUTION_CAP`` (below the default threshold) when a content word was replaced,
    added or dropped (``substituted_words`` > 0), since a one-word change in a long title
    scores high on character edits yet names another paper."""
    if a_norm == b_norm:
        return 1.0
    s = max(
        fuzz.ratio(a_norm, b_norm),
        min(fuzz.token_sort_ratio(a_norm, b_norm), 100 * SUBSTITUTION_CAP),  # word order alone never verifies
        fuzz.ratio(a_norm.replace(" ", ""), b_norm.replace(" ", "")),
        CONTENT_ONLY_FACTOR * fuzz.ratio(_content(a_norm), _content(b_norm)),
    ) / 100.0
    if s > SUBSTITUTION_CAP and substituted_words(a_norm, b_norm):
        s = SUBSTITUTION_CAP
    return s


def _differing(ref_title: str | None, corpus_title: str) -> str:
    """"; words that differ: 'with' vs 'to'" for a not-found reason ("" when no word differs)."""
    ours, theirs = differing_words(normalise_title(ref_title or ""), normalise_title(corpus_title))
    if not ours and not theirs:
        return ""
    return f"; words that differ: {' '.join(ours) or '(none)'!r} vs corpus {' '.join(theirs) or '(none)'!r}"


class Matcher:
    """Maps ``ExternalRecord``s to corpus papers; build once per corpus (``for_corpus``).

    ``match(record) -> Match``; see the module docstring for the rules and the formula.
    """

    def __init__(self, corpus: CorpusLookup, config: MatcherConfig | None = None):
        self.corpus = corpus
        self.config = config or MatcherConfig()
        self.index = TitleIndex(corpus.title_index())

    _cache: weakref.WeakKeyDictionary[object, Matcher] = weakref.WeakKeyDictionary()

    @classmethod
    def for_corpus(cls, corpus: CorpusLookup, config: MatcherConfig | None = None) -> Matcher:
        """A matcher for ``corpus``, reusing the title index built for the same corpus object."""
        config = config or MatcherConfig()
        try:
            m = cls._cache.get(corpus)
        except TypeError:  # not weak-referenceable
            return cls(corpus, config)
        if m is None:
            m = cls(corpus, config)
            cls._cache[corpus] = m
        elif m.config != config:
            m = m.with_config(config)
        return m

    def with_config(self, config: MatcherConfig) -> Matcher:
        """The same index with other thresholds."""
        m = object.__new__(Matcher)
        m.corpus, m.config, m.index = self.corpus, config, self.index
        return m

    # ------------------------------------------------------------------ matching
    def match(self, record: ExternalRecord) -> Match:
        """The verdict for one record (never raises on odd input; an empty title and no id
        gives ``not_found`` with a reason)."""
        by_id = self._match_by_id(record)
        if by_id is not None:
            return by_id
        norm = normalise_title(record.title or "")
        if not norm:
            ids = ", ".join(f"{k} {v}" for k, v in sorted((record.external_ids or {}).items()) if v)
            return Match(status="not_found", reason=f"no title, and no corpus paper has its {ids}" if ids
                         else "no title and no known external id")
        candidates = self._title_candidates(record.title, norm)
        if not candidates:
            return Match(status="not_found", reason="no corpus title is similar")
        papers = self.corpus.papers(list(candidates))
        verdicts, extended = [], []
        for cid, (sim, method) in candidates.items():
            paper = papers.get(cid)
            if paper is None:
                continue
            if method == "title_main_extending":
                # only a real subtitle: the corpus title's part before ":" is the reference title
                corpus_main = main_title(paper.title)
                if corpus_main is None or normalise_title(corpus_main) != norm:
                    extended.append(f"{paper.title!r} ({cid})")
                    continue
                method = "title_main"
            verdicts.append(self._judge(record, paper, sim, method))
        if not verdicts:
            return Match(status="not_found", reason=(
                "no corpus title matches it whole" + (f"; corpus titles that begin with it: {', '.join(extended[:3])}"
                                                      if extended else "")))
        order = {"verified": 0, "metadata_mismatch": 1, "not_found": 2}
        verdicts.sort(key=lambda m: (order[m.status], -m.confidence, -m.title_score))
        return verdicts[0]

    def _match_by_id(self, record: ExternalRecord) -> Match | None:
        """The verdict by an identifier: the record's own ``corpus_id`` (litnav's exports write
        it; trusted only when the titles match as well as a title match must, since corpus ids
        belong to one corpus), then each of :data:`ID_KINDS`; None when no id leads to a corpus
        paper. A title far from the corpus title makes an id match a ``metadata_mismatch``."""
        for kind in ("corpus_id", *ID_KINDS):
            raw = record.external_ids.get(kind)
            value = raw if kind == "corpus_id" else find_external_id(kind, raw) if raw is not None else None
            if not value:
                continue
            cid = value if kind == "corpus_id" else self.corpus.find_by_external_id(kind, value)
            if cid is None:
                continue
            paper = self.corpus.papers([cid]).get(cid)
            if paper is None:
                continue
            sim = self._id_title_similarity(record.title, paper.title) if record.title else 1.0
            if kind == "corpus_id" and sim * 100 < self.config.match_threshold:
                continue  # a corpus id is this corpus's only if the titles agree: else the other ids and the title decide
            mismatches = self._disagreements(record, paper)[0]
            if record.title and sim * 100 < self.config.match_threshold - 30:
                mismatches.insert(0, f"title: {record.title!r} vs corpus {paper.title!r}")
                other = self._title_only(record)
                if other is not None and other.corpus_id != cid:
                    mismatches.insert(1, f"the title is corpus paper {other.corpus_id} ({other.method}): the {kind} "
                                         "may be the entry's error")
            status = "metadata_mismatch" if mismatches else "verified"
            return Match(
                status=status, corpus_id=cid, method=kind, confidence=1.0 if not mismatches else round(sim, 4),
                title_score=round(sim, 4), mismatches=mismatches,
                notes=self._author_notes(record, paper) + ([] if mismatches else self._year_notes(record, paper)),
                reason=f"{kind} {value}" + (" but " + "; ".join(mismatches) if mismatches else ""),
            )
        return None

    def _title_only(self, record: ExternalRecord) -> Match | None:
        """The verified match of ``record`` by its title alone (its ids set aside), or None."""
        m = self.match(record.model_copy(update={"external_ids": {}}))
        return m if m.status == "verified" else None

    @staticmethod
    def _id_title_similarity(ref_title: str, corpus_title: str) -> float:
        a, b = normalise_title(ref_title), normalise_title(corpus_title)
        sim = title_similarity(a, b)
        mains = {normalise_title(m) for m in (main_title(ref_title), main_title(corpus_title)) if m}
        if a in mains or b in mains:
            sim = max(sim, SUBTITLE_SIMILARITY)
        return sim

    def _title_candidates(self, raw_title: str, norm: str) -> dict[str, tuple[float, str]]:
        cands: dict[str, tuple[float, str]] = {}

        def add(ids: Iterable[str], sim: float, method: str) -> None:
            for cid in ids:
                if cid not in cands or cands[cid][0] < sim:
                    cands[cid] = (sim, method)

        add(self.index.exact(norm), 1.0, "title_exact")
        if (lettered := normalise_title(greek_letters(raw_title))) != norm:  # "epsilon" for the title's "ε"
            add(self.index.exact(lettered), 1.0, "title_exact")
        main = main_title(raw_title)
        if main:  # the reference adds a subtitle the corpus title lacks
            add(self.index.exact(normalise_title(main)), SUBTITLE_SIMILARITY, "title_main")
        for t in self.index.extending(norm):  # the reference drops the corpus title's subtitle
            add(self.index.exact(t), SUBTITLE_SIMILARITY, "title_main_extending")
        cutoff = min(self.config.match_threshold, 80.0)
        for t in self.index.fuzzy(norm, cutoff):
            sim = title_similarity(norm, t)
            add(self.index.exact(t), sim, "title_exact" if sim == 1.0 else "title_fuzzy")
        return cands

    def _disagreements(self, record: ExternalRecord, paper: Paper) -> tuple[list[str], float]:
        """(mismatch descriptions, f_author * f_year) for ``record`` against ``paper``."""
        mismatches: list[str] = []
        factor = 1.0
        rec_first = surname(record.authors[0]) if record.authors else ""
        corpus_names = [a.name for a in paper.authors]
        if not rec_first or not corpus_names:
            factor *= UNKNOWN_FACTOR
        elif same_author(rec_first, corpus_names[0]):
            pass
        elif any(same_author(rec_first, n) for n in corpus_names[1:]):
            factor *= UNKNOWN_FACTOR  # right author, other position
        else:
            factor *= DISAGREE_AUTHOR
            mismatches.append(
                f"authors: first author {record.authors[0]!r} vs corpus {paper.authors[0].name!r}"
            )
        if record.year is None or paper.year is None:
            factor *= UNKNOWN_FACTOR
        elif abs(record.year - paper.year) > self.config.year_tolerance:
            factor *= DISAGREE_YEAR
            mismatches.append(f"year: {record.year} vs corpus {paper.year}")
        return mismatches, factor

    @staticmethod
    def _author_notes(record: ExternalRecord, paper: Paper) -> list[str]:
        """What the reference says of the authors that the record does not, short of a mismatch:
        its first author at another position of the record, and authors the record lacks (a
        fabricated co-author)."""
        theirs = [a.name for a in paper.authors]
        ours = [surname(a) for a in record.authors]
        if not theirs or not ours or not ours[0]:
            return []

        def position(name: str) -> int | None:
            return next((i for i, t in enumerate(theirs, 1) if same_author(name, t)), None)

        notes = []
        first = position(ours[0])
        if first is not None and first != 1:
            notes.append(f"first author {record.authors[0]!r} is author #{first} of the corpus record")
        missing = [a for a, s in zip(record.authors, ours) if s and s not in _ET_AL and position(s) is None]
        if missing and first is not None and len(theirs) < 50:  # a long list may be cut in the record
            notes.append(f"authors the corpus record lacks: {', '.join(repr(a) for a in missing[:5])}")
        return notes

    def _judge(self, record: ExternalRecord, paper: Paper, sim: float, method: str) -> Match:
        match = self._judged(record, paper, sim, method)
        if match.status != "not_found":
            match.notes = self._author_notes(record, paper) + self._year_notes(record, paper)
        return match

    def _year_notes(self, record: ExternalRecord, paper: Paper) -> list[str]:
        """A year that differs within the tolerance, said rather than passed in silence (a larger
        difference is a mismatch, said there)."""
        if (record.year is not None and paper.year is not None
                and 0 < abs(record.year - paper.year) <= self.config.year_tolerance):
            return [f"year {record.year} vs corpus {paper.year} (within the tolerance: a preprint and its "
                    "published version often differ by a year)"]
        return []

    def _judged(self, record: ExternalRecord, paper: Paper, sim: float, method: str) -> Match:
        mismatches, factor = self._disagreements(record, paper)
        confidence = round(min(1.0, sim * factor), 4)
        if mismatches and sim * 100 >= self.config.match_threshold:
            return Match(
                status="metadata_mismatch", corpus_id=paper.corpus_id, method=method, confidence=confidence,
                title_score=round(sim, 4), mismatches=mismatches,
                reason=f"title similarity {sim:.2f} but " + "; ".join(mismatches),
            )
        if not mismatches and confidence >= self.config.min_confidence:
            return Match(
                status="verified", corpus_id=paper.corpus_id, method=method, confidence=confidence,
                title_score=round(sim, 4),
            )
        return Match(
            status="not_found", corpus_id=paper.corpus_id, method=method, confidence=confidence,
            title_score=round(sim, 4), mismatches=mismatches,
            reason=f"closest corpus title {paper.title!r} (similarity {sim:.2f}, confidence {confidence:.2f}"
                   + _differing(record.title, paper.title) + ")",
        )
