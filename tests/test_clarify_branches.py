"""Clarification without an LLM: top results that split into distinct groups yield a named
branch question; choosing a branch is an edit that moves its papers up; a non-interactive run
records the default; on the demo corpus a demo intent produces a real choice."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from litnav.core.settings import Settings
from litnav.corpus import Corpus
from litnav.navigator import search
from litnav.navigator.branch_question import clarify
from litnav.navigator.branches import QUESTION, find_branches

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "multiturn"))
from multiturn_papers import build_corpus  # noqa: E402

DEMO_CORPUS = Path(__file__).resolve().parents[1] / "demo-corpus"
INTENT = "contrastive self-supervised representation learning"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    c = Corpus.open(build_corpus(tmp_path_factory.mktemp("clarify") / "corpus"))
    yield c
    c.close()


@pytest.fixture(scope="module")
def first(corpus):
    return search(INTENT, corpus, Settings(), top_k=10)


def _in_branch(session, branch) -> int:
    return sum(r.corpus_id in branch.ids for r in session.results)


def test_default_is_recorded_without_a_new_turn(first, corpus):
    s, branches = clarify(first.model_copy(deep=True), corpus, Settings())
    assert len(branches) >= 2 and all(b.terms for b in branches)
    c = s.clarifications[-1]
    assert c.question.startswith(QUESTION) and c.options[-2:] == ["all", "stop"]
    assert c.answer == "all" and not c.interactive
    assert len(s.turns) == 1 and s.turns[0].clarification == c


def test_choosing_a_branch_moves_its_papers_up(first, corpus):
    s = first.model_copy(deep=True)
    branches = find_branches(corpus, [cid for cid, _ in s.rounds[-1].ranking[:20]])
    target = min(branches, key=lambda b: _in_branch(s, b))  # the branch least present now
    before = _in_branch(s, target)
    asked = []
    s, _ = clarify(s, corpus, Settings(), ask=lambda q, opts, d: asked.append(q) or target.label)
    assert asked and s.clarifications[-1].interactive and s.clarifications[-1].answer == target.label
    assert len(s.turns) == 2 and s.turns[1].edits[0].action == "add_checkpoint"
    assert _in_branch(s, target) > before


def test_bad_answer_is_an_error(first, corpus):
    with pytest.raises(ValueError, match="not one of"):
        clarify(first.model_copy(deep=True), corpus, Settings(), answer="z")


@pytest.mark.skipif(not (DEMO_CORPUS / "corpus.duckdb").exists(),
                    reason="demo corpus absent: build it with `litnav demo`")
def test_a_demo_intent_offers_a_real_choice():
    from litnav.navigator.demo import DEMO_INTENTS

    with Corpus.open(DEMO_CORPUS) as c:
        for intent in DEMO_INTENTS:
            s = search(intent, c, Settings(), top_k=8)
            branches = find_branches(c, [cid for cid, _ in s.rounds[-1].ranking[:20]])
            if branches:
                break
        assert branches, "no demo intent split into branches"
        target = min(branches, key=lambda b: _in_branch(s, b))
        before = _in_branch(s, target)
        s, _ = clarify(s, c, Settings(), answer=target.label)
        assert _in_branch(s, target) > before


def test_cosine_silhouette_matches_scikit_learn():
    np = pytest.importorskip("numpy")
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the reference implementation")
    from litnav.navigator.branches import cosine_silhouette

    rng = np.random.default_rng(7)
    x = rng.normal(size=(24, 6))
    x[:12] += 1.5
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    for labels in (np.repeat([0, 1], 12), np.array([0] * 10 + [1] * 13 + [2]), rng.integers(0, 3, 24)):
        assert cosine_silhouette(x, labels) == pytest.approx(
            metrics.silhouette_score(x, labels, metric="cosine"), abs=1e-9)


def test_branch_terms_keep_accented_words_whole():
    """A full-text user was offered "[b] tica, los, contratos": "Política" and "práctica" were cut
    at their accented letter."""
    from litnav.navigator.branches import name_groups

    texts = {"a": ("Política pública y práctica de contratos", ""), "b": ("Política pública de contratos estatales", ""),
             "c": ("Graph neural networks for molecules", ""), "d": ("Graph neural networks for proteins", "")}
    terms = name_groups(texts, [["a", "b"], ["c", "d"]])
    assert not any(t in {"tica", "blica"} for t in terms[0]) and any("política" in t or "pública" in t for t in terms[0])


def test_branch_terms_never_come_from_urls():
    """A user trial was offered "[a] https, github, pre-trained": two abstracts ended with their
    code's address."""
    from litnav.navigator.branches import name_groups

    code = " Our code is available at https://github.com/lab/repo."
    texts = {"a": ("Diffusion language models for text generation.", code),
             "b": ("Diffusion models generate text without autoregression.", code),
             "c": ("Graph neural networks for molecules.", ""), "d": ("Graph neural networks for proteins.", "")}
    terms = name_groups(texts, [["a", "b"], ["c", "d"]])
    assert not {w for t in terms[0] for w in t.split()} & {"https", "github", "com", "code", "available"}
    assert any("diffusion" in t or "text" in t for t in terms[0])


