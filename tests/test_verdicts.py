"""Verdicts agree with their evidence: no "not satisfied" beside a quote stating the checkpoint,
no "respected" exclusion beside a quote violating it, and boilerplate is never evidence."""

from __future__ import annotations

import pytest

from litnav.core.boilerplate import content_spans, is_boilerplate, non_evidence_section
from litnav.core.records import Checklist, Checkpoint, Evidence, Judgement
from litnav.corpus.records import Paper
from litnav.scorer import load_student, score_paper, score_papers
from litnav.scorer.features import checkpoint_terms
from litnav.scorer.verdicts import disagreement, verdict_agreement

PAPER = Paper(corpus_id="p", title="Sentiment classification of product reviews", year=2020)
BERT = Checkpoint(id="c1", kind="method", text="The paper uses BERT", terms=["BERT"])
TWITTER = Checkpoint(id="x1", kind="exclusion", text="The paper is not about Twitter data", terms=["Twitter"])
CHECKLIST = Checklist(intent="sentiment analysis with BERT, not Twitter", checkpoints=[BERT, TWITTER])


def ev(text: str, sim: float, i: int = 0, section: str = "Abstract") -> Evidence:
    return Evidence(chunk_id=f"p:{i}", corpus_id="p", section=section, char_start=0, char_end=len(text),
                    text=text, similarity=sim)


@pytest.fixture(scope="module")
def student():
    return load_student(None)


@pytest.mark.parametrize("sentence", [
    "The paper is organized as follows.",
    "The rest of this paper is structured as follows: Section 2 reviews related work.",
    "Our code is available at https://github.com/x/y.",
    "We thank the anonymous reviewers for their comments.",
    "This work was partially supported by the National Science Foundation.",
    "Copyright © 2020 the authors.",
    "All rights reserved.",
    # a journal's back-matter template, quoted as "satisfied" evidence by a full-text user
    "Any methods, additional references, Nature Research reporting summaries, source data, extended data, "
    "supplementary information, acknowledgements, peer review information; details of author contributions",
    "2.", "Methods.", "(1) Negation.", "y(q)=diaby",  # fragments: a list number, a heading, a formula line
    # road-maps a full-text trial found quoted as evidence
    "Section 4 and 5 discuss how to incorporate the correlations for answer ranking and re-ranking.",
    "We finish with some conclusions and future directions in Section 6.",
    "Experimental results are shown in Section 5.",
    "Section 6 consists of more discussions on related work, and Section 7 concludes the paper.",
    "Our conclusions are drawn in Section 6.", "Finally, we conclude in Sect. 5.",
    "Section 4 is devoted to the experiments.", "The outline of the paper is as follows.",
    "We then describe our experiments (Section 4) and conclude (Section 5).",
    # author notes a full-text trial found glued to quotes
    "*\nThis work has been done while the first author was visiting Google.",
    "Work done during an internship at Google.", "† Equal contribution.", "* Corresponding author.",
])
def test_boilerplate_is_recognised(sentence):
    assert is_boilerplate(sentence)


@pytest.mark.parametrize("sentence", [
    "Using survey data to estimate migration flows.",
    "We fine-tune BERT on product reviews.",
    "Section structure matters for long-document summarisation.",
    "Gaussian noise.",
    "本文提出了一种新的方法。",  # CJK: one run of letters, many words
    "We evaluate by reporting summary statistics of the cohort.",  # the template's words in a paper's own sentence
    "We collected peer review information from 3,000 OpenReview submissions.",
    "We show that our parser improves accuracy, and the results of all ablations on three treebanks are shown in Section 5.",
    "Results are shown in Table 3.",
    # a finding that opens with its section is evidence, not a road-map
    "Section 5 shows that dependency parsing with LSTMs improves accuracy by 3%.",
    "In Section 4 we show that the BiLSTM parser is 20% faster than the baseline.",
    "Features usually do not have equal contribution in the decision.",  # the words of a note in content
    "We coded the country of the corresponding author and the funding type.",
    "The work was done during the pandemic, when clinics were closed.",
    "",
])
def test_content_is_not_boilerplate(sentence):
    assert not is_boilerplate(sentence)


def test_sections_without_findings():
    assert non_evidence_section("Acknowledgments") and non_evidence_section("7 References")
    assert not non_evidence_section("Results") and not non_evidence_section(None)
    # a response-to-reviewers letter and a journal's back matter were quoted as a paper's evidence
    assert all(map(non_evidence_section, ["Reviewer 3", "Response to Reviewers", "Online content",
                                          "Author Contribution Statement", "Declaration of competing interest"]))
    assert not non_evidence_section("Brief Review of Quasideterminants")


