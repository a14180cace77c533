"""Content filters on title and abstract: excluded topics, banned papers, required paper types.

``text_filter`` is what a user's "drop anything about speech" or "ban that paper" becomes, and
what the ``benchmark``/``survey`` anchor templates use to keep dataset/benchmark or review papers.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import Field

from litnav.core.records import MetadataPredicate
from litnav.corpus.predicates import evaluate
from litnav.librarians.operators.base import OperatorParams, RunContext, operator
from litnav.librarians.pool import Pool


@lru_cache(maxsize=512)
def term_pattern(term: str) -> re.Pattern[str]:
    """Case-insensitive whole-word pattern of ``term``; its words may be separated by spaces or
    hyphens and the last may take a suffix ("speech" matches "speeches", "speech-to-text").
    Raises ``ValueError`` for a term without a word."""
    words = re.findall(r"\w+", term)
    if not words:
        raise ValueError(f"term {term!r} has no word")
    return re.compile(r"\b" + r"[\s\-]+".join(map(re.escape, words)) + r"\w*", re.IGNORECASE)


def matching_terms(text: str, terms: list[str]) -> list[str]:
    """The ``terms`` that occur in ``text`` (see :func:`term_pattern`), in ``terms`` order."""
    return [t for t in terms if term_pattern(t).search(text)]


BY_TYPE_NOTE = "; kept by type: {typed}, by wording only: {worded}"
"""How a filter with required types or phrases says what it kept (``session.render`` reads it)."""
BY_TYPE = re.compile(r"; kept by type: (\d+), by wording only: (\d+)")
_EXCLUDED = re.compile(r"kept \d+ of \d+ \(excluded by terms: (\d+)")


def excluded_count(note: str | None) -> int:
    """How many papers a ``text_filter`` run left out by its terms, read from its note (0 when the
    note says none or is no such note)."""
    m = _EXCLUDED.match(note or "")
    return int(m.group(1)) if m else 0


class TextFilterParams(OperatorParams):
    """What to drop and what to require, matched on title + abstract.

    ``exclude_terms``: drop a paper whose title or abstract mentions any term.
    ``ban_ids``: drop these corpus ids. ``require_types`` (publication types judged as the
    metadata filter judges them: listed types, else title cues — "survey", "benchmark",
    "dataset", "tutorial" ...) and ``require_terms`` (phrases such as "we introduce a new
    dataset"): when either is given, keep only papers meeting at least one, those meeting a
    type first. Input order is kept otherwise.
    """

    exclude_terms: list[str] = Field(default_factory=list)
    ban_ids: list[str] = Field(default_factory=list)
    require_types: list[str] = Field(default_factory=list)
    require_terms: list[str] = Field(default_factory=list)
    limit: int | None = Field(None, ge=1)


@operator("text_filter", TextFilterParams, output="pool", channel="filter", input_type="pool",
          min_inputs=1, max_inputs=1)
def text_filter(params: TextFilterParams, inputs: list[Pool], ctx: RunContext, node_id: str) -> Pool:
    """Drop excluded topics and banned papers; keep only required types/phrases when given."""
    pool = inputs[0]
    bans = set(params.ban_ids)
    ids = [cid for cid in pool.ids if cid not in bans]
    papers = ctx.corpus.papers(ids)
    needs_text = params.exclude_terms or params.require_terms
    abstracts = ctx.corpus.abstracts(ids) if needs_text else {}
    types = MetadataPredicate(field="publication_type", values=params.require_types) if params.require_types else None
    require = bool(params.require_types or params.require_terms)
    first: list[tuple[str, float]] = []
    second: list[tuple[str, float]] = []
    excluded: list[str] = []
    for cid, score in pool.hits:
        paper = papers.get(cid)
        if cid in bans or paper is None:
            continue
        text = f"{paper.title}\n{abstracts.get(cid) or ''}"
        if params.exclude_terms and (hit := matching_terms(text, params.exclude_terms)):
            excluded.append(f"{cid} ({', '.join(repr(t) for t in hit)})")
            continue
        if not require:
            first.append((cid, score))
        elif types is not None and evaluate(types, paper)[0]:
            first.append((cid, score))
        elif params.require_terms and matching_terms(text, params.require_terms):
            second.append((cid, score))
    kept = first + second
    named = "; ".join(excluded[:10]) + ("; ..." if len(excluded) > 10 else "")
    ctx.note(node_id, f"kept {len(kept)} of {len(pool.hits)} (excluded by terms: {len(excluded)}"
                      + (f": {named}" if excluded else "") + f", banned: {sum(c in bans for c in pool.ids)})"
                      + (BY_TYPE_NOTE.format(typed=len(first), worded=len(second)) if require else ""))
    return Pool(kept, {cid: pool.found_by.get(cid, []) for cid, _ in kept}).truncated(params.limit or len(kept))
