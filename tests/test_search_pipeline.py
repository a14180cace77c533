"""The search pipeline is never worse than its first stage by construction: deep fusion, a scored
top-N reordered by a rank fusion with the fused order, every other candidate kept below in
first-stage (hybrid) order; soft metadata preferences re-weight instead of filtering; reflection seeds only from
papers that clear the content threshold; the web channel joins the plan when providers exist."""

from __future__ import annotations

from datetime import date

import pytest

from litnav.core.records import Checklist, Checkpoint, MetadataPredicate, ScoredPaper
from litnav.core.settings import Settings
from litnav.corpus import Corpus, CorpusWriter
from litnav.librarians.operators.fusion import reciprocal_rank_fusion
from litnav.navigator import search
from litnav.navigator.loop import SearchRun
from litnav.navigator.planner import hard_metadata, plan_workflow
from litnav.navigator.reflect import ReflectionState, reflect
from litnav.reranker.combine import Combination, combine, load_combination


@pytest.fixture(scope="module")
def corpus(search_corpus_dir) -> Corpus:
    path = search_corpus_dir
    c = Corpus.open(path)
    yield c
    c.close()


def _sp(cid: str, final: float) -> ScoredPaper:
    return ScoredPaper(corpus_id=cid, judgements=[], probability=final, final_score=final)


def _settings(**groups) -> Settings:
    tree = Settings().model_dump()
    for group, fields in groups.items():
        tree[group].update(fields)
    return Settings.model_validate(tree)


def test_combination_falls_back_to_fusion_and_soft_preferences_reweight():
    scored = [_sp("a", 0.1), _sp("b", 0.9), _sp("c", 0.5)]
    fused = {"a": 1, "b": 2, "c": 3}
    only_fusion = combine(scored, fused, Combination(scorer_weight=0.0))
    assert [p.corpus_id for p, _ in only_fusion] == ["a", "b", "c"]
    only_scorer = combine(scored, fused, Combination(fusion_weight=0.0))
    assert [p.corpus_id for p, _ in only_scorer] == ["b", "c", "a"]
    soft = combine(scored, fused, Combination(scorer_weight=0.0, soft_penalty=1.0), {"a": 0.5})
    assert [p.corpus_id for p, _ in soft][-1] == "a"  # demoted, not dropped
    with pytest.raises(ValueError):
        Combination(scorer_weight=-1.0)


def test_a_paper_judged_to_violate_an_exclusion_is_demoted_not_dropped():
    from types import SimpleNamespace

    from litnav.core.records import Judgement
    from litnav.navigator.scoring import ScoringStage

    twitter = Checkpoint(id="x1", kind="exclusion", text="The paper is not about Twitter", terms=["Twitter"])
    checklist = Checklist(intent="sentiment analysis, not Twitter", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="sentiment analysis", terms=["sentiment analysis"]), twitter])

    def paper(cid: str, exclusion_score: float) -> ScoredPaper:
        j = Judgement(id="x1", kind="exclusion", text=twitter.text, score=exclusion_score, rationale="", engine="t")
        return ScoredPaper(corpus_id=cid, judgements=[j], probability=0.5, final_score=0.5)

    scored = [paper("tweets", 1.0), paper("reviews", 4.0), paper("blogs", 3.0)]
    stage = ScoringStage(corpus=None, student=None)
    stage._soft_failures(scored, SimpleNamespace(checklist=checklist))
    assert stage.soft_failed == {"tweets": 1.0}
    order = [p.corpus_id for p, _ in combine(scored, {"tweets": 1, "reviews": 2, "blogs": 3}, Combination(),
                                              stage.soft_failed)]
    assert order[-1] == "tweets" and len(order) == 3


def test_bundled_combination_loads_and_bad_file_names_itself(tmp_path):
    model = load_combination()
    assert model.fusion_weight >= 0 and model.scorer_weight >= 0
    bad = tmp_path / "c.json"
    bad.write_text('{"fusion_weight": 1, "typo": 2}')
    with pytest.raises(ValueError, match="c.json"):
        load_combination(bad)