def test_a_stated_method_is_never_unsatisfied(student):
    evidence = [ev("Reviews were collected over two years. We fine-tune BERT on the reviews.", 0.05)]
    j = score_paper(PAPER, CHECKLIST, {"c1": evidence}, student).judgements[0]
    assert j.score >= 2.5 and "BERT" in j.quote and "satisfied" in j.rationale
    assert disagreement(j, CHECKLIST) is None


def test_an_exclusion_is_never_respected_beside_a_violating_quote(student):
    evidence = [ev("Our corpus consists of messages collected from Twitter in 2019.", 0.02)]
    j = score_paper(PAPER, CHECKLIST, {"x1": evidence}, student).judgements[1]
    assert j.score < 2.5 and "violated" in j.rationale and "Twitter" in j.quote
    assert disagreement(j, CHECKLIST) is None


@pytest.mark.parametrize("sentence", [
    "Pre-trained encoders such as BERT improved many tasks (Devlin et al., 2019).",
    "Devlin et al. (2019) introduced BERT.",
    "Transformers like BERT [12] dominate the benchmarks.",
    "Encoders (BERT, ELMo, etc.) are widely used.",
])
def test_a_sentence_about_cited_work_does_not_state_the_checkpoint_of_the_paper(student, sentence):
    # a passing mention of other work neither satisfies a method nor violates an exclusion
    evidence = [ev(sentence, 0.05)]
    j = score_paper(PAPER, CHECKLIST, {"c1": evidence}, student).judgements[0]
    assert "P raised" not in j.rationale
    twitter = sentence.replace("BERT", "Twitter")
    x = score_paper(PAPER, CHECKLIST, {"x1": [ev(twitter, 0.05)]}, student).judgements[1]
    assert "P raised" not in x.rationale
    assert disagreement(j, CHECKLIST) is None and disagreement(x, CHECKLIST) is None
    # the paper's own work stays stated, citation or not
    own = [ev("We fine-tune BERT (Devlin et al., 2019) on the reviews.", 0.05)]
    assert score_paper(PAPER, CHECKLIST, {"c1": own}, student).judgements[0].score >= 2.5


def test_boilerplate_is_never_quoted(student):
    mixed = [ev("The paper is organized as follows. We classify reviews with BERT.", 0.9)]
    j = score_paper(PAPER, CHECKLIST, {"c1": mixed}, student).judgements[0]
    assert j.quote == "We classify reviews with BERT."
    only = [ev("The remainder of this paper is organized as follows.", 0.9)]
    assert content_spans(only[0].text) == []
    assert score_paper(PAPER, CHECKLIST, {"c1": only}, student).judgements[0].quote is None


def j(cp: Checkpoint, score: float, quote: str) -> Judgement:
    """A judgement of ``cp`` with this score and quote."""
    return Judgement(checkpoint_id=cp.id, kind=cp.kind, text=cp.text, score=score, rationale="r",
                     quote=quote, engine="test")


def test_agreement_counts_each_kind_of_disagreement():
    judged = [
        ([j(BERT, 0.5, "We fine-tune BERT."), j(TWITTER, 4.5, "Tweets from Twitter were used.")], CHECKLIST),
        ([j(BERT, 4.0, "We thank the reviewers."), j(TWITTER, 4.5, "We study product reviews.")], CHECKLIST),
        ([j(BERT, 4.0, "BERT is fine-tuned.")], CHECKLIST),
    ]
    report = verdict_agreement(judged)
    assert report["n"] == 5
    assert (report["unsatisfied_but_stated"], report["respected_but_violated"], report["boilerplate"]) == (1, 1, 1)
    assert report["agree"] == pytest.approx(2 / 5)
    assert verdict_agreement([])["agree"] == 1.0


def test_a_stating_sentence_outside_the_cosine_evidence_is_found_lexically(student):
    """The lexical channel: the sentence naming the method is not among the located chunks,
    but a chunk found lexically states it, so the verdict is satisfied and quotes it."""
    far = ev("We fine-tune BERT on the reviews.", 0.1, i=5)
    j = score_paper(PAPER, CHECKLIST, {"c1": [ev("Reviews were collected over two years.", 0.4)]}, student).judgements[0]
    lexical = score_papers(
        [PAPER], CHECKLIST, {"p": {"c1": [ev("Reviews were collected over two years.", 0.4)]}}, student,
        lexical_evidence={"p": {"c1": [far]}})[0].judgements[0]
    assert lexical.score >= 2.5 and lexical.quote == "We fine-tune BERT on the reviews."
    assert lexical.quote_chunk_id in {e.chunk_id for e in lexical.evidence}
    assert disagreement(lexical, CHECKLIST) is None and disagreement(j, CHECKLIST) is None