def test_branch_labels_are_topic_phrases_not_verbs_or_generic_words():
    """A user trial was offered "[a] information retrieval, outperforms, document" and "[b] may,
    visual, vision": a verb, a modal and words every abstract uses named the groups."""
    from litnav.navigator.branches import name_groups

    ir = ("Our dense retriever outperforms BM25 on document ranking. We present future research directions "
          "and challenges for human evaluation.")
    vision = ("Our visual encoder outperforms prior work on image classification. It may help future research "
              "directions and challenges for human evaluation.")
    texts = {"a": ("Dense passage retrieval for open-domain question answering", ir),
             "b": ("Dense passage retrieval with hard negatives", ir.replace("BM25", "sparse retrieval")),
             "c": ("Vision transformers for image classification", vision),
             "d": ("Self-supervised vision transformers for image classification", vision)}
    terms = name_groups(texts, [["a", "b"], ["c", "d"]])
    said = {w for group in terms for t in group for w in t.split()}
    assert not said & {"outperforms", "may", "research", "directions", "challenges", "human", "our", "future"}
    assert "dense passage retrieval" in terms[0] and "image classification" in terms[1]


def test_each_label_is_stated_by_papers_of_its_branch(first, corpus):
    from litnav.core.text import stems
    from litnav.scorer.text import phrase_in, phrase_key, stem_string

    branches = find_branches(corpus, [cid for cid, _ in first.rounds[-1].ranking[:20]])
    assert branches
    for b in branches:
        papers, abstracts = corpus.papers(b.ids), corpus.abstracts(b.ids)
        hay = {c: stem_string([stems(papers[c].title), stems(abstracts.get(c) or "")]) for c in b.ids}
        for term in b.terms:
            assert sum(phrase_in(phrase_key(term), h) for h in hay.values()) >= 2, (b.label, term)


def test_a_later_refinement_answers_the_branch_question(first, corpus):
    """The non-interactive search prints "to follow one: litnav refine FILE 'branch a'": that
    feedback runs the chosen branch's edit, as answering the question in the terminal does."""
    from litnav.navigator import refine

    s, branches = clarify(first.model_copy(deep=True), corpus, Settings())
    target = min(branches, key=lambda b: _in_branch(s, b))
    before = _in_branch(s, target)
    asked = s.turns[-1].clarification
    s = refine(s, f"branch {target.label}", corpus, Settings())
    assert len(s.turns) == 2 and s.turns[1].clarification.answer == target.label
    assert s.turns[1].clarification.question == asked.question
    assert s.turns[1].edits[0].action == "add_checkpoint" and s.turns[1].feedback.startswith(f"[{target.label}]")
    assert _in_branch(s, target) > before
    with pytest.raises(ValueError, match="followed branch"):  # turn 2 followed a branch: no question is open
        refine(s, "a", corpus, Settings())


def test_a_branch_letter_without_a_question_is_an_error(corpus):
    from litnav.navigator import refine

    s = search("graph neural networks for molecules", corpus, Settings(), top_k=5)
    if s.turns and s.turns[-1].clarification is not None:
        s.turns[-1].clarification = None
    with pytest.raises(ValueError, match="branch question"):
        refine(s, "[b]", corpus, Settings())


def _cli_search(tmp_path, corpus, answer: str | None):
    from typer.testing import CliRunner

    from litnav.cli import _register, app

    _register()
    path = tmp_path / "s.json"
    argv = ["search", INTENT, "--corpus", str(corpus.directory), "--top", "10", "--json", str(path)]
    argv += ["--interactive"] if answer is not None else ["--no-interactive"]
    res = CliRunner().invoke(app, argv, input=answer, env={"COLUMNS": "200"})
    return res, path


