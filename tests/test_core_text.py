"""core.text and core.ids: the one title key, sentence splitter, stop-word list, surname rule and
external-id form that every layer shares (they used to have copies that disagreed)."""

from datetime import date

import pytest

from litnav.core.ids import find_external_id, normalise_external_id
from litnav.core.records import MetadataPredicate
from litnav.core.text import (
    normalise_title,
    sentence_at,
    sentence_spans,
    spelling_variants,
    split_sentences,
    stem_set,
    stop_words,
    surname,
)
from litnav.corpus.predicates import evaluate, is_review, looks_like_review
from litnav.corpus.records import Author, Paper


def test_normalise_title():
    assert normalise_title("Attention Is All You Need!") == "attention is all you need"
    assert normalise_title("  Déjà-vu:   BERT’s (re)visit ") == "deja vu bert s re visit"
    assert normalise_title(None) == "" and normalise_title("") == ""
    assert normalise_title("中文 标题") == "中文 标题"


def test_normalise_external_id():
    assert normalise_external_id("doi", "https://doi.org/10.18653/V1/P19-1001") == "10.18653/v1/p19-1001"
    assert normalise_external_id("doi", "http://dx.doi.org/10.1/X") == "10.1/x"
    assert normalise_external_id("doi", "doi:10.1/X") == "10.1/x"
    assert normalise_external_id("arxiv", "arXiv:1706.03762v5") == "1706.03762"
    assert normalise_external_id("arxiv", "https://arxiv.org/abs/hep-th/9901001v2") == "hep-th/9901001"
    assert normalise_external_id("acl", " P19-1001 ") == "P19-1001"


def test_arxiv_versions_are_one_paper_everywhere():
    """Ingest used to keep the version (``2101.00001v2``) while lookups dropped it."""
    forms = ["2101.00001", "2101.00001v2", "arXiv:2101.00001v3", "https://arxiv.org/pdf/2101.00001v1.pdf"]
    assert {normalise_external_id("arxiv", f) for f in forms} == {"2101.00001"}
    assert {find_external_id("arxiv", f) for f in forms} == {"2101.00001"}


def test_pmc_ids_carry_the_pmc_prefix_everywhere():
    """Ingest stored ``PMC123`` while the web matcher looked up ``123``: one form now."""
    for raw in ("123", "PMC123", "pmc123", " PMC123 "):
        assert normalise_external_id("pmc", raw) == "PMC123"
    assert find_external_id("pmc", "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC123/") == "PMC123"


def test_find_external_id_is_lenient_but_says_none_for_non_ids():
    assert find_external_id("doi", "see https://doi.org/10.18653/V1/N19-1423.") == "10.18653/v1/n19-1423"
    assert find_external_id("pubmed", "PMID: 31452104") == "31452104"
    assert find_external_id("acl", "https://aclanthology.org/2020.acl-main.207.pdf") == "2020.acl-main.207"
    assert find_external_id("arxiv", "not an id") is None
    assert find_external_id("doi", "") is None


def test_sentences_keep_abbreviations_and_decimals():
    text = ("Smith et al. (2019) used e.g. BERT. Accuracy rose to 93.5% in Fig. 2 and Eq. 3. "
            "J. Doe disagrees! Why? \"Quoted\" works.\n\nNew paragraph")
    assert split_sentences(text) == [
        "Smith et al. (2019) used e.g. BERT.", "Accuracy rose to 93.5% in Fig. 2 and Eq. 3.",
        "J. Doe disagrees!", "Why?", "\"Quoted\" works.", "New paragraph"]


def test_et_al_before_a_capitalised_name_does_not_split():
    """The scorer's old splitter broke "et al. Smith" and "Fig. 3" into two sentences."""
    text = "As shown by Doe et al. Smith later agreed. See Fig. 3 for details."
    assert split_sentences(text) == ["As shown by Doe et al. Smith later agreed.", "See Fig. 3 for details."]


def test_a_footnote_marker_after_a_sentence_begins_the_next_one():
    """A full-text trial's quotes ended in "... SMT system. *\nThis work has been done while ..."."""
    text = "We built an SMT system. *\nThis work was done at Google. It works."
    assert split_sentences(text) == ["We built an SMT system.", "*\nThis work was done at Google.", "It works."]
    assert split_sentences("like negation (cats vs. *Sue has any cats). Next.") == [
        "like negation (cats vs. *Sue has any cats).", "Next."]  # an abbreviation still holds


def test_sentence_spans_are_exact_offsets():
    text = "  First one.  Second one.   "
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["First one.", "Second one."]
    assert sentence_spans("   ") == []
    assert sentence_at(text, text.index("Second")) == "Second one."
    assert sentence_at(text, 0) is None