class _Fixed:
    """A student whose P(satisfied) is fixed, so the quote can be checked apart from the grade."""

    name = "fixed"
    training = {"checkpoint_kinds": ["method", "exclusion"]}

    def __init__(self, p: float):
        self.p = p

    def predict_satisfaction(self, items):
        import numpy as np

        return np.full(len(items), self.p)

    def relevance(self, rows):
        import numpy as np

        return np.full(len(rows), 0.5)


@pytest.mark.parametrize("p", [0.6, 0.95])
def test_a_satisfied_verdict_quotes_the_sentence_that_states_it(p):
    closest = ev("Reviews of products were classified with a pre-trained transformer encoder.", 0.8, 0)
    stating = ev("Data came from a shop. We fine-tune BERT on the labelled reviews.", 0.4, 1)
    j = score_papers([PAPER], CHECKLIST, {"p": {"c1": [closest, stating]}}, _Fixed(p))[0].judgements[0]
    assert j.score == pytest.approx(5 * p) and "P raised" not in j.rationale  # the grade is the student's
    assert j.quote == "We fine-tune BERT on the labelled reviews." and j.quote_chunk_id == "p:1"
    assert verdict_agreement([([j], CHECKLIST)])["supported"] == 1


def test_a_violated_exclusion_quotes_the_violating_sentence():
    closest = ev("We study short messages about products.", 0.8, 0)
    stating = ev("All messages were collected from Twitter.", 0.3, 1)
    x = score_papers([PAPER], CHECKLIST, {"p": {"x1": [closest, stating]}}, _Fixed(0.9))[0].judgements[1]
    assert x.score < 2.5 and x.quote == "All messages were collected from Twitter."


def test_support_counts_positive_verdicts_whose_quote_states_the_checkpoint():
    judged = [([j(BERT, 4.0, "We fine-tune BERT."), j(BERT, 3.0, "We use a transformer."),
                j(BERT, 1.0, "We use a transformer."), j(TWITTER, 1.0, "Tweets from Twitter were used."),
                j(TWITTER, 4.0, "We study reviews.")], CHECKLIST)]
    report = verdict_agreement(judged)
    assert (report["positive"], report["supported"]) == (3, 2)  # 2 satisfied + 1 violated; 2 state it


@pytest.mark.parametrize("sentence", [
    "Unlike earlier systems, we do not use Twitter data.",
    "Our classifier is trained without any Twitter data.",
    "We use no Twitter data at all.",
    "Reviews, rather than Twitter data, are our source.",
])
def test_a_sentence_negating_the_excluded_phrase_does_not_violate_it(student, sentence):
    from litnav.scorer.quote import states

    assert not states(sentence, checkpoint_terms(TWITTER.text, TWITTER.terms)[1])
    x = score_paper(PAPER, CHECKLIST, {"x1": [ev(sentence, 0.05)]}, student).judgements[1]
    assert "P raised" not in x.rationale and disagreement(x, CHECKLIST) is None


@pytest.mark.parametrize(("sentence", "stated"), [
    ("We do not use BERT.", False),
    ("We don't fine-tune BERT.", False),
    ("We use not only BERT but also ELMo.", True),
    ("No gain was seen with CRFs, so we fine-tune BERT.", True),
    ("BERT is not used in our experiments.", False),
    ("We didn\u2019t use BERT.", False),
    ("We avoid BERT.", False),
    ("This is not surprising: BERT outperforms all baselines.", True),  # the cue is in another clause
    ("Although the gain is not large, we use BERT as the encoder.", True),
    ("Our model, unlike RoBERTa, uses BERT.", True),
    ("Classification tasks such as BERT fine-tuning are common.", False),  # an example, not the paper's
    ("We fine-tune encoders such as BERT.", True),
    ("BERT is an encoder pretrained on tasks such as masked language modelling.", True),  # the head, not an example
    ("Encoders, e.g. BERT, are pretrained on large corpora.", False),
    ("BERT encoders have been pretrained on many corpora, etc.", False),  # "etc." ends a list of examples
    ("The system of {{cite:c08b4e}} fine-tunes BERT on audio transcripts.", False),  # unarXive's marker: a cited paper
    # a baseline compared is not used (a trial's "Compared with the CNN based methods ..." made a paper "use" CNNs)
    ("Compared with the BERT based methods, our model is faster.", False),
    ("Our parser is faster than BERT.", False),
    ("Our model outperforms BERT.", False),
    ("We fine-tune BERT, which is faster than ELMo.", True),
    ("We fine-tune BERT on more than 3 tasks.", True),
    ("Our ELMo model outperforms the baselines on BERT embeddings.", True),  # a preposition ends the comparison
])
def test_a_negated_method_is_not_stated(sentence, stated):
    from litnav.scorer.quote import states

    assert states(sentence, checkpoint_terms(BERT.text, BERT.terms)[1]) is stated