def test_below_the_scored_head_the_hybrid_order_holds(corpus):
    settings = _settings(librarians={"pool_size": 3}, navigator={"rounds": 1})
    run = SearchRun("dense retrieval for question answering", corpus, settings, top_k=50,
                    student=_student())
    session = run.run()
    fused = sorted(run.stage.fused_rank, key=run.stage.fused_rank.get)
    got = [r.corpus_id for r in session.results]
    assert len(got) == len(fused) > 3 and set(got) == set(fused)  # no candidate is lost
    assert set(got[:3]) == set(fused[:3])  # the scorer reorders the fused top 3
    # below them the hybrid first stage's order (whole-intent BM25 + dense, reciprocal rank fusion)
    query = session.rounds[0].workflow.nodes[0].params["query"]
    lexical = [h.corpus_id for h in corpus.lexical_search(query, 200)]
    dense = [h.corpus_id for h in corpus.semantic_search(query, 200)]
    hybrid = [cid for cid, _ in reciprocal_rank_fusion([lexical, dense], k=60)]
    rest = [c for c in hybrid if c not in got[:3]]
    assert got[3:3 + len(rest)] == rest
    for m in range(3, len(got) + 1):  # so litnav's top m holds the hybrid's top m - 3
        assert set(hybrid[:m - 3]) <= set(got[:m])


def test_no_scorer_returns_the_fused_order(corpus):
    settings = _settings(scorer={"enabled": False}, navigator={"rounds": 1})
    run = SearchRun("dense retrieval for question answering", corpus, settings, top_k=50)
    session = run.run()
    assert [r.corpus_id for r in session.results] == sorted(run.stage.fused_rank, key=run.stage.fused_rank.get)
    assert session.engines["reranker"] == "fused retrieval order"  # the session says which ordering ran
    assert session.engines["scorer"].startswith("none")


def test_the_session_names_the_ordering_that_ran(corpus, tmp_path):
    combined = tmp_path / "c.json"
    Combination(scorer_weight=0.5).save(combined)
    session = search("dense retrieval for question answering", corpus,
                     _settings(navigator={"rounds": 1}, reranker={"combination": str(combined)}), top_k=5)
    assert session.engines["reranker"].startswith("rank fusion of fused and scorer order")
    Combination(scorer_weight=0.0).save(combined)
    fused = search("dense retrieval for question answering", corpus,
                   _settings(navigator={"rounds": 1}, reranker={"combination": str(combined)}), top_k=5)
    assert fused.engines["reranker"].startswith("fused retrieval order")
    by_score = search("dense retrieval for question answering", corpus,
                      _settings(navigator={"rounds": 1}, reranker={"order": "score"}), top_k=5)
    assert by_score.engines["reranker"] == "scorer final score"


def test_soft_recent_preference_does_not_filter(corpus):
    intent = "recent work on dense retrieval for question answering"
    session = search(intent, corpus, Settings(), top_k=20, today=date(2022, 6, 1))
    soft = [c for c in session.rounds[0].checklist.checkpoints if c.kind == "metadata"]
    assert soft and all(c.weight < 1 for c in soft)
    assert not any(n.op == "filter" for n in session.rounds[0].workflow.nodes)
    assert "old" in {r.corpus_id for r in session.results}  # 2016: failed a preference, still found


def test_hard_constraints_filter_and_soft_ones_are_not_hard():
    year = MetadataPredicate(field="year", start=date(2019, 1, 1))
    checklist = Checklist(intent="x", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="dense retrieval", terms=["dense retrieval"]),
        Checkpoint(id="m1", kind="metadata", text="since 2019", predicate=year),
        Checkpoint(id="m2", kind="metadata", text="empirical", weight=0.5,
                   predicate=MetadataPredicate(field="publication_type", values=["empirical"]))])
    assert [c.id for c in hard_metadata(checklist)] == ["m1"]
    wf = plan_workflow(checklist, Settings())
    assert wf.node("filter").params["checkpoint_ids"] == ["m1"]
    assert "limit" not in wf.node("fuse").params  # deep fusion: no cut before scoring
    assert all(n.params["k"] >= 100 for n in wf.nodes if n.op in ("semantic_search", "lexical_search"))


def test_web_channel_joins_the_plan_when_providers_are_configured():
    checklist = Checklist(intent="dense retrieval", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="dense retrieval", terms=["dense retrieval"])])
    assert not any(n.op == "web_search" for n in plan_workflow(checklist, Settings()).nodes)
    wf = plan_workflow(checklist, _settings(web={"providers": ["openalex"]}))
    web = [n for n in wf.nodes if n.op == "web_search"]
    assert web and web[0].id in wf.node("fuse").inputs


