"""Table-driven tests of ``navigator.intent.parse_intent``: exact constraints (dates, venues,
publication types, authors, exclusions) and the content words every phrasing must keep."""

from __future__ import annotations

import re
from datetime import date

import pytest

from litnav.core.records import CONTENT_KINDS, Checklist
from litnav.navigator.intent import parse_intent

TODAY = date(2025, 11, 15)


def summary(checklist: Checklist) -> dict:
    """field -> [(values or [start, end], negate)] for metadata; "exclusion" -> [terms]."""
    out: dict = {}
    for cp in checklist.checkpoints:
        if cp.predicate is not None:
            p = cp.predicate
            if p.field == "year":
                v = [p.start.isoformat() if p.start else None, p.end.isoformat() if p.end else None]
            else:
                v = p.values
            out.setdefault(p.field, []).append((v, p.negate))
        elif cp.kind == "exclusion":
            out.setdefault(cp.kind, []).append(cp.terms)
    return out


def content_words(checklist: Checklist) -> set[str]:
    """Lower-cased words of every content checkpoint's terms."""
    return {w for c in checklist.checkpoints if c.kind in CONTENT_KINDS for t in c.terms
            for w in re.findall(r"[\w'.+-]+", t.lower())}


def check(intent: str, expected: dict) -> None:
    """Constraints (metadata predicates, exclusions) exactly as expected; the content words of
    the expected facets all among the concepts (their boundaries and kinds are not pinned:
    ``test_intent_invariance`` checks those across paraphrases); ``c1`` is the whole intent."""
    cl = parse_intent(intent, None, TODAY)
    assert summary(cl) == {k: v for k, v in expected.items() if k not in CONTENT_KINDS}
    want = {w for k in CONTENT_KINDS for terms in expected.get(k, []) for t in terms
            for w in re.findall(r"[\w'.+-]+", t.lower())} - _FUNCTION_WORDS
    assert want <= content_words(cl), want - content_words(cl)
    if want:
        c1 = cl.checkpoints[0]
        assert c1.id == "c1" and c1.kind == "topic" and c1.weight == 1.0


_FUNCTION_WORDS = {"in", "on", "of", "with", "who", "that", "do", "not", "no", "the", "a", "for"}


