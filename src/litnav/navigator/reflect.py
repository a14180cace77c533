"""No-LLM reflection: read the scored evidence of a round and revise strategy and checklist.

Four moves, each recorded as a ``Change`` with its reason (1 and 2 only with
``librarians.facet_weight`` > 0, off by default: on the dev splits they did not help):
1. checkpoints that no top paper satisfies get targeted dense + BM25 queries;
2. salient terms shared by the best evidence expand the intent query (pseudo-relevance feedback);
3. the best papers (final content score >= ``navigator.new_paper_threshold``; none when no paper
   clears it) are the source of salient terms; the top papers of the round's ranking become
   citation seeds (both directions; ``navigator.citation_seeds = "cleared"``: the best papers only);
4. a salient term present in nearly all top papers joins the checklist as a low-weight checkpoint.
The loop stops when a round adds no new paper at or above ``navigator.new_paper_threshold``
(default 0: no new paper at all), when nothing new is left to try, or at the round limit.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from litnav.core.records import CONTENT_KINDS, Change, Checklist, Checkpoint, Node, ScoredPaper, Workflow
from litnav.core.settings import Settings
from litnav.core.text import stop_words
from litnav.navigator.planner import assemble, content_query, content_terms, hard_metadata

SATISFIED = 3.5
TOP_N = 10
SEEDS = 5
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]{2,}")


def no_new_paper(round_index: int, threshold: float) -> str:
    """The stop reason of a round that added no new paper at or above ``threshold``
    (``navigator.new_paper_threshold``; 0: no new paper at all)."""
    if threshold <= 0:
        return f"round {round_index} added no new paper"
    return f"round {round_index} added no new paper with final score >= {threshold}"


@dataclass
class ReflectionState:
    """What reflection remembers across rounds: queries run, seeds used, terms added."""

    queries: set[str] = field(default_factory=set)
    seeds: set[str] = field(default_factory=set)
    added_terms: set[str] = field(default_factory=set)


@dataclass
class Reflection:
    """The outcome of one reflection: the next workflow (None = stop), checklist and changes."""

    workflow: Workflow | None
    checklist: Checklist
    changes: list[Change]
    stop_reason: str | None = None


_GENERIC = frozenset("""
also although among could either etc even first found however less least many may might much must
neither often one per rather several since still therefore though three thus toward towards two upon
us via well whereas whether within without would yet
""".split())
"""Discourse words the salient-term search also skips, on top of ``core.text.stop_words``."""


def _stopwords() -> frozenset[str]:
    return stop_words() | _GENERIC | {"paper", "propose", "proposed", "approach", "method", "methods", "results",
                                 "show", "using", "based", "model", "models", "task", "work", "new", "use",
                                 "used", "study", "studies", "also", "data", "performance", "different"}


def salient_terms(papers: list[ScoredPaper], known: set[str], min_papers: int = 2, n: int = 3) -> list[tuple[str, int]]:
    """Unigrams and bigrams that occur in the evidence of at least ``min_papers`` of ``papers``
    and are not among ``known`` words; returns ``(term, papers containing it)`` best first."""
    stop = _stopwords()
    df: Counter[str] = Counter()
    for p in papers:
        text = " ".join(e.text for j in p.judgements for e in j.evidence)
        words = [w.lower() for w in _WORD.findall(text)]
        grams = {w for w in words if w not in stop and w not in known}
        grams |= {f"{a} {b}" for a, b in zip(words, words[1:])
                  if a not in stop and b not in stop and not {a, b} <= known}
        df.update(grams)
    ranked = sorted(((t, c) for t, c in df.items() if c >= min_papers),
                    key=lambda tc: (-tc[1], -len(tc[0].split()), tc[0]))
    out: list[tuple[str, int]] = []
    for term, count in ranked:
        if any(term in t or t in term for t, _ in out):
            continue
        out.append((term, count))
        if len(out) == n:
            break
    return out


def stopping(checklist: Checklist, round_index: int, new_above: list[str], settings: Settings,
             max_rounds: int) -> Reflection | None:
    """The stopping rule every reflector applies before it plans a next round: a ``Reflection``
    that stops the search after round ``round_index`` (1-based) when it reached ``max_rounds`` or,
    after round 1, when the round added no paper above the threshold (``new_above`` empty:
    :func:`no_new_paper`); None to go on."""
    if round_index >= max_rounds:
        return Reflection(None, checklist, [Change(target="stop", action="stop", detail=f"round {round_index}",
                                                   reason=f"reached the round limit ({max_rounds})")],
                          f"round limit {max_rounds}")
    if round_index > 1 and not new_above:
        reason = no_new_paper(round_index, settings.navigator.new_paper_threshold)
        return Reflection(None, checklist, [Change(target="stop", action="stop", detail="", reason=reason)], reason)
    return None


def reflect(
    checklist: Checklist,
    ranked: list[ScoredPaper],
    round_index: int,
    new_above: list[str],
    state: ReflectionState,
    settings: Settings,
    top_k: int,
    max_rounds: int,
) -> Reflection:
    """Decide the next round from the ranked, scored papers of this round (best first)."""
    changes: list[Change] = []
    stop = stopping(checklist, round_index, new_above, settings, max_rounds)
    if stop is not None:
        return stop

    lib = settings.librarians
    top = ranked[:TOP_N]
    base = content_query(checklist)
    nodes: list[Node] = []

    def add_search(node_id: str, query: str, k: int, why: str) -> None:
        if query in state.queries or not lib.facet_weight:  # weight 0: query expansion is off
            return
        state.queries.add(query)
        nodes.append(Node(id=f"semantic_{node_id}", op="semantic_search", params={"query": query, "k": k}, note=why))
        nodes.append(Node(id=f"lexical_{node_id}", op="lexical_search", params={"query": query, "k": k}, note=why))
        changes.append(Change(target="workflow", action="add_query", detail=query, reason=why))

    topic = " ".join(content_terms(checklist)[:2])
    for c in checklist.checkpoints:
        if c.kind not in CONTENT_KINDS:
            continue
        best = max((j.score for p in top for j in p.judgements if j.checkpoint_id == c.id), default=0.0)
        if best < SATISFIED:
            q = " ".join(dict.fromkeys((" ".join(c.terms) or c.text).split() + topic.split()))
            add_search(f"r{round_index + 1}_{c.id}", q, max(10, lib.semantic_k // 2),
                       f"no top paper satisfies {c.id} (best score {best:.1f} < {SATISFIED})")

    known = {w.lower() for t in content_terms(checklist) for w in _WORD.findall(t)}
    known |= {w.lower() for w in _WORD.findall(checklist.intent)} | state.added_terms
    # only papers that clear the content threshold give salient terms: when none does, none
    good = [p for p in top if p.final_score >= settings.navigator.new_paper_threshold][:SEEDS]
    terms = salient_terms(good, known) if len(good) >= 2 else []
    if terms:
        expansion = base + " " + " ".join(t for t, _ in terms)
        add_search(f"r{round_index + 1}_expanded", expansion, lib.semantic_k,
                   f"salient terms of the best evidence: {', '.join(t for t, _ in terms)}")

    if lib.citation_expansion and lib.citation_weight:
        seeded = top if settings.navigator.citation_seeds == "top" else good
        seeds = [p.corpus_id for p in seeded if p.corpus_id not in state.seeds][:SEEDS]
        if seeds:
            state.seeds.update(seeds)
            nodes.append(Node(id=f"citation_r{round_index + 1}", op="citation_expand",
                              params={"direction": "both", "depth": 1, "k": lib.citation_k, "seeds": 0,
                                      "seed_ids": seeds, "query": base},
                              note="citation neighbours of the best papers"))
            changes.append(Change(target="workflow", action="add_citation_expansion", detail=", ".join(seeds),
                                  reason="the top papers of this round become citation seeds"
                                  if seeded is top else "best papers of this round become citation seeds"))

    if lib.feedback_weight and round_index == 1:
        fb = [p.corpus_id for p in top[:lib.feedback_seeds]]
        if fb:
            hard = [c.id for c in hard_metadata(checklist)]
            nodes.append(Node(id=f"feedback_r{round_index + 1}", op="feedback_search",
                              params={"query": base, "k": lib.semantic_k, "seed_ids": fb, "beta": lib.feedback_beta,
                                      **({"within": hard} if hard else {})},
                              note="dense pseudo-relevance feedback from the top papers"))
            changes.append(Change(target="workflow", action="add_feedback_search", detail=", ".join(fb),
                                  reason="the intent's vector moved towards this round's top papers"))

    checkpoints = list(checklist.checkpoints)
    if settings.navigator.grow_checklist and len(good) >= 4:
        for term, count in terms:
            if count >= len(good) and term not in state.added_terms and len(term.split()) == 2:
                state.added_terms.add(term)
                cid = f"r{len([c for c in checkpoints if c.source == 'reflection']) + 1}"
                checkpoints.append(Checkpoint(id=cid, kind="topic", text=f"The paper involves {term}",
                                              terms=[term], weight=0.5, source="reflection"))
                changes.append(Change(target="checklist", action="add_checkpoint", detail=f"{cid}: {term}",
                                      reason=f"all {count} best papers' evidence mention {term!r}"))
    new_checklist = checklist.model_copy(update={"checkpoints": checkpoints})

    if not nodes:
        reason = ("nothing new to search: every uncovered checkpoint, term and seed was already tried"
                  if settings.librarians.facet_weight else
                  "nothing new to search: no new citation seed (query expansion is off: librarians.facet_weight 0)")
        changes.append(Change(target="stop", action="stop", detail="", reason=reason))
        return Reflection(None, new_checklist, changes, reason)
    workflow = assemble(nodes, new_checklist, settings, top_k)
    return Reflection(workflow, new_checklist, changes)
