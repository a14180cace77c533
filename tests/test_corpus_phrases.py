"""The corpus phrase table: collocations by NPMI, document frequencies, atomic storage, a clear
error for a damaged file, and the lazy build for a corpus finalised before phrase tables."""

from __future__ import annotations

import gzip
from types import SimpleNamespace

import pytest

from litnav.corpus.phrases import PHRASES_FILE, build_phrase_table, corpus_phrases, load_phrases, save_phrases

TEXTS = [
    "Graph neural networks predict molecular properties.",
    "We train graph neural networks on molecular graphs.",
    "Coral reefs suffer from bleaching; coral reefs are monitored.",
    "Machine translation of low-resource languages with graph neural networks.",
    "The effect of temperature on coral reefs and fish.",
] * 3


def test_collocations_and_document_frequencies() -> None:
    table = build_phrase_table(TEXTS + ["Neural reefs."], min_count=2)
    assert table.is_phrase(["graph", "neural"]) and table.is_phrase(["coral", "reefs"])
    assert " ".join(["graph", "neural", "networks"]) in table.phrases
    assert not table.is_phrase(["neural", "reefs"])  # adjacent once: below min_count
    assert not table.is_phrase(["temperature", "coral"])  # a stop word ("on") lies between them
    assert table.n_docs == len(TEXTS) + 1 and table.df["coral"] == 6
    assert table.idf("coral") < table.idf("never-seen-word")


def test_round_trip_and_damaged_file(tmp_path) -> None:
    table = build_phrase_table(TEXTS, min_count=2)
    path = save_phrases(tmp_path, table)
    assert path.name == PHRASES_FILE and not list(tmp_path.glob(".*tmp"))
    assert load_phrases(tmp_path).phrases == table.phrases
    assert load_phrases(tmp_path / "missing") is None
    with gzip.open(path, "wt") as fh:
        fh.write("{not json")
    with pytest.raises(ValueError, match=PHRASES_FILE):
        load_phrases(tmp_path)


def test_corpus_without_a_table_gets_one_built_and_kept(tmp_path) -> None:
    ids = [str(i) for i in range(len(TEXTS))]
    corpus = SimpleNamespace(
        directory=tmp_path, all_ids=lambda: ids,
        papers=lambda wanted: {i: SimpleNamespace(title=f"paper {i}") for i in wanted},
        abstracts=lambda wanted: {i: TEXTS[int(i)] for i in wanted})
    table = corpus_phrases(corpus)
    assert table is not None and table.is_phrase(["coral", "reefs"])
    assert (tmp_path / "index" / PHRASES_FILE).is_file()
    assert corpus_phrases(SimpleNamespace()) is None
