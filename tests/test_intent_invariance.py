"""Invariance tests of ``parse_intent``: paraphrases of one need, in five disciplines, yield the
same concepts and the same constraints, and the whole intent is always the first checkpoint and
the retrieval query. Nothing here pins today's exact wording of a checkpoint."""

from __future__ import annotations

from datetime import date

import pytest
from lemminflect import getLemma

from litnav.core.records import CONTENT_KINDS, Checklist
from litnav.corpus.phrases import build_phrase_table, segments
from litnav.navigator.intent import parse_intent
from litnav.navigator.intent.claims import is_claim
from litnav.navigator.planner import content_query

TODAY = date(2025, 11, 15)


def concept(term: str) -> str:
    """A concept key: lower case, the last word lemmatised ("coral reefs" -> "coral reef")."""
    words = term.lower().replace("-", " ").split()
    words[-1] = getLemma(words[-1], upos="NOUN")[0]
    return " ".join(words)


def concepts(cl: Checklist) -> set[str]:
    return {concept(t) for c in cl.checkpoints if c.kind in CONTENT_KINDS for t in c.terms}


def covered(core: set[str], found: set[str]) -> set[str]:
    """The core concepts that some found concept holds as a whole-word span ("lithium" in
    "lithium treatment")."""
    return {c for c in core if any(f" {c} " in f" {f} " for f in found)}


def constraints(cl: Checklist) -> set[tuple]:
    out: set[tuple] = set()
    for c in cl.checkpoints:
        if c.predicate is not None:
            p = c.predicate
            out.add((p.field, tuple(sorted(p.values)), p.start, p.end, p.negate))
        elif c.kind == "exclusion":
            out.add(("exclusion", tuple(sorted(concept(t) for t in c.terms))))
    return out


# A small corpus per discipline: its phrase table gives concept boundaries as a real corpus would.
ABSTRACTS = [
    "Lithium treatment reduced amyloid plaques in transgenic mice with Alzheimer's disease.",
    "Alzheimer's disease mouse models show memory deficits; lithium treatment restores memory in mice.",
    "Microplastics accumulate in coral reefs and harm coral reefs through bleaching.",
    "The effect of microplastics on coral reefs was measured across coral reefs in the Pacific.",
    "Topological insulators host surface states; topological insulators were grown by molecular beam epitaxy.",
    "Perovskite solar cells reach high efficiency; perovskite solar cells degrade under humidity.",
    "Lithium-ion batteries with silicon anodes; silicon anodes expand in lithium-ion batteries.",
    "Smartphone use and adolescent depression: smartphone use predicts adolescent depression.",
    "Minimum wage increases and employment: minimum wage effects on teen employment.",
    "Sentiment analysis of product reviews; sentiment analysis with neural networks.",
    "Graph neural networks for drug discovery; graph neural networks predict molecular properties.",
    "Machine translation for low-resource languages; machine translation with transformers.",
]
TABLE = build_phrase_table(ABSTRACTS * 3, min_count=2)

# (discipline, paraphrases of one need, constraints every paraphrase must carry)
GROUPS = [
    ("biomedicine", [
        "studies of mice with Alzheimer's disease treated with lithium",
        "lithium treatment in mice with Alzheimer's disease",
        "find papers on lithium for Alzheimer's disease in mice",
        "Alzheimer's disease, mice, lithium",
    ], {"lithium", "alzheimer's disease", "mouse"}),
    ("ecology / environmental science", [
        "what is known about the effect of microplastics on coral reefs",
        "effects of microplastics on coral reefs",
        "I am looking for research on microplastics and coral reefs",
        "how do microplastics affect coral reefs?",
    ], {"microplastic", "coral reef"}),
    ("physics", [
        "topological insulators published in PRL since 2015",
        "papers on topological insulators published in PRL since 2015",
        "since 2015, topological insulator papers published in PRL",
    ], {"topological insulator"}),
    ("materials / chemistry", [
        "silicon anodes for lithium-ion batteries, not reviews",
        "lithium-ion batteries using silicon anodes, excluding surveys",
        "non-review papers about silicon anodes in lithium-ion batteries",
    ], {"silicon anode", "lithium ion battery"}),
    ("social science", [
        "smartphone use and adolescent depression published between 2015 and 2020",
        "papers from 2015 to 2020 on adolescent depression and smartphone use",
        "adolescent depression related to smartphone use, 2015-2020",
    ], {"smartphone use", "adolescent depression"}),
    ("computer science", [
        "Sentiment analysis methods that do not use Twitter data",
        "sentiment analysis without Twitter data",
        "methods for sentiment analysis, excluding Twitter data",
        "sentiment analysis approaches which don't rely on Twitter data",
    ], {"sentiment analysis"}),
]


