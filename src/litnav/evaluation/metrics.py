"""Per-query retrieval metrics (via ir-measures) and the source hallucination rate.

Metric names and definitions, K in the cut-offs, ``rel`` = gold grade (> 0 is relevant):

- ``Recall@K``     = |relevant in top K| / |relevant|                       (ir-measures ``R@K``)
- ``Precision@K``  = |relevant in top K| / K                                (``P@K``; short lists still divide by K)
- ``F1@K``         = 2 P R / (P + R), per query, 0 when P = R = 0
- ``nDCG@K``       = DCG@K / ideal DCG@K, DCG = sum_i rel_i / log2(i + 1)    (``nDCG@K``, trec_eval's linear gain)
- ``Hit@K``        = 1 if any relevant id is in the top K else 0             (``Success@K``)
- ``MRR``          = 1 / rank of the first relevant id, 0 if none            (``RR``, averaged over queries)

Rankings are handed to ir-measures with rank-derived scores (n, n-1, ..., 1), so the metrics
follow the system's order exactly, whatever its raw scores and ties are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from litnav.core.text import normalise_title
from litnav.corpus.records import Paper

DEFAULT_KS = (5, 10, 20, 50, 100)


def metric_names(ks: Sequence[int]) -> list[str]:
    """Metric names in table order for cut-offs ``ks``."""
    names = []
    for prefix in ("nDCG", "Recall", "Precision", "F1", "Hit"):
        names += [f"{prefix}@{k}" for k in ks]
    return [*names, "MRR"]


def _dedup(ids: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    return [i for i in ids if not (i in seen or seen.add(i))]


def per_query_metrics(
    qrels: Mapping[str, Mapping[str, int]], rankings: Mapping[str, Sequence[str]], ks: Sequence[int],
    relevance_level: int = 1,
) -> dict[str, dict[str, float]]:
    """``{qid: {metric: value}}`` for every qid of ``qrels``.

    ``rankings`` maps qid -> ranked corpus ids (best first; repeats keep their first position);
    a qid without a ranking scores 0 everywhere. ``relevance_level``: the least grade Recall,
    Precision, F1, Hit and MRR count as relevant (trec_eval's ``-l``); nDCG keeps every grade as
    its gain. Raises ``ValueError`` for an empty ``ks``, a K < 1 or a level < 1.
    """
    import ir_measures
    from ir_measures import RR, P, R, Success, nDCG

    if not ks or any(k < 1 for k in ks):
        raise ValueError(f"cut-offs must be positive integers, got {list(ks)}")
    if relevance_level < 1:
        raise ValueError(f"the relevance level must be >= 1, got {relevance_level}")
    lv = relevance_level
    measures: dict[Any, str] = {RR(rel=lv): "MRR"}
    for k in ks:
        measures.update({R(rel=lv) @ k: f"Recall@{k}", P(rel=lv) @ k: f"Precision@{k}", nDCG @ k: f"nDCG@{k}",
                         Success(rel=lv) @ k: f"Hit@{k}"})
    names = metric_names(ks)
    out = {qid: dict.fromkeys(names, 0.0) for qid in qrels}
    run = {}
    for qid in qrels:
        ids = _dedup(list(rankings.get(qid, ())))
        if ids:
            run[qid] = {doc: float(len(ids) - i) for i, doc in enumerate(ids)}
    if run:
        qrels_in = {qid: dict(g) for qid, g in qrels.items()}
        for m in ir_measures.iter_calc(list(measures), qrels_in, run):
            out[m.query_id][measures[m.measure]] = float(m.value)
    for values in out.values():
        for k in ks:
            p, r = values[f"Precision@{k}"], values[f"Recall@{k}"]
            values[f"F1@{k}"] = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return out


def _venue_matches(printed: Any, paper: Paper) -> bool:
    key = normalise_title(str(printed)) if printed is not None else ""
    known = {normalise_title(v) for v in (paper.venue, paper.venue_raw) if v}
    return key in known if known else not key


def metadata_mismatches(printed: Mapping[str, Any], paper: Paper) -> list[str]:
    """Fields among title/year/venue that ``printed`` shows differently from the corpus record.

    Absent keys were not printed and are not checked. Titles and venues compare by
    ``core.text.normalise_title`` (case, accents, punctuation ignored); a venue matches the
    record's normalised ``venue`` or its ``venue_raw``; years compare as integers.
    """
    bad = []
    if "title" in printed and normalise_title(printed["title"]) != normalise_title(paper.title):
        bad.append("title")
    if "year" in printed:
        year = printed["year"]
        try:
            year = int(year) if year is not None else None
        except (TypeError, ValueError):
            year = object()
        if year != paper.year:
            bad.append("year")
    if "venue" in printed and not _venue_matches(printed["venue"], paper):
        bad.append("venue")
    return bad


def hallucinations(
    ranking_ids: Sequence[str], printed: Sequence[Mapping[str, Any]], papers: Mapping[str, Paper]
) -> tuple[float, list[dict[str, Any]]]:
    """Source hallucination rate of one answer, and what was wrong.

    Returned ids are the ranking's ids plus any printed id. An id is hallucinated when it is not
    a corpus record (absent from ``papers``) or when its printed metadata differs from the record
    (see :func:`metadata_mismatches`). Rate = hallucinated / returned (0.0 when nothing returned).
    Problems are ``{"corpus_id", "problem": "not in corpus" | "wrong title, year"...}``.
    """
    by_id: dict[str, list[Mapping[str, Any]]] = {}
    for p in printed:
        by_id.setdefault(str(p.get("corpus_id")), []).append(p)
    returned = _dedup([*ranking_ids, *by_id])
    problems = []
    for cid in returned:
        paper = papers.get(cid)
        if paper is None:
            problems.append({"corpus_id": cid, "problem": "not in corpus"})
            continue
        wrong = sorted({f for p in by_id.get(cid, []) for f in metadata_mismatches(p, paper)})
        if wrong:
            problems.append({"corpus_id": cid, "problem": "wrong " + ", ".join(wrong)})
    return (len(problems) / len(returned) if returned else 0.0), problems