def test_the_cli_asks_after_the_results_and_takes_a_letter(tmp_path, corpus):
    """A re-check typed "b" at the prompt and was refused ("Please select one of the available
    options"): the prompt took numbers only."""
    from litnav.session.io import read_session

    res, path = _cli_search(tmp_path, corpus, "b\n")
    assert res.exit_code == 0, res.output
    assert res.output.index("Results for:") < res.output.index(QUESTION)
    s = read_session(path)
    assert len(s.turns) == 2 and s.turns[1].clarification.answer == "b" and s.turns[1].clarification.interactive


def test_an_unanswered_prompt_leaves_the_question_open_for_a_refinement(tmp_path, corpus):
    """A re-check aborted the prompt: the session had no turns and "branch a" was then refused."""
    from litnav.navigator import refine
    from litnav.session.io import read_session

    res, path = _cli_search(tmp_path, corpus, "")
    assert res.exit_code == 0, res.output
    assert "not answered" in res.output and "'branch a'" in res.output
    s = read_session(path)
    assert s.turns[-1].clarification.answer == "all"
    s = refine(s, "branch a", corpus, Settings())
    assert s.turns[-1].clarification.answer == "a"


def test_without_a_terminal_the_question_follows_the_results_with_the_command_that_answers_it(tmp_path, corpus):
    res, path = _cli_search(tmp_path, corpus, None)
    assert res.exit_code == 0, res.output
    assert res.output.index("Results for:") < res.output.index(QUESTION)
    assert f"litnav refine {path} 'branch a'" in " ".join(res.output.split())


def test_branch_labels_never_restate_the_search_or_its_acronym():
    """A re-check was offered "[a] OOD detection, OoD data, OOD samples" for "out-of-distribution
    detection" and "diffusion-based generative models" for "diffusion models"."""
    from litnav.navigator.branches import name_groups

    ood = ("We flag OOD data with energy scores, where OOD detection by softmax confidence fails. "
           "Energy-based scores beat softmax confidence baselines.")
    shift = "We study covariate shift and label shift; importance weighting corrects the shift in deployment."
    texts = {"a": ("Energy-based out-of-distribution detection", ood),
             "b": ("Energy scores for OOD detection in image classifiers", ood),
             "c": ("Covariate shift correction by importance weighting", shift),
             "d": ("Label shift estimation by importance weighting", shift)}
    terms = name_groups(texts, [["a", "b"], ["c", "d"]], asked=["out-of-distribution detection"])
    assert not [t for t in terms[0] if "ood" in t.lower().split() or "detection" in t.split()]
    assert any("energy" in t for t in terms[0]) and any("importance weighting" in t for t in terms[1])
    from litnav.corpus.phrases import PhraseTable

    ml = PhraseTable(n_docs=1000, df={"generative": 90, "based": 300, "models": 500, "diffusion": 20, "denoising": 8})
    restated = name_groups({"a": ("Diffusion-based generative models for images", "x"),
                            "b": ("Diffusion-based generative models of audio", "y"),
                            "c": ("Denoising diffusion for video", "z"), "d": ("Denoising diffusion for speech", "w")},
                           [["a", "b"], ["c", "d"]], table=ml, asked=["diffusion models"])
    assert "diffusion-based generative models" not in restated[0] and "denoising diffusion" in restated[1]


def test_a_branch_answer_in_other_words_or_with_more_feedback(first, corpus):
    """A re-check's "prioritise b" became a topic "b", "not branch a" an exclusion of the word
    "branch", and "branch a, only papers after 2005" dropped the branch."""
    from litnav.navigator import refine

    asked, _ = clarify(first.model_copy(deep=True), corpus, Settings())
    s = refine(asked.model_copy(deep=True), "prioritise b", corpus, Settings())
    assert s.turns[-1].clarification.answer == "b" and not any(
        c.text.endswith(" b") for c in s.turns[-1].checklist.checkpoints)
    with pytest.raises(ValueError, match="cannot be left out by its letter"):
        refine(asked.model_copy(deep=True), "not branch a", corpus, Settings())
    s = refine(asked.model_copy(deep=True), "branch a, only papers after 2019", corpus, Settings())
    kinds = {c.kind for c in s.turns[-1].checklist.checkpoints if c.source == "user" or c.kind == "metadata"}
    assert s.turns[-1].clarification.answer == "a" and {"topic", "metadata"} <= kinds
    assert all(r.year is None or r.year >= 2020 for r in s.results)