def test_papers_below_the_threshold_give_no_salient_terms_but_the_top_ones_seed_citations():
    """The top of a round's ranking seeds citation expansion whatever its scores (chosen on the
    citation benchmark's dev split); salient terms come only from papers clearing the
    threshold; with ``navigator.citation_seeds = "cleared"`` nothing below it seeds."""
    checklist = Checklist(intent="dense retrieval", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="dense retrieval", terms=["dense retrieval"])])
    ranked = [_sp(str(i), 0.2) for i in range(10)]
    out = reflect(checklist, ranked, 1, [], ReflectionState(), _settings(navigator={"new_paper_threshold": 0.6}), 20, 3)
    expand = [n for n in out.workflow.nodes if n.op == "citation_expand"]
    assert [n.params["seed_ids"] for n in expand] == [["0", "1", "2", "3", "4"]]
    assert not any(c.action == "add_query" and "salient" in c.reason for c in out.changes)
    cleared = _settings(navigator={"citation_seeds": "cleared", "new_paper_threshold": 0.6})
    out = reflect(checklist, ranked, 1, [], ReflectionState(), cleared, 20, 3)
    nodes = out.workflow.nodes if out.workflow else []
    assert not any(n.op == "citation_expand" for n in nodes)
    assert not any(c.action == "add_citation_expansion" for c in out.changes)


def _student():
    from litnav.scorer import load_student

    return load_student(None)


def test_web_channel_runs_in_a_search_against_a_fake_provider(tmp_path):
    """With a provider configured, the rule plan's web_search node queries it and its verified
    hits join the fusion (found_by channel "web")."""
    import json as _json

    from test_web_providers import WEB, FakeServer

    from litnav.corpus.records import Document
    from litnav.corpus.records import Paper as _Paper

    path = tmp_path / "corpus"
    papers = [_Paper.model_validate(_json.loads(line)) for line in (WEB / "corpus_papers.jsonl").open()]
    with CorpusWriter.open(path) as w:
        with w.source("fixture:web", 1, "0" * 64) as tx:
            tx.add_documents([Document(paper=p, abstract=f"{p.title}. A study of neural networks.") for p in papers])
        w.finalize(progress=False)
    server = FakeServer()
    try:
        server.route("/works", (200, (WEB / "openalex_works.json").read_text()))
        settings = _settings(navigator={"rounds": 1}, web={
            "providers": ["openalex"], "base_urls": {"openalex": server.url}, "cache_dir": str(tmp_path / "web"),
            "timeout_s": 2.0, "max_retries": 0, "rate_limit_per_s": 1000.0})
        with Corpus.open(path) as corpus:
            session = search("deep residual learning for image recognition", corpus, settings, top_k=10)
        assert server.hits("/works") >= 1
        assert any(n.op == "web_search" for n in session.rounds[0].workflow.nodes)
        web = {r.corpus_id for r in session.results if any(f.channel == "web" for f in r.found_by)}
        assert web, "a verified web hit should be among the results"
    finally:
        server.close()


def test_a_one_checkpoint_first_stage_is_the_hybrid_ranking(corpus):
    """With one content checkpoint, litnav's fused list is exactly the hybrid baseline's (same
    channels, depth, RRF constant and tie-breaking), so every later stage starts from it."""
    from litnav.evaluation.systems import HybridSystem

    intent = "Dense retrieval improves open-domain question answering."
    settings = _settings(scorer={"enabled": False}, navigator={"rounds": 1})
    run = SearchRun(intent, corpus, settings, top_k=50)
    session = run.run()
    assert len([c for c in session.rounds[0].checklist.checkpoints if c.kind == "topic"]) == 1
    lib = settings.librarians
    hybrid = HybridSystem(corpus, 50, lexical_k=lib.lexical_k, semantic_k=lib.semantic_k, rrf_k=lib.rrf_k).run(intent)
    assert [r.corpus_id for r in session.results] == [cid for cid, _ in hybrid.ranking]


def _baseline(corpus, intent: str, depth: int | None = None, keep=lambda cid: True) -> list[str]:
    """Plain hybrid retrieval of the intent as typed: reciprocal rank fusion of BM25 and dense
    top ``depth`` (default: the depths ``litnav eval``'s ``hybrid`` fuses, ``librarians.lexical_k``
    and ``semantic_k``), then an exact filter (the ``hybrid`` / ``hybrid+filter`` baselines)."""
    lib = Settings().librarians
    lexical = [h.corpus_id for h in corpus.lexical_search(intent, depth or lib.lexical_k)]
    dense = [h.corpus_id for h in corpus.semantic_search(intent, depth or lib.semantic_k)]
    return [cid for cid, _ in reciprocal_rank_fusion([lexical, dense], k=lib.rrf_k) if keep(cid)]


