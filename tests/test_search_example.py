"""Query by example: a passage quoted from a corpus paper also searches by that whole paper
(title + abstract, dense and BM25), so a pasted facet of a paper ranks what resembles the paper,
while the paper itself stays out of the results (navigator.source)."""

from __future__ import annotations

import pytest

from litnav import search
from litnav.core.records import Checklist
from litnav.core.settings import Settings
from litnav.corpus import Corpus
from litnav.librarians.operators.base import REGISTRY, RunContext
from litnav.librarians.operators.retrieval import ExampleSearchParams
from litnav.navigator.planner import EXAMPLE_NODES, plan_workflow, rule_checklist
from litnav.session.render import result_notes

DPR_ABSTRACT = ("Open-domain question answering relies on efficient passage retrieval. We show that dense "
                "representations learned by a dual encoder outperform BM25 for retrieving passages.")

SOURCE = ("Neural machine translation is poor for low-resource language pairs such as Nepali-English. "
          "We augment the parallel data with back-translated monolingual news text and train a transformer on the union of "
          "both kinds of sentence pairs for twenty epochs. "
          "Back-translation improves BLEU by four points on the FLoRes Nepali-English benchmark.")
METHOD_FACET = ("We augment the parallel data with back-translated monolingual news text and train a transformer on the "
                "union of both kinds of sentence pairs for twenty epochs.")
"""The source's method sentence, pasted alone: on its own words a news classifier matches it best."""


@pytest.fixture(scope="module")
def corpus(search_corpus) -> Corpus:
    return search_corpus


@pytest.fixture(scope="module")
def facets(open_corpus) -> Corpus:
    """A translation paper (the source), a paper like it as a whole, and papers that share the
    words of its method sentence only."""
    from litnav.corpus.records import Document, Paper

    def doc(cid, title, abstract):
        return Document(paper=Paper(corpus_id=cid, title=title, year=2021, venue="WMT"), abstract=abstract)

    docs = [
        doc("source", "Back-Translation for Low-Resource Nepali-English Translation", SOURCE),
        doc("like", "Synthetic Parallel Data for Low-Resource Neural Machine Translation",
            "Translation quality for low-resource languages improves with synthetic bilingual text made from "
            "target-side corpora. We report BLEU gains on the FLoRes Nepali-English and Sinhala-English benchmarks."),
        doc("news", "Augmenting News Text for Topic Classification",
            "We augment the training data with paraphrased news text and train a transformer classifier. Topic "
            "labels of news articles are predicted more accurately than with the original data alone."),
        doc("speech", "Augmenting Speech Data with Noise",
            "We augment the training data with noisy copies of utterances and train a transformer acoustic model "
            "for speech recognition in noisy rooms."),
        doc("nepali", "A Nepali-English Benchmark for Low-Resource Translation",
            "FLoRes provides Nepali-English and Sinhala-English evaluation sets for low-resource machine translation."),
        doc("transfer", "Multilingual Transfer for Low-Resource Translation",
            "A Hindi-English translation model transfers to Nepali-English, improving BLEU in the low-resource setting."),
        doc("metrics", "BLEU Scores Disagree on Low-Resource Language Pairs",
            "Human judgements of Nepali-English machine translation correlate weakly with BLEU."),
        doc("images", "Image Augmentation for Medical Segmentation",
            "Random rotations and elastic deformations augment scarce labelled scans for segmenting tumours."),
    ]
    return open_corpus("facets", docs)


def _run(op: str, corpus, seed_ids: list[str], k: int = 10):
    ctx = RunContext(corpus=corpus, checklist=Checklist(intent="x"), settings=Settings())
    pool = REGISTRY[op].run(ExampleSearchParams(seed_ids=seed_ids, k=k), [], ctx, "n")
    return pool, ctx


@pytest.mark.parametrize("op", ["example_semantic", "example_lexical"])
def test_an_example_paper_finds_itself_first_and_then_its_topic(corpus, op):
    pool, _ = _run(op, corpus, ["dpr"])
    assert pool.ids[0] == "dpr"
    assert {"colbert", "survey", "acl"} & set(pool.ids[1:4]), pool.ids  # dense retrieval for QA
    assert "bird" not in pool.ids[:4]


@pytest.mark.parametrize("op", ["example_semantic", "example_lexical"])
def test_unknown_example_papers_give_nothing_and_say_why(corpus, op):
    pool, ctx = _run(op, corpus, ["no-such-paper"])
    assert pool.ids == []
    assert "no-such-paper" in ctx.notes["n"]


@pytest.mark.parametrize("params, field", [({"seed_ids": []}, "seed_ids"), ({"k": 0}, "k"),
                                           ({"max_quoted": float("nan")}, "finite"), ({"max_quoted": 1.5}, "max_quoted")])
def test_bad_example_params_are_refused_by_name(params, field):
    with pytest.raises(ValueError, match=field):
        ExampleSearchParams(**{"seed_ids": ["dpr"], **params})


