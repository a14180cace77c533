"""Workflow validation: every invalid workflow is a clear error naming the node and field."""

from __future__ import annotations

import json

import pytest

from litnav.core.records import Checklist, Checkpoint, Node, Workflow
from litnav.core.settings import Settings
from litnav.librarians import WorkflowError, load_workflow, validate_workflow
from litnav.librarians.operators.fusion import reciprocal_rank_fusion
from litnav.navigator.planner import plan_workflow


def _checklist() -> Checklist:
    return Checklist(intent="dense retrieval for QA since 2020", checkpoints=[
        Checkpoint(id="c1", kind="topic", text="The paper studies dense retrieval", terms=["dense retrieval"]),
        Checkpoint(id="c2", kind="application", text="The paper targets question answering",
                   terms=["question answering"]),
    ])


def test_planned_workflow_is_valid_and_acyclic():
    wf = plan_workflow(_checklist(), Settings())
    order, params = validate_workflow(wf)
    assert order[-1] == wf.output == "rank"
    assert {"semantic_intent", "lexical_intent", "fuse", "evidence", "score"} <= set(order)
    assert not {"semantic_c1", "lexical_c2"} & set(order)  # facet searches are off by default
    assert order.index("fuse") > order.index("semantic_intent")
    assert params["fuse"].method == "rrf"
    faceted = plan_workflow(_checklist(), Settings.model_validate({"librarians": {"facet_weight": 0.3}}))
    order, params = validate_workflow(faceted)
    assert {"semantic_c1", "lexical_c2"} <= set(order)
    weights = dict(zip(next(n for n in faceted.nodes if n.id == "fuse").inputs, params["fuse"].weights))
    assert weights["semantic_c1"] == 0.3 and weights["semantic_intent"] == 1.0


FIRST = "the first retrieval node"


@pytest.mark.parametrize("mutate, node, field, phrase", [
    (lambda d: d["nodes"][0].update(op="teleport"), FIRST, "op", "unknown operator"),
    (lambda d: d["nodes"][0]["params"].update(k=0), FIRST, "params.k", "greater than"),
    (lambda d: d["nodes"][0]["params"].update(colour="red"), FIRST, "params.colour", "Extra"),
    (lambda d: d["nodes"][0].update(inputs=["fuse"]), FIRST, "inputs", "takes 0..0 inputs"),
    (lambda d: d.update(output="nowhere"), None, "output", "not a node id"),
])
def test_invalid_workflow_names_node_and_field(mutate, node, field, phrase):
    data = plan_workflow(_checklist(), Settings()).model_dump()
    first = data["nodes"][0]["id"]
    assert data["nodes"][0]["op"] in {"semantic_search", "lexical_search"}
    mutate(data)
    with pytest.raises(WorkflowError) as info:
        validate_workflow(Workflow.model_validate(data))
    assert info.value.node_id == (first if node == FIRST else node)
    assert info.value.field == field
    assert phrase in str(info.value)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0])
def test_a_fusion_weight_must_be_finite_and_not_negative(bad):
    data = plan_workflow(_checklist(), Settings()).model_dump()
    fuse = next(n for n in data["nodes"] if n["id"] == "fuse")
    fuse["params"]["weights"][0] = bad
    with pytest.raises(WorkflowError) as info:
        validate_workflow(Workflow.model_validate(data))
    assert info.value.node_id == "fuse" and info.value.field.startswith("params.weights")


def test_type_mismatch_and_cycle_are_rejected():
    wrong = Workflow(nodes=[
        Node(id="a", op="semantic_search", params={"query": "x"}),
        Node(id="s", op="score", inputs=["a"]),
    ], output="s")
    with pytest.raises(WorkflowError, match="produces 'pool' but score needs 'evidence'"):
        validate_workflow(wrong)
    cyclic = Workflow(nodes=[
        Node(id="u1", op="union", inputs=["u2"]),
        Node(id="u2", op="union", inputs=["u1"]),
    ], output="u1")
    with pytest.raises(WorkflowError, match="cycle"):
        validate_workflow(cyclic)


def test_load_workflow_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "wf.json"
    bad.write_text("{not json")
    with pytest.raises(WorkflowError, match="wf.json"):
        load_workflow(bad)
    data = plan_workflow(_checklist(), Settings()).model_dump()
    data["nodes"][1]["params"]["k"] = "many"
    second = data["nodes"][1]["id"]
    bad.write_text(json.dumps(data))
    with pytest.raises(WorkflowError, match=rf"{second}.*params.k.*wf.json"):
        load_workflow(bad)


def test_reciprocal_rank_fusion_hand_computed():
    fused = dict(reciprocal_rank_fusion([["a", "b"], ["b", "c"]], k=60))
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["c"] == pytest.approx(1 / 62)
    assert [d for d, _ in reciprocal_rank_fusion([["a", "b"], ["b", "c"]])] == ["b", "a", "c"]


def test_union_sum_adds_fused_scores_where_rrf_would_use_ranks():
    from litnav.librarians.operators.fusion import UnionParams, union
    from litnav.librarians.pool import Pool

    # "a" leads round 1 by far; "b" is second in both rounds: summed scores keep "a" first (as the
    # search loop's cumulative fusion does), RRF over the two ranked lists would put "b" first
    round1 = Pool([("a", 0.05), ("b", 0.02)], {})
    round2 = Pool([("c", 0.01), ("b", 0.005)], {})
    summed = union(UnionParams(method="sum"), [round1, round2], None, "fuse_rounds")
    assert [cid for cid, _ in summed.hits] == ["a", "b", "c"]
    assert dict(summed.hits)["b"] == pytest.approx(0.025)
    rrf = union(UnionParams(method="rrf"), [round1, round2], None, "fuse_rounds")
    assert rrf.hits[0][0] == "b"


def test_a_search_workflow_whose_output_is_no_ranking_is_refused_naming_the_output(tmp_path):
    """A workflow cut after its fusion ran and said "no candidate was found" though the fusion
    found 200 papers; its output must be score's or rerank's ranked list."""
    wf = plan_workflow(_checklist(), Settings())
    fuse = next(n for n in wf.nodes if n.op == "union" and not any(n.id in m.inputs for m in wf.nodes
                                                                   if m.op == "union"))
    tail = {n.id for n in wf.nodes if n.op in ("locate_evidence", "score", "rerank")}
    cut = wf.model_copy(update={"nodes": [n for n in wf.nodes if n.id not in tail], "output": fuse.id})
    path = tmp_path / "wf.json"
    path.write_text(cut.model_dump_json())
    with pytest.raises(WorkflowError, match=f"output '{fuse.id}' \\(union\\) produces 'pool'.*scorer.enabled=false"):
        load_workflow(path)
