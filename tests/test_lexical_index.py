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
    assert ours.query_terms(query) == [(t,) for t in terms]  # no word here has another spelling
    mine = ours._scores(query)
    if not terms:
        assert mine is None and ours.search(query, 5) == []
        return
    np.testing.assert_array_equal(mine, theirs.get_scores(terms))
    expected = sorted(((f"p{i}", float(s)) for i, s in enumerate(theirs.get_scores(terms)) if s > 0),
                      key=lambda h: (-h[1], int(h[0][1:])))
    assert ours.search(query, len(TEXTS)) == expected


SPELLINGS = [
    "Tumour suppressor genes in randomised trials",
    "Tumor suppressor genes in randomized trials",
    "Tumour and tumor: both spellings of tumour growth",
    "Optimisation of neural networks",
    "Optimization of neural networks",
    "Expertise of experts in annotation",
]


@pytest.mark.parametrize("pair", [("tumour suppressor", "tumor suppressor"), ("randomised trial", "randomized trial"),
                                  ("optimisation", "optimization")])
def test_british_and_american_spelling_find_the_same_papers(tmp_path, pair):
    build_bm25(tmp_path, [f"s{i}" for i in range(len(SPELLINGS))], iter(SPELLINGS))
    lexical = Lexical(tmp_path)
    british, american = (lexical.search(q, len(SPELLINGS)) for q in pair)
    assert british == american
    found = {cid for cid, _ in british}
    assert {"s0", "s1"} <= found or {"s3", "s4"} <= found


def test_a_word_and_its_other_spelling_are_one_term(tmp_path):
    build_bm25(tmp_path, [f"s{i}" for i in range(len(SPELLINGS))], iter(SPELLINGS))
    lexical = Lexical(tmp_path)
    british, american = (dict(lexical.search(q, len(SPELLINGS))) for q in ("tumour", "tumor"))
    assert british == american and set(british) == {"s0", "s1", "s2"}
    # "Tumour and tumor: ... tumour growth" (row 2) is not scored twice: below both columns summed
    summed = sum(float(data[list(rows).index(2)]) for rows, data in map(lexical._column, ("tumour", "tumor")))
    assert british["s2"] < summed


def test_a_word_spelt_ise_in_american_english_too_is_not_rewritten(tmp_path):
    build_bm25(tmp_path, [f"s{i}" for i in range(len(SPELLINGS))], iter(SPELLINGS))
    assert Lexical(tmp_path).query_terms("expertise") == [("expertis",)]  # not also "expert"


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


def _bm25s_matrix(scores: dict, vocab: dict[str, int]) -> dict[str, dict[int, float]]:
    """term -> {document row: score} from CSC arrays and a term -> column vocabulary."""
    out = {}
    for term, col in vocab.items():
        if term and col + 1 < len(scores["indptr"]):
            lo, hi = scores["indptr"][col], scores["indptr"][col + 1]
            out[term] = dict(zip(scores["indices"][lo:hi].tolist(), scores["data"][lo:hi].tolist()))
    return out


def test_built_matrix_is_the_one_bm25s_builds_from_its_own_tokenizer(index):
    import bm25s

    ours = Lexical(index)
    stemmer = ours.stemmer
    theirs = bm25s.BM25()
    theirs.index(bm25s.tokenize(TEXTS, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)
    mine = {"data": np.asarray(ours.data), "indices": np.asarray(ours.indices), "indptr": np.asarray(ours.indptr)}
    assert _bm25s_matrix(mine, ours.vocab) == _bm25s_matrix(theirs.scores, theirs.vocab_dict)


@pytest.mark.parametrize("seed", range(6))
def test_blockwise_score_matrix_equals_bm25s_index_bit_for_bit(seed, monkeypatch):
    """Random corpora (empty documents, repeated and unused terms) cut into blocks of 1 to 40
    token ids: every array equals bm25s's, in value, order and dtype."""
    import bm25s

    from litnav.corpus import lexical

    rng = np.random.default_rng(seed)
    for _ in range(10):
        n_vocab, n_docs = int(rng.integers(1, 40)), int(rng.integers(1, 50))
        docs = [rng.integers(0, n_vocab, size=int(rng.integers(0, 25))).astype(np.int32) for _ in range(n_docs)]
        if not any(len(d) for d in docs):
            continue
        monkeypatch.setattr(lexical, "BLOCK_TOKENS", int(rng.integers(1, 40)))
        theirs = bm25s.BM25()
        theirs.index((docs, {f"t{i}": i for i in range(n_vocab)}), show_progress=False)
        ends = np.cumsum([len(d) for d in docs]).astype(np.int64)
        data, indices, indptr = lexical.bm25_csc(np.concatenate(docs), ends, n_vocab)
        for name, array in (("data", data), ("indices", indices), ("indptr", indptr)):
            expected = theirs.scores[name]
            assert array.dtype == expected.dtype and np.array_equal(array, expected), name


def test_score_matrix_refuses_ids_outside_the_vocabulary():
    from litnav.corpus.lexical import bm25_csc

    with pytest.raises(ValueError, match="outside the vocabulary"):
        bm25_csc(np.array([0, 5], dtype=np.int32), np.array([2], dtype=np.int64), 3)
    with pytest.raises(ValueError, match="do not partition"):
        bm25_csc(np.array([0, 1], dtype=np.int32), np.array([3], dtype=np.int64), 3)
    with pytest.raises(ValueError, match="do not partition"):  # token ids but no document
        bm25_csc(np.array([0, 1], dtype=np.int32), np.array([], dtype=np.int64), 3)


def test_build_refuses_a_repeated_corpus_id(tmp_path):
    with pytest.raises(ValueError, match="'x' is given twice"):
        build_bm25(tmp_path, ["x", "x", "y"], iter(["graph one", "graph two", "tree"]))
    assert not (tmp_path / "bm25").exists()


def test_medical_british_spellings_the_table_lacks_find_the_same_papers(tmp_path):
    """A verification trial's ischaemic/ischemic, oesophageal/esophageal and coeliac/celiac had 0 of
    10 BM25 results in common on SciFact (the breame table lacks them)."""
    texts = ["Ischaemic stroke in coeliac disease", "Ischemic stroke and celiac disease outcomes",
             "Oesophageal cancer screening", "Esophageal cancer survival", "Speed of sound"]
    build_bm25(tmp_path, [f"m{i}" for i in range(len(texts))], iter(texts))
    lexical = Lexical(tmp_path)
    for british, american in (("ischaemic stroke", "ischemic stroke"), ("oesophageal", "esophageal"),
                              ("coeliac", "celiac")):
        assert lexical.search(british, 5) == lexical.search(american, 5) and len(lexical.search(british, 5)) >= 2
    assert lexical.query_terms("speed") == [("speed",)]  # no "spaed"
