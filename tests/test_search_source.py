"""A pasted passage never returns the paper it is quoted from (navigator.source): query by
document asks for papers like the text, and its own paper answers nothing."""

from __future__ import annotations

import textwrap

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
def corpus(search_corpus) -> Corpus:
    return search_corpus


TEMPLATE = "This paper describes our submission to SemEval-2020 Task 12 on multilingual offensive language identification."
SYSTEMS = ["fine-tune a multilingual transformer on tweets in five languages",
           "train a character-level convolutional network with focal loss",
           "combine support vector machines with gradient boosted trees over n-grams"]
LM = ("We introduce a new language representation model which pre-trains deep bidirectional representations from "
      "unlabeled text by jointly conditioning on both left and right context in all layers. The pre-trained model "
      "can be fine-tuned with just one additional output layer to create state-of-the-art models for a wide range "
      "of tasks. It obtains new state-of-the-art results on eleven natural language processing tasks, including "
      "pushing the GLUE score to 80.5% and MultiNLI accuracy to 86.7%.")
LM_STUDY = ("We introduce a new language representation model which pre-trains deep bidirectional representations "
            "from unlabeled text by jointly conditioning on both left and right context in all layers. We probe what "
            "its attention heads learn about syntax and coreference across twelve layers and find that the "
            "model\u2019s middle layers encode most of the dependency structure of English sentences.")


@pytest.fixture(scope="module")
def crowded(open_corpus) -> Corpus:
    """Papers that share sentences: SemEval system papers opening alike, Cochrane protocols, a
    study reusing a model paper's first sentence."""
    from litnav.corpus.records import Document, Paper

    def doc(cid, title, abstract):
        return Document(paper=Paper(corpus_id=cid, title=title, year=2020, venue="SemEval"), abstract=abstract)

    docs = [doc(f"sem{i}", f"Team {i} at SemEval-2020 Task 12", f"{TEMPLATE} We {m}. Our system ranks {i + 2}th among "
                "85 teams.") for i, m in enumerate(SYSTEMS)]
    docs += [doc(f"coch{i}", f"{x.capitalize()} for depression in adults", "This is a protocol for a Cochrane Review "
                 f"(Intervention). The objectives are as follows: To assess the effects of {x} for depression in "
                 "adults.") for i, x in enumerate(["exercise", "acupuncture", "yoga"])]
    docs += [doc("lm", "Deep Bidirectional Transformers for Language Understanding", LM),
             doc("lm_record", "Deep bidirectional transformers for language understanding.", ""),  # a second record
             doc("lm_study", "What Bidirectional Transformers Learn about Syntax", LM_STUDY)]
    return open_corpus("crowded", docs)


@pytest.mark.parametrize("passage", [
    DPR_ABSTRACT,
    DPR_ABSTRACT.upper(),  # case
    DPR_ABSTRACT.replace(". ", ".\n\n").replace("dual encoder", "dual-encoder"),  # layout, hyphenation
    DPR_ABSTRACT.replace("learned ", ""),  # a word lost in copying
    "Dense Passage Retrieval for Open-Domain Question Answering. " + DPR_ABSTRACT,  # title and abstract
    DPR_ABSTRACT.split(". ")[1] + " " + DPR_ABSTRACT.split(". ")[0] + ".",  # sentences in another order
    "method: " + DPR_ABSTRACT,  # a faceted query's label
    "[method] " + DPR_ABSTRACT,
    "(Background) " + DPR_ABSTRACT.split(". ")[0] + ".\n[result] " + DPR_ABSTRACT.split(". ")[1],
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
    # every word of a typed request stands in colbert's abstract, but a request is not a quotation
    "find me papers: a late-interaction dense retrieval model for question answering that matches question and "
    "passage token embeddings",
    "papers on a late-interaction dense retrieval model for question answering that matches question and passage "
    "token embeddings, since 2019",
])
def test_text_not_quoted_from_a_paper_has_no_source(corpus, text):
    assert find_source(text, corpus) == []


@pytest.mark.parametrize("passage", [
    DPR_ABSTRACT.replace("dense", "sparse", 1),  # one changed word says something else
    DPR_ABSTRACT.replace("outperform", "underperform"),
    DPR_ABSTRACT.replace("dual encoder", "cross encoder"),
])
def test_a_changed_word_is_not_a_quotation(corpus, passage):
    assert find_source(passage, corpus) == []


