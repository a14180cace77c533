"""Scoring papers against a checklist: judgements, holistic probability and final score.

Following PaSaMaster (Towards Self-Evolving Agentic Literature Retrieval, Scorer section, Eq. 8-9;
``shared/background/pasamaster-paper.txt``), each paper gets a 0-5 score per checkpoint, a
calibrated holistic relevance probability p, and

    final = (S + p) / 6,   S = sum_i w_i s_i / sum_i w_i   (s_i in [0, 5], p in [0, 1])

so final lies in [0, 1]; ``w_i`` is ``Checkpoint.weight``. S is the *content* score: the weighted
mean over the content checkpoints (topic, method, application, data), times the worst exclusion's
score over 5. PaSaMaster averages exclusions in with the rest; here a respected exclusion adds
nothing and a violated one (0/5) zeroes S, so a paper off the topic does not score half marks for
not being about what the user excluded (which every off-topic paper satisfies). A checklist with
exclusions only averages those; one with zero total content weight (or no content checkpoints)
has ``S = 5p``, i.e. ``final = p``.

Metadata checkpoints are judged and reported (0 or 5) but stay out of S, so thresholds,
stopping and reflection (which key on ``final``) see content alone; a failed metadata checkpoint
lowers only the ``metadata_pass`` input of the relevance model. Hard metadata constraints are
enforced by the librarians' exact filter, soft ones re-weight the final ordering
(``reranker.combine``); ``metadata_failed`` exposes the failures.

Checkpoint kinds:
- ``metadata``: decided exactly by ``scorer.metadata.check`` (score 0 or 5, engine ``"metadata"``).
- ``topic``/``method``/``application``/``data``: score ``5 * P(satisfied)`` from the student,
  with a verbatim quote from the best evidence chunk.
- ``exclusion``: the student's P that the paper IS about the excluded text, inverted:
  score ``5 * (1 - P)`` (5 = the exclusion is respected).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from litnav.core.records import METADATA_UNKNOWN_SCORE, Checklist, Checkpoint, Evidence, Judgement, ScoredPaper
from litnav.corpus.records import Paper
from litnav.scorer import metadata as meta
from litnav.scorer.features import EvidenceItem, FeatureInput, alternatives, checkpoint_terms
from litnav.scorer.quote import Quote, pick_quote, states, stating_quote
from litnav.scorer.student import Student, calibration, relevance_features, retrieval_rr

METADATA_ENGINE = "metadata"
STATED_P = 0.6
"""The least P(satisfied) of a checkpoint whose evidence has a sentence stating all its key phrases."""


def weighted_mean_score(judgements: Sequence[Judgement], checklist: Checklist) -> float | None:
    """The content score S on 0-5 (module docstring): ``sum w_i s_i / sum w_i`` over the content
    judgements (weights from the checklist) times ``min s_x / 5`` over the exclusion judgements;
    the mean of the exclusions alone when there is no content judgement; None when the total
    weight is 0 or there are no content or exclusion judgements."""
    content = [j for j in judgements if j.kind not in ("metadata", "exclusion")]
    exclusions = [j.score for j in judgements if j.kind == "exclusion"]
    mean = _weighted_mean(content or [j for j in judgements if j.kind == "exclusion"], checklist)
    if mean is None or not content or not exclusions:
        return mean
    return mean * min(exclusions) / 5.0


def _weighted_mean(judgements: Sequence[Judgement], checklist: Checklist) -> float | None:
    w = np.array([checklist.get(j.checkpoint_id).weight for j in judgements], dtype=np.float64)
    s = np.array([j.score for j in judgements], dtype=np.float64)
    return float(np.dot(w, s) / w.sum()) if len(w) and w.sum() > 0 else None


def final_score(mean_score: float | None, probability: float) -> float:
    """``(S + p) / 6`` (PaSaMaster Eq. 9); ``S = 5p`` when ``mean_score`` is None. Clipped to [0, 1]."""
    s = 5.0 * probability if mean_score is None else mean_score
    return float(min(1.0, max(0.0, (s + probability) / 6.0)))


def metadata_failed(scored: ScoredPaper) -> list[str]:
    """Ids of the metadata checkpoints the paper failed (score 0; an unknown field is no failure)."""
    return [j.checkpoint_id for j in scored.judgements if j.kind == "metadata" and j.score < 2.5]


def metadata_judgement(cp: Checkpoint, paper: Paper) -> Judgement:
    """The exact judgement of a metadata checkpoint: 5 when its predicate holds on the paper's
    tier-1 metadata, 0 when it fails, ``METADATA_UNKNOWN_SCORE`` (2.5, shown as "?") when the
    record lacks the field, with a rationale naming the field and value (engine ``metadata``).
    Raises ``ValueError`` when the checkpoint has no predicate."""
    if cp.predicate is None:
        raise ValueError(f"checkpoint {cp.id!r}: kind 'metadata' needs a predicate")
    ok, why = meta.evaluate(cp.predicate, paper)
    score = METADATA_UNKNOWN_SCORE if ok is None else 5.0 if ok else 0.0
    return Judgement(checkpoint_id=cp.id, kind=cp.kind, text=cp.text, score=score,
                     rationale=f"{cp.predicate.field}: {why}", engine=METADATA_ENGINE)


def _content_rationale(cp: Checkpoint, p_about: float, score: float, quote, ev_best: Evidence | None) -> str:
    if cp.kind == "exclusion":
        head = (f"exclusion '{cp.text}' {'respected' if score >= 2.5 else 'violated'}: "
                f"P(paper is about it) = {p_about:.2f}, inverted to {score:.1f}/5")
    else:
        verdict = "satisfied" if p_about >= 0.5 else "not satisfied"
        head = f"{cp.kind} '{cp.text}' {verdict}: P(satisfied) = {p_about:.2f}, score {score:.1f}/5"
    if quote is None:
        return f"{head}; no evidence chunk located, judged on title/abstract terms only"
    label = "closest evidence" if cp.kind == "exclusion" else "best evidence"
    return f"{head}; {label} ({ev_best.section}, cosine {ev_best.similarity:.2f}): \"{quote.text}\""


ABSENT_FACET_P = 0.2
"""A facet of the intent judged below this P is not addressed by the paper."""
WHOLE_HELD_P = 0.45
"""The whole intent's (c1) P when one of its facets is not addressed: below "satisfied" (0.5), so
"data augmentation for dialogue state tracking" is not satisfied by a tracker that augments nothing."""


def _whole_and_facets(checklist: Checklist) -> tuple[Checkpoint | None, list[Checkpoint]]:
    """The whole-intent checkpoint (c1 of the intent parser; none when its concepts are
    alternatives, ``any_of``) and the intent's other content checkpoints, its concepts."""
    whole = next((c for c in checklist.checkpoints if c.id == "c1" and c.source == "intent"
                  and c.kind not in ("metadata", "exclusion") and not c.any_of), None)
    if whole is None:
        return None, []
    return whole, [c for c in checklist.checkpoints if c is not whole and c.source == "intent"
                   and c.kind not in ("metadata", "exclusion")]


