"""Real systems over a fake corpus and a stubbed navigator: what each puts in its SystemRun."""

from __future__ import annotations

import pytest

from litnav.core.records import Checklist, Result, Round, Session, Usage, Workflow
from litnav.core.settings import Settings
from litnav.corpus.records import Hit
from litnav.evaluation.systems import DenseSystem, HybridSystem, LexicalSystem, LitnavSystem, make_systems


class FakeSearchCorpus:
    def lexical_search(self, query, k):
        return [Hit(corpus_id=c, score=s) for c, s in [("a", 9.0), ("b", 5.0), ("c", 1.0)]][:k]

    def semantic_search(self, query, k, ids=None):
        return [Hit(corpus_id=c, score=s) for c, s in [("c", 0.9), ("a", 0.8), ("d", 0.1)]][:k]


def test_baselines_rank_by_their_channel_and_hybrid_fuses():
    corpus = FakeSearchCorpus()
    assert LexicalSystem(corpus, 2).run("q").ranking == [("a", 9.0), ("b", 5.0)]
    assert [c for c, _ in DenseSystem(corpus, 3).run("q").ranking] == ["c", "a", "d"]
    run = HybridSystem(corpus, 3, lexical_k=3, semantic_k=3, rrf_k=60).run("q")
    # a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62, d: 1/63
    assert [c for c, _ in run.ranking] == ["a", "c", "b"]
    assert run.ranking[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert set(run.stage_seconds) == {"lexical", "semantic", "fuse"}
    assert run.usage is None and run.per_round is None and run.printed == []


def _session(settings: Settings) -> Session:
    plan = {"checklist": Checklist(intent="q"), "workflow": Workflow(output="n")}
    return Session(
        intent="q", corpus="c", settings={"rounds": settings.navigator.rounds},
        rounds=[Round(index=0, ranking=[("b", 0.5)], **plan), Round(index=1, ranking=[("a", 0.9), ("b", 0.5)], **plan)],
        results=[Result(rank=1, corpus_id="a", title="A", year=2020, venue="ACL", final_score=0.9, probability=0.8,
                        checkpoints=[])],
        usage={"navigator": Usage(prompt_tokens=10, completion_tokens=5, cost_usd=0.5),
               "scorer": Usage(prompt_tokens=1, completion_tokens=1, cost_usd=0.25)},
        timings={"plan": 0.1, "total": 0.3},
    )


def test_litnav_system_maps_the_session(monkeypatch):
    import litnav.navigator

    calls = []

    def fake_search(intent, corpus, settings=None, *, top_k=None, **kw):
        calls.append((intent, settings, top_k))
        return _session(settings)

    monkeypatch.setattr(litnav.navigator, "search", fake_search)
    systems = make_systems(["litnav", "litnav-rounds-2", "litnav-no-scorer", "bm25"], object(), Settings(), depth=50)
    assert [s.name for s in systems] == ["litnav", "litnav-rounds-2", "litnav-no-scorer", "bm25"]
    assert isinstance(systems[0], LitnavSystem)
    run = systems[0].run("q")
    assert run.ranking == [("a", 0.9)]
    assert run.per_round == [["b"], ["a", "b"]]
    assert run.usage.prompt_tokens == 11 and run.usage.completion_tokens == 6 and run.usage.cost_usd == pytest.approx(0.75)
    assert run.stage_seconds == {"plan": 0.1, "total": 0.3}
    assert run.printed == [{"corpus_id": "a", "title": "A", "year": 2020, "venue": "ACL"}]
    systems[1].run("q")
    systems[2].run("q")
    assert calls[0][2] == 50
    assert calls[1][1].navigator.rounds == 2
    assert calls[2][1].scorer.enabled is False and calls[0][1].scorer.enabled is True