@pytest.mark.parametrize("table", [None, TABLE], ids=["no-phrase-table", "phrase-table"])
@pytest.mark.parametrize(("discipline", "paraphrases", "core"), GROUPS, ids=[g[0] for g in GROUPS])
def test_paraphrases_share_concepts_and_constraints(discipline, paraphrases, core, table) -> None:
    parsed = [parse_intent(p, None, TODAY, phrases=table) for p in paraphrases]
    for p, cl in zip(paraphrases, parsed):
        assert covered(core, concepts(cl)) == core, (p, concepts(cl))
    first = constraints(parsed[0])
    for p, cl in zip(paraphrases[1:], parsed[1:]):
        assert constraints(cl) == first, (p, constraints(cl), first)


def test_constraints_of_the_groups_are_the_expected_ones() -> None:
    """The shared constraints above are the right ones, not merely equal."""
    def first(i: int) -> set[tuple]:
        return constraints(parse_intent(GROUPS[i][1][0], None, TODAY, phrases=TABLE))
    assert first(0) == set() and first(1) == set()
    assert {c[0] for c in first(2)} == {"year", "venue"}
    assert {c[0] for c in first(3)} == {"publication_type"}
    assert {c[0] for c in first(4)} == {"year"}
    assert first(5) == {("exclusion", ("twitter",))}


@pytest.mark.parametrize("intent", [g[1][0] for g in GROUPS] + [
    "In this paper we study querying databases. However, natural language interfaces remain brittle, "
    "and we propose a neural semantic parser trained on Spider that generalises to unseen schemas.",
])
def test_whole_intent_is_always_the_first_checkpoint_and_the_query(intent: str) -> None:
    cl = parse_intent(intent, None, TODAY, phrases=TABLE)
    c1 = cl.checkpoints[0]
    assert c1.id == "c1" and c1.kind in CONTENT_KINDS and c1.weight == 1.0
    assert content_query(cl) == c1.text
    # the whole-intent text keeps every content word of the intent that no constraint consumed
    facet_weights = [c.weight for c in cl.checkpoints[1:] if c.kind in CONTENT_KINDS]
    assert all(w < 1.0 for w in facet_weights)
    for c in cl.checkpoints:
        for t in c.terms:
            assert not any(w in {"however", "what", "known"} for w in t.lower().split()), t


def test_long_abstract_like_intent_has_no_discourse_words_in_concepts() -> None:
    cl = parse_intent("In this paper we study querying databases. However, natural language interfaces remain "
                      "brittle and we propose a new neural semantic parser.", None, TODAY, phrases=TABLE)
    words = {w for t in concepts(cl) for w in t.split()}
    assert not words & {"however", "we", "propose", "remain", "paper"}
    assert {"natural language interface", "neural semantic parser"} <= concepts(cl)


@pytest.mark.parametrize("claim", [
    "Lithium reduces amyloid plaques in transgenic mice.",              # biomedicine
    "Microplastics impair coral calcification.",                       # ecology
    "Topological insulators host protected surface states.",           # physics
    "Silicon anodes degrade faster than graphite anodes.",             # materials
    "Social media use predicts adolescent depression.",                # social science
    "Graph neural networks outperform fingerprints on molecular property prediction.",  # CS
])
def test_claims_are_detected_in_every_discipline(claim: str) -> None:
    """Claim detection reads finite verbs from a general lexicon, not a table of claim verbs."""
    assert is_claim(claim)
    cl = parse_intent(claim, None, TODAY)
    assert cl.checkpoints[0].text == claim


