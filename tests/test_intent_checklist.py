"""``parse_intent`` as a whole: ids, kinds, weights, the venue vocabulary, robustness,
``describe`` and the venue table file."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from litnav.core.records import Checklist, MetadataPredicate
from litnav.navigator.intent import EMPIRICAL_WEIGHT, describe, parse_intent
from litnav.navigator.intent.parser import FACET_WEIGHT
from litnav.navigator.intent.venues import VENUES_FILE, load_table

TODAY = date(2025, 11, 15)
VOCAB = {"ACL": 120, "EMNLP": 80, "Findings of ACL": 10, "TACL": 5, "WS": 40}
EXAMPLE = ("empirical studies of federated learning across hospitals for medical imaging, in Nature "
           "Medicine or IEEE TMI, 2023 to Oct 2025, not surveys")


def _venue(cl: Checklist) -> list[MetadataPredicate]:
    return [c.predicate for c in cl.checkpoints if c.predicate and c.predicate.field == "venue"]


def test_example_checklist_in_full() -> None:
    cl = parse_intent(EXAMPLE, today=TODAY)
    assert [(c.id, c.kind) for c in cl.checkpoints] == [
        ("c1", "topic"), ("c2", "topic"), ("c3", "application"), ("c4", "application"),
        ("m1", "metadata"), ("m2", "metadata"), ("m3", "metadata"), ("m4", "metadata"),
    ]
    c1, c2, c3, c4, m1, m2, m3, m4 = cl.checkpoints
    # c1 is the whole intent less metadata and request words; the facets follow at lower weight
    assert c1.text == "federated learning across hospitals for medical imaging" and c1.weight == 1.0
    assert c1.terms == ["federated learning", "hospitals", "medical imaging"]
    assert c2.terms == ["federated learning"]
    assert c3.terms == ["hospitals"] and "across hospitals" in c3.text
    assert c4.terms == ["medical imaging"]
    assert all(c.weight == FACET_WEIGHT < 1.0 for c in (c2, c3, c4))
    assert m1.predicate == MetadataPredicate(field="publication_type", values=["empirical"])
    assert m1.weight == EMPIRICAL_WEIGHT
    assert m2.predicate == MetadataPredicate(
        field="venue", values=["Nature Medicine", "IEEE Transactions on Medical Imaging"])
    assert m3.predicate == MetadataPredicate(field="year", start=date(2023, 1, 1), end=date(2025, 10, 31))
    assert m4.predicate == MetadataPredicate(field="publication_type", values=["survey"], negate=True)
    assert all(c.weight == 1.0 for c in (m2, m3, m4))
    # no noise word survives in any content term
    noise = {"empirical", "studies", "papers", "not", "in", "or", "surveys", "2023"}
    assert not {w.lower() for c in (c1, c2, c3, c4) for t in c.terms for w in t.split()} & noise
    # round-trips as JSON (it goes into the session file)
    assert Checklist.model_validate_json(cl.model_dump_json()) == cl


def test_plain_query_gives_exactly_one_topic() -> None:
    cl = parse_intent("dense passage retrieval", today=TODAY)
    assert len(cl.checkpoints) == 1
    assert (cl.checkpoints[0].id, cl.checkpoints[0].kind, cl.checkpoints[0].terms) == (
        "c1", "topic", ["dense passage retrieval"])


def test_only_empirical_is_a_hard_preference() -> None:
    cl = parse_intent("only empirical studies of prompt tuning", today=TODAY)
    (m,) = [c for c in cl.checkpoints if c.kind == "metadata"]
    assert m.predicate.values == ["empirical"] and m.weight == 1.0


def test_recent_is_soft_and_yields_to_explicit_dates() -> None:
    soft = parse_intent("recent work on prompt tuning", today=TODAY)
    (m,) = [c for c in soft.checkpoints if c.kind == "metadata"]
    assert (m.predicate.start, m.predicate.end, m.weight) == (date(2022, 11, 15), TODAY, 0.5)
    hard = parse_intent("recent work on prompt tuning since 2021", today=TODAY)
    (m,) = [c for c in hard.checkpoints if c.kind == "metadata"]
    assert (m.predicate.start, m.predicate.end, m.weight) == (date(2021, 1, 1), None, 1.0)


def test_recent_counts_back_from_the_corpus_newest_paper_when_it_is_older_than_today() -> None:
    old = parse_intent("recent work on prompt tuning", today=TODAY, newest=date(2022, 5, 31))
    (m,) = [c for c in old.checkpoints if c.kind == "metadata"]
    assert (m.predicate.start, m.predicate.end, m.weight) == (date(2019, 6, 1), date(2022, 5, 31), 0.5)
    assert "newest papers are from 2022" in m.text
    for newest in (None, TODAY, date(2030, 1, 1)):  # a corpus as new as today: today's window
        (m,) = [c for c in parse_intent("recent work on prompt tuning", today=TODAY, newest=newest).checkpoints
                if c.kind == "metadata"]
        assert (m.predicate.start, m.predicate.end) == (date(2022, 11, 15), TODAY) and "newest" not in m.text
    # an explicit span counts from today whatever the corpus holds
    (m,) = [c for c in parse_intent("prompt tuning in the last 2 years", today=TODAY,
                                    newest=date(2022, 5, 31)).checkpoints if c.kind == "metadata"]
    assert (m.predicate.start, m.predicate.end) == (date(2024, 1, 1), TODAY)


def test_relative_dates_follow_today() -> None:
    cl = parse_intent("graph transformers in the last 2 years", today=date(2024, 2, 29))
    (m,) = [c for c in cl.checkpoints if c.kind == "metadata"]
    # whole years: a paper known only by its year 2022 is not "in the last 2 years" on 29 Feb 2024
    assert (m.predicate.start, m.predicate.end) == (date(2023, 1, 1), date(2024, 2, 29))
    cl = parse_intent("graph transformers in the last 6 months", today=date(2024, 2, 29))
    (m,) = [c for c in cl.checkpoints if c.kind == "metadata"]
    assert (m.predicate.start, m.predicate.end) == (date(2023, 8, 29), date(2024, 2, 29))


@pytest.mark.parametrize(("intent", "values", "negate", "missing"), [
    ("parsing in ACL or EMNLP", ["ACL", "EMNLP"], False, False),
    ("parsing at TACL", ["TACL"], False, False),
    ("parsing in acl", ["ACL"], False, False),
    ("parsing in Findings", ["Findings of ACL"], False, False),
    ("parsing in the Findings of the Association for Computational Linguistics", ["Findings of ACL"], False, False),
    ("parsing, excluding workshops", ["WS"], True, False),
    ("parsing not at EMNLP", ["EMNLP"], True, False),
    ("parsing not at COLING", ["COLING"], True, True),
    ("parsing in Nature Medicine", ["Nature Medicine"], False, True),
    ("parsing published in Transactions of the Association for Computational Linguistics", ["TACL"], False, False),
])
def test_venue_vocabulary(intent: str, values: list[str], negate: bool, missing: bool) -> None:
    cl = parse_intent(intent, venues=VOCAB, today=TODAY)
    (p,) = _venue(cl)
    assert (p.values, p.negate) == (values, negate)
    (cp,) = [c for c in cl.checkpoints if c.predicate is p]
    assert ("not in the corpus venue list" in cp.text) == missing
    assert [c.terms for c in cl.checkpoints if c.kind == "topic"] == [["parsing"]]


def test_venue_vocabulary_spelling_and_fuzzy_match() -> None:
    vocab = {"Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing": 847,
             "Nature Medicine.": 3, "IEEE Trans. Medical Imaging": 7, "SemEval": 30}
    cl = parse_intent("segmentation in Nature Medicine or EMNLP or IEEE Transactions on Medical Imaging",
                      venues=vocab, today=TODAY)
    (p,) = _venue(cl)
    assert p.values == ["Nature Medicine.",
                        "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
                        "IEEE Trans. Medical Imaging"]
    # a venue known only to the vocabulary is matched too (acronym-like: any case)
    (p,) = _venue(parse_intent("stance detection at semeval", venues=vocab, today=TODAY))
    assert p.values == ["SemEval"]


def test_common_words_are_not_venues() -> None:
    cl = parse_intent("the nature of science education", today=TODAY)
    assert _venue(cl) == [] and {c.kind for c in cl.checkpoints} == {"topic"}
    cl = parse_intent("NER on the CoNLL-2003 dataset", venues=VOCAB, today=TODAY)
    assert _venue(cl) == []


@pytest.mark.parametrize("bad", ["", "   ", "\n\t", "?!.,", "|||"])
def test_empty_intent_is_a_clear_error(bad: str) -> None:
    with pytest.raises(ValueError, match="intent is empty"):
        parse_intent(bad)


def test_non_string_and_noise_only_intents() -> None:
    with pytest.raises(ValueError, match="must be a string"):
        parse_intent(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="yields no checkpoint"):
        parse_intent("find me some papers please")


def test_unicode_intent() -> None:
    cl = parse_intent("Zero\u2011shot NER für Deutsch \u2014 papers by J\u00fcrgen Schmidhuber "
                      "2019\u20132021, not \u201csurveys\u201d", today=TODAY)
    got = {c.predicate.field: c.predicate for c in cl.checkpoints if c.predicate}
    assert got["author"].values == ["J\u00fcrgen Schmidhuber"]
    assert (got["year"].start, got["year"].end) == (date(2019, 1, 1), date(2021, 12, 31))
    assert cl.checkpoints[0].kind == "topic" and "NER" in cl.checkpoints[0].terms[0]


def test_very_long_intent_is_parsed() -> None:
    part = "graph neural networks for molecule property prediction using attention, "
    cl = parse_intent(part * 250 + "since 2020, not surveys", today=TODAY)
    kinds = [c.kind for c in cl.checkpoints]
    assert "topic" in kinds and "method" in kinds
    assert any(c.predicate and c.predicate.field == "year" for c in cl.checkpoints)
    assert len({c.id for c in cl.checkpoints}) == len(cl.checkpoints)


def test_deterministic() -> None:
    assert parse_intent(EXAMPLE, VOCAB, TODAY) == parse_intent(EXAMPLE, VOCAB, TODAY)


def test_describe_renders_every_checkpoint() -> None:
    cl = parse_intent(EXAMPLE, today=TODAY)
    text = describe(cl)
    lines = text.splitlines()
    assert lines[0] == f"Intent: {cl.intent}"
    assert len(lines) == 1 + len(cl.checkpoints)
    assert "year 2023-01-01 .. 2025-10-31" in text
    assert "NOT publication_type in [survey]" in text
    assert "(w=0.5)" in text
    assert describe(Checklist(intent="x")).endswith("(no checkpoints)")


def test_venue_table_is_valid_and_errors_name_the_file(tmp_path: Path) -> None:
    table = load_table()
    names = {e.name for e in table}
    for required in ("ACL", "EMNLP", "NAACL", "EACL", "AACL", "COLING", "TACL", "CL", "CoNLL", "LREC",
                     "Findings of ACL", "NeurIPS", "ICML", "ICLR", "AAAI", "IJCAI", "CVPR", "ICCV", "ECCV",
                     "KDD", "SIGIR", "WWW", "Nature", "Science", "Nature Medicine",
                     "IEEE Transactions on Medical Imaging", "JAMA", "NEJM", "The Lancet", "PLoS ONE",
                     "Bioinformatics", "arXiv"):
        assert required in names
    assert json.loads(VENUES_FILE.read_text())["venues"]
    bad = tmp_path / "venues.json"
    bad.write_text(json.dumps({"venues": [{"name": "X", "alias": ["Y"]}]}))
    with pytest.raises(ValueError, match=r"venues\.json: venues\[0\] \(X\): unknown field"):
        load_table(bad)


def test_alternatives_stay_alternatives_in_checkpoint_text():
    from litnav.navigator.intent import parse_intent

    texts = [c.text for c in parse_intent("detecting abusive or offensive language in social media").checkpoints]
    assert any(" or " in t for t in texts[1:]) and not any("abusive and offensive" in t for t in texts)
    texts = [c.text for c in parse_intent("graph neural networks and transformers for molecules").checkpoints]
    assert not any(" or " in t for t in texts)


@pytest.mark.parametrize(("intent", "hard"), [
    ("Surveys of the language resources available for Basque", False),
    ("overview papers of machine translation shared tasks", False),
    ("only surveys of the language resources available for Basque", True),
    ("dependency parsing, not surveys", True),
])
def test_a_stated_type_is_a_preference_unless_it_says_only_or_excludes(intent, hard):
    from litnav.navigator.planner import hard_metadata

    cl = parse_intent(intent, today=date(2026, 12, 1))
    types = [c for c in cl.checkpoints if c.predicate is not None and c.predicate.field == "publication_type"]
    assert len(types) == 1
    assert (types[0] in hard_metadata(cl)) is hard


def test_a_preferred_type_stays_in_the_retrieval_query_and_an_enforced_one_does_not():
    from litnav.navigator.planner import content_query

    soft = parse_intent("Surveys of the language resources available for Basque", today=date(2026, 12, 1))
    hard = parse_intent("only surveys of the language resources available for Basque", today=date(2026, 12, 1))
    assert content_query(soft).endswith(" Surveys")
    assert "survey" not in content_query(hard).lower()


@pytest.mark.parametrize("intent, words", [
    ("Systematic reviews or meta-analyses about cardiovascular disease risk", "Systematic reviews or meta-analyses"),
    ("A survey of graph neural networks for molecules", "survey"),
    ("Tutorials on variational inference", "Tutorials"),
])
def test_a_preferred_type_is_searched_in_the_users_words(intent, words):
    from litnav.navigator.planner import content_query

    query = content_query(parse_intent(intent, today=date(2026, 12, 1)))
    assert words.lower() in query.lower()


@pytest.mark.parametrize("intent", [
    "machine translation published before 2000 or after 2020",
    "machine translation after 2020 or before 2000",
])
def test_before_or_after_is_one_excluded_period_not_a_contradiction(intent: str) -> None:
    [m] = [c for c in parse_intent(intent, None, TODAY).checkpoints if c.kind == "metadata"]
    assert m.predicate == MetadataPredicate(field="year", start=date(2000, 1, 1), end=date(2020, 12, 31), negate=True)
    assert m.weight == 1.0
    with pytest.raises(ValueError, match="contradictory"):  # "and" still asks for both
        parse_intent("machine translation published before 2000 and after 2020", None, TODAY)


def test_a_long_venue_list_is_shown_counted_not_in_full():
    from litnav.core.records import Checkpoint, MetadataPredicate

    venues = [f"Proceedings of Workshop {i}" for i in range(20)]
    cl = Checklist(intent="x", checkpoints=[Checkpoint(
        id="m1", kind="metadata", text="Published in workshops",
        predicate=MetadataPredicate(field="venue", values=venues))])
    line = describe(cl).splitlines()[1]
    assert "Workshop 7" in line and "Workshop 8," not in line and "and 12 more" in line


def test_the_session_checklist_table_counts_long_venue_lists_too():
    from rich.console import Console

    from litnav.core.records import Checkpoint, Round, Session, Workflow
    from litnav.session.render import checklist_table

    venues = [f"Proceedings of Workshop {i}" for i in range(20)]
    cl = Checklist(intent="x", checkpoints=[Checkpoint(
        id="m1", kind="metadata", text="Published in workshops",
        predicate=MetadataPredicate(field="venue", values=venues))])
    session = Session(intent="x", corpus="c", rounds=[Round(index=1, checklist=cl, workflow=Workflow(nodes=[], output=""))])
    console = Console(record=True, width=400, color_system=None)
    console.print(checklist_table(session))
    text = console.export_text()
    assert "Workshop 7" in text and "Workshop 8," not in text and "and 12 more" in text


@pytest.mark.parametrize(("intent", "negate"), [("only randomised trials of statins", False), ("statin RCTs only", False),
                                                ("only randomized controlled trials of aspirin", False),
                                                ("statins for prevention, not clinical trials", True)])
def test_a_trial_with_a_cue_is_a_publication_type(intent, negate):
    (m,) = [c for c in parse_intent(intent, today=TODAY).checkpoints if c.kind == "metadata"]
    assert m.predicate.values == ["trial"] and m.predicate.negate is negate and m.weight == 1.0


@pytest.mark.parametrize("intent", ["automating the screening of randomized controlled trials for systematic reviews",
                                    "information extraction from clinical trial reports",
                                    "machine learning for clinical trial recruitment"])
def test_trials_that_are_the_subject_matter_stay_the_topic(intent):
    cl = parse_intent(intent, today=TODAY)
    assert not [c for c in cl.checkpoints if c.kind == "metadata"] and cl.checkpoints[0].text == intent


@pytest.mark.parametrize("intent", ["clinical trials of statins in elderly patients",
                                    "randomized controlled trials of statins in elderly patients",
                                    "RCTs on statins in elderly patients", "find RCTs of statins in elderly patients",
                                    "statins in elderly patients, randomised controlled trials",
                                    "statins in elderly patients (RCTs)"])
def test_trials_asked_for_are_a_preferred_type_as_meta_analyses_are(intent):
    cl = parse_intent(intent, today=TODAY)
    (m,) = [c for c in cl.checkpoints if c.kind == "metadata"]
    assert (m.predicate.values, m.predicate.negate, m.weight) == (["trial"], False, 0.5)
    assert cl.checkpoints[0].text == "statins in elderly patients"


@pytest.mark.parametrize(("title", "types", "expected"), [
    ("A randomised controlled trial of pravastatin in older adults", [], True),
    ("Aspirin and colorectal adenomas: results of a phase III clinical trial", [], True),
    ("Statin use and fracture risk", ["ClinicalTrial"], True),
    ("Statin use and fracture risk in a cohort of older adults", ["JournalArticle"], False),
    # a study of trials is no trial
    ("Discontinuation and non-publication of surgical randomised controlled trials", ["JournalArticle"], False),
    ("Two randomized trials of vitamin D in older women", [], True),
])
def test_the_trial_type_is_decided_from_the_title_or_the_s2_type(title, types, expected):
    from litnav.corpus.predicates import evaluate
    from litnav.corpus.records import Paper

    paper = Paper(corpus_id="t", title=title, publication_types=types)
    assert evaluate(MetadataPredicate(field="publication_type", values=["trial"]), paper)[0] is expected


def test_not_reviews_leaves_out_a_meta_analysis():
    # a biomedical user's "not reviews" kept "...: a meta-analysis of randomised controlled trials"
    from litnav.corpus.predicates import evaluate
    from litnav.corpus.records import Paper

    not_reviews = MetadataPredicate(field="publication_type", values=["survey"], negate=True)
    meta = Paper(corpus_id="m", title="Statins for primary prevention: a meta-analysis of randomised controlled trials")
    typed = Paper(corpus_id="t", title="Statins and strokes", publication_types=["MetaAnalysis"])
    trial = Paper(corpus_id="r", title="A randomised trial of pravastatin in older adults")
    assert [evaluate(not_reviews, p)[0] for p in (meta, typed, trial)] == [False, False, True]


@pytest.mark.parametrize("intent", [
    "only meta-analyses of statin therapy, not reviews",
    "statin therapy: meta-analyses only, no narrative reviews",
    "meta-analyses on statin therapy, excluding reviews",
])
def test_not_reviews_beside_meta_analyses_keeps_the_meta_analyses(intent):
    # "only meta-analyses ..., not reviews" gave 0 results: every meta-analysis is a review of studies
    from litnav.corpus.predicates import check
    from litnav.corpus.records import Paper

    predicates = [c.predicate for c in parse_intent(intent, today=TODAY).checkpoints if c.predicate]
    meta = Paper(corpus_id="m", title="Statins in primary prevention: a systematic review and meta-analysis")
    typed = Paper(corpus_id="t", title="Statins and strokes", publication_types=["Review", "MetaAnalysis"])
    narrative = Paper(corpus_id="n", title="Statin therapy: a narrative review")
    exclusion = next(p for p in predicates if p.negate)
    assert [check(exclusion, p)[0] for p in (meta, typed, narrative)] == [True, True, False]
    assert "meta-analysis" in check(exclusion, meta)[1]
    required = next(p for p in predicates if not p.negate)
    assert [check(required, p)[0] for p in (meta, typed, narrative)] == [True, True, False]


def test_a_tutorial_track_types_its_papers_tutorials_and_a_tutorial_is_no_survey():
    # a user's "not tutorials" should catch an MT Summit tutorial abstract whose title does not say
    # so (its venue is "...: Tutorial Abstracts"); "not surveys" keeps it: a judge kept a QE
    # tutorial under "excluding shared task overviews"
    from litnav.corpus.predicates import evaluate
    from litnav.corpus.records import Paper

    not_tutorials = MetadataPredicate(field="publication_type", values=["tutorial"], negate=True)
    not_surveys = MetadataPredicate(field="publication_type", values=["survey"], negate=True)
    tutorials = MetadataPredicate(field="publication_type", values=["tutorial"])
    by_venue = Paper(corpus_id="v", title="Syntactic SMT and Semantic SMT",
                     venue_raw="Proceedings of Machine Translation Summit XIII: Tutorial Abstracts")
    by_title = Paper(corpus_id="t", title="A tutorial on neural machine translation")
    research = Paper(corpus_id="r", title="Syntactic SMT for Chinese", venue_raw="Proceedings of ACL 2011")
    assert [evaluate(not_tutorials, p)[0] for p in (by_venue, by_title, research)] == [False, False, True]
    assert "Tutorial Abstracts" in evaluate(tutorials, by_venue)[1]
    assert [evaluate(tutorials, p)[0] for p in (by_venue, by_title, research)] == [True, True, None]
    assert [evaluate(not_surveys, p)[0] for p in (by_venue, by_title, research)] == [True, True, True]


@pytest.mark.parametrize(("intent", "weight"), [
    ("autophagy in cancer cells, primary research only", 1.0),
    ("original research on autophagy in cancer cells", 0.5),
])
def test_original_or_primary_research_asks_for_empirical_papers(intent, weight):
    """"primary research" is the type a biomedical reader asks for (not a review), never a topic
    word ("c1 autophagy in cancer cells, primary")."""
    checklist = parse_intent(intent)
    [meta] = [c for c in checklist.checkpoints if c.kind == "metadata"]
    assert meta.predicate.values == ["empirical"] and meta.weight == weight
    assert checklist.checkpoints[0].text == "autophagy in cancer cells"


@pytest.mark.parametrize(("intent", "years"), [
    ("neural machine translation from 2018 or 2020", {2018, 2020}),
    ("neural machine translation in 2016 and 2022", {2016, 2022}),
    ("neural machine translation in 2018, 2019 or 2021", {2018, 2019, 2021}),
    ("neural machine translation between 2018 and 2020", {2018, 2019, 2020}),
])
def test_a_list_of_years_admits_those_years_not_the_span_between_them(intent, years):
    from litnav.corpus.predicates import evaluate
    from litnav.corpus.records import Paper

    metas = [c for c in parse_intent(intent, today=date(2026, 12, 1)).checkpoints if c.kind == "metadata"]
    passing = {y for y in range(2010, 2027)
               if all(evaluate(c.predicate, Paper(corpus_id="p", title="t", year=y))[0] for c in metas)}
    assert passing == years
