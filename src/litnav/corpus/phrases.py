"""Corpus phrase statistics: word document frequencies and collocations (NPMI) over titles +
abstracts, built when a corpus is finalised and read by intent analysis to find concept
boundaries ("coral reefs", "graph neural networks") without hand-written phrase lists.

Tokens: lower-cased words (letters, digits, inner ``'``, ``-``, ``.``); n-grams never cross
punctuation or a stop word (:data:`STOPWORDS`, English function words). A bigram ``a b`` is a
phrase when it occurs at least ``min_count`` times and its normalised pointwise mutual
information ``NPMI = ln(p(ab) / (p(a) p(b))) / -ln p(ab)`` (Bouma 2009, over token
probabilities) is at least ``min_npmi``; a trigram ``a b c`` when it occurs ``min_count`` times
and ``a b`` or ``b c`` is a phrase and the trigram's NPMI against that split is ``min_npmi`` or
more. At most ``max_phrases`` phrases are kept, most frequent first.

Stored as ``index/phrases.json.gz`` (:data:`PHRASES_FILE`) in the corpus directory, written
atomically: ``{"format", "n_docs", "df": {word: doc count >= 2}, "phrases": {phrase: npmi}}``.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from litnav.core.io import atomic_path

FORMAT = "litnav-phrases/1"
PHRASES_FILE = "phrases.json.gz"

STOPWORDS = frozenset("""
a an the this that these those its their his her our my your of in on at to for from by with within without
into onto over under between among across through during via as than then and or nor but both either neither
whether if when where while which who whom whose what how why not no never also only more less most least very
much many some any all each such same other another so too further well is are was were be been being am has
have had do does did can cannot could will would shall should may might must it they we he she i you them us
there here about above below up down out off again once just here's it's we're they're however moreover
furthermore therefore thus hence although though yet still even also e.g i.e etc vs via per upon toward towards
""".split())
_TOKEN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9'\-.]*[A-Za-z0-9])?")
_BREAK = re.compile(r"[,;:()\[\]{}!?\"|]|\.(?:\s|$)")


def segments(text: str) -> list[list[tuple[str, int, int]]]:
    """``text`` cut at punctuation and stop words into runs of ``(lower-cased token, start,
    end)``; offsets index ``text``."""
    out: list[list[tuple[str, int, int]]] = []
    pos = 0
    for piece in [*_BREAK.finditer(text), None]:
        end = piece.start() if piece else len(text)
        run: list[tuple[str, int, int]] = []
        for m in _TOKEN.finditer(text, pos, end):
            tok = m.group(0).lower()
            if tok in STOPWORDS:
                if run:
                    out.append(run)
                run = []
                continue
            run.append((tok, m.start(), m.end()))
        if run:
            out.append(run)
        pos = piece.end() if piece else len(text)
    return out


@dataclass
class PhraseTable:
    """Word document frequencies and collocation scores of one corpus (see module docstring)."""

    n_docs: int
    df: dict[str, int] = field(default_factory=dict)
    phrases: dict[str, float] = field(default_factory=dict)

    def idf(self, word: str) -> float:
        """``ln((n_docs + 1) / (df + 1)) + 1`` of a lower-cased word (an unseen word gets the
        highest value)."""
        return math.log((self.n_docs + 1) / (self.df.get(word, 1) + 1)) + 1.0

    def doc_fraction(self, word: str) -> float:
        """Fraction of the corpus's documents that contain ``word`` (0 when rare or unseen)."""
        return self.df.get(word, 0) / max(1, self.n_docs)

    def is_phrase(self, words: list[str]) -> bool:
        """True when the lower-cased ``words`` (2-3 of them) form a phrase of the table."""
        return " ".join(words) in self.phrases

    def to_dict(self) -> dict:
        """The JSON document :func:`save_phrases` writes."""
        return {"format": FORMAT, "n_docs": self.n_docs, "df": self.df, "phrases": self.phrases}