def test_a_quoted_passage_plans_searches_by_its_source(corpus):
    settings = Settings()
    wf = plan_workflow(rule_checklist(DPR_ABSTRACT, corpus, settings), settings)
    nodes = {n.id: n for n in wf.nodes}
    assert all(nodes[i].params["seed_ids"] == ["dpr"] for i in EXAMPLE_NODES)
    fuse = nodes["fuse"]
    weights = dict(zip(fuse.inputs, fuse.params["weights"]))
    assert all(weights[i] == settings.librarians.source_weight for i in EXAMPLE_NODES)
    assert nodes["not_source"].inputs == ["fuse"]  # the source itself never comes back


@pytest.mark.parametrize("intent", ["dense retrieval for open-domain question answering",
                                    "Dense representations outperform BM25 for retrieving passages."])
def test_a_typed_intent_plans_no_example_search(corpus, intent):
    settings = Settings()
    wf = plan_workflow(rule_checklist(intent, corpus, settings), settings)
    assert not {n.id for n in wf.nodes} & set(EXAMPLE_NODES)


def test_source_weight_zero_plans_no_example_search(corpus):
    settings = Settings.model_validate({"librarians": {"source_weight": 0}})
    wf = plan_workflow(rule_checklist(DPR_ABSTRACT, corpus, settings), settings)
    assert not {n.id for n in wf.nodes} & set(EXAMPLE_NODES)
    assert "not_source" in {n.id for n in wf.nodes}  # the source is still left out


@pytest.mark.parametrize("weight", [-1, float("nan"), float("inf")])
def test_a_bad_source_weight_is_refused_by_name(weight):
    with pytest.raises(ValueError, match="source_weight"):
        Settings.model_validate({"librarians": {"source_weight": weight}})


def test_a_pasted_method_sentence_ranks_papers_like_its_whole_paper_first(facets):
    session = search(METHOD_FACET, facets, Settings(), top_k=4, rounds=1)
    ids = [r.corpus_id for r in session.results]
    assert "source" not in ids
    assert ids[0] == "like", ids
    assert "example" in {f.channel for f in session.results[0].found_by}  # the audit shows why it rose
    without = search(METHOD_FACET, facets, Settings.model_validate({"librarians": {"source_weight": 0}}),
                     top_k=4, rounds=1)
    assert without.results[0].corpus_id != "like"  # on the sentence's own words the news classifier wins
    assert any("searched too (query by example)" in n for n in result_notes(session))
    assert not any("query by example" in n for n in result_notes(without))
    assert any("quoted from source" in n for n in result_notes(without))  # still left out, and said


class _LexicalStage:
    """A corpus built to stage ``lexical`` only: no abstract vectors yet."""

    def __init__(self, corpus):
        self._corpus = corpus

    def __getattr__(self, name):
        return getattr(self._corpus, name)

    def missing_channels(self):
        return {"semantic": "no abstract vectors yet (build stage lexical)"}


def test_a_corpus_without_vectors_still_searches_its_source_by_bm25(facets):
    lexical_only = _LexicalStage(facets)
    pool, ctx = _run("example_semantic", lexical_only, ["source"])
    assert pool.ids == [] and "example search skipped: no abstract vectors" in ctx.notes["n"]
    pool, _ = _run("example_lexical", lexical_only, ["source"])
    assert pool.ids[:2] == ["source", "like"]


def test_a_pasted_whole_abstract_is_the_example_already(corpus):
    """The title + abstract pasted whole: the intent's own searches run that text, so the example
    searches skip (a second copy of the query would only outweigh citation expansion)."""
    session = search(DPR_ABSTRACT, corpus, Settings(), top_k=10, rounds=1)
    runs = {r.node_id: r for r in session.rounds[0].operator_runs}
    assert all(runs[i].outputs == [] and "already" in runs[i].note for i in EXAMPLE_NODES)
    without = search(DPR_ABSTRACT, corpus, Settings.model_validate({"librarians": {"source_weight": 0}}),
                     top_k=10, rounds=1)
    assert [r.corpus_id for r in session.results] == [r.corpus_id for r in without.results]
    assert not any("query by example" in n for n in result_notes(session))


def _facet_workflow(facets, edit):
    settings = Settings()
    wf = plan_workflow(rule_checklist(METHOD_FACET, facets, settings), settings)
    edit(wf)
    return search(METHOD_FACET, facets, settings, workflow=wf, top_k=4, rounds=1)


def _unfuse(wf):
    """The example searches taken out of the fusion, and so out of the workflow (a node that feeds
    nothing is refused: ``navigator.workflow_check``)."""
    fuse = wf.node("fuse")
    keep = [i for i, n in enumerate(fuse.inputs) if n not in EXAMPLE_NODES]
    fuse.inputs = [fuse.inputs[i] for i in keep]
    fuse.params = {**fuse.params, "weights": [fuse.params["weights"][i] for i in keep]}
    wf.nodes = [n for n in wf.nodes if n.id not in EXAMPLE_NODES]


def _other_seed(wf):
    for i in EXAMPLE_NODES:
        node = wf.node(i)
        node.params = {**node.params, "seed_ids": ["news"]}


@pytest.mark.parametrize("edit", [_unfuse, _other_seed], ids=["not fused", "another paper"])
def test_the_note_claims_only_example_searches_of_the_source_that_fed_the_results(facets, edit):
    session = _facet_workflow(facets, edit)
    notes = result_notes(session)
    assert any("quoted from source" in n for n in notes) and not any("query by example" in n for n in notes)
