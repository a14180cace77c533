"""Anchor-paper search: each direction is an editable workflow template; successors cite the
anchor, predecessors are cited by it, siblings share citations, surveys and benchmarks are kept
by type; anchors resolve from id, arXiv id or title; an anchor session can be refined."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from litnav.core.settings import Settings
from litnav.corpus import Corpus
from litnav.navigator import refine
from litnav.navigator.anchor import DIRECTIONS, AnchorError, anchor_search, load_template, resolve_anchor

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "multiturn"))
from multiturn_papers import build_corpus  # noqa: E402

FAST = Settings.model_validate({"scorer": {"enabled": False}})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    c = Corpus.open(build_corpus(tmp_path_factory.mktemp("anchor") / "corpus"))
    yield c
    c.close()


@pytest.fixture(scope="module")
def sessions(corpus):
    return {d: anchor_search("simclr", d, corpus, FAST, top_k=10) for d in DIRECTIONS}


def _ids(session) -> list[str]:
    return [r.corpus_id for r in session.results]


def test_successors_cite_and_predecessors_are_cited(sessions, corpus):
    citers = {e.citing_id for e in corpus.citations("simclr")}
    cited = {e.cited_id for e in corpus.references("simclr")}
    assert set(_ids(sessions["successor"])) == citers  # top 10 holds all seven
    assert set(_ids(sessions["predecessor"])) == cited


def test_siblings_surveys_and_benchmarks(sessions):
    siblings = _ids(sessions["sibling"])
    assert "simclr" not in siblings
    assert {"moco", "byol"} & set(siblings[:4])  # co-cited with the anchor by several papers
    assert _ids(sessions["survey"])[0] == "csurvey"
    assert _ids(sessions["benchmark"])[0] == "imagenet"
    for s in sessions.values():
        assert s.turns[0].anchor == "simclr" and s.turns[0].direction in DIRECTIONS


def test_anchor_resolves_from_title_and_errors_clearly(corpus):
    assert resolve_anchor(corpus, "A simple framework for contrastive learning of visual representations") == "simclr"
    with pytest.raises(AnchorError, match="could not resolve"):
        resolve_anchor(corpus, "A paper that does not exist anywhere")
    # a title cited loosely resolves when the reference matcher verifies it, else the error names
    # the closest title and its id
    assert resolve_anchor(corpus, "A Simple Framework for Contrastive Learning of Visual Representation") == "simclr"
    with pytest.raises(AnchorError, match="closest corpus title 'Momentum Contrast.*corpus id moco"):
        resolve_anchor(corpus, "Momentum Contrast for Unsupervised Visual Learning")
    with pytest.raises(AnchorError, match="unknown direction"):
        anchor_search("simclr", "sideways", corpus, FAST)


def test_edited_template_is_used(corpus, tmp_path):
    template = load_template("successor")
    template["nodes"][0]["params"]["k"] = 2
    path = tmp_path / "succ.json"
    path.write_text(json.dumps(template))
    s = anchor_search("simclr", "successor", corpus, FAST, template=path, top_k=10)
    assert len(s.results) == 2


def test_anchor_session_refines(sessions, corpus):
    s = sessions["successor"].model_copy(deep=True)
    s = refine(s, "only papers after 2020", corpus, FAST)
    citers = {e.citing_id for e in corpus.citations("simclr")}
    assert s.results and all(r.year >= 2021 and r.corpus_id in citers for r in s.results)
    assert len(s.turns) == 2 and s.turns[1].reused == ["citing", "not_anchor"]


def test_a_turn_following_a_results_citations_never_returns_the_anchor(sessions, corpus):
    """A trial's "what did #1 build on" put the anchor at #2 of its own successor list."""
    s = sessions["successor"].model_copy(deep=True)
    s = refine(s, "what did #1 build on", corpus, FAST)
    assert "simclr" in {e.cited_id for e in corpus.references(s.turns[0].results[0].corpus_id)}  # #1 cites the anchor
    assert "simclr" not in _ids(s)


