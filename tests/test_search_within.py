"""Hard metadata constraints are searched *within* (an exact filter before ranking), so a narrow
venue or year range never loses its papers to the retrieval depth cut."""

from __future__ import annotations

from datetime import date

import pytest

from litnav.core.records import MetadataPredicate
from litnav.core.settings import Settings
from litnav.corpus import Corpus
from litnav.corpus.predicates import evaluate
from litnav.navigator import search

YEARS = MetadataPredicate(field="year", start=date(2019, 1, 1), end=date(2021, 12, 31))
ACL = MetadataPredicate(field="venue", values=["ACL"])
EMNLP = MetadataPredicate(field="venue", values=["EMNLP"])
NOT_SURVEY = MetadataPredicate(field="publication_type", values=["survey"], negate=True)
NOT_YEARS = YEARS.model_copy(update={"negate": True})
NOT_ACL = ACL.model_copy(update={"negate": True})
SINCE = MetadataPredicate(field="year", start=date(2020, 1, 1))


@pytest.fixture(scope="module")
def corpus(search_corpus_dir):
    with Corpus.open(search_corpus_dir) as c:
        yield c


@pytest.mark.parametrize("predicates", [[YEARS], [ACL], [YEARS, EMNLP], [EMNLP, NOT_SURVEY], [NOT_YEARS, NOT_ACL],
                                        [SINCE]],
                         ids=["years", "venue", "years+venue", "venue+negated-type", "negated", "open-end"])
def test_ids_matching_is_the_exact_filter(corpus, predicates):
    papers = corpus.papers(corpus.all_ids())
    want = {cid for cid, p in papers.items() if all(evaluate(q, p)[0] is True for q in predicates)}
    assert want, "the fixture must have matching papers"
    assert corpus.ids_matching(predicates) == want


def test_ids_matching_gives_up_when_it_cannot_bound_the_set(corpus):
    assert corpus.ids_matching([NOT_SURVEY]) is None  # nothing narrows the table in SQL
    assert corpus.ids_matching([YEARS], limit=1) is None  # more candidates than the limit


def test_searches_within_ids_rank_like_the_filtered_full_ranking(corpus):
    query = "dense retrieval for question answering"
    ids = {"acl", "bm25qa", "sentiment", "parsing", "not-a-paper"}
    full = [h.corpus_id for h in corpus.lexical_search(query, 100)]
    assert [h.corpus_id for h in corpus.lexical_search(query, 100, ids)] == [c for c in full if c in ids]
    dense = [h.corpus_id for h in corpus.semantic_search(query, 100)]
    assert [h.corpus_id for h in corpus.semantic_search(query, 100, ids)] == [c for c in dense if c in ids]
    assert corpus.lexical_search(query, 100, set()) == []


@pytest.mark.parametrize("intent", ["dense retrieval for question answering, published in ACL before 2016",
                                    "question answering with dense retrieval in ACL, up to 2015"])
def test_hard_constraints_keep_their_papers_past_a_shallow_depth(corpus, intent):
    # two hits per channel: the dense-retrieval papers (2016 and later) fill the depth of a search
    # of the whole corpus, so filtering afterwards would leave nothing
    settings = Settings.model_validate({"librarians": {"lexical_k": 2, "semantic_k": 2}})
    query = "dense retrieval for question answering"
    unrestricted = {h.corpus_id for h in corpus.lexical_search(query, 2)} | {
        h.corpus_id for h in corpus.semantic_search(query, 2)}
    old_acl = {"sentiment", "parsing"}  # the fixture's ACL papers before 2016
    assert not unrestricted & old_acl
    session = search(intent, corpus, settings, top_k=10)
    assert {r.corpus_id for r in session.results} == old_acl
    first = session.rounds[0]
    hard = [c.id for c in first.checklist.checkpoints if c.kind == "metadata" and c.weight >= 1.0]
    assert len(hard) == 2
    nodes = {n.id: n for n in first.workflow.nodes}
    assert nodes["lexical_intent"].params["within"] == hard
    assert nodes["semantic_intent"].params["within"] == hard


def test_within_a_content_checkpoint_is_an_error_naming_the_node(corpus):
    from litnav.core.records import Workflow
    from litnav.librarians.operators.base import WorkflowError
    from litnav.navigator.intent import parse_intent
    from litnav.navigator.planner import plan_workflow

    intent = "dense retrieval for question answering, published in ACL before 2016"
    tree = plan_workflow(parse_intent(intent, venues=corpus.venues()), Settings()).model_dump(mode="json")
    for node in tree["nodes"]:
        if node["id"] == "lexical_intent":
            node["params"]["within"] = ["c1"]
    with pytest.raises(WorkflowError, match=r"lexical_intent.*within.*c1"):
        search(intent, corpus, Settings(), workflow=Workflow.model_validate(tree))


def test_fewer_results_than_asked_say_the_constraints_decided(corpus):
    from litnav.session.render import result_notes

    session = search("dense retrieval for question answering in EMNLP 2021", corpus, Settings(), top_k=10, rounds=1)
    assert 0 < len(session.results) < 10
    assert all(r.venue == "EMNLP" and r.year == 2021 for r in session.results)
    n = len(session.results)
    assert any(note.startswith(f"Only {n} paper{'s' if n != 1 else ''} found pass") and "hard constraints (m" in note
               for note in result_notes(session))
    full = search("dense retrieval for question answering", corpus, Settings(), top_k=3, rounds=1)
    assert not any("hard constraints" in n for n in result_notes(full))


def test_a_kind_of_venue_is_searched_within_and_relaxed_where_no_venue_names_one(open_corpus):
    """A re-check asked for "only conference papers" on a corpus whose venues are acronyms (ACL,
    EMNLP): every paper was unknown, the filter kept none and nothing said why."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "search"))
    from search_papers import documents

    from litnav.navigator.intent import parse_intent
    from litnav.navigator.planner import relax_unsatisfiable

    docs = documents()
    named = [d.model_copy(update={"paper": d.paper.model_copy(update={"venue_raw": raw})}) for d, raw in zip(
        docs, ["Transactions of the Association for Computational Linguistics", "Proceedings of ACL 2020",
               "Proceedings of the Workshop on Question Answering"] + [None] * len(docs))]
    journal = MetadataPredicate(field="publication_type", values=["journal"])
    conference = MetadataPredicate(field="publication_type", values=["conference"])
    c = open_corpus("kinds", named)
    papers = c.papers(c.all_ids())
    for p in (journal, conference):
        want = {cid for cid, paper in papers.items() if evaluate(p, paper)[0] is True}
        assert want and c.ids_matching([p]) == want  # decided per (venue, raw venue, types), as the filter does
    checklist = parse_intent("dense retrieval, only conference papers")
    [m] = [x for x in relax_unsatisfiable(checklist, c).checkpoints if x.predicate is not None]
    assert m.weight == 1.0  # some paper's venue says it is a conference paper: a filter
    bare = open_corpus("acronyms", docs)  # venues "ACL", "EMNLP": no kind known
    [m] = [x for x in relax_unsatisfiable(checklist, bare).checkpoints if x.predicate is not None]
    assert m.weight < 1.0 and "no venue of this corpus names its kind" in m.text
