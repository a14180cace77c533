"""Multi-turn search: feedback becomes typed edits of the workflow, and only what changed re-runs.

A session's turns (``Session.turns``) are the first search and every refinement. A refinement

1. turns the feedback into :class:`~litnav.core.records.Edit` s (``navigator.feedback``, or
   edits given directly, e.g. from a clarification answer);
2. applies them to the latest turn's checklist and workflow (turn 1: every round's retrieval,
   ``navigator.turns.rounds_workflow``; :func:`apply_edits`): a year/venue/type constraint becomes a
   checkpoint enforced by a ``filter`` node (a hard one is also searched within by the
   whole-intent searches), an exclusion a checkpoint
   plus a ``text_filter`` node, a citation direction a ``citation_expand`` node fused with the
   other channels, a focus a topic checkpoint with its own retrieval branches, ...;
3. runs the new workflow once, reusing every retrieval-side node whose key (operator, parameters,
   the keys of its inputs and the checklist part it reads, :func:`node_keys`) matches a node an
   earlier turn ran: its recorded output is the cached value; evidence, scoring and ranking run
   again (they depend on the whole checklist);
4. appends a :class:`~litnav.core.records.Turn` with the edits, the nodes re-run and reused, the
   results and their diff against the previous turn.

Orchestration is plain code (no LangGraph): the session file is the whole persisted state, so a
refinement is a pure function ``Session -> Session`` and "resume after a crash" is "run the
refinement again from the last written session file".
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from datetime import date
from pathlib import Path
from textwrap import shorten
from typing import Any

from litnav.core.records import (
    Checklist,
    Checkpoint,
    Edit,
    FoundBy,
    Node,
    OperatorRun,
    ResultDiff,
    Round,
    Session,
    Turn,
    Workflow,
)
from litnav.core.settings import Settings
from litnav.core.text import visible_text
from litnav.librarians import Pool, validate_workflow
from litnav.librarians.operators import REGISTRY
from litnav.navigator.planner import (
    BASELINE_NODES,
    FIRST_STAGE_NODES,
    SOURCE_NODE,
    TAIL_OPS,
    chain_head,
    insert_before_evidence,
)
from litnav.navigator.turns import ensure_turns

log = logging.getLogger(__name__)

_CHECKLIST_OPS = {"filter": "metadata"}  # pool ops that read the checklist


# ---------------------------------------------------------------------------------------------
# turns and diffs


def diff_results(before: list[str], after: list[str]) -> ResultDiff:
    """Ids new in ``after``, dropped from ``before``, and moved ``(id, old_rank, new_rank)``."""
    old = {cid: i for i, cid in enumerate(before, 1)}
    new = {cid: i for i, cid in enumerate(after, 1)}
    return ResultDiff(new=[c for c in after if c not in old], dropped=[c for c in before if c not in new],
                      moved=[(c, old[c], new[c]) for c in after if c in old and old[c] != new[c]])


# ---------------------------------------------------------------------------------------------
# node keys and the operator cache


def node_keys(workflow: Workflow, checklist: Checklist) -> dict[str, str]:
    """A content key per node: sha1 of its operator, parameters, its inputs' keys and, for nodes
    that read the checklist, the part they read (``filter``: the metadata checkpoints; tail
    operators: the whole checklist). Two nodes with the same key compute the same value over
    the same corpus. Raises ``WorkflowError`` for an invalid workflow."""
    order, params = validate_workflow(workflow)
    nodes = {n.id: n for n in workflow.nodes}
    keys: dict[str, str] = {}
    for nid in order:
        node = nodes[nid]
        dep: Any = None
        if node.op == "filter":
            wanted = set(params[nid].checkpoint_ids)
            dep = [c.predicate.model_dump(mode="json") for c in checklist.checkpoints
                   if c.kind == "metadata" and c.predicate is not None
                   and (c.id in wanted if wanted else c.weight >= 1.0)]
        elif node.op in TAIL_OPS:
            dep = checklist.model_dump(mode="json", exclude={"intent"})
        blob = json.dumps([node.op, params[nid].model_dump(mode="json"), [keys[i] for i in node.inputs], dep],
                          sort_keys=True, default=str)
        keys[nid] = hashlib.sha1(blob.encode()).hexdigest()
    return keys


def operator_cache(session: Session, fingerprint: str | None = None) -> dict[str, OperatorRun]:
    """Key -> the latest recorded run of a pool-producing node with that key, over every round;
    with ``fingerprint`` (the corpus version now, ``Corpus.fingerprint``) only over the rounds of
    turns that searched that version (``Turn.corpus_fingerprint``, else the session's): a rebuilt
    corpus may have lost, changed or gained papers, so its searches run again."""
    cache: dict[str, OperatorRun] = {}
    fresh = None if fingerprint is None else {
        i for t in session.turns if (t.corpus_fingerprint or session.corpus_fingerprint) == fingerprint
        for i in t.rounds}
    for rnd in session.rounds:
        if fresh is not None and session.turns and rnd.index not in fresh:
            continue
        try:
            keys = node_keys(rnd.workflow, rnd.checklist)
        except ValueError:
            continue
        for run in rnd.operator_runs:
            if run.node_id in keys and run.op not in TAIL_OPS and REGISTRY.get(run.op) is not None:
                cache[keys[run.node_id]] = run
    return cache


def _cached_values(workflow: Workflow, keys: dict[str, str], cache: dict[str, OperatorRun]) -> dict[str, Pool]:
    """Pools rebuilt from recorded outputs for the non-tail nodes whose key is cached and whose
    inputs are all cached too (provenance: a source node's own channel; a derived node the
    union of its inputs' provenance)."""
    order, _ = validate_workflow(workflow)
    nodes = {n.id: n for n in workflow.nodes}
    values: dict[str, Pool] = {}
    for nid in order:
        node = nodes[nid]
        run = cache.get(keys[nid])
        if node.op in TAIL_OPS or run is None or any(i not in values for i in node.inputs):
            continue
        hits = [(cid, float(score)) for cid, score in run.outputs]
        found: dict[str, list[FoundBy]] = {}
        for rank, (cid, score) in enumerate(hits, 1):
            if node.inputs:
                merged: list[FoundBy] = []
                for i in node.inputs:
                    for fb in values[i].found_by.get(cid, []):
                        if fb not in merged:
                            merged.append(fb)
                found[cid] = merged
            else:
                found[cid] = [FoundBy(channel=REGISTRY[node.op].channel, round=1, node_id=nid, score=score,
                                      rank=rank)]
        values[nid] = Pool(hits, found)
    return values


# ---------------------------------------------------------------------------------------------
# applying edits


def _filtered(workflow: Workflow, node_id: str) -> bool:
    """True when every path from a source into ``node_id`` passes a ``filter`` node."""
    node = next(n for n in workflow.nodes if n.id == node_id)
    if node.op == "filter":
        return True
    return bool(node.inputs) and all(_filtered(workflow, i) for i in node.inputs)


def _fusion_node(workflow: Workflow) -> Node | None:
    """The union node of the retrieval side that the most branches feed (None when there is none)."""
    unions = [n for n in workflow.nodes if n.op == "union"]
    return max(unions, key=lambda n: len(n.inputs)) if unions else None


def _lift_guard(workflow: Workflow, added: str) -> list[Edit]:
    """Remove the baseline searches (``navigator.planner.BASELINE_NODES``): the scored head was
    drawn from their top D to protect the first turn's plain hybrid results, but a branch the
    feedback adds (``added``) asks for other papers, which must be able to rise."""
    edits = []
    for node_id in [n.id for n in workflow.nodes if n.id in BASELINE_NODES]:
        _remove_node(workflow, node_id)
        edits.append(Edit(action="remove_node", target=node_id,
                          reason=f"{added} asks for papers beyond the first turn's plain hybrid results"))
    return edits


def _add_branch(workflow: Workflow, node: Node, weight: float) -> list[Edit]:
    """Fuse a new source ``node`` with the existing channels (wrapping the chain head in a union
    when the workflow has none), lifting the first turn's baseline guard (:func:`_lift_guard`);
    returns the implied node edits."""
    lifted = _lift_guard(workflow, node.id)
    workflow.nodes.insert(0, node)
    fuse = _fusion_node(workflow)
    if fuse is None:
        head = chain_head(workflow)
        fuse = Node(id="fuse_turns", op="union", inputs=[head, node.id], params={"method": "rrf", "weights": [1.0, weight]},
                    note="fuses the channels added by refinement with the original ones")
        for n in workflow.nodes:
            if n.op == "locate_evidence":
                n.inputs = [fuse.id]
        workflow.nodes.insert(next(i for i, n in enumerate(workflow.nodes) if n.op == "locate_evidence"), fuse)
        return lifted + [Edit(action="add_node", target=fuse.id, detail={"node": fuse.model_dump(mode="json")},
                              reason=f"fuse {node.id} with the existing candidates")]
    added: list[Edit] = []
    if fuse.params.get("method") == "sum":  # the rounds' fused (RRF) scores are summed: the channel's own
        # scores (BM25, cosine, citation links) would swamp them, so it joins as its own RRF list
        ranked = Node(id=_unique_id(workflow, f"fuse_{node.id}"), op="union", inputs=[node.id],
                      params={"method": "rrf", "k": fuse.params.get("k", 60), "weights": [weight]},
                      note=f"reciprocal rank fusion of {node.id}, summed with the rounds' fused lists")
        workflow.nodes.insert(workflow.nodes.index(fuse), ranked)
        added.append(Edit(action="add_node", target=ranked.id, detail={"node": ranked.model_dump(mode="json")},
                          reason=f"rank {node.id} on the scale of the other rounds' fused lists"))
        node, weight = ranked, 1.0
    weights = fuse.params.get("weights") or [1.0] * len(fuse.inputs)
    fuse.inputs = fuse.inputs + [node.id]
    fuse.params = {**fuse.params, "weights": list(weights) + [weight]}
    return lifted + added + [Edit(action="modify_node", target=fuse.id,
                                  detail={"inputs": fuse.inputs, "weights": fuse.params["weights"]},
                                  reason=f"fuse {node.id} with the other channels")]


def _unban_source(workflow: Workflow, corpus_id: str, reason: str | None) -> list[Edit]:
    """Let ``corpus_id``, a source of the passage (``Checklist.source_ids``) that the user pins,
    through the workflow's ``planner.SOURCE_NODE``; returns the edit made (none without the node)."""
    node = next((n for n in workflow.nodes if n.id == SOURCE_NODE), None)
    if node is None:
        return []
    old = list(node.params.get("ban_ids", []))
    node.params = {**node.params, "ban_ids": [c for c in old if c != corpus_id]}
    return [Edit(action="set_param", target=node.id, detail={"param": "ban_ids", "old": old,
                                                            "new": node.params["ban_ids"]}, reason=reason)]


def _unique_id(workflow: Workflow, base: str) -> str:
    ids = {n.id for n in workflow.nodes}
    if base not in ids:
        return base
    i = 2
    while f"{base}_{i}" in ids:
        i += 1
    return f"{base}_{i}"


def _search_within(workflow: Workflow, checkpoint_id: str, reason: str | None) -> list[Edit]:
    """The whole-intent searches of ``workflow`` (``navigator.planner.FIRST_STAGE_NODES``) now
    search within the hard metadata checkpoint ``checkpoint_id`` too (their ``within``), as the
    planner does for constraints stated in the intent; returns the edits made."""
    edits = []
    for n in workflow.nodes:
        if n.id in FIRST_STAGE_NODES and n.op in ("lexical_search", "semantic_search"):
            within = list(n.params.get("within", []))
            n.params = {**n.params, "within": within + [checkpoint_id]}
            edits.append(Edit(action="set_param", target=n.id, detail={
                "param": "within", "old": within, "new": n.params["within"]}, reason=reason))
    return edits


FOCUS_WEIGHT = 3.0
"""Fusion weight of each retrieval branch a focus adds ("focus on X", "more like #2", a chosen
branch): as its own RRF list beside the rounds' fused lists (:func:`_add_branch`), at weight 1 a
focus barely moved the list ("focus on arithmetic" in a search on LLM reasoning brought no paper
on arithmetic into the top 10; at 3, three); on 36 "more like #N" cases of the NeurIPS/ICML corpus
the top 10 held 0.44 papers new to the first turn's top 20 at weight 1 and 1.22 at 3, with as many
papers citation-linked to #N (4.53 and 4.56 of 10)."""
ANCHOR_FOCUS_WEIGHT = 2.0
"""Fusion weight of the anchor's neighbours ordered by a "focus on X" beside their first order (one
channel each: "focus on" puts X first, as its two searches do beside an intent's channels)."""


def _anchor_neighbours(workflow: Workflow) -> list[Node]:
    """The citation searches of an anchor search's workflow: a ``citation_expand`` of seed papers
    that a ``text_filter`` reading it bans (the anchor templates' "never the anchor itself"); none
    for any other workflow, whose "focus on X" searches the corpus."""
    found = []
    for n in workflow.nodes:
        seeds = set(n.params.get("seed_ids") or [])
        if n.op == "citation_expand" and seeds and not n.inputs and any(
                f.op == "text_filter" and n.id in f.inputs and seeds <= set(f.params.get("ban_ids") or [])
                for f in workflow.nodes):
            found.append(n)
    return found


def apply_edits(checklist: Checklist, workflow: Workflow, edits: list[Edit], settings: Settings,
                pins: list[str] | None = None, bans: list[str] | None = None,
                ) -> tuple[Checklist, Workflow, list[Edit], list[str], list[str]]:
    """Apply abstract ``edits`` (from ``parse_feedback``) to copies of ``checklist``/``workflow``.

    Returns ``(checklist, workflow, concrete_edits, pins, bans)``: the concrete edits are the
    node/checkpoint edits actually made, each with its reason (an abstract edit may imply several,
    e.g. a citation direction adds a node and modifies the fusion). Raises ``WorkflowError`` when
    the result is not a valid workflow and ``ValueError`` for an edit that names nothing.
    """
    cl = checklist.model_copy(deep=True)
    wf = workflow.model_copy(deep=True)
    pins, bans = list(pins or []), list(bans or [])
    pinned_now: set[str] = set()
    done: list[Edit] = []
    lib = settings.librarians
    for e in edits:
        role = e.detail.get("role")
        if e.action == "add_checkpoint":
            cp = Checkpoint.model_validate(e.detail["checkpoint"])
            cl.checkpoints.append(cp)
            done.append(Edit(action="add_checkpoint", target=cp.id, detail={"checkpoint": e.detail["checkpoint"]}
                             | ({"unmentioned": True} if e.detail.get("unmentioned") else {}), reason=e.reason))
            if role == "filter":
                # every round's filter reads the new constraint, and nothing reaches the evidence
                # step around a filter (a later turn fuses every round's branches)
                for filt in (n for n in wf.nodes if n.op == "filter"):
                    old = list(filt.params.get("checkpoint_ids", []))
                    if old:  # empty means every hard metadata checkpoint, which now includes cp
                        filt.params = {**filt.params, "checkpoint_ids": old + [cp.id]}
                    done.append(Edit(action="set_param", target=filt.id, detail={
                        "param": "checkpoint_ids", "old": old, "new": filt.params.get("checkpoint_ids", [])},
                        reason=e.reason))
                if not _filtered(wf, chain_head(wf)):
                    filt = Node(id=_unique_id(wf, "filter"), op="filter", params={"checkpoint_ids": [cp.id]},
                                note="exact filter by the hard metadata constraints")
                    insert_before_evidence(wf, filt)
                    done.append(Edit(action="add_node", target=filt.id, detail={"node": filt.model_dump(mode="json")},
                                     reason=e.reason))
                if cp.predicate is not None and cp.weight >= 1.0:
                    done += _search_within(wf, cp.id, e.reason)
            elif role == "exclude":
                done.append(_extend_exclusion(wf, "exclude_terms", list(e.detail.get("terms") or cp.terms), e.reason))
            elif role == "focus" and (around := _anchor_neighbours(wf)):
                for hood in around:  # an anchor search: its neighbours ordered by the focus, not the corpus
                    node = Node(id=_unique_id(wf, f"{hood.id}_{cp.id}"), op="citation_expand",
                                params={**hood.params, "query": " ".join(cp.terms)},
                                note=f"the anchor's {hood.params.get('direction')} papers closest to the user's focus "
                                     f"{shorten(' '.join(cp.terms), 120)!r}")
                    done.append(Edit(action="add_node", target=node.id, detail={"node": node.model_dump(mode="json")},
                                     reason=e.reason))
                    done += _add_branch(wf, node, ANCHOR_FOCUS_WEIGHT)
            elif role == "focus":
                q = e.detail.get("query") or " ".join(cp.terms)
                channels = e.detail.get("channels") or ["semantic", "lexical"]
                for op, k in (("semantic_search", lib.semantic_k), ("lexical_search", lib.lexical_k)):
                    if op.split("_")[0] not in channels:
                        continue
                    query = (e.detail.get("semantic_query") or q) if op == "semantic_search" else q
                    node = Node(id=_unique_id(wf, f"{op.split('_')[0]}_{cp.id}"), op=op,
                                params={"query": query, "k": max(10, k // 2), "checkpoint_id": cp.id},
                                note=f"retrieval for the user's focus {shorten(query, 120)!r}")
                    done.append(Edit(action="add_node", target=node.id, detail={"node": node.model_dump(mode="json")},
                                     reason=e.reason))
                    done += _add_branch(wf, node, FOCUS_WEIGHT)
        elif e.action == "drop_checkpoint":
            gone = next((c for c in cl.checkpoints if c.id == e.target), None)
            cl.checkpoints = [c for c in cl.checkpoints if c.id != e.target]
            done.append(Edit(action="drop_checkpoint", target=e.target, reason=e.reason))
            if gone is not None and gone.kind == "exclusion":  # its terms leave the exclusion filter too
                done += _drop_exclusion_terms(wf, gone.terms, cl, e.reason)
            for n in list(wf.nodes):
                ids = n.params.get("checkpoint_ids") if n.op == "filter" else None
                if ids and e.target in ids:
                    n.params = {**n.params, "checkpoint_ids": [i for i in ids if i != e.target]}
                    if n.params["checkpoint_ids"]:
                        done.append(Edit(action="set_param", target=n.id, detail={
                            "param": "checkpoint_ids", "old": ids, "new": n.params["checkpoint_ids"]}, reason=e.reason))
                    else:
                        _remove_node(wf, n.id)
                        done.append(Edit(action="remove_node", target=n.id, reason=e.reason))
                within = n.params.get("within")
                if within and e.target in within:  # a search within the dropped constraint: the whole corpus again
                    kept = [i for i in within if i != e.target]
                    n.params = {k: v for k, v in n.params.items() if k != "within"} | ({"within": kept} if kept else {})
                    done.append(Edit(action="set_param", target=n.id, detail={
                        "param": "within", "old": within, "new": kept}, reason=e.reason))
                if n.params.get("checkpoint_id") == e.target and n.op in ("semantic_search", "lexical_search"):
                    _remove_node(wf, n.id)
                    done.append(Edit(action="remove_node", target=n.id, reason=e.reason))
        elif e.action == "reweight_checkpoint":
            cp = cl.get(e.target)
            cp.weight = float(e.detail["new"])
            done.append(e)
        elif e.action == "add_node" and role == "citation":
            direction = e.detail["direction"]
            seeds = list(e.detail["seed_ids"])
            existing = next((n for n in wf.nodes if n.op == "citation_expand"
                             and n.params.get("seed_ids") == seeds and not n.inputs), None)
            if existing is not None:
                old = existing.params.get("direction", "both")
                existing.params = {**existing.params, "direction": direction}
                done.append(Edit(action="set_param", target=existing.id,
                                 detail={"param": "direction", "old": old, "new": direction}, reason=e.reason))
                continue
            from litnav.navigator.planner import content_query

            node = Node(id=_unique_id(wf, e.target), op="citation_expand",
                        params={"direction": direction, "seed_ids": seeds, "seeds": 0, "k": 100,
                                "query": content_query(cl) or cl.intent},
                        note=f"papers {'citing' if direction == 'citing' else 'cited by'} {', '.join(seeds)}")
            done.append(Edit(action="add_node", target=node.id, detail={"node": node.model_dump(mode="json")},
                             reason=e.reason))
            done += _add_branch(wf, node, 1.0)
        elif e.action == "set_param" and role == "top_k":
            rank = next((n for n in wf.nodes if n.op == "rerank"), None)
            if rank is None:
                raise ValueError("the workflow has no rerank node whose top_k could change")
            old = rank.params.get("top_k")
            rank.params = {**rank.params, "top_k": int(e.detail["value"])}
            done.append(Edit(action="set_param", target=rank.id, detail={"param": "top_k", "old": old,
                                                                         "new": rank.params["top_k"]}, reason=e.reason))
        elif e.action in ("add_node", "modify_node", "remove_node", "set_param"):
            done += _node_edit(wf, e)
        elif e.action == "pin":  # this turn's pins first, in the order said ("pin #1 and #2"), then earlier ones
            fresh = [p for p in pins if p in pinned_now and p != e.target]
            pins = fresh + [e.target] + [p for p in pins if p != e.target and p not in pinned_now]
            pinned_now.add(e.target)
            bans = [b for b in bans if b != e.target]
            if e.target in cl.source_ids:  # the passage's own paper, wanted after all
                cl = cl.model_copy(update={"source_ids": [c for c in cl.source_ids if c != e.target]})
                done += _unban_source(wf, e.target, e.reason)
            done.append(e)
        elif e.action == "ban":
            bans = bans + [e.target] if e.target not in bans else bans
            pins = [p for p in pins if p != e.target]
            done.append(_extend_exclusion(wf, "ban_ids", [e.target], e.reason))
            done.append(e)
        else:
            raise ValueError(f"cannot apply edit {e.action} {e.target!r}")
    validate_workflow(wf)
    return cl, wf, done, pins, bans


def _drop_exclusion_terms(wf: Workflow, terms: list[str], cl: Checklist, reason: str) -> list[Edit]:
    """Take ``terms`` of a dropped exclusion out of the exclusion ``text_filter`` node (those
    another exclusion of ``cl`` still holds stay), removing the node when it filters nothing."""
    ex = next((n for n in wf.nodes if n.op == "text_filter" and n.id.startswith("exclude")), None)
    if ex is None:
        return []
    kept = {t.lower() for c in cl.checkpoints if c.kind == "exclusion" for t in c.terms}
    old = list(ex.params.get("exclude_terms", []))
    new = [t for t in old if t.lower() in kept or t.lower() not in {x.lower() for x in terms}]
    if new == old:
        return []
    if not new and not ex.params.get("ban_ids") and not ex.params.get("require_terms"):
        _remove_node(wf, ex.id)
        return [Edit(action="remove_node", target=ex.id, reason=reason)]
    ex.params = {**ex.params, "exclude_terms": new}
    return [Edit(action="set_param", target=ex.id, detail={"param": "exclude_terms", "old": old, "new": new},
                 reason=reason)]


def _extend_exclusion(wf: Workflow, param: str, values: list[str], reason: str) -> Edit:
    """Add ``values`` to ``param`` (``exclude_terms`` or ``ban_ids``) of the workflow's exclusion
    ``text_filter`` node, adding that node before evidence location when there is none; returns
    the edit made."""
    ex = next((n for n in wf.nodes if n.op == "text_filter" and n.id.startswith("exclude")), None)
    if ex is None:
        ex = Node(id=_unique_id(wf, "exclude"), op="text_filter", params={param: list(values)},
                  note="drops banned papers and papers about excluded topics")
        insert_before_evidence(wf, ex)
        return Edit(action="add_node", target=ex.id, detail={"node": ex.model_dump(mode="json")}, reason=reason)
    old = list(ex.params.get(param, []))
    ex.params = {**ex.params, param: old + [v for v in values if v not in old]}
    return Edit(action="set_param", target=ex.id, detail={"param": param, "old": old, "new": ex.params[param]},
                reason=reason)


def _remove_node(wf: Workflow, node_id: str) -> None:
    """Remove a node, splicing a single-input node out of the chain (its consumers, a union
    included, read its input) and dropping a source node from multi-input consumers (and their
    weights)."""
    node = wf.node(node_id)
    wf.nodes = [n for n in wf.nodes if n.id != node_id]
    for n in wf.nodes:
        if node_id in n.inputs:
            if n.op == "union" and len(node.inputs) == 1:  # a filter between a fusion and a union
                n.inputs = [node.inputs[0] if i == node_id else i for i in n.inputs]
            elif n.op == "union":
                idx = n.inputs.index(node_id)
                n.inputs = [i for i in n.inputs if i != node_id]
                if n.params.get("weights"):
                    n.params = {**n.params, "weights": [w for j, w in enumerate(n.params["weights"]) if j != idx]}
            else:
                n.inputs = [node.inputs[0] if i == node_id else i for i in n.inputs] if node.inputs else \
                    [i for i in n.inputs if i != node_id]


def _node_edit(wf: Workflow, e: Edit) -> list[Edit]:
    """A literal node edit (from an LLM or a script): ``add_node`` with ``detail.node`` (and
    optionally ``detail.fuse_weight`` to fuse it), ``modify_node``/``set_param`` with
    ``detail.params`` or ``detail.param``/``detail.value``, ``remove_node``."""
    if e.action == "add_node":
        node = Node.model_validate(e.detail["node"])
        if "fuse_weight" in e.detail:
            return [e] + _add_branch(wf, node, float(e.detail["fuse_weight"]))
        wf.nodes.insert(0, node)
        return [e]
    if e.action == "remove_node":
        _remove_node(wf, e.target)
        return [e]
    node = wf.node(e.target)
    if "params" in e.detail:
        node.params = {**node.params, **e.detail["params"]}
    else:
        node.params = {**node.params, e.detail["param"]: e.detail["value"]}
    if "inputs" in e.detail:
        node.inputs = list(e.detail["inputs"])
    return [e]


# ---------------------------------------------------------------------------------------------
# running a turn


def run_turn(
    session: Session,
    edits: list[Edit],
    corpus,
    settings: Settings | None = None,
    *,
    feedback: str | None = None,
    engine: str = "rules",
    today: date | None = None,
    clarification=None,
    meter=None,
) -> Session:
    """Apply ``edits`` to the latest turn and run it (see the module docstring); returns
    ``session`` with the new turn appended, its rounds added and ``results`` replaced.

    The turn is judged and ordered by the engines ``settings`` configures (the LLM teacher and
    reranker included), recorded in ``Turn.engines`` and, as the latest, ``Session.engines``;
    the LLM usage of ``meter`` (a ``UsageMeter``, also holding the feedback parser's calls) is
    added to ``Session.usage``."""
    from litnav.llm import UsageMeter
    from litnav.navigator.agents import build_agents
    from litnav.navigator.loop import SearchRun
    from litnav.navigator.results import build_results, link_to_anchor
    from litnav.navigator.search import _web_fn
    from litnav.navigator.students import search_student

    settings = settings or Settings()
    ensure_turns(session)
    prev = session.turns[-1]
    checklist, workflow, done, pins, bans = apply_edits(prev.checklist, prev.workflow, edits, settings,
                                                         prev.pins, prev.bans)
    keys = node_keys(workflow, checklist)
    fingerprint = corpus.fingerprint() if hasattr(corpus, "fingerprint") else None
    cached = _cached_values(workflow, keys, operator_cache(session, fingerprint))
    top_k = workflow.top_k() or settings.navigator.top_k
    student = search_student(settings, corpus)
    meter = meter or UsageMeter()
    agents = build_agents(settings, corpus, meter=meter, student=student, top_k=top_k, today=today)
    run = SearchRun(session.intent, corpus, settings, workflow=workflow, checklist=checklist, cached=cached,
                    rounds=1, top_k=top_k, student=student, web_fn=_web_fn(settings), today=today,
                    teacher=agents.teacher, llm_reranker=agents.llm_reranker, engines=dict(agents.engines))
    new = run.run()
    judged = {k: v for k, v in new.engines.items() if k in _TURN_ENGINES}
    session.engines = {**{k: v for k, v in session.engines.items() if k != "scorer_training"}, **judged}
    for role, used in meter.by_role().items():  # this turn's LLM calls, feedback parsing included
        session.usage[role] = session.usage[role].add(used) if role in session.usage else used
    ranked = list(run.stage.ranked)
    if pins:
        by_id = {p.corpus_id: p for p in ranked}
        ranked = [by_id[c] for c in pins if c in by_id] + [p for p in ranked if p.corpus_id not in pins]
        missing = [c for c in pins if c not in by_id]
        gone = [c for c in missing if hasattr(corpus, "paper") and corpus.paper(c) is None]
        if gone:
            log.warning("pinned papers %s are no longer in the corpus (it was rebuilt without them)", gone)
        if set(missing) - set(gone):
            log.warning("pinned papers %s are not among this turn's candidates", [c for c in missing if c not in gone])
    # the anchor is never a result of its own anchor session, whatever a turn's citation search found
    # (a trial's "what did #1 build on" put the anchor at #2 of its own successors)
    ranked = [p for p in ranked if p.corpus_id not in set(bans) and p.corpus_id != prev.anchor]
    results = link_to_anchor(build_results(corpus, ranked, run.found_by, top_k), corpus, prev.anchor, prev.direction)
    base = len(session.rounds)
    rounds: list[Round] = []
    for r in new.rounds:
        r.index += base
        rounds.append(r)
    ran = [op.node_id for r in rounds for op in r.operator_runs]
    turn = Turn(index=prev.index + 1, feedback=feedback, anchor=prev.anchor, direction=prev.direction, edits=done,
                checklist=checklist, workflow=workflow, rounds=[r.index for r in rounds],
                rerun=list(dict.fromkeys(ran)), reused=[n for n in cached if n not in ran], pins=pins, bans=bans,
                results=results, diff=diff_results([r.corpus_id for r in prev.results], [r.corpus_id for r in results]),
                engine=engine, clarification=clarification, corpus_fingerprint=fingerprint, engines=judged)
    session.rounds.extend(rounds)
    session.turns.append(turn)
    session.results = results
    session.stop_reason = new.stop_reason
    for k, v in new.timings.items():
        session.timings[k] = round(session.timings.get(k, 0.0) + v, 6)
    return session


_TURN_ENGINES = ("scorer", "scorer_training", "reranker", "retrieval")
"""The ``Session.engines`` roles a refinement turn runs again, so records anew."""


def session_settings(session: Session) -> Settings:
    """The settings ``session`` recorded, to run with again (``loop.replayable_settings``: masked
    keys come from ``api_key_env``); the defaults when it recorded none or ones this version
    cannot read (logged). Raises ``ValueError`` when a role's endpoint had credentials the
    session file does not keep."""
    from pydantic import ValidationError

    from litnav.navigator.loop import replayable_settings

    if not session.settings:
        return Settings()
    try:
        return Settings.model_validate(replayable_settings(session.settings))
    except ValidationError as exc:
        log.warning("the session's recorded settings cannot be read (%s); refining with the defaults",
                    str(exc).splitlines()[0])
        return Settings()


def refine(
    session: Session,
    feedback: str,
    corpus,
    settings: Settings | None = None,
    *,
    today: date | None = None,
    parser: Callable[..., list[Edit]] | None = None,
    top_k: int | None = None,
    max_top_k: int | None = None,
) -> Session:
    """Refine ``session`` with one line of user ``feedback`` and return it with a new turn
    (``corpus``: an open ``Corpus`` or a corpus directory, opened and closed here). ``top_k``
    (>= 1) also sets how many results the turn returns (the edit "show N results" makes); with it
    the feedback may be empty.

    The feedback is parsed by ``parser(feedback, checklist, workflow, ranking, corpus, today)``
    (default: ``navigator.llm_feedback.LLMFeedbackParser`` when ``llm.navigator`` is configured,
    else the rule-based ``navigator.feedback.parse_feedback``); the edits are applied and
    the workflow re-run with cached operator outputs (:func:`run_turn`). Without ``settings`` the
    session's own recorded settings run it (:func:`session_settings`: its LLM roles and student
    too). ``session`` is changed in place and returned. Raises ``ValueError`` when the feedback yields no edit, or when
    ``corpus`` is another corpus than the session's (another directory *and* other contents: the
    recorded searches name papers of the session's corpus; a moved or grown corpus is fine),
    ``FeedbackError`` when it names a missing result or checkpoint, ``WorkflowError`` when the
    edited workflow is invalid. ``max_top_k`` bounds the results the feedback may ask for ("show
    1000000 results" is a ``ValueError`` where a server allows 100 a request).
    """
    from litnav.corpus.reader import opened
    from litnav.navigator.arguments import check_arguments

    if not isinstance(session, Session):
        raise TypeError(f"session must be a Session, got {type(session).__name__} "
                        "(litnav.read_session(path) reads a session file)")
    check_arguments(settings=settings, top_k=top_k)
    if isinstance(feedback, str):
        feedback = visible_text(feedback)
    with opened(corpus, settings.corpus if settings else None) as c:
        return _refine(session, feedback, c, settings, today=today, parser=parser, top_k=top_k, max_top_k=max_top_k)


MAX_FEEDBACK_CHARS = 5_000
"""The longest feedback of one turn: a few sentences of changes (longer text was read for minutes)."""


def check_same_corpus(session: Session, corpus, doing: str = "a refinement re-runs the session's recorded searches") -> None:
    """Raise ``ValueError`` when ``corpus`` lies in another directory than ``session.corpus`` and
    has other contents (fingerprint) than the session recorded; ``doing`` says what needs the
    session's own corpus."""
    where = getattr(corpus, "directory", None)
    if not session.corpus or where is None or not session.corpus_fingerprint:
        return
    try:
        same_place = Path(session.corpus).resolve() == Path(where).resolve()
    except OSError:
        same_place = False
    if not same_place and corpus.fingerprint() != session.corpus_fingerprint:
        raise ValueError(f"{where} is not the corpus this session searched ({session.corpus}): {doing}, whose "
                         f"papers belong to that corpus; start a new search on {where} instead")


def _refine(session: Session, feedback: str, corpus, settings: Settings | None, *, today: date | None,
            parser: Callable[..., list[Edit]] | None, top_k: int | None, max_top_k: int | None = None) -> Session:
    from litnav.navigator.feedback import parse_feedback, top_k_edit

    if not isinstance(feedback, str):
        raise ValueError(f"feedback must be a string, got {type(feedback).__name__}")
    if len(feedback) > MAX_FEEDBACK_CHARS:
        raise ValueError(f"feedback has {len(feedback):,} characters; one turn's feedback is at most "
                         f"{MAX_FEEDBACK_CHARS:,} (say one change at a time)")

    settings = settings or session_settings(session)
    check_same_corpus(session, corpus)
    if (where := getattr(corpus, "directory", None)) is not None:  # a moved corpus: later turns find it here
        session.corpus = str(Path(where).resolve())
    ensure_turns(session)
    prev = session.turns[-1]
    from litnav.llm import UsageMeter

    meter = UsageMeter()
    if parser is None and settings.llm.navigator:  # the LLM navigator reads the feedback when configured
        from litnav.llm import LLMError, engine_for
        from litnav.navigator.llm_feedback import LLMFeedbackParser

        try:
            parser = LLMFeedbackParser(engine_for(settings, "navigator", meter), fallback=settings.llm.fallback)
        except LLMError:
            if not settings.llm.fallback:
                raise
    from litnav.navigator.branches import branch_answer

    clarification = None
    if (answered := branch_answer(session, feedback, corpus)) is not None:  # "a": the branch question's answer
        edits, clarification, rest = answered
        if rest:  # "branch a, only papers after 2005": the rest is feedback too
            edits += (parser or parse_feedback)(rest, prev.checklist, prev.workflow,
                                                [r.corpus_id for r in prev.results], corpus, today)
        session.clarifications.append(clarification)
        feedback = f"[{clarification.answer}] {', '.join(edits[0].detail['checkpoint']['terms'])}" + (
            f"; {rest}" if rest else "")
    else:
        edits = [] if top_k is not None and not feedback.strip() else (parser or parse_feedback)(
            feedback, prev.checklist, prev.workflow, [r.corpus_id for r in prev.results], corpus, today)
    if top_k is not None:
        said = [e.detail["value"] for e in edits if e.detail.get("role") == "top_k"]
        if any(n != top_k for n in said):
            raise ValueError(f"the feedback asks for {said[0]} results and top_k for {top_k}; give one")
        edits = [e for e in edits if e.detail.get("role") != "top_k"] + [top_k_edit(top_k, "--top")]
        if not said:  # the turn records what was applied
            feedback = "; ".join(x for x in (feedback.strip(), f"show {top_k} results") if x)
    asked = [int(e.detail["value"]) for e in edits if e.detail.get("role") == "top_k"]
    if max_top_k is not None and asked and max(asked) > max_top_k:
        raise ValueError(f"the feedback asks for {max(asked):,} results; at most {max_top_k} can be returned here")
    engine = "rules" if parser is None else getattr(parser, "engine", "custom")
    edits = _fresh_checkpoint_ids(session, prev.checklist, edits)
    return run_turn(session, edits, corpus, settings, feedback=feedback, engine=engine, today=today, meter=meter,
                    clarification=clarification)


def _fresh_checkpoint_ids(session: Session, current: Checklist, edits: list[Edit]) -> list[Edit]:
    """The edits with every added checkpoint's id unused in the whole session: an id an earlier
    turn dropped ("ignore the year constraint" dropped m1) is never given to a new checkpoint
    ("only ICML papers" became m1 again), so m1 means one thing in every audit, export column and
    matrix of the session. References to a renamed id inside the edits follow it."""
    used = {c.id for c in current.checkpoints}
    used |= {c.id for r in session.rounds for c in r.checklist.checkpoints}
    used |= {c.id for t in session.turns for c in t.checklist.checkpoints}
    retired = used - {c.id for c in current.checkpoints}
    used |= {e.detail["checkpoint"].get("id") for e in edits if e.action == "add_checkpoint"
             and isinstance(e.detail.get("checkpoint"), dict)}  # ids this turn adds are taken too
    renames: dict[str, str] = {}
    for e in edits:
        cp = e.detail.get("checkpoint") if e.action == "add_checkpoint" else None
        if not isinstance(cp, dict) or cp.get("id") not in retired:
            continue
        prefix = cp["id"].rstrip("0123456789")
        n = 1
        while f"{prefix}{n}" in used:
            n += 1
        renames[cp["id"]] = f"{prefix}{n}"
        used.add(renames[cp["id"]])
    if not renames:
        return edits

    def rename(value):
        if isinstance(value, str):
            return renames.get(value, value)
        if isinstance(value, list):
            return [rename(v) for v in value]
        if isinstance(value, dict):
            return {k: rename(v) for k, v in value.items()}
        return value

    return [e.model_copy(update={"target": rename(e.target), "detail": rename(e.detail)}) for e in edits]

