"""Multi-turn anchor benchmark: (anchor, direction, query, scripted feedback, gold) cases.

Each case runs ``navigator.anchor.anchor_search`` (turn 1) and then ``navigator.refine`` with
each scripted feedback line (turns 2..); after every turn the result list is scored against the
case's gold with Hit@5, MRR and nDCG@10 (``evaluation.metrics.per_query_metrics``, binary gain),
and the turn's workflow is compared with turn 1's (``workflow_edit_metrics``). The file format
(JSONL, one case a line): ``id``, ``anchor``, ``direction``, ``query``, ``turns`` (feedback
strings) and ``gold`` (corpus ids); see ``bench/multiturn/README.md``.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from statistics import mean
from typing import Any

from litnav.core.io import json_lines
from litnav.core.settings import Settings
from litnav.evaluation.benchmark import BenchmarkError
from litnav.evaluation.metrics import per_query_metrics
from litnav.evaluation.workflow_metrics import workflow_edit_metrics

log = logging.getLogger(__name__)

METRICS = ("Hit@5", "MRR", "nDCG@10")
REQUIRED = ("id", "anchor", "direction", "query", "turns", "gold")


class MultiTurnError(BenchmarkError):
    """A malformed case file; the message names the file, line and field."""


def load_cases(path: str | Path) -> list[dict[str, Any]]:
    """The cases of a JSONL file; raises ``MultiTurnError`` (a ``BenchmarkError``) naming the
    line and field."""
    path = Path(path)
    cases = []
    for n, case in json_lines(path, error=MultiTurnError):
        for field in REQUIRED:
            if field not in case:
                raise MultiTurnError(f"{path}:{n}: missing field {field!r}")
        if not isinstance(case["turns"], list) or not all(isinstance(t, str) for t in case["turns"]):
            raise MultiTurnError(f"{path}:{n}: field 'turns' must be a list of feedback strings")
        if not isinstance(case["gold"], list) or not case["gold"]:
            raise MultiTurnError(f"{path}:{n}: field 'gold' must be a non-empty list of corpus ids")
        cases.append(case)
    if not cases:
        raise MultiTurnError(f"{path}: no cases")
    return cases


def run_case(case: dict[str, Any], corpus, settings: Settings, top_k: int = 10) -> dict[str, Any]:
    """Run one case; returns per-turn rankings, metrics, workflow edit metrics and the edits made."""
    from litnav.navigator import refine
    from litnav.navigator.anchor import anchor_search

    t0 = time.perf_counter()
    session = anchor_search(case["anchor"], case["direction"], corpus, settings, intent=case["query"], top_k=top_k)
    for feedback in case["turns"]:
        session = refine(session, feedback, corpus, settings)
    qrels = {case["id"]: {g: 1 for g in case["gold"]}}
    first = session.turns[0].workflow
    turns = []
    for t in session.turns:
        ranking = [r.corpus_id for r in t.results]
        m = per_query_metrics(qrels, {case["id"]: ranking}, (5, 10))[case["id"]]
        turns.append({"turn": t.index, "feedback": t.feedback, "ranking": ranking,
                      "metrics": {k: m[k] for k in METRICS},
                      "edits": [f"{e.action} {e.target}" for e in t.edits], "rerun": t.rerun, "reused": t.reused,
                      "workflow_vs_turn1": workflow_edit_metrics(t.workflow, first)})
    return {"id": case["id"], "direction": case["direction"], "turns": turns,
            "seconds": round(time.perf_counter() - t0, 3)}


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean metrics per turn, overall and per direction."""
    def means(rows: list[dict[str, Any]]) -> list[dict[str, float]]:
        n_turns = max(len(r["turns"]) for r in rows)
        out = []
        for t in range(n_turns):
            have = [r["turns"][t] for r in rows if len(r["turns"]) > t]
            out.append({"turn": t + 1, "cases": len(have),
                        **{k: round(mean(h["metrics"][k] for h in have), 4) for k in METRICS},
                        "edits_vs_turn1": round(mean(h["workflow_vs_turn1"]["edits"] for h in have), 2),
                        "node_jaccard_vs_turn1": round(mean(h["workflow_vs_turn1"]["node_jaccard"] for h in have), 3)})
        return out

    directions = sorted({r["direction"] for r in results})
    return {"overall": means(results),
            "by_direction": {d: means([r for r in results if r["direction"] == d]) for d in directions}}


def run_multiturn(cases: list[dict[str, Any]], corpus, settings: Settings | None = None, *, top_k: int = 10,
                  progress: bool = False) -> dict[str, Any]:
    """Run every case (a failing case is recorded with its error, not fatal) and summarise."""
    from litnav.core.progress import progress_bar

    settings = settings or Settings()
    results, errors = [], []
    for case in progress_bar(cases, desc="multi-turn cases", progress=progress):
        try:
            results.append(run_case(case, corpus, settings, top_k))
        except Exception as exc:  # noqa: BLE001 - one bad case must not lose the others
            log.warning("case %s failed: %s", case.get("id"), exc)
            errors.append({"id": case.get("id"), "error": f"{type(exc).__name__}: {exc}"})
    if not results:
        raise MultiTurnError(f"every case failed; first error: {errors[0]['error'] if errors else '-'}")
    return {"summary": summarise(results), "cases": results, "errors": errors, "top_k": top_k}
