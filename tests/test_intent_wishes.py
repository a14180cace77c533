"""Conversational wishes ("I'm not interested in X", "X papers are not relevant", "preferably not
surveys") are read as the plain negations they restate, and nothing else becomes one."""

from __future__ import annotations

from datetime import date

import pytest

from litnav.navigator.intent import parse_intent

TODAY = date(2026, 12, 1)


def _constraints(intent: str) -> tuple[str, set, set]:
    """(c1 text, negated publication types with weights, exclusion terms with weights)."""
    cl = parse_intent(intent, today=TODAY)
    types = {(v, c.weight) for c in cl.checkpoints if c.kind == "metadata" and c.predicate is not None
             and c.predicate.field == "publication_type" and c.predicate.negate for v in c.predicate.values}
    positive = [c for c in cl.checkpoints if c.kind == "metadata" and c.predicate is not None and not c.predicate.negate]
    assert not positive, f"{intent!r} asks for no type or venue: {[c.text for c in positive]}"
    excluded = {(t.lower(), c.weight) for c in cl.checkpoints if c.kind == "exclusion" for t in c.terms}
    return cl.checkpoints[0].text, types, excluded


@pytest.mark.parametrize("wish", [
    "sentiment analysis, not surveys",
    "sentiment analysis; I don't want surveys",
    "sentiment analysis, I'm not interested in surveys",
    "sentiment analysis but not interested in surveys",
    "sentiment analysis; surveys are not relevant",
    "sentiment analysis, we do not need surveys",
    "sentiment analysis, I would rather not see surveys",
    "please don't include surveys; sentiment analysis",
    "sentiment analysis, avoid surveys",
])
def test_a_type_left_out_in_any_words_is_the_same_exclusion(wish):
    topic, types, excluded = _constraints(wish)
    assert topic == "sentiment analysis"
    assert types == {("survey", 1.0)} and not excluded


@pytest.mark.parametrize("wish", [
    "sentiment analysis, but not Twitter",
    "sentiment analysis, but I'm not interested in Twitter",
    "sentiment analysis; we really don't want Twitter",
    "sentiment analysis, Twitter papers are not relevant",
    "sentiment analysis, the Twitter ones are irrelevant",
    "sentiment analysis, avoid Twitter",
    "sentiment analysis; please skip Twitter",
])
def test_a_topic_left_out_in_any_words_is_the_same_exclusion(wish):
    topic, types, excluded = _constraints(wish)
    assert topic == "sentiment analysis"
    assert excluded == {("twitter", 1.0)} and not types


@pytest.mark.parametrize(("wish", "types", "excluded"), [
    ("coral bleaching, preferably not surveys", {("survey", 0.5)}, set()),
    ("coral bleaching, ideally no reviews", {("survey", 0.5)}, set()),
    ("coral bleaching, ideally without laboratory experiments",
     set(), {("laboratory experiments", 0.5)}),
])
def test_a_negation_stated_as_a_preference_weighs_less_than_one(wish, types, excluded):
    topic, got_types, got_excluded = _constraints(wish)
    assert topic == "coral bleaching"
    assert (got_types, got_excluded) == (types, excluded)
    cl = parse_intent(wish, today=TODAY)
    assert all(c.text.endswith("(preference)") for c in cl.checkpoints if c.weight < 1.0)


@pytest.mark.parametrize("intent", [
    "avoid overfitting in transfer learning",
    "dropout to avoid overfitting in small data sets",
    "methods that do not need labelled data for parsing",
    "Vitamin D is irrelevant for bone density",
    "rehabilitation robots that patients do not like to use",
])
def test_text_that_only_looks_like_a_wish_excludes_nothing(intent):
    cl = parse_intent(intent, today=TODAY)
    assert not [c for c in cl.checkpoints if c.kind == "exclusion"]
    assert not [c for c in cl.checkpoints if c.predicate is not None and c.predicate.negate]