CASES = [
    ('empirical studies of federated learning across hospitals for medical imaging, in Nature Medicine or IEEE TMI, 2023 to Oct 2025, not surveys',
     {'topic': [['federated learning']], 'application': [['hospitals'], ['medical imaging']], 'publication_type': [(['empirical'], False), (['survey'], True)], 'venue': [(['Nature Medicine', 'IEEE Transactions on Medical Imaging'], False)], 'year': [(['2023-01-01', '2025-10-31'], False)]}),
    ('dense passage retrieval',
     {'topic': [['dense passage retrieval']]}),
    ('between 2023 and October 2025, papers on code generation',
     {'topic': [['code generation']], 'year': [(['2023-01-01', '2025-10-31'], False)]}),
    ('retrieval-augmented generation 2019-2021',
     {'topic': [['retrieval-augmented generation']], 'year': [(['2019-01-01', '2021-12-31'], False)]}),
    ('speech recognition since 2020',
     {'topic': [['speech recognition']], 'year': [(['2020-01-01', None], False)]}),
    ('image segmentation after 2018',
     {'topic': [['image segmentation']], 'year': [(['2019-01-01', None], False)]}),
    ('topic modeling before 2015',
     {'topic': [['topic modeling']], 'year': [([None, '2014-12-31'], False)]}),
    ('from 2020 onwards: prompt tuning',
     {'topic': [['prompt tuning']], 'year': [(['2020-01-01', None], False)]}),
    ('dependency parsing in 2021',
     {'topic': [['dependency parsing']], 'year': [(['2021-01-01', '2021-12-31'], False)]}),
    ('in the last five years, privacy attacks on language models',
     {'topic': [['privacy attacks on language models']], 'year': [(['2021-01-01', '2025-11-15'], False)]}),
    ('past 3 years graph transformers',
     {'topic': [['graph transformers']], 'year': [(['2023-01-01', '2025-11-15'], False)]}),
    ('recent work on question answering',
     {'topic': [['question answering']], 'year': [(['2022-11-15', '2025-11-15'], False)]}),
    ('published 2010s, word embeddings',
     {'topic': [['word embeddings']], 'year': [(['2010-01-01', '2019-12-31'], False)]}),
    ('pre-2000 statistical machine translation',
     {'topic': [['statistical machine translation']], 'year': [([None, '1999-12-31'], False)]}),
    ('post-2010 papers on crowdsourcing',
     {'topic': [['crowdsourcing']], 'year': [(['2011-01-01', None], False)]}),
    ('knowledge distillation between March 2020 and June 2021',
     {'topic': [['knowledge distillation']], 'year': [(['2020-03-01', '2021-06-30'], False)]}),
    ('the early 1990s connectionist models',
     {'topic': [['connectionist models']], 'year': [(['1990-01-01', '1993-12-31'], False)]}),
    ('abstractive summarization in ACL or EMNLP',
     {'topic': [['abstractive summarization']], 'venue': [(['ACL', 'EMNLP'], False)]}),
    ('coreference resolution at TACL',
     {'topic': [['coreference resolution']], 'venue': [(['TACL'], False)]}),
    ('published in Nature Medicine, deep learning for sepsis prediction',
     {'topic': [['deep learning']], 'application': [['sepsis prediction']], 'venue': [(['Nature Medicine'], False)]}),
    ('sentiment analysis of product reviews with BERT, excluding workshops',
     {'topic': [['sentiment analysis of product reviews']], 'method': [['BERT']], 'venue': [(['Workshops'], True)]}),
    ('named entity recognition not at COLING',
     {'topic': [['named entity recognition']], 'venue': [(['COLING'], True)]}),
    ('neurips, icml or iclr papers on optimization',
     {'topic': [['optimization']], 'venue': [(['NeurIPS', 'ICML', 'ICLR'], False)]}),
    ('no reviews on protein folding',
     {'topic': [['protein folding']], 'publication_type': [(['survey'], True)]}),
    ('only surveys of knowledge graph embedding',
     {'topic': [['knowledge graph embedding']], 'publication_type': [(['survey'], False)]}),
    ('meta-analyses of antidepressant trials',
     {'topic': [['antidepressant trials']], 'publication_type': [(['meta-analysis'], False)]}),
    ('position papers on AI ethics',
     {'topic': [['AI ethics']], 'publication_type': [(['position'], False)]}),
    ('dataset papers for low-resource languages',
     {'application': [['low-resource languages']], 'publication_type': [(['dataset'], False)]}),
    ('benchmark papers on code generation',
     {'topic': [['code generation']], 'publication_type': [(['benchmark'], False)]}),
    ('papers by Yoav Goldberg about syntactic parsing',
     {'topic': [['syntactic parsing']], 'author': [(['Yoav Goldberg'], False)]}),
    ('papers from Hinton on capsule networks',
     {'topic': [['capsule networks']], 'author': [(['Hinton'], False)]}),
    ('authored by Y. LeCun or Bengio, convolutional networks',
     {'topic': [['convolutional networks']], 'author': [(['Y. LeCun', 'Bengio'], False)]}),
    ('word sense disambiguation not by Navigli',
     {'topic': [['word sense disambiguation']], 'author': [(['Navigli'], True)]}),
    ('I want papers on question answering, not about machine translation',
     {'topic': [['question answering']], 'exclusion': [['machine translation']]}),
    ('speech translation, excluding speech recognition',
     {'topic': [['speech translation']], 'exclusion': [['speech recognition']]}),
    ('neural approaches rather than rule-based methods for named entity recognition',
     {'topic': [['neural approaches']], 'application': [['named entity recognition']], 'exclusion': [['rule-based methods']]}),
    ('contrastive learning without data augmentation',
     {'topic': [['contrastive learning']], 'exclusion': [['data augmentation']]}),
    ('machine translation except for English-German',
     {'topic': [['machine translation']], 'exclusion': [['English-German']]}),
    ('summarization but not extractive summarization',
     {'topic': [['summarization']], 'exclusion': [['extractive summarization']]}),
    ('find me papers on graph neural networks using attention for drug discovery evaluated on the MoleculeNet benchmark',
     {'topic': [['graph neural networks']], 'method': [['attention']], 'application': [['drug discovery']], 'data': [['MoleculeNet']]}),
    ('BERT fine-tuned on SQuAD',
     {'topic': [['BERT']], 'data': [['SQuAD']]}),
    ('relation extraction based on distant supervision',
     {'topic': [['relation extraction']], 'method': [['distant supervision']]}),
    ('CLIP-based image retrieval in the medical domain',
     {'topic': [['CLIP-based image retrieval']], 'application': [['medical']]}),
    ('reinforcement learning applied to robotics via simulation',
     {'topic': [['reinforcement learning']], 'application': [['robotics']], 'method': [['simulation']]}),
    ('question answering on the Natural Questions dataset',
     {'topic': [['question answering']], 'data': [['Natural Questions']]}),
    ('can you show me research about hallucination in large language models published in the last five years, no reviews',
     {'topic': [['hallucination in large language models']], 'year': [(['2021-01-01', '2025-11-15'], False)], 'publication_type': [(['survey'], True)]}),
    ('graph-based semi-supervised learning, label propagation',
     {'topic': [['graph-based semi-supervised learning', 'label propagation']]}),
    ('papers in Nature or Science about CRISPR',
     {'topic': [['CRISPR']], 'venue': [(['Nature', 'Science'], False)]}),
    ('deep learning in computer Science education',
     {'topic': [['deep learning in computer Science education']]}),
    ('zero-shot NER, not at COLING or LREC, excluding 2020',
     {'topic': [['zero-shot NER']], 'venue': [(['COLING', 'LREC'], True)], 'year': [(['2020-01-01', '2020-12-31'], True)]}),
    ('contrastive learning after 2018 before 2022',
     {'topic': [['contrastive learning']], 'year': [(['2019-01-01', '2021-12-31'], False)]}),
    ('text classification in 2019 or 2021',  # either year: 2019-2021 less 2020
     {'topic': [['text classification']],
      'year': [(['2019-01-01', '2021-12-31'], False), (['2020-01-01', '2020-12-31'], True)]}),
    ('NER on the CoNLL-2003 dataset',
     {'topic': [['NER']], 'data': [['CoNLL-2003']]}),
    ('SemEval-2016 stance detection',
     {'topic': [['SemEval-2016 stance detection']]}),
    ('this year: diffusion models for audio',
     {'topic': [['diffusion models']], 'application': [['audio']], 'year': [(['2025-01-01', '2025-11-15'], False)]}),
    ('last year, instruction tuning',
     {'topic': [['instruction tuning']], 'year': [(['2024-01-01', '2024-12-31'], False)]}),
    ('in the past decade, explainable AI for finance',
     {'topic': [['explainable AI']], 'application': [['finance']], 'year': [(['2016-01-01', '2025-11-15'], False)]}),
    ('transformers for time series forecasting, trained on ETTh1 dataset',
     {'topic': [['transformers']], 'application': [['time series forecasting']], 'data': [['ETTh1']]}),
    ('studies on patients with diabetes using deep learning',
     {'topic': [['patients with diabetes']], 'method': [['deep learning']]}),
    ('Empirical study of transfer learning across languages, not surveys or overviews, ACL 2020',
     {'topic': [['transfer learning']], 'application': [['languages']], 'publication_type': [(['empirical'], False), (['survey'], True)], 'venue': [(['ACL'], False)], 'year': [(['2020-01-01', '2020-12-31'], False)]}),
    ('papers on active learning from 2015 to 2018 in EMNLP but not in Findings',
     {'topic': [['active learning']], 'year': [(['2015-01-01', '2018-12-31'], False)], 'venue': [(['EMNLP'], False), (['Findings'], True)]}),
    ('non-survey papers on vision transformers',
     {'topic': [['vision transformers']], 'publication_type': [(['survey'], True)]}),
    ('entity linking up to March 2020',
     {'topic': [['entity linking']], 'year': [([None, '2020-03-31'], False)]}),
    ('multilingual BERT 2020 or later',
     {'topic': [['multilingual BERT']], 'year': [(['2020-01-01', None], False)]}),
]