@pytest.mark.parametrize("intent", [
    "graph neural networks for drug discovery.",
    "Language models and their biases",
    "CLIP-based image retrieval in the medical domain",
    "Deep learning models of protein folding",
    "BERT fine-tuned on SQuAD",
    "Rule-based machine translation systems described before 2000",
    "Corpora annotated with emotions, in text or speech",
    "Using crowdsourcing to create or annotate language resources",
    "Surveys of the language resources and tools available for a particular language",
])
def test_noun_phrase_requests_are_not_claims(intent: str) -> None:
    assert not is_claim(intent)


def test_phrase_table_cuts_at_function_words_and_counts_collocations() -> None:
    assert [t for t, _s, _e in segments("effect of microplastics on coral reefs")[1]] == ["microplastics"]
    assert TABLE.is_phrase(["coral", "reefs"]) and not TABLE.is_phrase(["reefs", "harm"])


@pytest.mark.parametrize("intent", ["topological insulators in PRL since 2015", "graphene in PRL or PRB"])
def test_a_bare_venue_acronym_is_never_a_concept(intent: str) -> None:
    cl = parse_intent(intent, None, TODAY, phrases=TABLE)
    assert not any(w in ("prl", "prb") for t in concepts(cl) for w in t.split())


@pytest.mark.parametrize("intent, whole", [
    ("sentiment analysis of social media posts", "social media post"),
    ("opinion mining on social media posts", "social media post"),
])
def test_a_word_after_a_known_phrase_is_its_head_not_a_concept_of_its_own(intent, whole) -> None:
    table = build_phrase_table(ABSTRACTS * 3 + ["Social media data; social media users; social media."] * 3,
                               min_count=2)
    found = concepts(parse_intent(intent, None, TODAY, phrases=table))
    assert any(f" {whole} " in f" {f} " for f in found), found
    assert "post" not in found, found


@pytest.mark.parametrize(("narrowed", "paraphrase"), [
    ("named entity recognition for languages other than English", "named entity recognition for non-English languages"),
    ("Named entity recognition for languages other than English, excluding social media text",
     "named entity recognition for non-English languages, excluding social media text"),
    ("sentiment analysis of platforms other than Twitter", "sentiment analysis of non-Twitter platforms"),
])
def test_other_than_after_a_noun_narrows_it(narrowed: str, paraphrase: str) -> None:
    """"languages other than English" is the concept "non-English languages", not an exclusion of
    every paper that mentions English, with or without a clause after it."""
    a, b = (parse_intent(t, None, TODAY, phrases=TABLE) for t in (narrowed, paraphrase))
    assert concepts(a) == concepts(b) and constraints(a) == constraints(b)
    assert not any(c.kind == "exclusion" and "english" in " ".join(c.terms).lower() for c in a.checkpoints)


@pytest.mark.parametrize("intent", ["papers on parsing other than surveys", "anything other than BERT for parsing",
                                    "asthma in patients other than children"])
def test_other_than_after_a_document_word_or_a_common_noun_still_excludes(intent: str) -> None:
    cl = parse_intent(intent, None, TODAY, phrases=TABLE)
    assert any(c.kind == "exclusion" or (c.predicate is not None and c.predicate.negate) for c in cl.checkpoints)


@pytest.mark.parametrize("title", [
    "Universal In-Context Approximation By Prompting Fully Recurrent Models",
    "BORE: Bayesian Optimization by Density-Ratio Estimation",
    "LANCE: Stress-testing Visual Models by Generating Language-guided Counterfactual Images",
    "High-Performance Large-Scale Image Recognition Without Normalization",
    "No Subclass Left Behind: Fine-Grained Robustness in Coarse-Grained Classification Problems",
    "Quality Not Quantity: On the Interaction between Dataset Design and Robustness of CLIP",
    "Learning by Playing",
    "Reasoning by Analogy",
])
def test_a_pasted_paper_title_states_a_topic_not_authors_or_exclusions(title: str) -> None:
    # "By Prompting ..." was an exact author filter that left nothing to find; "Without
    # Normalization" an exclusion of the very thing the paper is about
    checklist = parse_intent(title)
    assert [c.kind for c in checklist.checkpoints if c.kind in ("metadata", "exclusion")] == []
    assert checklist.checkpoints[0].id == "c1"