def test_a_left_out_type_listed_with_a_topic_leaves_out_both():
    topic, types, excluded = _constraints("coral bleaching, no reviews or modelling studies")
    assert topic == "coral bleaching" and types == {("survey", 1.0)} and excluded == {("modelling", 1.0)}


@pytest.mark.parametrize(("wish", "field"), [("coral bleaching, preferably not in Nature", "venue"),
                                             ("coral bleaching, preferably not before 2015", "year")])
def test_a_venue_or_date_stated_as_a_preference_weighs_less_than_one(wish, field):
    cl = parse_intent(wish, today=TODAY)
    (m,) = [c for c in cl.checkpoints if c.kind == "metadata"]
    assert m.predicate.field == field and m.weight < 1.0 and m.text.endswith("(preference)")
    hard = parse_intent(wish.replace("preferably ", ""), today=TODAY)
    assert [c.weight for c in hard.checkpoints if c.kind == "metadata"] == [1.0]


@pytest.mark.parametrize(("wish", "field"), [("coral bleaching, preferably in Nature", "venue"),
                                             ("coral bleaching, ideally published in Nature", "venue"),
                                             ("coral bleaching, ideally since 2015", "year"),
                                             ("coral bleaching, preferably by 2015", "year")])
def test_a_wanted_venue_or_date_stated_as_a_preference_weighs_less_and_leaves_the_topic(wish, field):
    """A trial's "summarization, ideally by 2015" was a hard filter on 2015 alone, its topic "summarization, ideally"."""
    cl = parse_intent(wish, today=TODAY)
    (m,) = [c for c in cl.checkpoints if c.kind == "metadata"]
    assert m.predicate.field == field and not m.predicate.negate and m.weight < 1.0
    assert cl.checkpoints[0].text == "coral bleaching"


@pytest.mark.parametrize("intent", ["coral bleaching papers published by 2015", "coral bleaching, by 2015"])
def test_published_by_a_year_is_no_later_than_it(intent):
    (m,) = [c for c in parse_intent(intent, today=TODAY).checkpoints if c.kind == "metadata"]
    assert (m.predicate.start, m.predicate.end, m.weight) == (None, date(2015, 12, 31), 1.0)


@pytest.mark.parametrize("intent", ["renewable energy targets by 2030", "predicting election outcomes by 2016"])
def test_a_year_something_is_due_by_is_the_topics_not_a_date(intent):
    """A trial's "predicting election outcomes by 2016" filtered to papers of 2016."""
    cl = parse_intent(intent, today=TODAY)
    assert not [c for c in cl.checkpoints if c.predicate is not None]
    assert cl.checkpoints[0].text == intent


@pytest.mark.parametrize("intent", ["question answering methods, not datasets", "question answering (not new datasets)"])
def test_datasets_left_out_in_a_trailing_clause_are_dataset_papers(intent):
    """A trial's "evaluation benchmarks, not datasets" lost the exclusion without a word."""
    cl = parse_intent(intent, today=TODAY)
    (m,) = [c for c in cl.checkpoints if c.kind == "metadata"]
    assert (m.predicate.field, m.predicate.values, m.predicate.negate) == ("publication_type", ["dataset"], True)


@pytest.mark.parametrize("intent", ["papers citing Devlin et al. 2019", "work building on Devlin et al.",
                                    "follow-ups to Devlin et al. (2019)",
                                    "improvements to the Transformer (Vaswani et al., 2017)"])
def test_a_cited_work_named_by_its_authors_is_no_author_filter(intent):
    cl = parse_intent(intent, today=TODAY)
    assert not [c for c in cl.checkpoints if c.predicate is not None and c.predicate.field == "author"]
    assert cl.checkpoints[0].kind != "metadata"  # the search keeps a topic


@pytest.mark.parametrize("intent", ["CRISPR base editing in PNAS", "CRISPR base editing (PNAS)",
                                    "CRISPR base editing in PNAS, Science or Nature",
                                    "CRISPR base editing in Proc. Natl. Acad. Sci."])