def lexical_query(checkpoint: Checkpoint) -> str:
    """The BM25 query behind a checkpoint's ``bm25_rel`` feature: its key phrases, else its text."""
    return " ".join(checkpoint.terms) if checkpoint.terms else checkpoint.text


def _verdict(p: float, located: list[Evidence], terms: tuple[frozenset[str], list[str]], stated_evidence: bool,
             lexical: list[Evidence], title: str, strict: bool = False
             ) -> tuple[float, Quote | None, float | None, list[Evidence], str]:
    """``(P, quote, P before raising or None, evidence, what stated it)`` of one way to satisfy a
    checkpoint (``features.alternatives``): the quote is the evidence sentence that states its key
    phrases when there is one (from ``lexical`` when the located evidence has none, which then
    joins the evidence), raising P to ``STATED_P``; else, when the paper's ``title`` states them,
    P is raised the same way and the quote stays the best evidence sentence (what stated it:
    ``"quote"`` or ``"title"``; see :func:`score_papers`)."""
    quote = pick_quote(located, *terms)
    if not stated_evidence:
        return p, quote, None, located, "quote"
    stated = (quote if quote is not None and states(quote.text, terms[1], strict=strict)
              else stating_quote(located, terms[1], strict=strict))
    evs = located
    if stated is None and lexical:
        stated = stating_quote(lexical, terms[1], strict=strict)
        if stated is not None:
            evs = [*located, stated.evidence]
    if stated is None:
        if p < 0.5 and title and states(title, terms[1], strict=strict):
            return STATED_P, quote, p, located, "title"
        return p, quote, None, evs, "quote"
    # the verdict must agree with a quote that states the checkpoint
    return (max(p, STATED_P), stated, p, evs, "quote") if p < 0.5 else (p, stated, None, evs, "quote")


