"""BM25 over title + abstract with ``bm25s`` (English PyStemmer stemming, English stopwords).

Built and saved in ``DIR/index/bm25/`` by bm25s, plus ``ids.npy`` (document row -> corpus_id).
The folder is written beside as ``bm25.tmp`` and swapped in with ``os.replace``. Searching reads
bm25s's saved arrays with numpy (:class:`Lexical`), so a search does not import bm25s and scipy.
"""

from __future__ import annotations

import json
import math
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
_SPLIT = re.compile(r"(?u)\b\w\w+\b").findall  # bm25s.tokenize's default token_pattern
_SUMMED_METHODS = ("lucene", "robertson", "atire")  # bm25s variants without a non-occurrence term


def _index_stop_words() -> frozenset[str]:
    """The stop words ``bm25s.tokenize(..., stopwords="en")`` drops."""
    from litnav.core.text import bm25s_stop_list

    return frozenset(bm25s_stop_list("STOPWORDS_EN"))


def _stemmer():
    import Stemmer
    return Stemmer.Stemmer("english")


BLOCK_TOKENS = 4_000_000
"""Token ids per block of documents when the score matrix is built (bounds its temporary arrays)."""


def build_bm25(index_dir: Path, ids: list[str], texts: Iterable[str], show_progress: bool = False) -> None:
    """Index ``texts`` (one per corpus id, same order; any iterable, read once) and save atomically
    under ``index_dir/bm25``.

    Tokenized as ``bm25s.tokenize(texts, stopwords="en", stemmer=...)`` does (lower-case, words of 2+
    word characters, English stop words dropped, PyStemmer stems), but streamed: each document's
    token ids go into one int32 array instead of a list per document, so a million abstracts never
    sit in memory as strings or Python lists. The score matrix is :func:`bm25_csc`'s, equal to what
    ``bm25s.BM25().index`` builds from the same ids, and is saved by bm25s in its own format.
    ``show_progress`` shows progress over the documents tokenized (:func:`~litnav.core.progress.progress_bar`). Raises ``ValueError`` when
    ``texts`` and ``ids`` differ in length or an id repeats."""
    import bm25s

    from litnav.core.progress import progress_bar

    if len(set(ids)) != len(ids):
        from collections import Counter

        first = next(i for i, n in Counter(ids).items() if n > 1)
        raise ValueError(f"corpus id {first!r} is given twice: one BM25 row per paper")
    split = _SPLIT
    stop = _index_stop_words()
    token_index: dict[str, int] = {}
    flat = array("i")
    ends = array("q")
    for text in progress_bar(texts, total=len(ids), desc="bm25", unit="paper", progress=show_progress):
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
    retriever = bm25s.BM25()
    data, indices, indptr = bm25_csc(token_ids, np.frombuffer(ends, dtype=np.int64), len(vocab),
                                     k1=retriever.k1, b=retriever.b)
    del token_ids
    # what BM25.index leaves behind for save(): the scores, and the vocabulary with its empty token
    retriever.scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": len(ids)}
    vocab[""] = len(vocab)
    retriever.vocab_dict = vocab
    retriever.unique_token_ids_set = set(vocab.values())
    retriever.nonoccurrence_array = None
    tmp = index_dir / (BM25_DIR + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    retriever.save(str(tmp), show_progress=False)
    np.save(tmp / IDS_FILE, np.array(ids, dtype=np.str_), allow_pickle=False)
    final = index_dir / BM25_DIR
    old = index_dir / (BM25_DIR + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def _block_pairs(token_ids: np.ndarray, ends: np.ndarray, d0: int, d1: int, n_vocab: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(doc, term, tf)`` of documents ``d0 .. d1 - 1``, one row per distinct term of a
    document, sorted by document then term: int64, int64, float32."""
    start = int(ends[d0 - 1]) if d0 else 0
    lengths = np.diff(ends[d0:d1], prepend=start)
    docs = np.repeat(np.arange(d0, d1, dtype=np.int64), lengths)
    keys, tf = np.unique(docs * n_vocab + token_ids[start:int(ends[d1 - 1])], return_counts=True)
    return keys // n_vocab, keys % n_vocab, tf.astype(np.float32)


def _doc_blocks(ends: np.ndarray) -> Iterable[tuple[int, int]]:
    """Consecutive document ranges of about ``BLOCK_TOKENS`` token ids each."""
    n = len(ends)
    d0 = 0
    while d0 < n:
        base = int(ends[d0 - 1]) if d0 else 0
        d1 = max(d0 + 1, int(np.searchsorted(ends, base + BLOCK_TOKENS, side="right")))
        yield d0, min(d1, n)
        d0 = d1


def bm25_csc(token_ids: np.ndarray, ends: np.ndarray, n_vocab: int, k1: float = 1.5, b: float = 0.75
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The document x term BM25 score matrix in CSC form, ``(data float32 [nnz], indices int32
    [nnz] document rows ascending within each column, indptr int64 [n_vocab + 1])``.

    ``token_ids`` int32 [n_tokens] holds every document's term ids (< ``n_vocab``) one document
    after the other; ``ends`` int64 [n_docs] the end offset of each document in it. Scores are
    bm25s's ``lucene`` variant (Kamphuis et al., "Which BM25 Do You Mean? A Large-Scale
    Reproducibility Study of Scoring Variants", ECIR 2020): ``idf(t) * tf / (tf + k1 * (1 - b +
    b * |d| / avgdl))`` with ``idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))`` as float32, computed
    in the same precision as ``bm25s.BM25.index`` so the arrays are equal to its. Built in two
    passes over blocks of documents (document frequencies, then scores written in place), so
    beside the output only one block's temporaries are held, not the sort of every (document,
    term) pair. Raises ``ValueError`` for inconsistent inputs."""
    n_docs = len(ends)
    if (int(ends[-1]) if n_docs else 0) != len(token_ids) or (n_docs and (np.any(np.diff(ends) < 0) or ends[0] < 0)):
        raise ValueError(f"document ends do not partition {len(token_ids)} token ids")
    if len(token_ids) and (int(token_ids.min()) < 0 or int(token_ids.max()) >= n_vocab):
        raise ValueError(f"a token id is outside the vocabulary of {n_vocab} terms")
    df = np.zeros(n_vocab, dtype=np.int64)
    for d0, d1 in _doc_blocks(ends):
        _, terms, _ = _block_pairs(token_ids, ends, d0, d1, n_vocab)
        df += np.bincount(terms, minlength=n_vocab)
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    nnz = int(indptr[-1])
    data = np.empty(nnz, dtype=np.float32)
    indices = np.empty(nnz, dtype=np.int32)
    if not nnz:
        return data, indices, indptr
    lengths = np.diff(ends, prepend=0)
    avgdl = lengths.mean()
    idf = np.array([math.log(1 + (n_docs - f + 0.5) / (f + 0.5)) if f else 0.0 for f in df.tolist()],
                   dtype=np.float32)  # math.log in double, as bm25s computes it
    cursor = indptr[:-1].copy()
    for d0, d1 in _doc_blocks(ends):
        docs, terms, tf = _block_pairs(token_ids, ends, d0, d1, n_vocab)
        scores = (idf[terms] * (tf / (k1 * ((1 - b) + b * lengths[docs] / avgdl) + tf))).astype(np.float32)
        order = np.argsort(terms, kind="stable")  # by term, documents still ascending within a term
        terms, docs, scores = terms[order], docs[order], scores[order]
        first = np.searchsorted(terms, terms, side="left")
        pos = cursor[terms] + (np.arange(len(terms)) - first)
        data[pos] = scores
        indices[pos] = docs
        cursor += np.bincount(terms, minlength=n_vocab)
    return data, indices, indptr


class Lexical:
    """A loaded BM25 index; :meth:`search` returns ``[(corpus_id, score)]`` best first.

    Reads what bm25s saved (``params.index.json``, ``vocab.index.json``, and the precomputed
    document x term score matrix as CSC arrays ``data``/``indices``/``indptr``, memory-mapped)
    and scores a query as ``bm25s.BM25.get_scores`` does for its summed variants (``lucene``, the
    one :func:`build_bm25` writes, ``robertson``, ``atire``): for each query term in order,
    repeats included, its column added to a float32 vector with ``np.add.at`` — the same sums
    in the same order, without importing bm25s and scipy at search time. The query is tokenized
    as ``bm25s.tokenize(query, stopwords="en", stemmer=...)`` tokenizes it, except that a query
    word with another spelling in the index ("tumor", "tumour") is scored as one term over both
    spellings (:meth:`_scores`), so British and American spelling find the same papers. Raises ``ValueError``
    naming the params file for an index of another variant (``bm25l``, ``bm25+``)."""

    def __init__(self, index_dir: Path):
        folder = index_dir / BM25_DIR
        params_file = folder / "params.index.json"
        params = json.loads(params_file.read_text(encoding="utf-8"))
        if params.get("method", "lucene") not in _SUMMED_METHODS:
            raise ValueError(f"{params_file}: BM25 method {params.get('method')!r} is not one litnav reads "
                             f"({', '.join(_SUMMED_METHODS)})")
        self.dtype = np.dtype(params.get("dtype", "float32"))
        self.num_docs = int(params["num_docs"])
        self.vocab: dict[str, int] = json.loads((folder / "vocab.index.json").read_text(encoding="utf-8"))
        self.data, self.indices, self.indptr = (np.load(folder / f"{name}.csc.index.npy", mmap_mode="r")
                                                for name in ("data", "indices", "indptr"))
        self.ids: list[str] = np.load(folder / IDS_FILE, allow_pickle=False).tolist()
        columns = len(self.vocab) - ("" in self.vocab)  # bm25s keeps "" in the vocabulary, without a column
        if not all(type(v) is int and 0 <= v < columns for t, v in self.vocab.items() if t):
            raise ValueError(f"{folder / 'vocab.index.json'}: a term's column is not an integer below {columns}")
        if (len(self.indptr) != columns + 1 or len(self.data) != len(self.indices)
                or len(self.ids) != self.num_docs):
            raise ValueError(f"{folder}: the BM25 arrays disagree ({len(self.vocab)} terms, {len(self.indptr)} "
                             f"column pointers, {len(self.data)} scores, {len(self.indices)} rows, "
                             f"{len(self.ids)} ids for {self.num_docs} documents)")
        self.stemmer = _stemmer()
        self.stop = _index_stop_words()

    @cached_property
    def _row(self) -> dict[str, int]:
        """corpus_id -> document row."""
        return {cid: i for i, cid in enumerate(self.ids)}

    def query_terms(self, query: str) -> list[tuple[str, ...]]:
        """The query's indexed terms in order, repeats kept, one tuple per query word: lower-cased
        words of 2+ word characters, stop words dropped, each with its other spellings
        (:func:`~litnav.core.text.spelling_variants`: "tumor" also "tumour"), stemmed; terms not
        in the index dropped, and a word none of whose terms is indexed."""
        from litnav.core.text import spelling_variants

        groups = []
        for word in _SPLIT(query.lower()):
            if word in self.stop:
                continue
            forms = spelling_variants(word)
            group = tuple(t for t in dict.fromkeys(self.stemmer.stemWords(list(forms))) if t and t in self.vocab)
            if group:
                groups.append(group)
        return groups

    def _column(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        start, end = int(self.indptr[self.vocab[term]]), int(self.indptr[self.vocab[term] + 1])
        return self.indices[start:end], self.data[start:end]

    def _idf(self, df: int) -> float:
        """Lucene's BM25 idf, as :func:`bm25_csc` computes it: ``ln(1 + (N - df + 0.5) / (df + 0.5))``."""
        return math.log(1 + (self.num_docs - df + 0.5) / (df + 0.5))

    def _scores(self, query: str) -> np.ndarray | None:
        """Per document, the sum over query words of the word's BM25 term score. A word with
        other spellings in the index is scored as one term: its spellings' documents together
        (document frequency the sum of theirs, at most N) and, per document, the larger of the
        spellings' tf parts (``score / idf``), so neither spelling's rarity decides the order and
        a text that writes both is not counted twice."""
        groups = self.query_terms(query)
        if not groups:
            return None
        scores = np.zeros(self.num_docs, dtype=self.dtype)
        for group in groups:
            if len(group) == 1:
                np.add.at(scores, *self._column(group[0]))
                continue
            best = np.zeros(self.num_docs, dtype=np.float64)
            total = 0
            for term in group:
                rows, data = self._column(term)
                total += len(rows)
                np.maximum.at(best, rows, np.asarray(data, dtype=np.float64) / self._idf(len(rows)))
            scores += (self._idf(min(total, self.num_docs)) * best).astype(self.dtype)
        return scores

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