@pytest.mark.parametrize(("intent", "expected"), CASES, ids=[c[0][:60] for c in CASES])
def test_phrasing(intent: str, expected: dict) -> None:
    check(intent, expected)


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 60 and len(CLAIM_CASES) >= 15


# SciFact-style claims (claim mode): one topic checkpoint whose text is the claim, its salient
# noun phrases (+ parenthesised acronyms) as terms, no exclusion from verb negation, no year
# filter from a bare "in 2001".
CLAIM_CASES = [
    ('40mg/day dosage of folic acid and 2mg/day dosage of vitamin B12 does not affect chronic kidney disease (CKD) progression.',
     {'topic': [['dosage', 'folic acid', 'vitamin B12', 'chronic kidney disease', 'CKD']]}),
    ('76-85% of people with severe mental disorder receive no treatment in low and middle income countries.',
     {'topic': [['severe mental disorder', 'treatment', 'low', 'middle income countries']]}),
    ("A country's Vaccine Alliance (GAVI) eligibility is not indictivate of accelerated adoption of the Hub vaccine.",
     {'topic': [["country's Vaccine Alliance", 'GAVI', 'eligibility', 'accelerated adoption', 'Hub vaccine']]}),
    ('A diminished ovarian reserve does not solely indicate infertility in an a priori non-infertile population.',
     {'topic': [['diminished ovarian reserve', 'infertility', 'priori non-infertile population']]}),
    ('32% of liver transplantation programs required patients to discontinue methadone treatment in 2001.',
     {'topic': [['liver transplantation programs', 'discontinue methadone treatment']]}),
    ('A T helper 2 cell (Th2) environment impedes disease development in patients with systemic lupus erythematosus (SLE).',
     {'topic': [['T helper 2 cell', 'Th2', 'disease development', 'systemic lupus erythematosus', 'SLE']]}),
    ('ALDH1 expression is associated with poorer prognosis for breast cancer primary tumors.',
     {'topic': [['ALDH1 expression', 'poorer prognosis', 'breast cancer primary tumors']]}),
    ('Aspirin inhibits the production of PGE2.',
     {'topic': [['Aspirin', 'production', 'PGE2']]}),
    ('Smoking cessation leads to weight gain.',
     {'topic': [['Smoking cessation', 'weight gain']]}),
    ('Physical activity does not improve cognitive function in individuals with Alzheimers.',
     {'topic': [['Physical activity', 'cognitive function', 'Alzheimers']]}),
    ('Antidepressants increase the severity of migraines.',
     {'topic': [['Antidepressants', 'severity', 'migraines']]}),
    ('Cnn1 recruitment varies with cell cycle timing.',
     {'topic': [['Cnn1 recruitment', 'cell cycle timing']]}),
    ('Bariatric surgery reduces postmenopausal breast cancer.',
     {'topic': [['Bariatric surgery', 'postmenopausal breast cancer']]}),
    ('Systemic immunosuppressive (IS) therapy increases the chance of cancer mortality in patients with inflammatory eye disease (IED)',
     {'topic': [['Systemic immunosuppressive', 'IS', 'cancer mortality', 'inflammatory eye disease', 'IED']]}),
    ('Statins cannot prevent dementia in elderly patients.',
     {'topic': [['Statins', 'dementia', 'elderly patients']]}),
    ('Aspirin reduces colon cancer risk published since 2019.',
     {'topic': [['Aspirin', 'colon cancer risk']], 'year': [(['2019-01-01', None], False)]}),
    ('Vitamin D supplementation no longer reduces fracture risk.',
     {'topic': [['Vitamin D supplementation', 'fracture risk']]}),
]