def test_an_exclusion_is_violated_only_by_a_sentence_without_examples():
    """A demotion needs the stronger evidence: "a broad survey of both human evaluation measures and
    automated metrics, and a review of ... tasks, such as ..." does not make a tutorial on MT
    metrics a study of human evaluation only (it was demoted out of the top 10 of a judged intent),
    while the same words state a content checkpoint."""
    from litnav.scorer.quote import states

    sentence = ("The range of issues covered includes a broad survey of both human evaluation measures and "
                "commonly-used automated metrics, and a review of how these are used for various types of "
                "evaluation tasks, such as assessing the translation quality of MT-translated sentences.")
    phrases = checkpoint_terms("The paper studies human evaluation", ["human evaluation"])[1]
    assert states(sentence, phrases) and not states(sentence, phrases, strict=True)
    assert states("We run a human evaluation of the outputs.", phrases, strict=True)


@pytest.mark.parametrize("background", [
    "Diffusion models have gained significant attention in the realm of image generation.",
    "Recent advances in image generation rely on diffusion models.",
    "Image generation has been revolutionized by diffusion models.",
    "Transformer-based architectures achieved breakthrough performance in image generation, yet not here.",
    "Diffusion models are widely used in image generation.",
])
def test_an_exclusion_is_not_violated_by_the_state_of_the_field(background):
    """A user trial's "diffusion models for text generation, not image generation" demoted
    AR-Diffusion, #1 in every first-stage channel, to #25 on its opening sentence about the field."""
    from litnav.scorer.quote import states

    phrases = checkpoint_terms("The paper is not about image generation", ["image generation"])[1]
    assert states(background, phrases) and not states(background, phrases, strict=True)
    assert states("We have shown that our model improves image generation.", phrases, strict=True)
    assert states("This paper studies image generation with diffusion models.", phrases, strict=True)


def test_a_sentence_defining_the_checkpoint_before_its_examples_states_it():
    """An ML researcher saw "Generative flow networks (GFlowNets) are a method for learning a
    stochastic policy for generating compositional objects, such as graphs or strings, ..." quoted
    under "not satisfied" for "generative flow networks": the "such as" after the phrase made the
    whole sentence a list of examples."""
    from litnav.scorer.quote import states

    sentence = ("Generative flow networks (GFlowNets) are a method for learning a stochastic policy for generating "
                "compositional objects, such as graphs or strings, from a given unnormalized density.")
    assert states(sentence, checkpoint_terms("The paper studies generative flow networks",
                                             ["generative flow networks"])[1])
    assert not states(sentence, checkpoint_terms("The paper studies graphs", ["graphs"])[1])


@pytest.mark.parametrize("sentence, stated", [
    ("We first transform each ngram probability into a score.", False),  # a verb sharing the stem
    ("HuggingFace Transformers were used to fine-tune the encoder.", True),
    ("Our Transformer model reaches state-of-the-art results.", True),
    ("We compare transformers with recurrent networks.", True),
])
def test_a_word_sharing_only_a_stem_does_not_state_an_agent_noun(sentence, stated):
    """A fresh user saw "The paper studies transformers" satisfied by "We first transform ...":
    Snowball stems both to "transform"; an agent noun keeps its "-er" (``core.text._stem_words``)."""
    from litnav.scorer.quote import states

    _terms, phrases = checkpoint_terms("The paper studies transformers", ["transformers"])
    assert states(sentence, phrases) is stated


@pytest.mark.parametrize("sentence", ["Machine translation, contrary to semantic parsing, has no logical forms.",
                                      "In contrast to semantic parsing, we translate whole documents.",
                                      "As opposed to semantic parsing, our task needs no grammar."])
def test_a_contrast_does_not_state_the_contrasted_topic(sentence):
    from litnav.scorer.quote import states

    _terms, phrases = checkpoint_terms("The paper studies semantic parsing", ["semantic parsing"])
    assert not states(sentence, phrases)
    assert states("We study semantic parsing of questions.", phrases)