def test_stop_words_are_function_words():
    sw = stop_words()
    assert {"the", "of", "and", "is"} <= sw
    assert not {"survey", "parsing", "neural"} & sw


def test_surname_skips_suffixes_and_accents():
    assert surname("Ashish Vaswani") == surname("Vaswani, Ashish") == "vaswani"
    assert surname("Martin Luther King Jr.") == "king"
    assert surname("Daumé III") == "daume" and surname("Smith Jr.") == "smith" and surname("Smith,") == "smith"
    assert surname("Anand Kumar V") == "v"  # a bare V is an initial
    assert surname("José Muñoz") == "munoz"


def test_a_family_name_keeps_its_particles_and_surnames_match_wherever_the_particle_stands():
    from litnav.core.text import split_name

    assert split_name("Maarten De Rijke")[:2] == ("De Rijke", "Maarten")
    assert split_name("Sam Van Der Meer")[:2] == ("Van Der Meer", "Sam")
    assert split_name("Ludwig van Beethoven")[:2] == ("van Beethoven", "Ludwig")
    # a capitalised "Van", "Le" or "Da" before a Vietnamese or Chinese family name is a given name
    assert split_name("Quang Van Nguyen")[:2] == ("Nguyen", "Quang Van")
    assert split_name("Thi Van Anh Tran")[:2] == ("Tran", "Thi Van Anh")
    assert split_name("Le Sun")[:2] == ("Sun", "Le") and split_name("Quoc V. Le")[:2] == ("Le", "Quoc V.")
    assert surname("Maarten De Rijke") == surname("de Rijke, Maarten") == surname("Rijke, M. de") == "rijke"


def _paper(title: str, types: list[str] | None = None, authors: list[str] | None = None) -> Paper:
    return Paper(corpus_id="p1", title=title, publication_types=types or [], year=2020,
                 publication_date=date(2020, 1, 1), authors=[Author(name=a) for a in authors or []])


def test_review_detection_is_one_rule_for_ingest_and_queries():
    """The query side used to call any title with the word survey/review a survey."""
    for title in ("Using survey data to estimate migration flows", "Peer review bias in NLP conferences"):
        assert not looks_like_review(title)
        assert is_review(_paper(title))[0] is False
        held, _ = evaluate(MetadataPredicate(field="publication_type", values=["survey"]), _paper(title))
        assert held is False
    for title in ("A Survey of Neural Summarization", "Deep learning for NER: a review",
                  "Systematic review of clinical NLP"):
        assert looks_like_review(title) and is_review(_paper(title))[0]
    assert is_review(_paper("Parsing", types=["Review"]))[0]


def test_author_predicate_uses_the_shared_surname_rule():
    p = _paper("Parsing", authors=["Martin Luther King Jr."])
    held, _ = evaluate(MetadataPredicate(field="author", values=["King"]), p)
    assert held is True


def test_terms_keep_words_of_any_script_whole():
    from litnav.core.text import stems, tokens
    from litnav.corpus.lexical import passage_scores

    assert tokens("Die Straße, naïve BERT-based models") == ["die", "straße", "naïve", "bert-based", "models"]
    assert "straße" in stems("Straße")
    scores = passage_scores(["深度学习 模型", "unrelated text"], ["深度学习"])
    assert scores[0, 0] > 0 and scores[1, 0] == 0  # a CJK query still pre-selects its chunk


@pytest.mark.parametrize("title", [
    "SemEval-2017 Task 4: Sentiment Analysis in Twitter",
    "The CoNLL-2012 Shared Task: Modeling Multilingual Unrestricted Coreference in OntoNotes",
    "Findings of the LoResMT 2020 Shared Task on Zero-Shot for Low-Resource languages",
    "Findings of the 2019 Conference on Machine Translation (WMT19)",
])
def test_shared_task_overviews_are_overviews(title):
    assert looks_like_review(title)
    assert evaluate(MetadataPredicate(field="publication_type", values=["overview"]), _paper(title))[0] is True


@pytest.mark.parametrize("title", [
    "TeamX at SemEval-2017 Task 4: Deep LSTM with Attention for Message-level Sentiment",
    "BSNLP2019 Shared Task Submission: Multisource Neural NER Transfer",
    "Findings of the Association for Computational Linguistics",
])
def test_a_participants_system_paper_is_not_an_overview(title):
    assert not looks_like_review(title)