@pytest.mark.parametrize("passage", [
    f'"{DPR_ABSTRACT}"',  # in quotation marks
    DPR_ABSTRACT.replace("retrieval.", "retrieval (Karpukhin et al., 2020; Lee et al., 2019)."),  # citations
    DPR_ABSTRACT.replace("retrieval.", "retrieval [3, 4].").replace("BM25", "BM25~\\cite{robertson2009}"),
    DPR_ABSTRACT.replace("efficient", "e\ufb03cient"),  # the PDF's ligature
    DPR_ABSTRACT.replace("representations", "representa-\ntions"),  # hyphenated at a line break
    "Dense Passage Retrieval for Open-Domain Question Answering\n\nAbstract\n\n" + DPR_ABSTRACT,  # a first page
    "Dense Passage Retrieval for Open-Domain Question Answering\nV. Karpukhin, B. Oguz, S. Min\nAbstract:"
    + DPR_ABSTRACT,  # an abstract page: title, authors, "Abstract:" on single lines
    "\n".join(textwrap.wrap(DPR_ABSTRACT, 38)),  # hard-wrapped as a PDF copies it
])
def test_a_quotation_as_pasted_from_a_pdf_finds_its_source(corpus, passage):
    assert find_source(passage, corpus) == ["dpr"]


def test_a_sentence_many_papers_share_is_no_source(crowded):
    # every system paper opens with the same sentence: only the paper whose own sentences are
    # quoted is the source, and a new abstract opening with the template has none
    assert find_source(crowded.abstract("sem0"), crowded) == ["sem0"]
    assert find_source(f"{TEMPLATE} We use a rule-based classifier with hand-written patterns.", crowded) == []
    tai_chi = ("This is a protocol for a Cochrane Review (Intervention). The objectives are as follows: To assess "
               "the effects of tai chi for depression in adults.")
    assert find_source(tai_chi, crowded) == []


def test_a_paper_reusing_sentences_is_not_the_source_of_the_other(crowded):
    assert find_source(LM_STUDY, crowded) == ["lm_study"]
    assert find_source(LM, crowded) == ["lm", "lm_record"]  # and the same paper's other record
    # a record with the title only may rank below the passage's BM25 candidates: found by its title
    assert find_source(LM, crowded, k=1) == ["lm", "lm_record"]


def test_papers_from_one_template_are_not_duplicates_of_the_source(crowded):
    # Cochrane protocols differ in one word: the siblings are the neighbours a user wants
    assert not {"coch1", "coch2"} & set(find_source(crowded.abstract("coch0"), crowded))


def test_a_question_in_an_abstracts_words_is_not_a_quotation(crowded):
    question = ("Can a new language representation model pre-train deep bidirectional representations from "
                "unlabeled text by jointly conditioning on both left and right context in all layers? Can the "
                "pre-trained model be fine-tuned with just one additional output layer for a wide range of tasks?")
    assert find_source(question, crowded) == []


@pytest.mark.parametrize("pasted", [
    LM_STUDY.replace("\u2019", "'"),  # the straight apostrophe a keyboard types
    LM_STUDY.replace("attention", "atten\u200btion"),  # a zero-width space from a web page
    LM_STUDY.replace(" across twelve layers and", "\u2026"),  # a search engine's snippet
])
def test_a_quotation_from_the_web_finds_its_source(crowded, pasted):
    assert find_source(pasted, crowded) == ["lm_study"]


def test_other_numbers_make_another_claim(crowded):
    assert find_source(LM.replace("80.5%", "82.1%").replace("86.7%", "88.0%"), crowded) == []


@pytest.mark.parametrize("wrapper", ["Find papers similar to this abstract: {}", "{} Only papers since 2019."])
def test_a_request_around_a_pasted_abstract_still_leaves_it_out(crowded, wrapper):
    assert find_source(wrapper.format(LM), crowded) == ["lm", "lm_record"]


@pytest.mark.parametrize("text", ["", "   ", "...", "\x01\x02"])
def test_blank_text_has_no_source(corpus, text):
    assert find_source(text, corpus) == []


def test_a_short_claim_keeps_the_paper_that_states_it(corpus):
    assert find_source(DPR_CLAIM, corpus) == []
    session = search(DPR_CLAIM, corpus, Settings(), top_k=5, rounds=1)
    assert "dpr" in [r.corpus_id for r in session.results]


def test_a_short_sentence_in_the_papers_own_voice_is_quoted(corpus):
    """"We show ..." is a paper speaking, never a claim a user types: its paper is its source."""
    from litnav.navigator.source import OWN_VOICE

    assert find_source("We show that dense representations learned by a dual encoder outperform BM25 for "
                       "retrieving passages.", corpus) == ["dpr"]
    assert not OWN_VOICE.search("The US health care system can save up to $5 billion.")  # "US" is no "us"