def score_papers(
    papers: Sequence[Paper],
    checklist: Checklist,
    evidence: Mapping[str, Mapping[str, list[Evidence]]],
    student: Student,
    checkpoint_vectors: Mapping[str, np.ndarray] | None = None,
    extra: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    stated_evidence: bool = True,
    lexical_evidence: Mapping[str, Mapping[str, list[Evidence]]] | None = None,
) -> list[ScoredPaper]:
    """Score many papers in one vectorised pass (same order as ``papers``).

    Verdicts agree with their evidence (``stated_evidence``, default on): when a sentence of the
    evidence states every key phrase of a checkpoint (``scorer.quote.states``), P(satisfied) --
    for an exclusion P(paper is about it) -- is at least ``STATED_P`` and that sentence is the
    quote, so a "not satisfied" verdict never quotes a sentence stating the checkpoint and an
    exclusion is never "respected" beside a quote that violates it; a satisfied verdict (a violated
    exclusion) quotes such a sentence too when one exists, rather than the cosine-best chunk's
    best sentence, without changing P. When no evidence sentence states the checkpoint but the
    paper's title does ("Pharmacological interventions for smoking cessation: ..." for "The paper
    studies pharmacological interventions"), P is raised the same way and the rationale says the
    title stated it. The whole intent (c1) is held below satisfied, at
    :data:`WHOLE_HELD_P`, when one of the intent's facets is judged not addressed (P below
    :data:`ABSENT_FACET_P`) and no quote states every key phrase of c1. A checkpoint with alternatives (``Checkpoint.any_of``:
    "The paper studies NMT or speech translation") is judged for each (``features.alternatives``)
    and takes the most probable one's P and quote. ``lexical_evidence`` (same
    shape as ``evidence``: chunks found lexically, e.g. by ``navigator.scoring``'s stated-chunk
    search) is searched for such a sentence when the cosine evidence has none; a chunk used this
    way joins the judgement's evidence.

    ``student`` is any loaded student (``load_student``): a feature ``Student`` or a
    ``scorer.cross_encoder.CrossEncoderStudent``; its ``name`` becomes the judgements' engine.
    A judgement of a checkpoint kind the student never saw in training (``student.calibration``:
    the bundled student saw whole-claim topic checkpoints only) says so in its rationale, naming
    the engine and its training data: its grade is not a calibrated probability.

    ``evidence[corpus_id][checkpoint_id]`` is the located evidence (missing = none).
    ``checkpoint_vectors[checkpoint_id]`` (L2-normalised) together with
    ``extra[corpus_id]["title_vector"]`` gives the ``title_sim`` feature (imputed otherwise);
    ``extra[corpus_id]["abstract"]`` (str) adds the abstract to the term-coverage features;
    ``extra[corpus_id]["doc_vector"]`` (title + abstract vector) gives ``doc_sim``;
    ``extra[corpus_id]["bm25"][checkpoint_id]`` is the ``bm25_rel`` feature (see
    ``lexical_query``); ``extra[corpus_id]["retrieval_rank"]`` (1-based rank in the fused retrieval list) feeds the
    holistic probability's retrieval feature.
    Raises ``ValueError`` when evidence belongs to another paper or a metadata checkpoint lacks
    a predicate.
    """
    extra = extra or {}
    checkpoint_vectors = checkpoint_vectors or {}
    content = [c for c in checklist.checkpoints if c.kind != "metadata"]
    ways = {c.id: alternatives(c) for c in content}
    terms = {(c.id, i): checkpoint_terms(text, t) for c in content for i, (text, t) in enumerate(ways[c.id])}
    items: list[FeatureInput] = []
    where: list[tuple[int, Checkpoint, list[Evidence]]] = []
    for pi, paper in enumerate(papers):
        ex = extra.get(paper.corpus_id, {})
        tvec = ex.get("title_vector")
        dvec = ex.get("doc_vector")
        for cp in content:
            evs = sorted(evidence.get(paper.corpus_id, {}).get(cp.id, []), key=lambda e: -e.similarity)
            for e in evs:
                if e.corpus_id != paper.corpus_id:
                    raise ValueError(f"evidence {e.chunk_id!r} for checkpoint {cp.id!r} belongs to "
                                     f"{e.corpus_id!r}, not paper {paper.corpus_id!r}")
            cvec = checkpoint_vectors.get(cp.id)
            tsim = float(np.dot(cvec, tvec)) if cvec is not None and tvec is not None else None
            for text, cp_terms in ways[cp.id]:
                items.append(FeatureInput(text=text, terms=cp_terms, title=paper.title,
                                          abstract=ex.get("abstract"),
                                          evidence=[EvidenceItem(e.text, e.similarity, e.section) for e in evs],
                                          title_sim=tsim, bm25_rel=ex.get("bm25", {}).get(cp.id),
                                          doc_sim=float(np.dot(cvec, dvec)) if cvec is not None and dvec is not None
                                          else None))
            where.append((pi, cp, evs))
    p_about = student.predict_satisfaction(items) if len(items) else np.zeros(0)
    data, kinds = calibration(student)

    per_paper: list[list[Judgement]] = [[] for _ in papers]
    content_scores: list[list[tuple[float, float]]] = [[] for _ in papers]
    best_sim = np.zeros(len(papers))
    decided: dict[tuple[int, str], tuple] = {}
    k = 0
    for pi, cp, located in where:
        lexical = (lexical_evidence or {}).get(papers[pi].corpus_id, {}).get(cp.id, [])
        verdicts = []  # one per alternative; the checkpoint takes the most probable
        for i in range(len(ways[cp.id])):
            verdicts.append(_verdict(float(p_about[k]), located, terms[(cp.id, i)], stated_evidence, lexical,
                                     papers[pi].title, strict=cp.kind == "exclusion"))
            k += 1
        best = max(range(len(verdicts)), key=lambda i: verdicts[i][0])
        decided[(pi, cp.id)] = (*verdicts[best], best, len(verdicts))
    whole, facets = _whole_and_facets(checklist)
    for pi, cp, located in where:
        p, quote, raised, evs, stated_by, best, n_ways = decided[(pi, cp.id)]
        held = None
        stated = raised is not None or (quote is not None and states(quote.text, terms[(cp.id, best)][1],
                                                                     strict=cp.kind == "exclusion"))
        if cp is whole and p >= 0.5 and not stated and facets:
            weakest = min(facets, key=lambda f: decided[(pi, f.id)][0])
            if decided[(pi, weakest.id)][0] < ABSENT_FACET_P:
                held, p = (weakest, decided[(pi, weakest.id)][0]), min(p, WHOLE_HELD_P)
        similarity_from = evs if raised is not None else located  # a quote-only change moves no score
        if cp.kind != "exclusion" and similarity_from:
            best_sim[pi] = max(best_sim[pi], similarity_from[0].similarity)
        score = 5.0 * (1.0 - p) if cp.kind == "exclusion" else 5.0 * p
        rationale = _content_rationale(cp, p, score, quote, quote.evidence if quote else None)
        if n_ways > 1:
            rationale += f" (judged for its alternative '{ways[cp.id][best][0]}')"
        if raised is not None:
            rationale += f" (P raised from {raised:.2f}: the {stated_by} states every key phrase)"
        if held is not None:
            rationale += (f" (held below satisfied: {held[0].id} '{held[0].text}', one of its concepts, is not "
                          f"addressed, P {held[1]:.2f})")
        if cp.kind not in kinds:
            rationale += (f" [not calibrated for {cp.kind} checkpoints: {student.name} was trained on {data}"
                          f" ({', '.join(kinds) or 'unknown'} checkpoints only)]")
        per_paper[pi].append(Judgement(
            checkpoint_id=cp.id, kind=cp.kind, text=cp.text, score=score,
            rationale=rationale,
            quote=quote.text if quote else None, quote_chunk_id=quote.evidence.chunk_id if quote else None,
            quote_start=quote.start if quote else None, quote_end=quote.end if quote else None,
            evidence=evs, engine=student.name))
        content_scores[pi].append((score, cp.weight))

    rel_rows = []
    for pi, paper in enumerate(papers):
        metas = [metadata_judgement(c, paper) for c in checklist.checkpoints if c.kind == "metadata"]
        passed = float(np.mean([j.score >= 2.5 for j in metas])) if metas else 1.0
        sc = np.array([s for s, _ in content_scores[pi]], dtype=np.float64)
        w = np.array([w for _, w in content_scores[pi]], dtype=np.float64)
        rank = extra.get(paper.corpus_id, {}).get("retrieval_rank")
        rel_rows.append(relevance_features(sc, w, float(best_sim[pi]), passed, retrieval=retrieval_rr(rank)))
        by_id = {j.checkpoint_id: j for j in per_paper[pi] + metas}
        per_paper[pi] = [by_id[c.id] for c in checklist.checkpoints]
    probs = student.relevance(np.vstack(rel_rows)) if papers else np.zeros(0)
    out = []
    for pi, paper in enumerate(papers):
        p = float(probs[pi])
        out.append(ScoredPaper(corpus_id=paper.corpus_id, judgements=per_paper[pi], probability=p,
                               final_score=final_score(weighted_mean_score(per_paper[pi], checklist), p),
                               probability_engine=student.name))
    return out


def score_paper(
    paper: Paper,
    checklist: Checklist,
    evidence: Mapping[str, list[Evidence]],
    student: Student,
    checkpoint_vectors: Mapping[str, np.ndarray] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> ScoredPaper:
    """Score one paper: ``evidence[checkpoint_id]`` is its located evidence; ``extra`` may hold
    ``"abstract"`` (str) and ``"title_vector"`` (np.ndarray). See ``score_papers``."""
    return score_papers([paper], checklist, {paper.corpus_id: dict(evidence)}, student,
                        checkpoint_vectors, {paper.corpus_id: dict(extra or {})})[0]