def test_an_anchor_resolves_from_its_acronym(corpus):
    """A verification trial's "papers that cite DDPM and apply it to molecules" searched "DDPM" as a
    topic; an acronym of a title's words ("Big Self-Supervised Models are ..." -> BSSM) names it."""
    assert corpus.find_by_acronym("BSSM") == ["simclrv2"] and resolve_anchor(corpus, "BSSM") == "simclrv2"
    assert corpus.find_by_acronym("bssm") == ["simclrv2"]
    assert corpus.find_by_acronym("XQZW") == [] and corpus.find_by_acronym("a%") == []
    with pytest.raises(AnchorError, match="acronym"):
        resolve_anchor(corpus, "XQZW", fuzzy=False)


def test_focus_in_an_anchor_session_orders_the_anchors_neighbours(sessions, corpus):
    """A user trial's "focus on molecules" after "follow-up work of DDPM" searched the whole corpus
    beside the citing papers: 1 of 20 results was about molecules, while six citers were."""
    citers = {e.citing_id for e in corpus.citations("simclr")}
    before = _ids(sessions["successor"])
    s = refine(sessions["successor"].model_copy(deep=True), "focus on speech", corpus, FAST)
    assert set(_ids(s)) <= citers  # still the anchor's citing papers, none from elsewhere
    assert _ids(s)[0] == "speechaug" and before.index("speechaug") > 0
    added = {e.detail["node"]["op"] for e in s.turns[1].edits if e.action == "add_node"}
    assert "citation_expand" in added and not added & {"lexical_search", "semantic_search"}


def test_the_notes_name_the_anchor_and_read_c1_as_its_title_without_an_intent(corpus):
    from litnav.session.render import result_notes

    bare = anchor_search("simclr", "successor", corpus, top_k=5)
    title = corpus.paper("simclr").title
    notes = result_notes(bare)
    assert notes[0] == f"Anchor: successor of simclr ({title!r})."
    assert any(n.startswith("c1 is the anchor's title") for n in notes)
    assert not any("judged to satisfy the whole intent" in n for n in notes)
    with_intent = result_notes(anchor_search("simclr", "successor", corpus, intent="contrastive learning", top_k=5))
    assert with_intent[0].startswith("Anchor: successor of simclr")
    assert not any(n.startswith("c1 is the anchor's title") for n in with_intent)


def test_an_impossible_year_in_an_anchor_intent_is_a_preference_as_in_a_search(corpus):
    session = anchor_search("simclr", "sibling", corpus, FAST, intent="contrastive learning since 2030", top_k=5)
    [m] = [c for c in session.turns[0].checklist.checkpoints if c.kind == "metadata"]
    assert m.weight < 1 and "no paper of this corpus matches it" in m.text and session.results


def test_an_intent_asking_for_follow_up_work_of_a_paper_runs_its_anchor_search(corpus):
    """'follow-up work on <title>' is the papers citing that paper; a topic after the same words,
    or a title the corpus does not hold, is searched as a topic."""
    from litnav.navigator import search
    from litnav.navigator.intent.anchor_request import anchor_request

    citers = {e.citing_id for e in corpus.citations("simclr")}
    cited = {e.cited_id for e in corpus.references("simclr")}
    title = "A simple framework for contrastive learning of visual representations"
    for intent in (f"follow-up work on {title}", f"Find papers citing \u201c{title}\u201d?",
                   f"what cites {title.upper()}"):
        s = search(intent, corpus, FAST, top_k=10)
        assert s.turns[0].anchor == "simclr" and s.turns[0].direction == "successor", intent
        assert set(_ids(s)) == citers and "read from the intent" in s.engines["navigator"]
    s = search(f"papers cited by {title}", corpus, FAST, top_k=10)
    assert s.turns[0].direction == "predecessor" and set(_ids(s)) == cited
    assert anchor_request("follow-up work on knowledge distillation") is None  # a topic, not a paper
    # a short title counts only when written as one, and then only a paper of exactly that title
    assert anchor_request("papers similar to Deep Sets").exact_title
    assert anchor_request("papers similar to knowledge distillation") is None
    uncited = next(corpus.paper(c) for c in corpus.all_ids()
                   if not corpus.citations(c) and len(corpus.paper(c).title.split()) >= 4)
    s = search(f"follow-up work on {uncited.title}", corpus, FAST, top_k=10)
    assert s.turns[0].anchor == uncited.corpus_id and s.results == []  # as --anchor says: nothing cites it
    s = search("follow-up work on contrastive learning of visual representations with momentum", corpus, FAST)
    assert not s.turns or s.turns[0].anchor is None  # no such paper: a topic search