def build_phrase_table(texts: Iterable[str], *, min_count: int | None = None, min_npmi: float = 0.25,
                       max_phrases: int = 200_000) -> PhraseTable:
    """Count words and n-grams over ``texts`` (one per paper: title + abstract) and keep the
    collocations (module docstring). ``min_count`` defaults to 3, or 2 below 2,000 texts."""
    df: Counter[str] = Counter()
    uni: Counter[str] = Counter()
    bi: Counter[tuple[str, str]] = Counter()
    tri: Counter[tuple[str, str, str]] = Counter()
    n_docs = 0
    for text in texts:
        n_docs += 1
        seen: set[str] = set()
        for run in segments(text or ""):
            toks = [t for t, _s, _e in run]
            uni.update(toks)
            seen.update(toks)
            bi.update(zip(toks, toks[1:]))
            tri.update(zip(toks, toks[1:], toks[2:]))
        df.update(seen)
    if min_count is None:
        min_count = 2 if n_docs < 2000 else 3
    total = max(1, sum(uni.values()))

    def npmi(count: int, left: int, right: int) -> float:
        p = count / total
        if p >= 1.0:
            return 1.0
        return math.log(p / ((left / total) * (right / total))) / -math.log(p)

    phrases: dict[str, tuple[int, float]] = {}
    for (a, b), c in bi.items():
        if c >= min_count:
            score = npmi(c, uni[a], uni[b])
            if score >= min_npmi:
                phrases[f"{a} {b}"] = (c, score)
    for (a, b, c3), c in tri.items():
        if c < min_count:
            continue
        best = max((npmi(c, bi[(a, b)], uni[c3]) if f"{a} {b}" in phrases else -1.0),
                   (npmi(c, uni[a], bi[(b, c3)]) if f"{b} {c3}" in phrases else -1.0))
        if best >= min_npmi:
            phrases[f"{a} {b} {c3}"] = (c, best)
    kept = sorted(phrases.items(), key=lambda kv: (-kv[1][0], kv[0]))[:max_phrases]
    return PhraseTable(n_docs=n_docs, df={w: c for w, c in sorted(df.items()) if c >= 2},
                       phrases={p: round(s, 3) for p, (_c, s) in sorted(kept)})


def save_phrases(index_dir: Path, table: PhraseTable) -> Path:
    """Write ``index_dir/phrases.json.gz`` atomically (``core.io.atomic_path``); returns its path."""
    path = Path(index_dir) / PHRASES_FILE
    with atomic_path(path) as tmp, gzip.open(tmp, "wt", encoding="utf-8") as fh:
        json.dump(table.to_dict(), fh, separators=(",", ":"))
    return path


def load_phrases(index_dir: Path) -> PhraseTable | None:
    """The table saved in ``index_dir``, or None when the corpus has none (built before phrase
    tables existed). Raises ``ValueError`` naming the file when it is damaged."""
    path = Path(index_dir) / PHRASES_FILE
    if not path.is_file():
        return None
    return _load(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _load(path: str, _stamp: int) -> PhraseTable:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            doc = json.load(fh)
        if doc.get("format") != FORMAT:
            raise ValueError(f"format {doc.get('format')!r}, expected {FORMAT!r}")
        return PhraseTable(n_docs=int(doc["n_docs"]), df=dict(doc["df"]), phrases=dict(doc["phrases"]))
    except (OSError, EOFError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: damaged phrase table ({exc}); rebuild the corpus indexes") from exc


def corpus_phrases(corpus, index_dir: str = "index") -> PhraseTable | None:
    """The phrase table of an open ``Corpus``: the stored one, else built now from its titles and
    abstracts and saved beside its indexes (a corpus finalised before phrase tables existed);
    None for a corpus object without a directory (e.g. a test double), and for a corpus in build
    stage ``lexical`` that has none yet (its build is making it). A table that cannot be written
    (a read-only copy) is built but not kept."""
    directory = getattr(corpus, "directory", None)
    if directory is None:
        return None
    folder = Path(directory) / index_dir
    table = load_phrases(folder)
    if table is not None:
        return table
    stage = getattr(corpus, "build_stage", None)
    if callable(stage) and stage() == "lexical":
        return None  # the running build writes it (building it here would take as long)
    ids = corpus.all_ids()
    papers = corpus.papers(ids)
    abstracts = corpus.abstracts(ids)
    table = build_phrase_table(f"{papers[i].title or ''}. {abstracts.get(i) or ''}" for i in ids if i in papers)
    try:
        save_phrases(folder, table)
    except OSError:
        pass
    return table
