"""BM25 over title + abstract with ``bm25s`` (English PyStemmer stemming, English stopwords).

Saved in ``DIR/index/bm25/`` by bm25s, plus ``ids.npy`` (document row -> corpus_id). The folder is
written beside as ``bm25.tmp`` and swapped in with ``os.replace``.
"""

from __future__ import annotations

import os
import re
import shutil
from array import array
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path

import numpy as np

BM25_DIR = "bm25"
IDS_FILE = "ids.npy"


def _stemmer():
    import Stemmer
    return Stemmer.Stemmer("english")


def build_bm25(index_dir: Path, ids: list[str], texts: Iterable[str], show_progress: bool = False) -> None:
    """Index ``texts`` (one per corpus id, same order; any iterable, read once) and save atomically
    under ``index_dir/bm25``.

    Tokenized as ``bm25s.tokenize(texts, stopwords="en", stemmer=...)`` does (lower-case, words of 2+
    word characters, English stop words dropped, PyStemmer stems), but streamed: each document's
    token ids go into one int32 array instead of a list per document, so a million abstracts never
    sit in memory as strings or Python lists. The scores are bm25s's own (``BM25.index`` on the ids)."""
    import bm25s
    from bm25s.stopwords import STOPWORDS_EN

    split = re.compile(r"(?u)\b\w\w+\b").findall
    stop = set(STOPWORDS_EN)
    token_index: dict[str, int] = {}
    flat = array("i")
    ends = array("q")
    for text in texts:
        for token in split(text.lower()):
            if token not in stop:
                flat.append(token_index.setdefault(token, len(token_index)))
        ends.append(len(flat))
    if len(ends) != len(ids):
        raise ValueError(f"{len(ids)} ids but {len(ends)} texts")
    stems = _stemmer().stemWords(list(token_index))
    vocab = {stem: i for i, stem in enumerate(dict.fromkeys(stems))}
    to_stem = np.array([vocab[s] for s in stems], dtype=np.int32)
    token_ids = to_stem[np.frombuffer(flat, dtype=np.int32)] if len(flat) else np.zeros(0, dtype=np.int32)
    del flat
    bounds = np.frombuffer(ends, dtype=np.int64)
    docs = np.split(token_ids, bounds[:-1]) if len(bounds) else []
    retriever = bm25s.BM25()
    retriever.index((docs, vocab), show_progress=show_progress)
    tmp = index_dir / (BM25_DIR + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    retriever.save(str(tmp))
    np.save(tmp / IDS_FILE, np.array(ids, dtype=np.str_), allow_pickle=False)
    final = index_dir / BM25_DIR
    old = index_dir / (BM25_DIR + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


class Lexical:
    """A loaded BM25 index; :meth:`search` returns ``[(corpus_id, score)]`` best first."""

    def __init__(self, index_dir: Path):
        import bm25s
        folder = index_dir / BM25_DIR
        self.retriever = bm25s.BM25.load(str(folder), mmap=True)
        self.ids: list[str] = np.load(folder / IDS_FILE, allow_pickle=False).tolist()
        self.stemmer = _stemmer()

    @cached_property
    def _row(self) -> dict[str, int]:
        """corpus_id -> document row."""
        return {cid: i for i, cid in enumerate(self.ids)}

    def _scores(self, query: str) -> np.ndarray | None:
        import bm25s
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False,
                                return_ids=False)
        vocab = self.retriever.vocab_dict
        terms = [t for t in tokens[0] if t in vocab]
        return self.retriever.get_scores(terms) if terms else None

    def relative_scores(self, query: str, ids: list[str]) -> dict[str, float]:
        """BM25 score of each given document divided by the best score any document of the index
        gets for ``query``: values in [0, 1] (0 for unknown ids or a query with no indexed term)."""
        scores = self._scores(query) if self.ids else None
        top = float(scores.max()) if scores is not None and len(scores) else 0.0
        return {cid: (float(scores[self._row[cid]]) / top if top > 0 and cid in self._row else 0.0) for cid in ids}

    def search(self, query: str, k: int, ids: Iterable[str] | None = None) -> list[tuple[str, float]]:
        """Top ``k`` documents by BM25 score (only those with a positive score); ``ids`` restricts
        the ranking to those documents (unknown ids are ignored). Ties: index row order."""
        if k <= 0 or not self.ids:
            return []
        scores = self._scores(query)
        if scores is None:
            return []
        if ids is not None:
            rows = np.array(sorted({self._row[c] for c in ids if c in self._row}), dtype=np.int64)
        else:
            rows = np.arange(len(scores))
        if not len(rows):
            return []
        sub = scores[rows]
        k = min(k, len(sub))
        top = np.argpartition(-sub, k - 1)[:k]
        top = top[np.lexsort((top, -sub[top]))]
        return [(self.ids[rows[i]], float(sub[i])) for i in top if sub[i] > 0]


def passage_scores(texts: list[str], queries: list[str], k1: float = 1.5, b: float = 0.75) -> np.ndarray:
    """BM25 of every text for every query, over the given texts as the collection: float64
    ``[len(texts), len(queries)]``, 0 where no query term occurs.

    Terms are ``core.text.stems`` (the scorer's terms, cached per text, so the scorer's later
    reading of the same chunks costs nothing). ``idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))`` and
    ``tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))`` (Robertson & Zaragoza 2009, Lucene's
    non-negative idf). Used to pre-select evidence chunks before they are embedded.
    """
    from collections import Counter

    from litnav.core.text import stems

    out = np.zeros((len(texts), len(queries)), dtype=np.float64)
    if not texts or not queries:
        return out
    docs = [Counter(stems(t)) for t in texts]
    lengths = np.array([sum(d.values()) for d in docs], dtype=np.float64)
    avgdl = max(float(lengths.mean()), 1e-9)
    norm = k1 * (1 - b + b * lengths / avgdl)
    query_terms = [set(stems(q)) for q in queries]
    for term in set().union(*query_terms):
        tf = np.array([d.get(term, 0) for d in docs], dtype=np.float64)
        n_t = int(np.count_nonzero(tf))
        if not n_t:
            continue
        idf = np.log1p((len(texts) - n_t + 0.5) / (n_t + 0.5))
        weight = idf * tf * (k1 + 1) / (tf + norm)
        for j, terms in enumerate(query_terms):
            if term in terms:
                out[:, j] += weight
    return out