@pytest.mark.parametrize("title", [
    "More Data, More Relations, More Context and More Openness: A Review and Outlook for Relation Extraction",
    "Automatic summarization of medical conversations, a review",
    "Recognizing Complex Entity Mentions: A Review and Future Directions",
    "Data-Driven Sentence Simplification: Survey and Benchmark",
    "Predictive Biases in Natural Language Processing Models: A Conceptual Framework and Overview",
    "Machine Translation from Japanese to French - Review and Prospects",
    "The Eval4NLP Shared Task on Explainable Quality Estimation: Overview and Results",
    "WNUT-2020 Task 1 Overview: Extracting Entities and Relations from Wet Lab Protocols",
    "MultiLing 2017 Overview",
    "Impaired awareness of hypoglycaemia: a review.",
    "Clinical use of bone densitometry: scientific review.",
    "Historical review: the discovery of insulin",
    "Mental health in prison populations. A review--with special emphasis on a study of Danish prisoners",
])
def test_reviews_named_after_their_subject_or_with_a_companion_word_are_reviews(title):
    """A review's title need not start with "A Survey of": "..., a review", ": A Review and Outlook
    for ...", a task's "Overview and Results" (all titles of the ACL Anthology that "not surveys"
    let through)."""
    assert looks_like_review(title) and is_review(_paper(title))[0]


@pytest.mark.parametrize("title", [
    "APE: Argument Pair Extraction from Peer Review and Rebuttal via Multi-task Learning",
    "Preview, Attend and Review: Schema-Aware Curriculum Learning for Multi-Domain Dialogue State Tracking",
    "Learn and Review: Enhancing Continual Named Entity Recognition via Reviewing Synthetic Samples",
    "Semi-supervised Category-specific Review Tagging on Indonesian E-Commerce Product Reviews",
    "Czech National Corpus in 2020: Recent Developments and Future Outlook",
    "Towards Automated Peer-Review and Evaluation of Scientific Papers",
    "Multi-Task Learning with Task Overview Embeddings",
    "A Task-Based Overview Summarizer",
    "Effect on the quality of peer review of blinding reviewers and asking them to sign their reports: "
    "a randomized controlled trial",
])
def test_review_as_the_subject_matter_is_no_review(title):
    assert not looks_like_review(title)


def test_a_cue_only_type_is_unknown_without_its_cue_and_without_listed_types():
    """A preference for theoretical papers must not demote the best theoretical match because
    its title lacks the word; an exclusion still keeps it; listed types still decide."""
    theory = MetadataPredicate(field="publication_type", values=["theoretical"])
    plain = _paper("The Implicit Bias of Adam on Separable Data")
    assert evaluate(theory, plain)[0] is None
    assert evaluate(theory, _paper("A Theoretical Perspective via the XOR Problem"))[0] is True
    assert evaluate(theory.model_copy(update={"negate": True}), plain)[0] is True
    assert evaluate(theory, _paper("Adam on data", types=["JournalArticle"]))[0] is False
    assert evaluate(MetadataPredicate(field="publication_type", values=["survey"]), plain)[0] is False


def test_terminal_safe_keeps_colours_and_drops_every_other_command():
    from litnav.core.text import terminal_safe

    assert terminal_safe("\x1b[31mred\x1b[0m\tok\n") == "\x1b[31mred\x1b[0m\tok\n"
    assert terminal_safe("a\x1b]52;c;ZXZpbA==\x07b\x1b[2Jc\x00d\x1b]0;title\x1b\\e") == "abcde"


def test_invisible_characters_inside_words_are_removed_so_the_word_reads_as_it_looks():
    from litnav.core.text import visible_text

    assert visible_text("neural machine trans\u200blation") == "neural machine translation"
    assert visible_text("neu\u200bral ma\u00adchine trans\ufefflation") == "neural machine translation"
    assert visible_text("a\u200db\u2060c") == "abc"


@pytest.mark.parametrize(("word", "variants"), [
    ("tumor", ("tumor", "tumour")), ("tumour", ("tumour", "tumor")), ("randomised", ("randomised", "randomized")),
    ("optimization", ("optimization", "optimisation")), ("behaviour", ("behaviour", "behavior")),
    ("model", ("model",)), ("expertise", ("expertise",)), ("supervised", ("supervised",)), ("size", ("size",)),
])
def test_spelling_variants_pair_british_and_american_forms(word, variants):
    assert spelling_variants(word) == variants


@pytest.mark.parametrize(("plural", "singular"), [("LSTMs", "LSTM"), ("CNNs", "CNN"), ("LLMs", "LLM"), ("HMMs", "HMM"),
                                                  ("CRFs", "CRF"), ("GANs", "GAN"), ("transformers", "transformer")])
def test_an_acronyms_plural_has_the_stem_of_its_singular(plural: str, singular: str) -> None:
    """A user trial's "uses LSTMs" was judged not satisfied beside "a forward LSTM network"."""
    assert stem_set(plural) == stem_set(singular)