@pytest.mark.parametrize(("intent", "names"), [
    ("Semantic Parsing by Percy Liang", ["Percy Liang"]),
    ("Dependency Parsing Papers by Yoav Goldberg", ["Yoav Goldberg"]),
    ("semantic parsing by Liang", ["Liang"]),
    ("question answering by Brown and Lee", ["Brown", "Lee"]),
    ("Papers by Grace Hopper on Compilers", ["Grace Hopper"]),
    ("Work by Dawn Song on Security", ["Dawn Song"]),
])
def test_authors_are_still_found_in_title_case_and_in_sentences(intent: str, names: list[str]) -> None:
    authors = [c.predicate.values for c in parse_intent(intent).checkpoints
               if c.predicate is not None and c.predicate.field == "author"]
    assert authors == [names]


@pytest.mark.parametrize(("intent", "excluded"), [
    ("Graph Neural Networks for Drug Discovery, not using SMILES", "SMILES"),
    ("Named Entity Recognition without BERT", "BERT"),
    ("LLM Agents for Tool Use but not RLHF", "RLHF"),
    ("Large Language Models for Code Generation, not GPT-4", "GPT-4"),
    ("Knowledge Distillation for Speech Translation, Not Using BERT", "BERT"),
    ("NER With BERT, Excluding Twitter Corpora", "Twitter"),
])
def test_an_intent_in_title_case_keeps_its_stated_exclusions(intent: str, excluded: str) -> None:
    # only a title's own capitalised negation ("... Without Normalization") is part of its topic
    checklist = parse_intent(intent)
    exclusions = [c for c in checklist.checkpoints if c.kind == "exclusion"]
    assert len(exclusions) == 1 and excluded in exclusions[0].text
    assert not any(excluded in c.text for c in checklist.checkpoints if c.kind in CONTENT_KINDS and c.id != "c1")


@pytest.mark.parametrize(("intent", "excluded"), [
    ("machine translation, not using beam search", "beam search"),
    ("question answering without web search", "web search"),
    ("hyperparameter tuning without grid search", "grid search"),
])
def test_a_request_word_ending_a_phrase_is_its_head(intent: str, excluded: str) -> None:
    # "search" opens a request ("search for ...") but ends a concept ("beam search")
    exclusions = [c.text for c in parse_intent(intent).checkpoints if c.kind == "exclusion"]
    assert exclusions == [f"The paper is not about {excluded}"]


@pytest.mark.parametrize("intent", [
    "data augmentation for NMT, at ACL or EMNLP, excluding surveys, empirical only",
    "data augmentation for NMT, at ACL or EMNLP, empirical only, excluding surveys",
    "data augmentation for NMT, at ACL or EMNLP; not surveys; empirical only",
    "empirical studies of data augmentation for NMT at ACL or EMNLP, not surveys",
])
def test_the_order_of_stated_constraints_does_not_change_them(intent: str) -> None:
    """A negation ends at the comma before a constraint with its own cue: "excluding surveys,
    empirical only" excludes surveys and asks for empirical papers (it once excluded both)."""
    assert constraints(parse_intent(intent, None, TODAY)) == {
        ("venue", ("ACL", "EMNLP"), None, None, False),
        ("publication_type", ("survey",), None, None, True),
        ("publication_type", ("empirical",), None, None, False)}


@pytest.mark.parametrize(("intent", "concept"), [
    ("dependency parsing of morphologically rich languages", "morphologically rich languages"),
    ("computationally efficient transformers for long documents", "computationally efficient transformers"),
    ("differentially private training of language models", "differentially private training"),
])
def test_a_fields_adverb_stays_with_the_adjective_it_qualifies(intent: str, concept: str) -> None:
    """"rich languages" is not what "morphologically rich languages" names (a degree adverb,
    "highly efficient", still drops: tested by the phrase boundaries above)."""
    terms = {t for c in parse_intent(intent, None, TODAY).checkpoints for t in c.terms}
    assert concept in terms, terms