@pytest.mark.parametrize("checkpoint, sentence", [
    ("The paper is not about randomized smoothing",
     "Invariance to all norm-bounded attacks is achieved through randomised smoothing of network inputs."),
    ("The paper studies haemoglobin levels in paediatric tumours",
     "We measured hemoglobin levels in pediatric tumors of 40 patients."),
    ("The paper studies self-organising maps", "We train self-organizing maps on the spectra."),
    ("The paper studies abstractive summarisation", "We propose a model for abstractive summarization."),
])
def test_british_and_american_spellings_state_the_same_checkpoint(checkpoint, sentence):
    """A fresh user saw an exclusion of "randomized smoothing" judged respected beside a quote on
    "randomised smoothing": Snowball stems the two differently, so terms are stemmed in American
    spelling (``core.text.american_spelling``)."""
    from litnav.scorer.quote import states

    phrase = checkpoint.split(" about ")[-1].split(" studies ")[-1]
    _terms, phrases = checkpoint_terms(checkpoint, [phrase])
    assert states(sentence, phrases)


@pytest.mark.parametrize(("sentence", "stated"), [
    ("Risk of colorectal cancer was estimated with models adjusted for age, sex, smoking, aspirin use, and diet.", False),
    ("Aspirin use was associated with a lower risk of colorectal cancer.", True),
    ("After adjustment for BMI, aspirin reduced colorectal cancer incidence.", True),
    ("Adjusted for age, aspirin use lowered colorectal cancer risk by 20%.", True),
])
def test_a_confounder_in_a_covariate_list_does_not_state_the_checkpoint(sentence, stated):
    """A biomedical user saw "Aspirin reduces the risk of colorectal cancer" raised to satisfied by
    a vitamin D paper whose only aspirin was a covariate ("adjusted for ... aspirin use")."""
    from litnav.scorer.quote import states

    _terms, phrases = checkpoint_terms("Aspirin reduces the risk of colorectal cancer", ["aspirin", "colorectal cancer"])
    assert states(sentence, phrases) is stated


EITHER = Checkpoint(id="c2", kind="topic", text="The paper studies neural machine translation or speech translation",
                    terms=["neural machine translation", "speech translation"], any_of=True)


@pytest.mark.parametrize("sentence", [
    "We improve neural machine translation with shared embeddings.",
    "We train end-to-end speech translation models on TED talks.",
])
def test_a_checkpoint_with_alternatives_is_satisfied_by_either(student, sentence):
    """'NMT or speech translation': a paper stating one alternative satisfies it, quoting it,
    and the agreement check reads the quote against that alternative."""
    checklist = Checklist(intent="neural machine translation or speech translation", checkpoints=[EITHER])
    j = score_paper(PAPER, checklist, {"c2": [ev(sentence, 0.3)]}, student).judgements[0]
    assert j.score >= 2.5 and j.quote == sentence and "judged for its alternative" in j.rationale
    assert disagreement(j.model_copy(update={"score": 1.0}), checklist) == "unsatisfied_but_stated"
    both = EITHER.model_copy(update={"any_of": False})  # read as "and", one of them is not enough
    assert disagreement(j.model_copy(update={"score": 1.0}),
                        checklist.model_copy(update={"checkpoints": [both]})) is None


@pytest.mark.parametrize("intent", ["gut microbiota and obesity, excluding mouse studies",
                                    "gut microbiota and obesity, but not in mice"])
def test_an_exclusion_catches_the_irregular_plural_of_its_term(student, intent):
    """"excluding mouse studies" is violated by a paper "in knockout mice" (the stemmer keeps
    "mouse" and "mice" apart), whichever number the intent uses."""
    from litnav.navigator.intent import parse_intent

    checklist = parse_intent(intent)
    [x] = [c for c in checklist.checkpoints if c.kind == "exclusion"]
    assert {"mouse", "mice"} <= {t.lower() for t in x.terms} and x.any_of
    paper = Paper(corpus_id="p", title="Gut microbiota is a key modulator of insulin resistance in TLR2 knockout mice")
    sentence = "The phenotype was reproduced in wild-type mice fed the microbiota."
    j = next(j for j in score_paper(paper, checklist, {x.id: [ev(sentence, 0.3)]}, student).judgements
             if j.kind == "exclusion")
    assert j.score < 2.5 and j.quote == sentence


@pytest.mark.parametrize("sentence", ["Daily oral preexposure prophylaxis (PrEP) reduced HIV infections.",
                                      "Daily oral pre-exposure prophylaxis reduced HIV infections."])
def test_a_hyphenated_phrase_and_its_closed_form_state_the_same_checkpoint(sentence):
    """"Pre-Exposure Prophylaxis" scored 0.0 beside the quote "preexposure prophylaxis (PrEP)"."""
    from litnav.scorer.quote import states

    for checkpoint in ("Pre-Exposure Prophylaxis", "preexposure prophylaxis"):
        assert states(sentence, checkpoint_terms(f"The paper studies {checkpoint}", [checkpoint])[1])