def test_constraints_after_the_anchor_title_filter_its_neighbours(corpus):
    """'papers citing <title> since YEAR' (title quoted or not) is the anchor search, filtered."""
    from litnav.navigator import search

    citers = [corpus.paper(e.citing_id) for e in corpus.citations("simclr")]
    years = sorted({p.year for p in citers if p.year})
    assert len(years) >= 2
    title = "A simple framework for contrastive learning of visual representations"
    for intent in (f"papers citing {title} since {years[-1]}", f'papers citing "{title}", since {years[-1]}'):
        s = search(intent, corpus, FAST, top_k=10)
        assert s.turns[0].anchor == "simclr" and s.turns[0].direction == "successor", intent
        assert set(_ids(s)) == {p.corpus_id for p in citers if p.year and p.year >= years[-1]}, intent
        assert [c.kind for c in s.turns[0].checklist.checkpoints] == ["topic", "metadata"]


@pytest.mark.parametrize("phrasing", [
    "papers that cite {title} and apply it to {topic}",
    "papers citing {title} that study {topic}",
    "follow-up work on {title} on {topic}",
    'papers citing "{title}" that address {topic}',
    "papers citing simclr on {topic}",  # a corpus id
    "papers citing {title} focusing on {topic}",
    "follow-up work on {title} applied to {topic}",
])
def test_a_topic_after_the_anchor_title_orders_its_neighbours(corpus, phrasing):
    """A user trial's "papers that cite Denoising Diffusion Probabilistic Models and apply it to
    molecules" was searched as one topic: the anchor came back at #2, with papers that cannot
    cite it. The paper is the anchor; the topic is the checklist its citing papers are judged by."""
    from litnav.navigator import search

    citers = {e.citing_id for e in corpus.citations("simclr")}
    title = "A simple framework for contrastive learning of visual representations"
    s = search(phrasing.format(title=title, topic="medical imaging"), corpus, FAST, top_k=10)
    assert s.turns[0].anchor == "simclr" and s.turns[0].direction == "successor"
    assert set(_ids(s)) <= citers and "simclr" not in _ids(s)
    assert s.turns[0].checklist.checkpoints[0].text == "medical imaging"