@pytest.mark.parametrize("intent", ["neural machine translation, surveys, tutorials excluded",
                                    "neural machine translation, excluding surveys and tutorials",
                                    "neural machine translation, not surveys or tutorials"])
def test_a_negation_after_or_before_a_list_covers_all_of_it(intent: str) -> None:
    assert constraints(parse_intent(intent, None, TODAY)) == {
        ("publication_type", ("survey", "tutorial"), None, None, True)}


@pytest.mark.parametrize(("intent", "concept"), [
    ("machine translation for typically low resource languages", "low resource languages"),
    ("summarizing especially long documents", "long documents"),
    ("radically new architectures for parsing", "architectures"),
])
def test_a_degree_adverb_is_no_part_of_a_concept(intent: str, concept: str) -> None:
    terms = {t for c in parse_intent(intent, None, TODAY).checkpoints for t in c.terms}
    assert concept in terms and not any(t.split()[0].endswith("ally") for t in terms), terms


@pytest.mark.parametrize(("intent", "kept", "dropped"), [
    ("how to make transformers more memory efficient for long sequences?", "transformers", "make transformers"),
    ("reducing the quadratic memory cost of self-attention on long inputs", "quadratic memory cost", "reducing"),
    ("Reducing the quadratic memory cost of self-attention on long inputs", "quadratic memory cost", "Reducing"),
    ("reduce hallucination in abstractive summarization", "hallucination", "reduce hallucination"),
    ("transfer learning for low-resource NER", "transfer learning", "learning"),
    ("Skew Orthogonal Convolutions", "Skew Orthogonal Convolutions", "Orthogonal Convolutions"),
])
def test_the_verb_of_a_goal_is_no_part_of_its_concepts(intent: str, kept: str, dropped: str) -> None:
    """A question's or a goal's verb ("how to make", "reducing the ...") names no topic; a noun
    that can be a verb ("transfer learning") and a pasted title keep their first word."""
    terms = {t for c in parse_intent(intent, None, TODAY).checkpoints for t in c.terms}
    assert kept in terms and dropped not in terms, terms


@pytest.mark.parametrize("intent", [
    "mechanisms of insulin resistance in adipose tissue, excluding studies in mice",
    "mechanisms of insulin resistance in adipose tissue, not animal models",
    "mechanisms of insulin resistance in adipose tissue, excluding animal studies",
    "mechanisms of insulin resistance in adipose tissue, excluding rodent studies",
])
def test_every_way_of_excluding_animal_work_excludes_mouse_papers(intent: str) -> None:
    """"not animal models" and "excluding rodent studies" say what "excluding studies in mice"
    says: a paper about mice violates each (an exclusion is judged by its terms)."""
    [exclusion] = [c for c in parse_intent(intent).checkpoints if c.kind == "exclusion"]
    assert {"mice", "mouse"} <= set(exclusion.terms) and exclusion.any_of


def test_an_intent_pasted_with_invisible_characters_reads_as_it_looks() -> None:
    from litnav.core.text import visible_text

    plain = parse_intent("neural machine translation for low-resource languages, not surveys")
    pasted = parse_intent(visible_text("neu\u200bral ma\u00adchine trans\ufefflation for low-resource "
                                       "languages, not surveys"))
    assert [(c.kind, c.text) for c in pasted.checkpoints] == [(c.kind, c.text) for c in plain.checkpoints]


@pytest.mark.parametrize("intent", [
    "the role of the gut microbiota in obesity in humans",
    "role of gut microbiota in obesity in human subjects",
    "gut microbiota and obesity among human participants",
    "What is known about the gut microbiota in obesity in people?",
])
def test_work_asked_for_in_humans_prefers_no_animal_studies(intent: str) -> None:
    """A researcher asking for "the gut microbiota in obesity in humans" saw knockout-mouse and rat
    papers judged to satisfy it, under a facet "The paper studies humans" that no human study
    states in those words. However it is said, "in humans" is a preference against animal work
    (the exclusion of "not animal studies", weight below 1) and no concept of its own."""
    cl = parse_intent(intent, None, TODAY)
    [x] = [c for c in cl.checkpoints if c.kind == "exclusion"]
    assert {"mice", "rats"} <= set(x.terms) and x.weight < 1
    assert {"gut microbiota", "obesity"} <= concepts(cl)
    assert not any(concept(t) in {"human", "people", "human subject", "human participant"} for t in
                   (t for c in cl.checkpoints if c.kind != "exclusion" for t in c.terms))