def test_a_venue_at_the_end_makes_a_request_not_a_claim(intent):
    cl = parse_intent(intent, today=TODAY)
    (venue,) = [c for c in cl.checkpoints if c.predicate is not None and c.predicate.field == "venue"]
    assert cl.checkpoints[0].text == "CRISPR base editing"


@pytest.mark.parametrize("wish", [
    "sentiment analysis, just journals",
    "sentiment analysis, journals only",
    "sentiment analysis, only journal articles",
    "journal papers only: sentiment analysis",
    "sentiment analysis; only journal publications",
    "sentiment analysis papers published in journals",
    "I only want journal articles about sentiment analysis",
    "sentiment analysis, journal papers exclusively",
])
def test_a_kind_of_venue_asked_for_in_any_words_is_the_same_type(wish):
    cl = parse_intent(wish, today=TODAY)
    assert cl.checkpoints[0].text == "sentiment analysis"
    assert [(c.predicate.field, c.predicate.values, c.predicate.negate, c.weight) for c in cl.checkpoints
            if c.kind == "metadata"] == [("publication_type", ["journal"], False, 1.0)]


@pytest.mark.parametrize(("intent", "topic"), [
    ("sentiment analysis in journals", "sentiment analysis in journals"),
    ("automatic summarization of journal articles", "automatic summarization of journal"),
    ("predicting conferences attendance", "predicting conferences attendance"),
])
def test_journals_as_subject_matter_stay_in_the_topic(intent, topic):
    cl = parse_intent(intent, today=TODAY)
    assert cl.checkpoints[0].text == topic and not any(c.kind == "metadata" for c in cl.checkpoints)


@pytest.mark.parametrize(("intent", "types"), [
    # a re-check lost the journal constraint before a date: the date's "only" cue took "journal articles"
    ("semantic parsing, only journal articles since 2013", [("journal", False)]),
    ("semantic parsing, only conference papers since 2010", [("conference", False)]),
    # it read "no conference or workshop papers" as a venue "Workshops" to keep and a topic to leave out
    ("semantic parsing, no conference or workshop papers", [("conference", True)]),
    # "not just journals" asks for more than journals, not for journals only
    ("semantic parsing, not just journals", []),
    ("semantic parsing, not only surveys", []),
])
def test_a_kind_of_venue_keeps_its_sense_beside_dates_lists_and_not_just(intent, types):
    cl = parse_intent(intent, today=TODAY)
    assert cl.checkpoints[0].text == "semantic parsing"
    got = [(v, c.predicate.negate) for c in cl.checkpoints if c.predicate is not None
           and c.predicate.field == "publication_type" for v in c.predicate.values]
    assert got == types and not any(c.kind == "exclusion" for c in cl.checkpoints)
    venues = [c.predicate for c in cl.checkpoints if c.predicate is not None and c.predicate.field == "venue"]
    assert all(v.negate and v.values == ["Workshops"] for v in venues)  # workshops: a venue, left out too
    assert bool(venues) == ("workshop" in intent)


def test_a_kind_of_venue_and_a_kind_of_paper_both_hold():
    """A re-check's "surveys of machine translation in journals only" returned workshop surveys
    and TACL papers that were no surveys: the two kinds were one checkpoint of alternatives."""
    cl = parse_intent("surveys of machine translation in journals only", today=TODAY)
    kinds = [c.predicate.values for c in cl.checkpoints if c.predicate is not None]
    assert sorted(kinds) == [["journal"], ["survey"]]


@pytest.mark.parametrize("wish", ["coral bleaching, preferably journal articles", "coral bleaching, I prefer journal articles",
                                  "coral bleaching, ideally journal articles"])
def test_a_kind_of_venue_preferred_in_any_words_is_a_preference_and_no_topic_word(wish):
    cl = parse_intent(wish, today=TODAY)
    assert cl.checkpoints[0].text == "coral bleaching"
    assert [(c.predicate.values, c.weight) for c in cl.checkpoints if c.predicate is not None] == [(["journal"], 0.5)]