def test_search_leaves_the_source_out_and_says_so(corpus):
    session = search(DPR_ABSTRACT, corpus, Settings(), top_k=10, rounds=2)
    ids = [r.corpus_id for r in session.results]
    assert "dpr" not in ids and ids, ids
    assert all(rnd.checklist.source_ids == ["dpr"] for rnd in session.rounds)  # every round keeps it out
    assert any("not_source" == n.id for rnd in session.rounds for n in rnd.workflow.nodes)
    assert any("quoted from dpr" in note and "pin it" in note for note in result_notes(session))
    assert any("c1 is the pasted text as a whole" in note for note in result_notes(session))
    # no other paper states a pasted passage whole: no "0 of N results satisfy c1" warning
    assert not any("satisfy the whole intent" in note for note in result_notes(session))


def test_exclude_source_off_keeps_it_first(corpus):
    settings = Settings.model_validate({"navigator": {"exclude_source": False}})
    session = search(DPR_ABSTRACT, corpus, settings, top_k=10, rounds=1)
    assert session.results[0].corpus_id == "dpr"
    assert session.rounds[0].checklist.source_ids == ["dpr"]  # still found: it is searched by example
    assert any("quoted from dpr" in note and "dpr (#1)" in note for note in result_notes(session))


def test_a_title_line_above_a_quoted_sentence_still_finds_the_source(corpus):
    """Lines as pasted: the title line and the sentence are read apart, not joined into one piece."""
    pasted = ("Dense Passage Retrieval for Open-Domain Question Answering\n"
              "We show that dense representations learned by a dual encoder outperform BM25 for retrieving passages.")
    session = search(pasted, corpus, Settings(), top_k=10, rounds=1)
    assert session.rounds[0].checklist.source_ids == ["dpr"]
    assert "dpr" not in [r.corpus_id for r in session.results]


def test_an_anchor_search_never_returns_the_source_of_its_pasted_intent(corpus):
    from litnav.navigator.anchor import anchor_search

    session = anchor_search("bird", "successor", corpus, Settings(), intent=DPR_ABSTRACT, top_k=10)
    assert "dpr" not in [r.corpus_id for r in session.results]
    assert "colbert" in [r.corpus_id for r in session.results]  # the anchor's other citer
    assert any("quoted from dpr" in note for note in result_notes(session))


def test_a_refined_turn_keeps_the_source_out(corpus):
    from litnav.navigator import refine
    from litnav.navigator.refine import ensure_turns

    session = ensure_turns(search(DPR_ABSTRACT, corpus, Settings(), top_k=10, rounds=1))
    for feedback in ("more like #1", "only papers after 2015"):
        session = refine(session, feedback, corpus, Settings())
        assert "dpr" not in [r.corpus_id for r in session.results], feedback


def test_a_workflow_without_the_filter_says_the_source_is_in_the_results(corpus):
    from litnav.navigator.planner import plan_workflow, rule_checklist

    settings = Settings()
    wf = plan_workflow(rule_checklist(DPR_ABSTRACT, corpus, settings), settings)
    wf.nodes = [n for n in wf.nodes if n.id != "not_source"]
    for n in wf.nodes:
        n.inputs = ["fuse" if i == "not_source" else i for i in n.inputs]
    session = search(DPR_ABSTRACT, corpus, settings, workflow=wf, top_k=10, rounds=1)
    rank = next(r.rank for r in session.results if r.corpus_id == "dpr")
    assert any(f"dpr (#{rank})" in note for note in result_notes(session))
    assert not any("not among the results" in note for note in result_notes(session))


def test_pinning_the_source_brings_it_back(corpus):
    from litnav.navigator import refine
    from litnav.navigator.refine import ensure_turns

    session = ensure_turns(search(DPR_ABSTRACT, corpus, Settings(), top_k=10, rounds=1))
    session = refine(session, 'pin "Dense Passage Retrieval for Open-Domain Question Answering"', corpus, Settings())
    assert session.results[0].corpus_id == "dpr"
    assert "dpr" not in session.turns[-1].checklist.source_ids


def test_the_report_names_the_source(corpus):
    from litnav.session.report import audit_view, render_report

    session = search(DPR_ABSTRACT, corpus, Settings(), top_k=5, rounds=1)
    assert any("quoted from dpr" in n for n in audit_view(session)["notes"])
    html = render_report(session)
    notes = [part.split("</p>")[0] for part in html.split('<p class="note muted">')[1:]]
    assert any("quoted from dpr" in n and "<code>litnav show ID</code>" in n for n in notes)
    assert not any("`" in n for n in notes)  # markdown code spans rendered, not shown raw