def test_the_baseline_is_the_hybrid_that_eval_compares_against(corpus):
    from litnav.evaluation.systems import make_systems

    intent = "find me papers about answering questions with dense passage retrieval that do not use BM25"
    (hybrid,) = make_systems(["hybrid"], corpus, Settings(), depth=200)
    assert [cid for cid, _ in hybrid.run(intent).ranking] == _baseline(corpus, intent)[:200]


@pytest.mark.parametrize("intent", [
    "dense retrieval for question answering, excluding biomedical questions",
    "find me papers about answering questions with dense passage retrieval that do not use BM25",
    "question answering for languages other than English",  # parsed as "non-English languages"
])
def test_the_top_d_always_holds_the_plain_hybrid_top_d(corpus, intent):
    """Whatever the checklist, facets and later rounds add, litnav's top D holds the top D of
    plain hybrid retrieval of the intent exactly as typed (``librarians.first_stage_guard``), so
    its Recall@D cannot fall below the hybrid's."""
    for d in (2, 4, 6, 100):  # D below, at and above the scored head's size (3), and the default
        for scorer in (True, False):  # the guard holds with the scorer off too (fused order)
            settings = _settings(librarians={"pool_size": 3, "first_stage_guard": d}, scorer={"enabled": scorer})
            session = SearchRun(intent, corpus, settings, top_k=50, student=_student() if scorer else None).run()
            got = [r.corpus_id for r in session.results]
            assert set(_baseline(corpus, intent)[:d]) <= set(got[:d]), (d, scorer)
    verbatim = [n for n in session.rounds[0].workflow.nodes if n.id in ("lexical_verbatim", "semantic_verbatim")]
    assert [n.params["query"] for n in verbatim] == [intent, intent]  # as typed, not as parsed


@pytest.mark.parametrize("intent", [
    "dense retrieval for question answering, excluding biomedical questions",
    "question answering for languages other than English",
])
def test_the_top_d_holds_the_hybrid_of_the_configured_depths(corpus, intent):
    """The baseline fuses each channel as deep as ``litnav eval``'s hybrid does
    (``librarians.lexical_k``/``semantic_k``): a fusion of deeper lists orders its tail otherwise
    (on ML paper titles 15 of 122 queries lost cited papers from the top 100 that way)."""
    for d in (3, 5, 8):
        settings = _settings(librarians={"lexical_k": 4, "semantic_k": 4, "pool_size": 2, "first_stage_guard": d},
                             scorer={"enabled": False})
        session = SearchRun(intent, corpus, settings, top_k=50).run()
        lexical = [h.corpus_id for h in corpus.lexical_search(intent, max(d, 4))]
        dense = [h.corpus_id for h in corpus.semantic_search(intent, max(d, 4))]
        hybrid = [cid for cid, _ in reciprocal_rank_fusion([lexical, dense], k=60)]
        assert set(hybrid[:d]) <= {r.corpus_id for r in session.results[:d]}, d


def test_with_hard_constraints_the_top_d_holds_hybrid_then_filter(corpus):
    intent = "dense retrieval for question answering published in EMNLP"
    settings = _settings(librarians={"pool_size": 2, "first_stage_guard": 3})
    session = SearchRun(intent, corpus, settings, top_k=50, student=_student()).run()
    assert hard_metadata(session.rounds[0].checklist)
    papers = corpus.papers(corpus.all_ids())
    emnlp = _baseline(corpus, intent, 1000, keep=lambda cid: papers[cid].venue == "EMNLP")  # hybrid+filter
    got = [r.corpus_id for r in session.results]
    assert set(emnlp[:3]) <= set(got[:3]) and all(papers[c].venue == "EMNLP" for c in got)


def test_a_guard_deeper_than_a_search_can_go_is_refused_by_name():
    from litnav.core.settings import SettingsError, load_settings

    with pytest.raises(SettingsError, match="first_stage_guard"):
        load_settings(overrides=["librarians.first_stage_guard=1000000"])