@pytest.mark.parametrize(("intent", "expected"), CLAIM_CASES, ids=[c[0][:60] for c in CLAIM_CASES])
def test_claim(intent: str, expected: dict) -> None:
    cl = parse_intent(intent, None, TODAY)
    assert summary(cl) == {k: v for k, v in expected.items() if k != "topic"}
    assert [t.lower() for t in cl.checkpoints[0].terms] == [t.lower() for t in expected["topic"][0]]
    (topic,) = [c for c in cl.checkpoints if c.kind == "topic"]
    assert topic.id == "c1" and topic.text.rstrip(".") in intent and 2 <= len(topic.terms) <= 5


@pytest.mark.parametrize(("intent", "expected"), [
    # verb negation in a search phrasing is content, not an exclusion
    ('patients who receive no treatment, not surveys',
     {'topic': [['patients', 'treatment']], 'publication_type': [(['survey'], True)]}),
    ('models that do not require labels for text classification',
     {'topic': [['labels']], 'application': [['text classification']]}),
    # ... but a relative clause negating a usage verb is an exclusion
    ('Sentiment analysis methods that do not use Twitter data',
     {'topic': [['sentiment analysis']], 'exclusion': [['Twitter']]}),
    ('question answering, no retrieval',
     {'topic': [['question answering']], 'exclusion': [['retrieval']]}),
    # a parenthesised acronym is a term of the facet it follows
    ('chronic kidney disease (CKD) progression in patients with systemic lupus erythematosus (SLE)',
     {'topic': [['chronic kidney disease progression in patients with systemic lupus erythematosus', 'CKD', 'SLE']]}),
    ('papers on named entity recognition (NER) for clinical notes',
     {'topic': [['named entity recognition', 'NER']], 'application': [['clinical notes']]}),
])
def test_search_phrasing_negation_and_acronyms(intent: str, expected: dict) -> None:
    check(intent, expected)



