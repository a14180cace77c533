"""Do verdicts agree with their evidence? A measurable check over judged papers.

A content/exclusion judgement *disagrees* with its quote when:

- ``boilerplate``: the quote is a road-map, URL, acknowledgement, funding or copyright line
  (``core.boilerplate.is_boilerplate``);
- ``unsatisfied_but_stated``: a content checkpoint is "not satisfied" (score < 2.5) although the
  quote states every key phrase of it, or of one of its alternatives (``scorer.quote.states``,
  ``scorer.features.alternatives``);
- ``respected_but_violated``: an exclusion is "respected" (score >= 2.5) although the quote states
  the excluded phrase.

Metadata judgements carry no quote and are not counted. ``verdict_agreement`` summarises a batch:
``n`` judgements checked, ``agree`` their agreeing fraction, and a count per disagreement kind;
and, as a measure of support rather than of contradiction, how many *positive* verdicts (a
satisfied content checkpoint, a violated exclusion) quote a sentence that states every key phrase
of their checkpoint (``positive``, ``supported``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from litnav.core.boilerplate import is_boilerplate
from litnav.core.records import Checklist, Judgement
from litnav.scorer.features import alternatives, checkpoint_terms
from litnav.scorer.quote import states

REASONS = ("boilerplate", "unsatisfied_but_stated", "respected_but_violated")


def disagreement(judgement: Judgement, checklist: Checklist) -> str | None:
    """The kind of disagreement (one of ``REASONS``) between ``judgement`` and its quote, or None
    when they agree (or the judgement has no quote, or is a metadata judgement). Raises
    ``KeyError`` when the checkpoint is not in ``checklist``."""
    if judgement.kind == "metadata" or not judgement.quote:
        return None
    return _read(judgement, checklist)[0]


def positive(judgement: Judgement) -> bool:
    """A satisfied content checkpoint (score >= 2.5) or a violated exclusion (score < 2.5)."""
    return judgement.score < 2.5 if judgement.kind == "exclusion" else judgement.score >= 2.5


def _read(judgement: Judgement, checklist: Checklist) -> tuple[str | None, bool]:
    """``(disagreement or None, whether the quote states the checkpoint)`` of a quoted content or
    exclusion judgement: a negative verdict beside a quote that states its checkpoint disagrees."""
    cp = checklist.get(judgement.checkpoint_id)
    stated = any(states(judgement.quote, checkpoint_terms(text, terms)[1], strict=cp.kind == "exclusion")
                 for text, terms in alternatives(cp))
    if is_boilerplate(judgement.quote):
        return "boilerplate", stated
    if stated and not positive(judgement):
        return ("respected_but_violated" if cp.kind == "exclusion" else "unsatisfied_but_stated"), stated
    return None, stated


def verdict_agreement(judged: Iterable[tuple[Sequence[Judgement], Checklist]]) -> dict[str, float | int]:
    """Agreement over ``(judgements of one paper, its checklist)`` pairs (e.g. every result of
    every session of a benchmark run: ``(r.checkpoints, session.rounds[-1].checklist)``).

    Returns ``{"n": judgements with a quote, "agree": fraction agreeing (1.0 when n = 0),
    <reason>: count for each of REASONS, "positive": positive verdicts with a quote, "supported":
    how many of those quote a sentence stating every key phrase of their checkpoint}``.
    Raises ``KeyError`` when a judgement's checkpoint is not in its checklist.
    """
    counts: Counter[str] = Counter()
    n = n_positive = supported = 0
    for judgements, checklist in judged:
        for j in judgements:
            if j.kind == "metadata" or not j.quote:
                continue
            n += 1
            reason, stated = _read(j, checklist)
            if reason:
                counts[reason] += 1
            if positive(j):
                n_positive += 1
                supported += stated
    bad = sum(counts.values())
    return {"n": n, "agree": round(1.0 - bad / n, 4) if n else 1.0, **{r: counts[r] for r in REASONS},
            "positive": n_positive, "supported": supported}
