"""The BM25 index litnav searches: bm25s builds it, litnav reads its arrays without importing
bm25s (start-up time), and the scores must be bm25s's own."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from litnav.corpus.lexical import Lexical, build_bm25

TEXTS = [
    "Dense passage retrieval for open-domain question answering",
    "BM25 and the probabilistic relevance framework: BM25 and beyond",
    "Neural machine translation by jointly learning to align and translate",
    "Question answering over knowledge bases with semantic parsing",
    "Straße naïve café: tokenization of non-ASCII words in retrieval",
    "The the the of and",  # stop words only
    "Retrieval-augmented generation for knowledge-intensive NLP tasks",
]
QUERIES = ["dense retrieval", "question answering question answering", "BM25 relevance framework",
           "the and of", "naïve Straße", "translation, alignment; retrieval!", "unknownword", ""]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("bm25")
    build_bm25(root, [f"p{i}" for i in range(len(TEXTS))], iter(TEXTS))
    return root


@pytest.mark.parametrize("query", QUERIES)
def test_scores_are_bm25s_own(index, query):
    import bm25s

    ours = Lexical(index)
    theirs = bm25s.BM25.load(str(index / "bm25"))
    tokens = bm25s.tokenize([query], stopwords="en", stemmer=ours.stemmer, show_progress=False, return_ids=False)[0]
    terms = [t for t in tokens if t in theirs.vocab_dict]
    assert ours.query_terms(query) == terms
    mine = ours._scores(query)
    if not terms:
        assert mine is None and ours.search(query, 5) == []
        return
    np.testing.assert_array_equal(mine, theirs.get_scores(terms))
    expected = sorted(((f"p{i}", float(s)) for i, s in enumerate(theirs.get_scores(terms)) if s > 0),
                      key=lambda h: (-h[1], int(h[0][1:])))
    assert ours.search(query, len(TEXTS)) == expected


def test_a_search_does_not_import_bm25s_or_scipy(index):
    code = ("import sys; from pathlib import Path; from litnav.corpus.lexical import Lexical; "
            f"hits = Lexical(Path({str(index)!r})).search('dense retrieval', 3); "
            "from litnav.core.text import stop_words; assert 'the' in stop_words(); "
            "print(len(hits), sorted(m for m in ('bm25s', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["3", "[]"]  # p0, p4 and p6 mention retrieval


def test_an_index_of_another_bm25_variant_is_refused_by_file(index, tmp_path):
    import shutil

    copy = tmp_path / "idx"
    shutil.copytree(index, copy)
    params = copy / "bm25" / "params.index.json"
    params.write_text(json.dumps({**json.loads(params.read_text()), "method": "bm25l"}))
    with pytest.raises(ValueError, match="params.index.json.*bm25l"):
        Lexical(copy)