@pytest.mark.parametrize("intent", [
    "Surveys of approaches to machine translation for low-resource languages",
    "Overviews of approaches to dependency parsing",
])
def test_a_plural_noun_after_a_preposition_is_not_a_claim_verb(intent):
    # "approaches" after "of" is a noun: the intent asks for surveys, it does not claim that
    # "surveys of X approach Y", so it keeps its survey preference (it was read as a claim before)
    checklist = parse_intent(intent, today=TODAY)
    assert summary(checklist).get("publication_type") == [(["survey"], False)]
    assert not checklist.checkpoints[0].text.lower().startswith(("surveys", "overviews"))


@pytest.mark.parametrize("intent", [
    "neural machine translation, ACL 2019",
    "neural machine translation, ACL'19",
    "neural machine translation, ACL \u201919",
])
def test_a_year_written_onto_a_venue_is_a_year(intent):
    # conference names carry their year ("ACL'19"); it is the venue and a year, not a topic "19"
    s = summary(parse_intent(intent, None, TODAY))
    assert s["venue"][0][0][:1] == ["ACL"] and s["year"] == [(["2019-01-01", "2019-12-31"], False)], s
    assert "19" not in content_words(parse_intent(intent, None, TODAY))


@pytest.mark.parametrize("intent", ["ResNet-50 features for image captioning", "GPT-3 prompting for parsing",
                                    "named entity recognition on CoNLL-2003"])
def test_a_model_number_or_dataset_name_is_not_a_year(intent):
    assert "year" not in summary(parse_intent(intent, None, TODAY))


@pytest.mark.parametrize("qualifier", ["prior", "previous", "existing", "earlier", "past", "current"])
def test_a_qualified_request_for_work_adds_no_concept(qualifier):
    # "prior work on X" asks for work on X: "prior" is not a topic of the papers
    words = content_words(parse_intent(f"{qualifier} work on named entity recognition in clinical notes", None, TODAY))
    assert qualifier not in words and {"named", "entity", "recognition", "clinical", "notes"} <= words


@pytest.mark.parametrize(("intent", "term"), [
    ("dependency parsing, excluding neural network approaches", "neural network"),
    ("sentiment analysis without deep learning methods", "deep learning"),
    ("named entity recognition, not rule-based methods", "rule-based methods"),  # "rule-based" alone names nothing
])
def test_an_excluded_kind_of_approach_is_excluded_by_its_name(intent, term):
    # "X approaches" and "X" are one concept: a paper on X is what the user excludes
    assert summary(parse_intent(intent, None, TODAY))["exclusion"] == [[term]]


def test_running_text_states_each_concept_once_and_no_manner_word():
    passage = ("In this paper we show that existing approaches only capture shallow properties of online "
               "communities. Working with graph "
               "convolutional networks, we capture the structure of online communities, though these features "
               "generalize poorly in a greedy parser.")
    facets = [c for c in parse_intent(passage, None, TODAY).checkpoints if c.id != "c1"]
    terms = [tuple(t.lower() for t in c.terms) for c in facets]
    assert len(terms) == len(set(terms)) and ("online communities",) in terms
    assert not {"poorly", "greedy"} & {t for ts in terms for t in ts}