@pytest.mark.parametrize(("sentence", "stated"), [
    ("Our results are significant in hatespeech detection for Roman Urdu.", True),
    ("We train a hate-speech detection model for Roman Urdu.", True),
    ("We build a hate speech detection model for Roman Urdu.", True),
    ("We do not build a hate-speech detection model.", False),  # negated in any form
    ("Speech detection is hard; we hate it.", False),
])
def test_a_phrase_with_some_words_closed_or_hyphenated_is_stated(sentence, stated):
    """"hate speech detection" was "not satisfied" beside "significant in hatespeech detection":
    a compound written as one word, with or without its hyphen, states the phrase of its words."""
    from litnav.scorer.quote import states

    phrases = checkpoint_terms("The paper studies hate speech detection", ["hate speech detection"])[1]
    assert states(sentence, phrases) is stated


class _ByConcept:
    """A student that reads a checkpoint as satisfied (P 0.7) unless it is about a concept the
    evidence does not name (P 0.0): what the bundled student does with c1 beside a missing facet."""

    name = "student:by-concept"
    training = {"data": "test", "checkpoint_kinds": ["topic", "application"]}

    def predict_satisfaction(self, items):
        import numpy as np

        def p(item):
            text = " ".join(e.text for e in item.evidence).lower()
            return 0.0 if item.text.startswith("The paper studies") and not all(
                t.lower() in text for t in item.terms) else 0.7

        return np.array([p(item) for item in items])

    def relevance(self, rows):
        import numpy as np

        return np.full(len(rows), 0.5)


def test_the_whole_intent_is_not_satisfied_when_one_of_its_concepts_is_not_addressed():
    """"data augmentation for dialogue state tracking": a tracker that augments nothing scored c1
    3.5/5 "satisfied" beside c2 'data augmentation' 0.0/5, and "7 of 10 satisfy the whole intent"
    counted it. c1 is held below satisfied, saying which concept is missing; a paper addressing both
    stays satisfied."""
    from litnav.navigator.intent import parse_intent

    checklist = parse_intent("data augmentation for dialogue state tracking")
    assert [c.text for c in checklist.checkpoints][1] == "The paper studies data augmentation"
    tracker = "We model the dependencies between slot values of the dialogue state."
    augmented = "We generate synthetic user utterances by data augmentation for training."
    scored = {}
    for name, sentence in (("tracker", tracker), ("augmented", augmented)):
        evidence = {c.id: [ev(sentence, 0.8)] for c in checklist.checkpoints}
        paper = Paper(corpus_id="p", title="A dialogue state tracker", year=2021)
        scored[name] = {j.checkpoint_id: j for j in score_paper(paper, checklist, evidence, _ByConcept()).judgements}
    c1 = scored["tracker"]["c1"]
    assert c1.score < 2.5 and "held below satisfied: c2 'The paper studies data augmentation'" in c1.rationale
    assert scored["augmented"]["c1"].score >= 2.5 and "held below" not in scored["augmented"]["c1"].rationale
    either = parse_intent("data augmentation or dialogue state tracking")  # alternatives: one concept is enough
    evidence = {c.id: [ev(tracker, 0.8)] for c in either.checkpoints}
    [c1] = [j for j in score_paper(Paper(corpus_id="p", title="t"), either, evidence, _ByConcept()).judgements
            if j.checkpoint_id == "c1"]
    assert "held below" not in c1.rationale


@pytest.mark.parametrize("sentence, checkpoint, term, stated", [
    ("Knowledge graphs support downstream applications like question answering (Bordes et al., 2014), dialog "
     "systems (Madotto et al., 2018) and recommendation, and we propose a new model.",
     "The paper is not about dialogue", "dialogue", False),  # a cited example of what others do
    ("Word senses are useful for tasks such as word sense disambiguation (Navigli, 2009), and we build a lexicon.",
     "The paper studies word sense disambiguation", "word sense disambiguation", False),
    ("We use pretrained encoders such as BERT (Devlin et al., 2019).", "The paper uses BERT", "BERT", True),
    ("Our module is based on graph neural networks (Scarselli et al., 2009).",
     "The paper uses graph neural networks", "graph neural networks", True),
])
def test_a_cited_example_in_a_list_is_a_passing_mention_even_beside_we(sentence, checkpoint, term, stated):
    """A relation-extraction paper listing "dialog systems (Madotto et al., 2018)" among the uses
    of knowledge graphs was judged to violate "not about dialogue" (P raised: "the quote states
    every key phrase"); an example the paper's own "we use ... such as" introduces still states it."""
    from litnav.scorer.quote import states

    _terms, phrases = checkpoint_terms(checkpoint, [term])
    assert states(sentence, phrases) is stated