def test_without_the_guard_the_baseline_searches_are_not_planned():
    checklist = Checklist(intent="x y", checkpoints=[Checkpoint(id="c1", kind="topic", text="x y")])
    guarded = {n.id for n in plan_workflow(checklist, Settings()).nodes}
    assert {"lexical_verbatim", "semantic_verbatim"} <= guarded
    off = _settings(librarians={"first_stage_guard": 0})
    assert not {"lexical_verbatim", "semantic_verbatim"} & {n.id for n in plan_workflow(checklist, off).nodes}


def test_feedback_search_moves_the_query_towards_its_seeds_and_is_planned_only_with_a_weight(corpus):
    """Dense pseudo-relevance feedback: the seeds' own papers rank first when beta dominates the
    query, a seed list with no vectors returns nothing (noted), and reflection plans the branch
    only when ``librarians.feedback_weight`` > 0 (default 0: it did not earn its place on dev)."""
    from litnav.core.records import Node, Workflow
    from litnav.librarians.operators import RunContext
    from litnav.librarians.swarm import run_workflow

    checklist = Checklist(intent="dense retrieval", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="dense retrieval", terms=["dense retrieval"])])
    ids, _ = corpus.sample_abstract_vectors(2, seed=1)
    ctx = RunContext(corpus=corpus, checklist=checklist, settings=Settings(), round=2)
    flow = Workflow(nodes=[
        Node(id="fb", op="feedback_search", params={"query": "dense retrieval", "k": 5, "seed_ids": ids, "beta": 10}),
        Node(id="none", op="feedback_search", params={"query": "dense retrieval", "k": 5, "seed_ids": ["no-such-id"]}),
    ], output="fb")
    results, _ = run_workflow(flow, ctx)
    assert set(results["fb"].ids[:2]) == set(ids) and len(results["fb"].ids) == 5
    assert not results["none"].ids and "none of the seeds ['no-such-id']" in ctx.notes["none"]
    ranked = [_sp(str(i), 0.5) for i in range(10)]
    off = reflect(checklist, ranked, 1, [], ReflectionState(), _settings(), 20, 3)
    assert not any(n.op == "feedback_search" for n in (off.workflow.nodes if off.workflow else []))
    on = reflect(checklist, ranked, 1, [], ReflectionState(), _settings(librarians={"feedback_weight": 0.3}), 20, 3)
    fb = [n for n in on.workflow.nodes if n.op == "feedback_search"]
    assert [n.params["seed_ids"] for n in fb] == [["0", "1", "2"]]
    fuse = next(n for n in on.workflow.nodes if n.op == "union")
    assert fuse.params["weights"][fuse.inputs.index(fb[0].id)] == 0.3


@pytest.mark.parametrize("intent", ["dense retrieval for question answering presented at the Foo Bar Workshop on Retrieval",
                                    "dense retrieval for question answering published before 1950",
                                    "dense retrieval for question answering by Grace Hopper"])
def test_a_constraint_no_paper_satisfies_is_shown_but_does_not_empty_the_results(corpus, intent):
    session = SearchRun(intent, corpus, _settings(scorer={"enabled": False}), top_k=10).run()
    checklist = session.rounds[0].checklist
    (relaxed,) = [c for c in checklist.checkpoints if c.kind == "metadata"]
    assert relaxed.weight < 1 and "no paper of this corpus matches" in relaxed.text
    assert not hard_metadata(checklist) and session.results


def test_has_author_finds_surnames_case_insensitively(corpus):
    some = corpus.papers(corpus.all_ids()[:1])
    (paper,) = some.values()
    assert corpus.has_author(paper.authors[0].name.upper())
    assert not corpus.has_author("Grace Hopper")


def test_a_corpus_without_citation_edges_says_so_under_the_results(search_jsonl, tmp_path):
    """Over a corpus built from records without references, citation expansion can find nothing:
    the results say why, instead of only "round 2 added no new paper"."""
    from litnav.ingest import build
    from litnav.navigator import search
    from litnav.session.render import result_notes

    build([search_jsonl], tmp_path / "corpus", progress=False)
    with Corpus.open(tmp_path / "corpus") as c:
        assert c.stats()["citations"] == 0
        session = search("dense retrieval for question answering", c, Settings(), rounds=2, top_k=5)
    ran = [run for r in session.rounds for run in r.operator_runs if run.op == "citation_expand"]
    assert ran and all(run.note == "nothing to follow: this corpus holds no citation edges" for run in ran)
    assert any("holds no citation edges" in n for n in result_notes(session))