@pytest.mark.parametrize("intent", [
    "how people use search engines",  # people are the subject, not a population
    "human evaluation of machine translation",
    "human pose estimation in videos",
    "obesity in mice and humans, excluding rats",  # the intent's own exclusion names animals
])
def test_human_words_that_are_no_population_add_no_preference(intent: str) -> None:
    cl = parse_intent(intent, None, TODAY)
    assert not any(c.kind == "exclusion" and c.weight < 1 for c in cl.checkpoints)


@pytest.mark.parametrize("intent, kept", [
    ("neural architecture search for image classification", "neural architecture search"),
    ("beam search for neural machine translation", "beam search"),
    ("query logs of search engines since 2015", "search engines"),
    ("how people use search engines", "search engines"),
    ("Monte-Carlo Tree Search by Best Arm Identification", "Monte-Carlo Tree Search"),
    ("linked list data structures", "linked list data structures"),
])
def test_a_request_verb_inside_a_phrase_is_part_of_it(intent: str, kept: str) -> None:
    """"neural architecture search" was read as "neural architecture" (the request verb "search"
    was blanked wherever it stood); a request verb asks only at the start of the intent or of a
    clause ("search for papers on beam search", "please find ...")."""
    cl = parse_intent(intent, None, TODAY)
    assert kept in {t for c in cl.checkpoints for t in c.terms} | {cl.checkpoints[0].text}, cl.checkpoints


@pytest.mark.parametrize("intent", ["search for papers on beam search", "Please find papers on beam search",
                                    "papers on dialogue. Find work on beam search too",
                                    "can you search for beam search"])
def test_a_request_verb_at_the_start_of_a_clause_still_asks(intent: str) -> None:
    cl = parse_intent(intent, None, TODAY)
    assert "beam search" in concepts(cl) and not any(
        t.lower().startswith(("search for", "find", "please")) for c in cl.checkpoints for t in c.terms)


@pytest.mark.parametrize("intent", ["what builds on knowledge distillation", "later work on knowledge distillation",
                                    "siblings of knowledge distillation", "what does knowledge distillation build on?",
                                    "foundational work behind knowledge distillation",
                                    "related work to knowledge distillation"])
def test_a_neighbour_request_about_a_topic_reads_the_topic_alone(intent: str) -> None:
    """A topic asked for as a paper's neighbours ("what builds on X") kept the request's words as
    checkpoints: "The paper studies builds", "The paper studies siblings", "later work"."""
    cl = parse_intent(intent, None, TODAY)
    assert [c.text for c in cl.checkpoints] == ["knowledge distillation"]
    assert cl.intent == intent  # the baseline searches still read it as typed


def test_search_before_a_noun_is_part_of_the_topic_at_the_start_too() -> None:
    cl = parse_intent("search engines for scientific literature", None, TODAY)
    assert "search engines" in {t for c in cl.checkpoints for t in c.terms}


def test_in_humans_holds_where_the_corpus_finds_humans_generic() -> None:
    """On SciFact's corpus, where "humans" is in more than 3 % of the papers, the word was dropped
    as generic before "in humans" was read, and a rat and a knockout-mouse paper led the results."""
    from litnav.corpus.phrases import PhraseTable

    table = PhraseTable(n_docs=1000, df={"humans": 400, "gut": 20, "microbiota": 15, "obesity": 30},
                        phrases={"gut microbiota": 0.9})
    cl = parse_intent("gut microbiota and obesity in humans", None, TODAY, phrases=table)
    [x] = [c for c in cl.checkpoints if c.kind == "exclusion"]
    assert {"mice", "rats"} <= set(x.terms) and x.weight < 1