def test_a_phrase_written_as_one_hyphenated_word_is_stated():
    """"being insulin-resistant" states "insulin resistance" (a verdict of 0.0 beside it read as a
    contradiction of its own quote); negated, it still does not."""
    from litnav.scorer.quote import states
    from litnav.scorer.text import phrase_key

    key = phrase_key("insulin resistance")
    assert states("White adipocytes have the unexpected feature of being insulin-resistant.", [key])
    assert not states("These adipocytes are not insulin-resistant.", [key])


@pytest.mark.parametrize("sentence, checkpoint, stated", [
    ("Tumour cells evade autophagosome encapsulation and exhibit low autophagic activity.", "autophagy", True),
    ("Arginine starvation induced mitochondrial oxidative stress.", "mitochondria", True),
    ("Geometric deep learning generalises convolutions to graphs.", "geometry", True),
    ("Economic growth slowed in every region.", "economy", True),
    ("The treatment raised the autophagic flux of the cells.", "autophagic flux", True),
    ("Tumour cells showed no autophagic activity.", "autophagy", False),  # negated, in either form
    ("We present a qualitative analysis of the errors.", "quality", False),  # quality is not qualitative
    ("Each sensory neuron was recorded.", "sensor", False),  # nor sensory a sensor
    # a trial's "molecule property prediction" judged 0 of 10 papers on "molecular property prediction"
    ("We predict molecular properties with graph neural networks.", "molecule properties", True),
    ("Particular filters were designed.", "particle filters", False),  # particular is no particle
    ("Regular expressions extract the spans.", "regulation", False),  # nor regular regulation
])
def test_a_noun_and_its_adjective_state_the_same_checkpoint(sentence, checkpoint, stated):
    """A fresh user saw c2 "autophagy" scored 0.2 beside the quote "... exhibit low autophagic
    activity", and "mitochondria" 0.0 beside "mitochondrial oxidative stress": Snowball keeps a
    noun in "-y"/"-ia" apart from its adjective in "-ic"/"-al"."""
    from litnav.scorer.quote import states

    _terms, phrases = checkpoint_terms(f"The paper studies {checkpoint}", [checkpoint])
    assert states(sentence, phrases) is stated


class _Unsure:
    """A student that finds nothing in the evidence (P 0.1 for every checkpoint)."""

    name = "student:unsure"
    training = {"data": "test", "checkpoint_kinds": ["topic", "application", "method", "exclusion"]}

    def predict_satisfaction(self, items):
        import numpy as np

        return np.full(len(items), 0.1)

    def relevance(self, rows):
        import numpy as np

        return np.full(len(rows), 0.5)


@pytest.mark.parametrize("title, raised", [
    ("Pharmacological interventions for smoking cessation: an overview and network meta-analysis", True),
    ("Smoking cessation without pharmacological interventions: a cohort study", False),
    ("Behavioural counselling for smoking cessation", False),
])
def test_a_checkpoint_stated_by_the_title_is_satisfied(title, raised):
    """A paper titled "Pharmacological interventions for smoking cessation: ..." had c2 "The paper
    studies pharmacological interventions" scored 0.2 and c1 held below satisfied because of it:
    the title is the paper's own statement of what it is about, so it counts as a stating sentence
    does (P raised, and the rationale says the title stated it); a negated one does not."""
    cp = Checkpoint(id="c2", kind="topic", text="The paper studies pharmacological interventions",
                    terms=["pharmacological interventions"])
    sentence = "We pooled 267 trials with 101,804 participants."
    paper = Paper(corpus_id="p", title=title, year=2013)
    [j] = score_paper(paper, Checklist(intent="x", checkpoints=[cp]), {"c2": [ev(sentence, 0.4)]},
                      _Unsure()).judgements
    assert (j.score >= 2.5) is raised
    assert ("the title states every key phrase" in j.rationale) is raised
    assert j.quote == sentence  # the quote is still a verbatim evidence sentence


def test_an_exclusion_stated_by_the_title_is_violated():
    """"... that does not use Twitter data": a paper titled "... on Twitter" violates it even when no
    evidence sentence names Twitter."""
    paper = Paper(corpus_id="p", title="Detecting hate speech on Twitter", year=2019)
    sentence = "We annotate 16k posts for racism and sexism."
    [j] = score_paper(paper, Checklist(intent="x", checkpoints=[TWITTER]), {"x1": [ev(sentence, 0.4)]},
                      _Unsure()).judgements
    assert j.score < 2.5 and "the title states" in j.rationale


