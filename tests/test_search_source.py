"""A pasted passage never returns the paper it is quoted from (navigator.source): query by
document asks for papers like the text, and its own paper answers nothing."""

from __future__ import annotations

import pytest

from litnav import search
from litnav.core.settings import Settings
from litnav.corpus import Corpus
from litnav.navigator.source import find_source
from litnav.session.render import result_notes

DPR_ABSTRACT = ("Open-domain question answering relies on efficient passage retrieval. We show that dense "
                "representations learned by a dual encoder outperform BM25 for retrieving passages.")
DPR_CLAIM = "Dense representations outperform BM25 for retrieving passages."
"""A short claim stated in dpr's abstract: dpr is its evidence, not a source to leave out."""


@pytest.fixture(scope="module")
def corpus(search_corpus_dir) -> Corpus:
    c = Corpus.open(search_corpus_dir)
    yield c
    c.close()


@pytest.mark.parametrize("passage", [
    DPR_ABSTRACT,
    DPR_ABSTRACT.upper(),  # case
    DPR_ABSTRACT.replace(". ", ".\n\n").replace("dual encoder", "dual-encoder"),  # layout, hyphenation
    DPR_ABSTRACT.replace("learned ", ""),  # a word lost in copying
    "Dense Passage Retrieval for Open-Domain Question Answering. " + DPR_ABSTRACT,  # title and abstract
    DPR_ABSTRACT.split(". ")[1] + " " + DPR_ABSTRACT.split(". ")[0] + ".",  # sentences in another order
])
def test_a_quoted_passage_finds_its_source(corpus, passage):
    assert find_source(passage, corpus) == ["dpr"]


@pytest.mark.parametrize("text", [
    # the same topic in other words: related, not quoted
    "We show that passages retrieved with learned dense vectors answer open-domain questions better than "
    "sparse term matching does.",
    # a request for papers on the abstract's subject keeps its results
    "papers showing that dense representations learned by a dual encoder outperform BM25 for retrieving "
    "passages, since 2018",
    # a short record quoted inside a longer passage is cited by it, not its source
    "We build on Dense Passage Retrieval for Open-Domain Question Answering and extend it to biomedical "
    "questions, where we show that domain-adaptive pretraining of both encoders matters most.",
])
def test_text_not_quoted_from_a_paper_has_no_source(corpus, text):
    assert find_source(text, corpus) == []


def test_a_short_claim_keeps_the_paper_that_states_it(corpus):
    assert find_source(DPR_CLAIM, corpus) == []
    session = search(DPR_CLAIM, corpus, Settings(), top_k=5, rounds=1)
    assert "dpr" in [r.corpus_id for r in session.results]


def test_search_leaves_the_source_out_and_says_so(corpus):
    session = search(DPR_ABSTRACT, corpus, Settings(), top_k=10, rounds=2)
    ids = [r.corpus_id for r in session.results]
    assert "dpr" not in ids and ids, ids
    assert all(rnd.checklist.source_ids == ["dpr"] for rnd in session.rounds)  # every round keeps it out
    assert any("not_source" == n.id for rnd in session.rounds for n in rnd.workflow.nodes)
    assert any("quoted from dpr" in note for note in result_notes(session))


def test_exclude_source_off_keeps_it_first(corpus):
    settings = Settings.model_validate({"navigator": {"exclude_source": False}})
    session = search(DPR_ABSTRACT, corpus, settings, top_k=10, rounds=1)
    assert session.results[0].corpus_id == "dpr"
    assert session.rounds[0].checklist.source_ids == []
    assert not any("quoted from" in note for note in result_notes(session))


def test_a_refined_turn_keeps_the_source_out(corpus):
    from litnav.navigator import refine
    from litnav.navigator.refine import ensure_turns

    session = ensure_turns(search(DPR_ABSTRACT, corpus, Settings(), top_k=10, rounds=1))
    for feedback in ("follow the citing direction of the top paper", "only papers after 2015"):
        session = refine(session, feedback, corpus, Settings())
        assert "dpr" not in [r.corpus_id for r in session.results], feedback


def test_the_report_names_the_source(corpus):
    from litnav.session.report import audit_view, render_report

    session = search(DPR_ABSTRACT, corpus, Settings(), top_k=5, rounds=1)
    assert any("quoted from dpr" in n for n in audit_view(session)["notes"])
    assert "quoted from dpr" in render_report(session)