VENUES = {"Physical Review Letters": 8, "Physical Review B": 28, "Nature": 3, "Science": 3, "American Economic Review": 3,
          "Quarterly Journal of Economics": 6, "The Lancet": 3, "New England Journal of Medicine": 3}

# (discipline, paraphrases, the constraints each must carry); phrasings a researcher types
STATED = [
    ("physics: an acronym, a full name, a parenthesis", [
        "ARPES of topological insulators in PRL",
        "ARPES of topological insulators published in Physical Review Letters",
        "ARPES of topological insulators (PRL)",
        "papers in Physical Review Letters on ARPES of topological insulators",
    ], {("venue", ("Physical Review Letters",), None, None, False)}),
    ("physics: a list of journals", [
        "twisted bilayer graphene superconductivity in Nature, Science or PRL",
        "twisted bilayer graphene superconductivity (Nature, Science, PRL)",
        "twisted bilayer graphene superconductivity published in PRL, Nature or Science",
    ], {("venue", ("Nature", "Physical Review Letters", "Science"), None, None, False)}),
    ("economics: names and acronyms mixed", [
        "nudges for retirement savings in the American Economic Review or QJE",
        "nudges for retirement savings published in AER or the Quarterly Journal of Economics",
        "nudges for retirement savings (AER, QJE)",
        "nudges for retirement savings in AER or QJE",
    ], {("venue", ("American Economic Review", "Quarterly Journal of Economics"), None, None, False)}),
    ("ecology: an exclusion after a question", [
        "do freshwater fish ingest microplastics? marine species excluded",
        "do freshwater fish ingest microplastics? no marine species",
        "do freshwater fish ingest microplastics? not marine species",
        "microplastic ingestion by freshwater fish, excluding marine species",
    ], {("exclusion", ("marine species",))}),
    ("earth science: other ways to leave out", [
        "coral bleaching, modelling studies not included",
        "coral bleaching apart from modelling studies",
        "coral bleaching, leave out modelling studies",
        "coral bleaching, but I'm not interested in modelling studies",
    ], {("exclusion", ("modelling",))}),
    ("computer science: a type left out before the topic", [
        "surveys excluded: adversarial robustness of image classifiers",
        "reviews excluded: adversarial robustness of image classifiers",
        "adversarial robustness of image classifiers, not surveys",
    ], {("publication_type", ("survey",), None, None, True)}),
    ("physics: theory papers left out", [
        "laser cooling of molecules, no theory papers",
        "laser cooling of molecules, excluding theoretical work",
        "laser cooling of molecules; I don't want theory papers",
    ], {("publication_type", ("theoretical",), None, None, True)}),
    ("physics: authors in every form", [
        "gravitational waves from neutron star mergers (Abbott et al.)",
        "Abbott et al. on gravitational waves from neutron star mergers",
        "gravitational waves from neutron star mergers by Abbott et al.",
        "gravitational waves from neutron star mergers, first author Abbott",
    ], {("author", ("Abbott",), None, None, False)}),
]


@pytest.mark.parametrize(("discipline", "paraphrases", "expected"), STATED, ids=[g[0] for g in STATED])
def test_a_constraint_is_read_the_same_in_every_phrasing(discipline, paraphrases, expected) -> None:
    for p in paraphrases:
        cl = parse_intent(p, VENUES, TODAY, phrases=TABLE)
        assert constraints(cl) == expected, (p, constraints(cl))
        topic = cl.checkpoints[0].text.lower()
        assert not any(w in topic for w in ("excluded", "review", "journal", "et al", "author", "(")), (p, topic)


@pytest.mark.parametrize(("question", "statement"), [
    ("does metformin lower cancer risk in type 2 diabetes?", "metformin and cancer risk in type 2 diabetes"),
    ("does aspirin lower blood pressure?", "effect of aspirin on blood pressure"),
    ("do statins change fracture risk?", "statins and fracture risk"),
])
def test_a_yes_no_question_has_the_concepts_of_its_statement(question, statement) -> None:
    asked = concepts(parse_intent(question, None, TODAY, phrases=TABLE))
    stated = concepts(parse_intent(statement, None, TODAY, phrases=TABLE))
    assert stated <= asked and not any(" lower " in f" {c} " or " change " in f" {c} " for c in asked), asked


