"""Listwise LLM reranking of the top candidates.

The LLM sees the intent, the checklist and the first ``top_n`` scored papers (title, year, venue,
final score, best quotes) and returns an ordering of their ids. Ids outside the list are
rejected and sent back for repair; repeated ids keep their first place; ids it leaves out are
appended in their prior order. Papers past ``top_n`` keep their place after the head. The
papers' scores are not changed: the reranker orders, it does not score.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from litnav.core.records import Checklist, ScoredPaper
from litnav.llm import LLMError
from litnav.llm.checked import structured_checked
from litnav.llm.fallback import FallbackRecorder

QUOTE_CHARS = 240

SYSTEM = (
    "You are the listwise reranker of a literature search system. Order the candidate papers from "
    "the most to the least useful for the search intent, judging them against the checklist. "
    "Use only the ids shown. Reply with one JSON object only."
)


class Ordering(BaseModel):
    """The reranker's reply: candidate ids, best first."""

    model_config = ConfigDict(extra="forbid")

    order: list[str]


def apply_order(head: list[ScoredPaper], order: list[str]) -> list[ScoredPaper]:
    """``head`` reordered by ``order`` (ids of ``head``; duplicates keep their first place, ids
    not in ``head`` are ignored); papers ``order`` omits follow in their prior order."""
    by_id = {p.corpus_id: p for p in head}
    seen = list(dict.fromkeys(c for c in order if c in by_id))
    return [by_id[c] for c in seen] + [p for p in head if p.corpus_id not in set(seen)]


def rerank_prompt(intent: str, checklist: Checklist, head: list[ScoredPaper], corpus) -> list[dict[str, str]]:
    """The chat messages asking for an ordering of ``head``."""
    papers = corpus.papers([p.corpus_id for p in head])
    lines = [f"Search intent: {intent}", "", "Checklist:"]
    lines += [f"[{c.id}] {c.kind}, weight {c.weight:g}: {c.text}" for c in checklist.checkpoints]
    lines += ["", f"Candidates ({len(head)}), in the current order:"]
    for sp in head:
        paper = papers.get(sp.corpus_id)
        title = paper.title if paper else "(unknown)"
        meta = ", ".join(str(x) for x in ((paper.year, paper.venue) if paper else ()) if x)
        lines.append(f"- id {sp.corpus_id}: {title}" + (f" ({meta})" if meta else "") + f"; score {sp.final_score:.2f}")
        for j in sp.judgements:
            if j.quote:
                lines.append(f"    {j.checkpoint_id} {j.score:.1f}/5: \"{j.quote[:QUOTE_CHARS]}\"")
    lines += ["", "Return every id once, best first, in the field `order`."]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


class LLMReranker(FallbackRecorder):
    """``llm_reranker`` hook of the search loop: ``(intent, checklist, ranked, corpus) -> ranked``.

    ``engine`` is the ``llm.reranker`` engine; ``top_n`` (``reranker.llm_top_n``) candidates
    are reordered. On ``LLMError``: with ``fallback`` the prior order is kept and the cause is
    recorded in ``fallbacks`` and ``engine``; otherwise the error propagates.
    """

    fallback_to = "the order before it (no LLM reranking)"

    def __init__(self, engine, top_n: int, *, fallback: bool = False):
        self.llm = engine
        self.top_n = top_n
        self.fallback = fallback
        self.fallbacks: list[str] = []


    def __call__(self, intent: str, checklist: Checklist, ranked: list[ScoredPaper], corpus) -> list[ScoredPaper]:
        head, tail = ranked[: self.top_n], ranked[self.top_n:]
        if len(head) < 2:
            return ranked
        ids = {p.corpus_id for p in head}
        check: Callable[[Ordering], list[str]] = lambda o: (
            [f"ids {sorted(set(o.order) - ids)} are not among the candidates; use only the ids shown"]
            if set(o.order) - ids else [])
        try:
            reply, _ = structured_checked(self.llm, rerank_prompt(intent, checklist, head, corpus), Ordering, check,
                                          role="reranker", what="candidate ordering")
        except LLMError as exc:
            if not self.fallback:
                raise
            self.record_fallback(str(exc))
            return ranked
        return apply_order(head, reply.order) + tail