def test_the_notes_say_how_much_of_the_anchors_neighbourhood_the_corpus_holds(corpus, sessions):
    """'papers cited by X' over a corpus holding part of X's bibliography says so, and a list cut
    by --top says how many of the linked papers it shows."""
    from litnav.session.render import result_notes

    cited = len(corpus.references("simclr"))
    missing = len(corpus.unresolved_references("simclr"))
    note = result_notes(sessions["predecessor"])[1]
    assert note.startswith(f"It cites {cited} corpus paper")
    assert (f"{missing} more of its references match no paper" in note) == bool(missing)
    partial = sessions["predecessor"].model_copy(deep=True)
    partial.turns[0].anchor_unresolved = 7
    assert result_notes(partial)[1] == (f"It cites {cited} corpus papers; 7 more of its references match no paper "
                                        f"of this corpus (`litnav show simclr --corpus {partial.corpus}` lists them).")
    citers = len(corpus.citations("simclr"))
    assert result_notes(sessions["successor"])[1].startswith(f"{citers} corpus papers cite it")
    cut = anchor_search("simclr", "successor", corpus, FAST, top_k=3)
    assert result_notes(cut)[1] == f"{citers} corpus papers cite it; 3 listed."
    assert not any("corpus paper" in n for n in result_notes(sessions["sibling"]))
    # a year constraint: how many pass it, so the listed count reads as a cut-off or as all there are
    years = sorted(p.year for p in corpus.papers([e.citing_id for e in corpus.citations("simclr")]).values() if p.year)
    since = years[len(years) // 2]
    newer = anchor_search("simclr", "successor", corpus, FAST, intent=f"since {since}", top_k=50)
    passing = sum(y >= since for y in years)
    assert passing < citers and result_notes(newer)[1] == f"{citers} corpus papers cite it; {passing} pass the hard constraints."
    # an exclusion: how many it left out, and what the year then keeps of the others
    from litnav.librarians.operators.text import matching_terms

    papers = corpus.papers([e.citing_id for e in corpus.citations("simclr")])
    abstracts = corpus.abstracts(list(papers))
    word = next(w for w in ("speech", "video", "graph", "language") if any(
        matching_terms(f"{p.title} {abstracts.get(c) or ''}", [w]) for c, p in papers.items()))
    out = sum(bool(matching_terms(f"{p.title} {abstracts.get(c) or ''}", [word])) for c, p in papers.items())
    fewer = anchor_search("simclr", "successor", corpus, FAST, intent=f"excluding {word}", top_k=50)
    assert result_notes(fewer)[1].startswith(f"{citers} corpus papers cite it; {out} left out by the exclusions")


def test_edges_to_papers_the_corpus_lacks_are_not_counted_as_corpus_papers(tmp_path):
    """S2ORC's references name ids of the whole Semantic Scholar graph: "It cites 87 corpus papers;
    0 listed" was printed for a paper none of whose references is in the corpus, and the build
    summary called those edges "between corpus papers"."""
    import hashlib

    from litnav.corpus.records import Citation, Document, Paper
    from litnav.corpus.writer import CorpusWriter
    from litnav.navigator.anchor import _coverage

    docs = [Document(paper=Paper(corpus_id="a", title="Anchor paper on graph learning", year=2020)),
            Document(paper=Paper(corpus_id="b", title="A cited paper on graph learning", year=2019))]
    edges = [Citation(citing_id="a", cited_id="b", contexts=["as b shows"]), Citation(citing_id="a", cited_id="x1"),
             Citation(citing_id="a", cited_id="x2"), Citation(citing_id="y", cited_id="a")]

    with CorpusWriter.open(tmp_path / "c") as w:
        with w.source("fixture:edges", 1, hashlib.sha256(b"edges").hexdigest()) as tx:
            tx.add_documents(docs)
            tx.add_citations(edges)
        w.finalize(progress=False)
    c = Corpus.open(tmp_path / "c")
    s = c.stats()
    assert (s["citations"], s["corpus_citations"], s["citing_sentences"]) == (4, 1, 1)
    assert _coverage(c, "a", "predecessor") == (1, 2) and _coverage(c, "a", "successor") == (0, None)


def test_an_anchor_title_is_one_checkpoint_not_a_request(corpus):
    """Without an intent c1 is the anchor's title whole: "Self-Supervised Pretraining: A Survey"
    asks for no surveys (the papers citing it are not filtered by type) and its words are no
    separate checkpoints."""
    s = anchor_search("csurvey", "predecessor", corpus, FAST, top_k=10)
    assert [c.id for c in s.turns[0].checklist.checkpoints] == ["c1"]
    assert {r.corpus_id for r in s.results} == {e.cited_id for e in corpus.references("csurvey")}


def test_follow_up_work_on_a_corpus_without_citation_edges_lists_similar_papers_and_says_so(open_corpus):
    """No paper of an edgeless corpus can be shown to cite another: "follow-up work on <title>"
    lists the papers most like it, never the anchor itself, and the notes say why."""
    from multiturn_papers import documents

    from litnav.navigator import search
    from litnav.session.render import result_notes

    corpus = open_corpus("edgeless", [d.model_copy(update={"references": []}) for d in documents()])
    title = "A simple framework for contrastive learning of visual representations"
    s = search(f"follow-up work on {title}", corpus, FAST, top_k=5)
    assert s.turns[0].anchor == "simclr" and s.turns[0].direction == "sibling"
    assert s.results and "simclr" not in _ids(s)
    assert any("holds no citation edges" in n and "successor" in n for n in result_notes(s))
    # a follow-up cannot predate its anchor (2020), nor a cited paper follow it
    years = {d.paper.corpus_id: d.paper.year for d in documents()}
    assert all(years[r.corpus_id] >= 2020 for r in s.results)
    assert any("published from 2020 on" in n for n in result_notes(s))
    s = search(f"prior work of {title}", corpus, FAST, top_k=5)
    assert s.turns[0].asked_direction == "predecessor"
    assert s.results and all(years[r.corpus_id] <= 2020 for r in s.results)
    assert any("published up to 2020" in n for n in result_notes(s))


def test_a_date_over_a_corpus_without_years_says_that_no_paper_has_one(open_corpus):
    """"since 2010" over a corpus whose papers carry no year (SciFact's abstracts) is a preference
    and the note gives the real reason, as refine does."""
    from multiturn_papers import documents

    from litnav.navigator import search
    from litnav.session.render import result_notes

    undated = [d.model_copy(update={"paper": d.paper.model_copy(update={"year": None, "publication_date": None})})
               for d in documents()]
    corpus = open_corpus("undated", undated)
    s = search("contrastive learning of visual representations since 2010", corpus, FAST, top_k=5)
    [m] = [c for c in s.rounds[-1].checklist.checkpoints if c.kind == "metadata"]
    assert m.weight < 1 and s.results
    assert any("no paper of this corpus has a publication year" in n for n in result_notes(s))


@pytest.mark.parametrize(("intent", "says"), [
    ("contrastive learning of visual representations at NeurIPS or ICML", "no paper of this corpus names a venue"),
    ("contrastive learning of visual representations by Geoffrey Hinton", "no paper of this corpus lists its authors"),
    ("contrastive learning of visual representations, journal articles only", "no paper of this corpus names a venue"),
])
def test_a_venue_or_author_over_a_corpus_without_any_says_that_no_paper_has_one(open_corpus, intent, says):
    """A user trial's "at NeurIPS or ICML" over an arXiv corpus without venues read "(not in the
    corpus venue list: NeurIPS, ICML)", as if the corpus had a venue list."""
    from multiturn_papers import documents

    from litnav.navigator import search
    from litnav.session.render import result_notes

    bare = [d.model_copy(update={"paper": d.paper.model_copy(update={"venue": None, "venue_raw": None, "authors": []})})
            for d in documents()]
    corpus = open_corpus("bare", bare)
    s = search(intent, corpus, FAST, top_k=5)
    [m] = [c for c in s.rounds[-1].checklist.checkpoints if c.kind == "metadata"]
    assert m.weight < 1 and s.results and "not in the corpus venue list" not in m.text
    [note] = [n for n in result_notes(s) if says in n]
    assert "not in the corpus venue list" not in note and "not filtered by it" in note


def test_papers_similar_to_a_short_title_search_that_paper_or_its_words(corpus, monkeypatch):
    """"papers similar to <short title>": the paper of exactly that title as a sibling anchor; when
    the corpus holds none, a topic search for the title's words, without "similar to"."""
    from litnav.navigator import search

    s = search("papers similar to Deep Sets", corpus, FAST, top_k=5)
    assert not s.turns or s.turns[0].anchor is None
    assert s.rounds[0].checklist.checkpoints[0].text == "Deep Sets"
    monkeypatch.setattr(type(corpus), "find_by_title",
                        lambda self, title, year=None: ["graphcl"] if title == "Graph Pretraining" else [])
    s = search("papers similar to Graph Pretraining", corpus, FAST, top_k=5)
    assert s.turns[0].anchor == "graphcl" and s.turns[0].direction == "sibling"


def test_an_ordinary_workflow_given_as_an_anchor_template_is_refused(corpus, tmp_path):
    """A workflow that never reads the anchor ("litnav plan ... --out wf.json" then --anchor P
    --workflow wf.json) would list another search's papers as the anchor's neighbours."""
    from litnav.core.settings import Settings
    from litnav.navigator.intent import parse_intent
    from litnav.navigator.planner import plan_workflow

    path = tmp_path / "wf.json"
    path.write_text(plan_workflow(parse_intent("contrastive learning"), Settings()).model_dump_json())
    with pytest.raises(AnchorError, match="names no anchor"):
        anchor_search("simclr", "successor", corpus, FAST, template=path, top_k=10)


@pytest.mark.parametrize("phrasing, direction", [
    ("what does {t} build on?", "predecessor"),
    ("prior work of {t}", "predecessor"),
    ("foundational work behind {t}", "predecessor"),
    ("predecessors of {t}", "predecessor"),
    ("later work on {t}", "successor"),
    ("what builds on {t}", "successor"),
    ("successors of {t}", "successor"),
    ("siblings of {t}", "sibling"),
    ("related work to {t}", "sibling"),
    ("what does {t} cite about momentum", "predecessor"),  # a trial's topic search listed the anchor first
    ("papers {t} cites", "predecessor"),
    ("papers that {t} cites", "predecessor"),
])
def test_every_common_way_of_asking_for_a_papers_neighbours_runs_its_anchor_search(corpus, phrasing, direction):
    """A fresh user found "what does <title> build on" read as an exclusion ("without Exploration
    build"), "prior work of <title>" as an author filter, "siblings of <title>" as a topic whose
    first hit was the paper itself."""
    from litnav.navigator import search

    title = "A simple framework for contrastive learning of visual representations"
    s = search(phrasing.format(t=title), corpus, FAST, top_k=10)
    assert s.turns[0].anchor == "simclr" and s.turns[0].direction == direction
    assert "simclr" not in _ids(s)


def test_a_paper_the_corpus_does_not_hold_is_searched_as_a_topic_and_the_notes_say_so(corpus):
    """"follow-up work of Decision Transformer: Reinforcement Learning via Sequence Modeling" (not in
    the corpus) became an author filter "Authored by Decision Transformer" and a topic "follow-up";
    now its title is the topic, and the notes say the paper is not in the corpus."""
    from litnav.navigator import search
    from litnav.session.render import result_notes

    title = "Decision Transformer: Reinforcement Learning via Sequence Modeling"
    s = search(f"follow-up work of {title}", corpus, FAST, top_k=5)
    assert s.turns[0].anchor is None and s.turns[0].paper_not_found == title
    checkpoints = s.rounds[-1].checklist.checkpoints
    assert checkpoints[0].text == title and not any(c.kind == "metadata" for c in checkpoints)
    assert any(f"no paper of this corpus is {title!r}" in n for n in result_notes(s))
    # the user's round limit holds there too (a break-it trial's --rounds 1 ran 2 rounds)
    assert len(search(f"follow-up work of {title}", corpus, FAST, top_k=5, rounds=1).rounds) == 1
    s = search("follow-up work on contrastive learning of visual representations with momentum", corpus, FAST)
    assert not s.turns or not s.turns[0].paper_not_found  # a topic, not a paper: searched as typed


def test_a_survey_search_says_when_its_results_are_surveys_by_wording_only(sessions):
    """--direction survey returned papers that are no surveys (kept for "rethinking", "empirical
    study") with no word of it; the notes now say how many candidates are typed a survey."""
    from litnav.session.render import result_notes

    survey = sessions["survey"]
    typed = [n for n in result_notes(survey) if "typed a survey, review or tutorial" in n]
    results = _ids(survey)
    assert results[0] == "csurvey"  # the fixture's one survey, typed by its title
    assert bool(typed) == (len(results) > 1)  # the others are there for their wording
    assert not any("typed a" in n for n in result_notes(sessions["sibling"]))


def test_each_neighbour_shows_the_edge_that_makes_it_one(corpus, sessions):
    """A correct "papers citing X" result showed only c1 0.0 "not satisfied" beside an abstract
    sentence; the edge to the anchor, with its citing sentence, is why it is listed."""
    from litnav.session.paper import anchor_links
    from litnav.session.report import audit_view, render_report

    for direction, relation in (("successor", "cites the anchor"), ("predecessor", "cited by the anchor")):
        s = sessions[direction]
        links = anchor_links(s, corpus)
        assert set(links) == {r.corpus_id for r in s.results} and {v["relation"] for v in links.values()} == {relation}
        edges = corpus.citations("simclr") if direction == "successor" else corpus.references("simclr")
        by_id = {(e.citing_id if direction == "successor" else e.cited_id): e for e in edges}
        assert all(links[cid]["contexts"] == [c for c in by_id[cid].contexts if c.strip()] for cid in links)
        view = audit_view(s, corpus)
        assert all(r["anchor_link"] == links[r["corpus_id"]] for r in view["results"])
        assert relation in render_report(s, corpus)
        assert anchor_links(s, None) == links  # recorded in the session: nothing read again to explain it
        assert all(r.anchor_link is not None and r.anchor_link.relation == relation for r in s.results)
    # a sibling shows its edge to the anchor when it has one (a trial: none of 468 said why it was listed)
    siblings = anchor_links(sessions["sibling"], corpus)
    citers, cited = {e.citing_id for e in corpus.citations("simclr")}, {e.cited_id for e in corpus.references("simclr")}
    assert siblings and all(v["relation"] == ("cites the anchor" if cid in citers else "cited by the anchor")
                            for cid, v in siblings.items())
    assert set(siblings) == {r.corpus_id for r in sessions["sibling"].results} & (citers | cited)


def test_the_audit_of_a_neighbour_shows_its_edge_from_the_session_file(sessions, tmp_path):
    """A trial found the citing sentence in `search` and the report but not in `litnav audit`."""
    from typer.testing import CliRunner

    from litnav.cli import _register, app
    from litnav.session.io import write_session

    _register()

    s = sessions["successor"]
    path = write_session(s.model_copy(update={"corpus": str(tmp_path / "gone")}), tmp_path / "s.json")  # no corpus to read
    first = s.results[0]
    out = CliRunner().invoke(app, ["audit", str(path), "--paper", first.corpus_id], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert "cites the anchor" in out.output


def test_a_short_title_before_its_subtitle_and_an_arxiv_doi_name_the_anchor(corpus):
    """A trial's "papers that cite Soft Actor-Critic" said the paper was not in the corpus, though
    "Soft Actor-Critic: Off-Policy ..." was."""
    assert resolve_anchor(corpus, "Bootstrap your own latent") == "byol"  # "Bootstrap Your Own Latent: Self-..."
    with pytest.raises(AnchorError, match="could not resolve"):
        resolve_anchor(corpus, "Bootstrap your own", fuzzy=False)  # a title's start is no short title


def test_constraints_alone_after_an_anchor_keep_its_title_as_the_topic_and_exclusions_filter(corpus):
    """A trial's `--anchor MAML "only since 2021, not surveys"` ranked MAML's citers by their likeness
    to that string (1 of the top 10 on meta-learning), and "not about normalization" only demoted."""
    import re

    s = anchor_search("simclr", "successor", corpus, FAST, intent="since 2020, not about speech", top_k=10)
    c1 = next(c for c in s.turns[0].checklist.checkpoints if c.id == "c1")
    assert c1.text == corpus.paper("simclr").title
    citers = {e.citing_id for e in corpus.citations("simclr")}
    papers = corpus.papers(_ids(s))
    assert s.results and set(_ids(s)) <= citers and all(papers[c].year >= 2020 for c in _ids(s))
    assert not [c for c in _ids(s) if re.search(r"speech", f"{papers[c].title} {corpus.abstract(c)}", re.I)]
    assert [c for c in citers if re.search(r"speech", f"{corpus.paper(c).title} {corpus.abstract(c)}", re.I)]


def test_a_survey_of_the_anchor_is_not_older_than_it(corpus):
    """A trial's survey lists held papers years older than their anchor."""
    s = anchor_search("simclr", "survey", corpus, FAST, top_k=10)
    year = corpus.paper("simclr").year
    assert s.results and all(r.year is None or r.year >= year for r in s.results)
    assert any(c.predicate is not None and c.predicate.field == "year" for c in s.turns[0].checklist.checkpoints)


def test_feedback_stating_the_surveys_implied_period_makes_it_the_users(corpus):
    """The multi-turn benchmark's "only papers after 2016" on a survey search of a 2017 anchor
    failed with "nothing to change": the search had implied "since 2017" itself."""
    s = anchor_search("simclr", "survey", corpus, FAST, top_k=10)
    year = corpus.paper("simclr").year
    s = refine(s, f"only papers after {year - 1}", corpus, FAST)
    years = [c for c in s.turns[-1].checklist.checkpoints if c.predicate is not None and c.predicate.field == "year"]
    assert len(years) == 1 and years[0].source == "user" and "not older" not in years[0].text
    assert all(r.year is None or r.year >= year for r in s.results)


def test_an_empty_list_because_of_the_constraints_says_so_not_to_count_edges(corpus):
    """A trial's predecessors "since 2021" of a 2020 paper: the hint said to count citation edges."""
    from litnav.session.render import results_table

    s = anchor_search("simclr", "predecessor", corpus, FAST, intent="since 2021", top_k=10)
    assert not s.results
    caption = " ".join(str(results_table(s).caption).split())
    assert "fail the hard constraints" in caption and "references are not newer" in caption


@pytest.mark.parametrize(("intent", "reference", "rest"), [
    ("what cites DDPM since 2021", "DDPM", "since 2021"),
    ("what does DDPM cite before 2018", "DDPM", "before 2018"),
    ("what papers does DDPM cite", "DDPM", ""),
    ("what does Deep Sets cite, not surveys", "Deep Sets", "not surveys"),
    ("what does MAML cite about reinforcement learning", "MAML", "about reinforcement learning"),
])
def test_a_short_reference_running_on_into_constraints_or_a_topic_keeps_them_apart(intent, reference, rest):
    """A trial's "what does Deep Sets cite, not surveys" ran a topic search whose #1 was Deep Sets."""
    from litnav.navigator.intent.anchor_request import anchor_request

    request = anchor_request(intent)
    assert (request.reference, request.rest, request.exact_title) == (reference, rest, True)


def test_a_short_title_from_an_intents_words_names_a_paper_only_when_rare_in_titles(corpus):
    """"follow-up work on Statistical Machine Translation" became the anchor search of the one paper
    titled "Statistical Machine Translation: ..." (the phrase is in hundreds of ACL titles)."""
    class Common:
        def __getattr__(self, name):
            return getattr(corpus, name)

        def count_titles_with(self, phrase):
            return 500

    assert resolve_anchor(corpus, "Bootstrap your own latent", from_text=True) == "byol"  # in one title
    assert resolve_anchor(Common(), "Bootstrap your own latent") == "byol"  # --anchor: the user named a paper
    with pytest.raises(AnchorError):
        resolve_anchor(Common(), "Bootstrap your own latent", fuzzy=False, from_text=True)


def test_a_negated_venue_over_a_corpus_without_venues_is_a_preference(corpus):
    """A trial's "meta-learning, not published in ICML" over a corpus without venues returned nothing."""
    from litnav.navigator.intent import parse_intent
    from litnav.navigator.planner import relax_unsatisfiable

    class NoVenues:
        def __getattr__(self, name):
            return getattr(corpus, name)

        def venues(self):
            return {}

    checklist = parse_intent("contrastive learning, not published in NeurIPS", venues=corpus.venues())
    [m] = [c for c in relax_unsatisfiable(checklist, NoVenues()).checkpoints if c.predicate is not None]
    assert m.predicate.negate and m.weight < 1.0 and "names a venue" in m.text
    [hard] = [c for c in relax_unsatisfiable(checklist, corpus).checkpoints if c.predicate is not None]
    assert hard.weight == 1.0  # where papers have venues, it filters


def test_neighbours_without_an_edge_to_the_anchor_are_said_to_be_listed_for_likeness(sessions):
    """A trial: sibling and benchmark lists of papers with no citation link to the anchor never said so."""
    from litnav.session.render import result_notes

    for direction in ("sibling", "survey", "benchmark"):
        s = sessions[direction]
        unlinked = [r for r in s.results if r.anchor_link is None]
        said = [n for n in result_notes(s) if "neither cite the anchor" in n]
        assert bool(said) == bool(unlinked)
        if said:
            assert said[0].startswith(f"Note: {len(unlinked)} of {len(s.results)} results")


def test_a_title_holding_without_then_constraints_is_the_anchor_and_its_constraints(corpus):
    """A trial's "papers citing Deep Learning without Poor Local Minima since 2019" became a topic
    "Deep Learning" with an exclusion of "Poor Local Minima"."""
    from litnav.navigator import search

    title = corpus.paper("byol").title  # "... Representation Learning without Negatives"
    s = search(f"papers citing {title} since 2020", corpus, FAST, top_k=10)
    assert s.turns[0].anchor == "byol" and s.turns[0].direction == "successor"
    assert not [c for c in s.turns[0].checklist.checkpoints if c.kind == "exclusion"]


@pytest.mark.parametrize("how", [{"intent": "only the most cited ones"}, {"phrase": "most cited papers citing {t}"},
                                 {"phrase": "papers citing {t}, most cited first"}])
def test_the_most_cited_neighbours_are_an_order_not_a_topic(corpus, how):
    """A trial's `--anchor MAML "only the most cited ones"` searched the topic "most cited ones"."""
    from litnav.navigator import search
    from litnav.session.render import result_notes

    title = corpus.paper("simclr").title
    if "intent" in how:
        s = anchor_search("simclr", "successor", corpus, FAST, intent=how["intent"], top_k=3)
    else:
        s = search(how["phrase"].format(t=title), corpus, FAST, top_k=3)
    citers = {e.citing_id for e in corpus.citations("simclr")}
    counts = sorted((len(corpus.citations(c)) for c in citers), reverse=True)[:3]
    assert [len(corpus.citations(r.corpus_id)) for r in s.results] == counts and set(_ids(s)) <= citers
    assert s.turns[0].checklist.checkpoints[0].text == title
    assert any(n.startswith("Ordered by how many corpus papers cite each") for n in result_notes(s))