@pytest.mark.parametrize("sentence, stated", [
    ("In contrast, working with graph convolutional networks (GCNs), we model online communities.", True),
    ("We encode the molecules with graph attention networks.", True),
    ("We encode the molecules with graph neural networks.", True),
    ("We do not use graph convolutional networks.", False),  # negated
    ("We build a graph of the social network of users.", False),  # not one term: "of the" between
])
def test_a_kind_of_neural_network_states_the_neural_network(sentence, stated):
    """The demo's "detecting abusive or offensive language with graph neural networks" held its top
    paper below satisfied because c3 "graph neural networks" scored 0.3 beside the quote "working
    with graph convolutional networks (GCNs)": a graph convolutional network is a graph neural network."""
    from litnav.scorer.quote import states

    _terms, phrases = checkpoint_terms("The paper studies graph neural networks", ["graph neural networks"])
    assert states(sentence, phrases) is stated
    _terms, plain = checkpoint_terms("The paper studies neural networks", ["neural networks"])
    assert not states("We study social networks of scientists.", plain)  # no kind named: no substitution


@pytest.mark.parametrize("sentence, checkpoint", [
    ("We train a language identification model on tweets.", "language models"),
    ("A language-based approach to code search.", "language models"),
    ("We fit a topic classification model.", "topic models"),
    ("We estimate a diffusion tensor model of white matter.", "diffusion models"),
    ("We use a Markov decision process model of the task.", "Markov models"),
    ("Unifying Bayesian Flow Networks and Diffusion Models.", "Bayesian neural networks"),
    ("Players showed mastery of the game.", "master"),
    ("The imagery was collected by satellites.", "imager"),
])
def test_a_word_between_or_another_kind_does_not_state_a_model(sentence, checkpoint):
    """A trial of a looser rule ("<kind> <a word or two> models", "<kind>-based", any word for
    "neural") found these read as stating the checkpoint: each names another thing."""
    from litnav.scorer.quote import states

    _terms, phrases = checkpoint_terms(f"The paper studies {checkpoint}", [checkpoint])
    assert not states(sentence, phrases)


@pytest.mark.parametrize("intent", [
    "offline reinforcement learning, excluding imitation learning",
    "offline reinforcement learning but not imitation learning",
    "offline RL papers that do not use imitation learning",
])
def test_an_excluded_learning_paradigm_is_violated_by_its_other_names(student, intent):
    """A user trial excluded imitation learning and was shown "A Policy-Guided Imitation Approach
    for Offline Reinforcement Learning" as respecting it (P(about it) = 0.35)."""
    from litnav.navigator.intent import parse_intent

    cl = parse_intent(intent)
    x = next(c for c in cl.checkpoints if c.kind == "exclusion")
    assert x.terms == ["imitation learning"]  # the other names are judged, never filtered on
    paper = Paper(corpus_id="p", title="A Policy-Guided Imitation Approach for Offline Reinforcement Learning")
    say = ev("We propose an approach that inherits the training stability of imitation-style methods.", 0.5)
    judged = score_paper(paper, cl, {x.id: [say]}, student)
    verdict = next(j for j in judged.judgements if j.checkpoint_id == x.id)
    assert verdict.score < 2.5 and "violated" in verdict.rationale
    assert disagreement(verdict, cl) is None
    # a paper on offline RL that imitates nothing still respects it
    other = Paper(corpus_id="p", title="A Minimalist Approach to Offline Reinforcement Learning")
    plain = ev("We add a behavior cloning term to the policy update of TD3.", 0.5)
    kept = score_paper(other, cl, {x.id: [plain]}, student)
    assert next(j for j in kept.judgements if j.checkpoint_id == x.id).score >= 2.5



@pytest.mark.parametrize("sentence", [
    "In contrast to common approaches, we pretrain a big model and distill it.",
    "Our world model outperforms contrastive approaches on the DeepMind Control Suite.",
    "We study the prediction head in non-contrastive self-supervised learning.",
])
def test_a_learning_paradigms_other_names_are_no_bare_word(student, sentence):
    """A re-check found "excluding contrastive learning" violated by "in contrast to" and by
    "outperforms contrastive approaches": the paradigm's other names had reached the word-family
    widening as a one-word term ("contrastive-style" -> "contrast")."""
    from litnav.navigator.intent import parse_intent

    cl = parse_intent("self-supervised learning, excluding contrastive learning")
    x = next(c for c in cl.checkpoints if c.kind == "exclusion")
    assert x.terms == ["contrastive learning"]
    paper = Paper(corpus_id="p", title="Self-supervised representation learning")
    judged = score_paper(paper, cl, {x.id: [ev(sentence, 0.3)]}, student)
    verdict = next(j for j in judged.judgements if j.checkpoint_id == x.id)
    assert "P raised" not in verdict.rationale and disagreement(verdict, cl) is None