@pytest.mark.parametrize("intent", [
    "named entity recognition papers at EMNLP 2020",
    "named entity recognition papers (EMNLP 2020)",
    "named entity recognition papers (EMNLP, 2020)",
    "named entity recognition, EMNLP 2020",
])
def test_a_venue_and_year_in_parentheses_are_read_as_written_out(intent: str) -> None:
    """A parenthesis that holds a venue and a year dates publications, as the same words after
    "at" do; it once lost the year into the topic ("named entity recognition, 2020)")."""
    cl = parse_intent(intent, None, TODAY)
    assert constraints(cl) == {("venue", ("EMNLP",), None, None, False),
                               ("year", (), date(2020, 1, 1), date(2020, 12, 31), False)}
    assert "2020" not in cl.checkpoints[0].text


@pytest.mark.parametrize("intent", ["attention models (Vaswani et al., 2017) for parsing",
                                    "contextual embeddings such as ELMo (2018) for parsing"])
def test_a_cited_works_year_in_parentheses_is_no_date(intent: str) -> None:
    assert not [c for c in parse_intent(intent, None, TODAY).checkpoints if c.predicate is not None]


@pytest.mark.parametrize(("intent", "concept"), [
    ("minimum wage effects on employment, difference in differences designs", "difference in differences designs"),
    ("end to end speech recognition for low resource languages", "end to end speech recognition"),
    ("sequence to sequence models for summarization", "sequence to sequence models"),
    ("CO2 capture with metal organic frameworks", "CO2 capture"),
    ("CH4 release from thawing permafrost", "CH4 release"),
])
def test_a_fixed_compound_or_a_substance_noun_phrase_is_one_concept(intent: str, concept: str) -> None:
    """"difference in differences" is one design, not "difference" and "differences"; "capture"
    after a formula is a noun (a formula is a substance, no plural subject), as after "carbon"."""
    terms = {t for c in parse_intent(intent, None, TODAY).checkpoints for t in c.terms}
    assert concept in terms, terms


def test_a_gene_name_before_a_plural_verb_is_still_its_subject() -> None:
    terms = {t for c in parse_intent("RIM1 decrease synaptic release", None, TODAY).checkpoints for t in c.terms}
    assert "RIM1 decrease synaptic release" not in terms and "synaptic release" in terms


@pytest.mark.parametrize("intent", ["datasets for text summarization", "new datasets for text summarization",
                                    "corpora for text summarization", "find benchmarks for text summarization",
                                    "dataset papers on text summarization"])
def test_datasets_asked_for_are_a_kind_of_paper_not_a_word_of_the_topic(intent: str) -> None:
    """"datasets for text summarization" had shown 'satisfied' beside quotes of summarization methods:
    "datasets" was in the checkpoint's text but in none of its terms."""
    cl = parse_intent(intent, None, TODAY)
    assert constraints(cl) == {("publication_type", ("dataset",), None, None, False)}
    assert [c.weight for c in cl.checkpoints if c.predicate is not None] == [0.5]
    assert concepts(cl) == {"text summarization"}


@pytest.mark.parametrize("intent", ["NER evaluated on standard benchmarks", "parsing with no datasets of the target language"])
def test_datasets_a_method_uses_are_no_kind_of_paper(intent: str) -> None:
    assert not [c for c in parse_intent(intent, None, TODAY).checkpoints if c.predicate is not None]


@pytest.mark.parametrize(("intent", "weight"), [("statistical machine translation, ideally by Hermann Ney", 0.5),
                                                ("statistical machine translation, preferably papers by Hermann Ney", 0.5),
                                                ("statistical machine translation by Hermann Ney", 1.0)])
def test_an_author_said_as_a_preference_ranks_and_filters_nothing(intent: str, weight: float) -> None:
    cl = parse_intent(intent, None, TODAY)
    [author] = [c for c in cl.checkpoints if c.predicate is not None and c.predicate.field == "author"]
    assert author.weight == weight and author.predicate.values == ["Hermann Ney"]
    assert cl.checkpoints[0].text == "statistical machine translation"  # the cue is no word of the topic
