"""Rendering sessions for people: the ranked table, the checklist, the audit matrix and the
per-paper judgements with their verbatim evidence. Nothing is recomputed here."""

from __future__ import annotations

import re
from textwrap import shorten

from rich.console import Console, Group
from rich.markup import escape as _escape_markup
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from litnav.core.records import FoundBy, Judgement, Result, Session, Turn, Workflow
from litnav.core.text import shown_values, visible_text
from litnav.navigator.intent.describe import predicate_text

CONTEXT_CHARS = 160



def escape(text: str) -> str:
    """``text`` (a title, a quote, a typed intent) for a rich markup string: terminal escape
    sequences and control characters become spaces (``core.text.visible_text``), markup brackets
    are escaped, so data from a corpus or a user is shown, never run or styled."""
    return _escape_markup(visible_text(text))

def _score_style(score: float) -> str:
    return "green" if score >= 4 else "yellow" if score >= 2.5 else "red"


def score_text(j: Judgement, spec: str = ".1f") -> str:
    """A judgement's score as shown: ``?`` for a metadata field the record lacks (``Judgement.unknown``)."""
    return "?" if j.unknown else format(j.score, spec)


def _judgement_style(j: Judgement) -> str:
    return "dim" if j.unknown else _score_style(j.score)


def checklist_table(session: Session) -> Table:
    """The final checklist: id, kind, weight, text and (for metadata) the predicate."""
    checklist = session.rounds[-1].checklist if session.rounds else None
    table = Table(title="Checklist", show_lines=False)
    for col in ("id", "kind", "weight", "checkpoint"):
        table.add_column(col)
    for c in checklist.checkpoints if checklist else []:
        pred = f" [dim]({escape(predicate_text(c.predicate))})[/dim]" if c.predicate else ""
        table.add_row(c.id, c.kind, f"{c.weight:g}", escape(c.text) + pred)
    return table


def workflow_table(workflow: Workflow) -> Table:
    """A workflow for reading: one row per node (id, operator, its parameters as ``key=value``,
    input nodes, note), in order; the output node is marked. ``litnav plan --out`` writes the
    editable JSON."""
    table = Table(title="Workflow (round 1)", show_lines=False)
    for col in ("node", "operator", "parameters", "inputs", "why"):
        table.add_column(col, overflow="fold")
    for n in workflow.nodes:
        params = ", ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in n.params.items() if v is not None)
        name = n.id + (" (output)" if n.id == workflow.output else "")
        table.add_row(escape(name), n.op, escape(params), escape(", ".join(n.inputs)), escape(n.note or ""))
    return table


def results_table(session: Session, top: int | None = None) -> Table:
    """Ranked results: rank, final score, p, the whole intent's (c1) score ("+" when judged
    satisfied), year, venue, title, corpus_id, channels. The title names the intent and, after a
    refinement, the latest turn and its feedback."""
    title = f"Results for: {session.intent}"
    if session.turns and session.turns[-1].feedback:
        title += f" — turn {session.turns[-1].index}: {session.turns[-1].feedback}"
    table = Table(title=escape(title), show_lines=False)
    for col, kw in (("#", {"justify": "right"}), ("final score", {}), ("p", {}), ("c1", {}), ("year", {}), ("venue", {}),
                    ("title", {"overflow": "fold", "ratio": 3}), ("corpus_id", {"no_wrap": True, "min_width": 10}),
                    ("found by", {"overflow": "fold"})):
        table.add_column(col, **kw)
    order = session.engines.get("reranker") or "fused retrieval order"
    table.caption = (f"final score = (weighted mean checkpoint score + p) / 6; c1 = the whole intent's score "
                     f"(0-5, + when judged satisfied); order: {escape(str(order))}, so a lower score can rank higher; "
                     "found by: each channel's best rank in any of its searches")
    if any(not session.is_scored(r) for r in session.results[:top]):
        table.caption += ("; – = not scored: below the scored top N (librarians.pool_size), "
                          "in first-stage retrieval order")
    if str(session.engines.get("scorer", "")).startswith("none"):
        table.caption = "no scorer ran: the score is the fused retrieval score (best = 1) and the rank its order"
    if not session.results:
        table.caption = ("no paper satisfied the checklist's exact metadata constraints"
                         if any(c.kind == "metadata" for c in (session.rounds[-1].checklist.checkpoints
                                                                if session.rounds else []))
                         else "no candidate was found") + _anchor_hint(session)
    for r in session.results[:top]:
        c1 = next((j.score for j in r.checkpoints if j.checkpoint_id == "c1"), None)
        whole = "" if c1 is None else f"{c1:.1f}" + (" +" if c1 >= 2.5 else "")
        scored = session.is_scored(r)
        table.add_row(str(r.rank), f"{r.final_score:.3f}" if scored else "–", f"{r.probability:.2f}" if scored else "–",
                      whole, str(r.year or ""),
                      escape(r.venue or ""), escape(r.title), r.corpus_id, ", ".join(found_by_summary(r.found_by)))
    return table


def found_by_summary(found_by: list[FoundBy]) -> list[str]:
    """One entry per channel that found the paper: its best rank in any search of that channel
    ("lexical #3"), or, for hits without a rank, the first round that found it ("citation in
    round 2"); best first. ``found_by`` as in ``Candidate.found_by``."""
    best: dict[str, tuple[float, int]] = {}
    for f in found_by:
        key = (f.rank if f.rank is not None else float("inf"), f.round)
        best[f.channel] = min(best.get(f.channel, key), key)
    return [f"{channel} #{rank}" if rank != float("inf") else f"{channel} in round {rnd}"
            for channel, (rank, rnd) in sorted(best.items(), key=lambda kv: (kv[1], kv[0]))]


def rationale_lines(result: Result, max_checkpoints: int | None = None) -> Text:
    """One line per checkpoint: score and rationale (quotes are verbatim evidence)."""
    text = Text()
    for j in result.checkpoints[:max_checkpoints]:
        text.append(f"  {j.checkpoint_id} {score_text(j)}/5 ", style=_judgement_style(j))
        text.append(f"{visible_text(j.rationale)}\n")
    return text


def matrix_table(session: Session) -> Table:
    """The paper × checkpoint matrix of scores."""
    checklist = session.rounds[-1].checklist if session.rounds else None
    ids = [c.id for c in checklist.checkpoints] if checklist else []
    table = Table(title="Paper × checkpoint scores (0–5)")
    table.add_column("#", justify="right")
    table.add_column("corpus_id")
    for cid in ids:
        table.add_column(cid, justify="center")
    table.add_column("final", justify="right")
    for r in session.results:
        judged = {j.checkpoint_id: j for j in r.checkpoints}
        cells = [Text(score_text(judged[c]), style=_judgement_style(judged[c])) if c in judged else Text("–")
                 for c in ids]
        table.add_row(str(r.rank), r.corpus_id, *cells, f"{r.final_score:.3f}")
    return table


def paper_panel(result: Result, full_text: str | None = None) -> Panel:
    """Every judgement of one paper with its evidence; with ``full_text``, the evidence is shown
    in context (``CONTEXT_CHARS`` either side) and the quote highlighted."""
    parts: list = [Text(visible_text(f"{result.title} ({result.year or 'n.d.'}, {result.venue or 'venue unknown'})"),
                        style="bold")]
    if result.anchor_link is not None:  # why an anchor search lists it: the edge, then the checklist
        link = result.anchor_link
        said = f": \"{link.contexts[0]}\"" if link.contexts else " (no citing sentence recorded)"
        parts.append(Text(visible_text(f"{link.relation}{said}")))
    for j in result.checkpoints:
        parts.append(Text(visible_text(f"\n{j.checkpoint_id} [{j.kind}] {j.text}"), style="bold cyan"))
        parts.append(Text(visible_text(f"score {score_text(j)}/5 by {j.engine}: {j.rationale}"),
                          style=_judgement_style(j)))
        for e in j.evidence:
            head = Text(f"  evidence {e.chunk_id} ({e.section}, chars {e.char_start}-{e.char_end}, "
                        f"cos {e.similarity:.2f})", style="dim")
            parts.append(head)
            if full_text is not None and full_text[e.char_start:e.char_end] == e.text:
                body = Text("  …" + visible_text(full_text[max(0, e.char_start - CONTEXT_CHARS):e.char_start]),
                            style="dim")
                body.append(_highlight(e.text, j.quote))
                body.append(visible_text(full_text[e.char_end:e.char_end + CONTEXT_CHARS]) + "…", style="dim")
            else:
                body = Text("  ").append(_highlight(e.text, j.quote))
            parts.append(body)
    return Panel(Group(*parts), title=f"#{result.rank} {result.corpus_id}  final {result.final_score:.3f}")


def _highlight(text: str, quote: str | None) -> Text:
    text, quote = visible_text(text), visible_text(quote) if quote else quote
    out = Text(text)
    if quote:
        i = text.find(quote)
        if i >= 0:
            out.stylize("bold yellow", i, i + len(quote))
    return out


def _searched_by_example(rnd, source_ids: list[str]) -> bool:
    """Whether a query-by-example search of the source papers found papers in this round and fed
    the fusion (``union``) of its workflow."""
    from litnav.librarians.operators.retrieval import EXAMPLE_OPS

    fused = {i for n in rnd.workflow.nodes if n.op == "union" for i in n.inputs}
    return any(run.op in EXAMPLE_OPS and run.outputs and run.node_id in fused
               and set(run.params.get("seed_ids", [])) <= set(source_ids) for run in rnd.operator_runs)


_MISSING_VENUES = re.compile(r"\(not in the corpus venue list: ([^)]*)\)")
"""How the intent parser marks venues of a list that the corpus does not hold
(``navigator.intent.parser``)."""


def _years_kept(turn: Turn) -> str:
    """", from <year> on" / ", up to <year>" when the turn's checklist keeps the years a citing or
    cited paper has (``navigator.search``: the similar papers standing in for them), else ""."""
    for c in turn.checklist.checkpoints:
        p = c.predicate
        if c.kind == "metadata" and p is not None and p.field == "year" and not p.negate:
            if turn.asked_direction == "successor" and p.start is not None and p.end is None:
                return f", published from {p.start.year} on"
            if turn.asked_direction == "predecessor" and p.end is not None and p.start is None:
                return f", published up to {p.end.year}"
    return ""


def _anchor_coverage(turn: Turn, shown: int | None, corpus: str | None = None,
                     passed: tuple[int, int] | None = None, excluded: int = 0) -> str | None:
    """How much of the anchor's citing or cited neighbourhood the corpus holds, and how much of it
    is listed: "papers cited by X" over a corpus that holds 12 of its 40 references must not read
    like X's whole bibliography. ``passed``: ``(passed, seen)`` of the hard constraints' filter
    when it dropped papers, and ``excluded`` the papers the exclusions left out before it, so
    "37 cite it; 8 listed" says whether 8 is a cut-off or all there are."""
    n, missing = turn.anchor_linked, turn.anchor_unresolved
    if n is None:
        return None
    papers = f"{n} corpus paper{'' if n == 1 else 's'}"
    listed = f"; {excluded} left out by the exclusions" if excluded else ""
    left = n - excluded
    if passed is not None and passed[0] < passed[1]:
        of = "" if passed[1] >= left else f" of the first {passed[1]}"
        listed += f"; {passed[0]}{of}{' of the others' if excluded and not of else ''} pass the hard constraints"
        left = passed[0] if passed[1] >= n - excluded else left
    if shown is not None and shown < left:
        listed += f"; {shown} listed"
    if turn.direction == "successor":
        return f"{papers} cite{'s' if n == 1 else ''} it{listed}."
    text = f"It cites {papers}{listed}"
    if missing:
        text += (f"; {missing} more of its references match no paper of this corpus "
                 f"(`litnav show {turn.anchor}{f' --corpus {corpus}' if corpus else ''}` lists them)")
    elif n == 0:
        text += " (the corpus holds no bibliography for it)"
    return text + "."


def _kept_by_type(session: Session) -> tuple[int, int] | None:
    """``(kept by type, kept by wording only)`` of the first turn's type filter (``text_filter`` with
    required types), from its note; None when none ran."""
    from litnav.librarians.operators.text import BY_TYPE

    for rnd in session.rounds[:1]:
        for run in rnd.operator_runs:
            if run.note and (m := BY_TYPE.search(run.note)):
                return int(m.group(1)), int(m.group(2))
    return None


_TYPE_SOURCES = ("a paper passes it only when its source lists the type or its title or abstract says so in "
                 "so many words, so one that does not is left out")
_VENUE_KIND_SOURCES = ("a paper passes it only when its source lists the type or its venue's name says so "
                       "(\"Transactions of …\", \"Proceedings of the … Conference\"), so one whose venue is only an "
                       "acronym is left out")


def _filtered_out(session: Session) -> list[str]:
    """A note per hard metadata filter the last turn added when results of the turn before it are
    gone because of it: how many, their earlier ranks, and how to bring them back (a user's "only
    randomized controlled trials" silently dropped the one relevant trial, whose record names no
    type). A gone result is counted against the first added filter its recorded year, venue,
    authors and title fail (``corpus.predicates.check``); one that passes them all left for
    another reason (an exclusion of the same turn, a ban) and is not counted."""
    from litnav.core.records import MetadataPredicate
    from litnav.corpus.predicates import check, names_venue_kind
    from litnav.corpus.records import Author, Paper

    if len(session.turns) < 2 or session.turns[-1].diff is None or not session.turns[-1].diff.dropped:
        return []
    before = {r.corpus_id: r for r in session.turns[-2].results}
    added = [c for e in session.turns[-1].edits if e.action == "add_checkpoint"
             and (c := e.detail.get("checkpoint") or {}).get("kind") == "metadata" and c.get("predicate")
             and float(c.get("weight", 1.0)) >= 1.0]
    gone: dict[str, list[int]] = {}
    for cid in session.turns[-1].diff.dropped:
        if (r := before.get(cid)) is None:
            continue
        paper = Paper(corpus_id=cid, title=r.title, year=r.year, venue=r.venue, venue_raw=r.venue,
                      authors=[Author(name=a) for a in r.authors])
        failed = next((c for c in added if not check(MetadataPredicate.model_validate(c["predicate"]), paper)[0]), None)
        if failed is not None:
            gone.setdefault(failed["id"], []).append(r.rank)
    notes = []
    for c in added:
        if not (ranks := sorted(gone.get(c["id"], []))):
            continue
        shown = ", ".join(f"#{r}" for r in ranks[:8]) + (" …" if len(ranks) > 8 else "")
        predicate = MetadataPredicate.model_validate(c["predicate"])
        why = "" if predicate.field != "publication_type" else f"; {_VENUE_KIND_SOURCES}" if names_venue_kind(
            predicate) else f"; {_TYPE_SOURCES}"
        notes.append(f"Note: {c.get('id')} \"{c.get('text')}\", added this turn, is an exact filter: {len(ranks)} of the "
                     f"previous turn's results are gone ({shown} there){why} ('drop checkpoint {c.get('id')}' brings "
                     "them back).")
    return notes




def _seeds(edit) -> str:
    """" (seed X)" for an edit that follows a paper's citations ("what cites #1" names its rank,
    which later turns renumber), else ""."""
    seeds = (edit.detail or {}).get("seed_ids") or ((edit.detail or {}).get("node") or {}).get("params", {}).get("seed_ids")
    return f" (seed {escape(', '.join(seeds))})" if seeds else ""


def _filter_counts(session: Session) -> tuple[int, int, int] | None:
    """``(passed, candidates, kept)`` of the ``filter`` run that saw most candidates (``kept``: after
    its ``limit``), when some filter run
    dropped a paper (else the filter decided nothing: a channel's ``k``, a ``limit`` or an
    unknown seed made the list short); None otherwise."""
    runs = _filter_runs(session)
    if not any(seen > passed for passed, seen, _ in runs):
        return None
    return max(runs, key=lambda r: (r[1], r[0]))


def _excluded_by_terms(session: Session) -> int:
    """Papers the first round's ``text_filter`` runs left out by their terms (the exclusions)."""
    from litnav.librarians.operators.text import excluded_count

    return sum(excluded_count(run.note) for rnd in session.rounds[:1] for run in rnd.operator_runs
               if run.op == "text_filter")


def _filter_runs(session: Session) -> list[tuple[int, int, int]]:
    """``(passed, seen, kept)`` of every ``filter`` run of the session (``kept``: after its ``limit``)."""
    from litnav.librarians.operators.filter import dropped_counts

    out = []
    for run in (run for rnd in session.rounds for run in rnd.operator_runs if run.op == "filter"):
        if (counts := dropped_counts(run.note)) is not None:
            dropped, seen = counts
            out.append((seen - dropped, seen, len(run.outputs)))
    return out


def result_notes(session: Session) -> list[str]:
    """Warnings a reader of the results needs: constraints that matched no paper of the corpus
    and were relaxed to preferences (``navigator.planner.RELAXED_NOTE``), the corpus paper a pasted
    passage is quoted from (``Checklist.source_ids``), left out of the results (and searched by
    example when such a search ran, :func:`_searched_by_example`), that a pasted passage's c1 reads as
    closeness, fewer results than asked when the hard constraints' filter decided it, and (unless the
    intent is a pasted passage, which no other paper states whole) how many results
    are judged to satisfy the whole intent (checkpoint ``c1``), so a list in which none does
    (the corpus holds no such paper) does not read like a list of matches; and, after a turn that
    added an exact filter, how many of the previous turn's results it removed (:func:`_filtered_out`)."""
    from litnav.librarians.operators.citation import NO_EDGES_NOTE
    from litnav.navigator.intent.parser import reading
    from litnav.navigator.planner import FIELD_ABSENT_NOTES, RELAXED_NOTE, hard_metadata

    notes = []
    checklist = session.rounds[-1].checklist if session.rounds else None
    for c in checklist.checkpoints if checklist else []:
        if absent := next((n for n in FIELD_ABSENT_NOTES if n in c.text), None):
            stated = " ".join(_MISSING_VENUES.sub("", c.text.replace(f" ({absent})", "")).split())
            notes.append(f"Note: {c.id} \"{stated}\": no paper of this corpus {FIELD_ABSENT_NOTES[absent]}, so the "
                         "results are not filtered by it.")
        elif RELAXED_NOTE in c.text:
            notes.append(f"Note: {c.id} \"{c.text.replace(f' ({RELAXED_NOTE})', '')}\" matches no paper of this "
                         "corpus, so the results are not filtered by it (it only re-weights them).")
        elif m := _MISSING_VENUES.search(c.text):
            missing = {v.strip() for v in m.group(1).split(",")}
            if c.predicate is not None and set(c.predicate.values) <= missing:  # nothing else named
                notes.append(f"Note: {c.id} names {m.group(1)}, which is no venue name of this corpus; only papers "
                             "whose venue string contains it as words pass.")
            else:
                notes.append(f"Note: {c.id} names {m.group(1)}, which no venue of this corpus matches; the "
                             "results come from the other venues it names.")
    for phrase in checklist.not_judged if checklist else []:
        notes.append(f"Note: \"{phrase}\" is read as how the methods work, not as an exclusion: papers that do "
                     "without it name it too, so it neither filters, ranks nor is judged; check it in the abstracts.")
    first = session.turns[0] if session.turns else None
    if (not (first is not None and first.asked_direction)  # an anchor search says it its own way
            and any(run.note == NO_EDGES_NOTE for rnd in session.rounds for run in rnd.operator_runs)):
        notes.append("Note: this corpus holds no citation edges, so citation expansion found nothing; a build "
                      "from S2ORC records or a citations dump adds them.")
    notes.extend(_followed_citations(session))
    if checklist is not None and checklist.source_ids:
        ranks = {r.corpus_id: r.rank for r in session.results}
        returned = [f"{c} (#{ranks[c]})" for c in checklist.source_ids if c in ranks]
        by_example = any(_searched_by_example(rnd, checklist.source_ids) for rnd in session.rounds)
        notes.append(f"Note: the intent is quoted from {shown_values(checklist.source_ids)} (`litnav show ID`)"
                     + (", whose title and abstract were searched too (query by example); " if by_example else "; ")
                     + (f"its workflow let it through: {', '.join(returned)}." if returned else
                        "that paper, its source, is not among the results (navigator.exclude_source; pin it "
                        "to bring it back)."))
    judged = [j for r in session.results for j in r.checkpoints if j.checkpoint_id == "c1"]
    first = session.turns[0] if session.turns else None
    last = session.turns[-1] if session.turns else None
    content = {c.id for c in checklist.checkpoints if c.kind not in ("metadata", "exclusion")} if checklist else set()
    reweighted = [e.target for e in (last.edits if last is not None else []) if e.action == "reweight_checkpoint"
                  and e.target in content]
    if reweighted and str(session.engines.get("reranker", "")).startswith("fused retrieval order"):
        notes.append(f"Note: reweighting {', '.join(reweighted)} changes the final scores, not the order: the order is "
                     "the fused retrieval order with preference and exclusion demotions (`--set reranker.order=score` "
                     "orders by final score; \"focus on X\" searches for X).")
    notes.extend(_filtered_out(session))
    for e in last.edits if last is not None else []:
        if e.action == "add_checkpoint" and e.detail.get("unmentioned"):
            notes.append(f"Note: {e.target} \"{(e.detail.get('checkpoint') or {}).get('text')}\": no paper of this corpus "
                         "mentions it (check the spelling), so it excludes nothing.")
    if first is not None and first.paper_not_found:
        notes.insert(0, f"Note: no paper of this corpus is {first.paper_not_found!r}, so its citing, cited or "
                        "similar papers cannot be followed; its words were searched as a topic instead (`litnav "
                        "show` finds a corpus paper by title, DOI or arXiv id).")
    if first is not None and first.anchor:
        notes.insert(0, f"Anchor: {first.direction} of {first.anchor}"
                        + (f" ({first.anchor_title!r})" if first.anchor_title else "") + ".")
        if first.asked_direction:
            notes.insert(1, f"This corpus holds no citation edges, so no paper can be shown to be a "
                            f"{first.asked_direction} of the anchor: these are the papers most like it (sibling), "
                            "the anchor left out" + _years_kept(first) + ".")
        shown = len(session.results) if len(session.turns) == 1 else None  # a refinement may add other papers
        cut = _filter_counts(session) if len(session.turns) == 1 else None
        excluded = _excluded_by_terms(session) if len(session.turns) == 1 else 0
        if (coverage := _anchor_coverage(first, shown, session.corpus, cut[:2] if cut else None, excluded)) is not None:
            notes.insert(1, coverage)
        if first.direction in ("survey", "benchmark") and (kept := _kept_by_type(session)) is not None \
                and kept[0] < len(session.results):
            kind = "survey, review or tutorial" if first.direction == "survey" else "benchmark or dataset paper"
            typed = "no candidate is" if not kept[0] else f"only {kept[0]} {'candidate is' if kept[0] == 1 else 'candidates are'}"
            notes.append(f"Note: {typed} typed a {kind}; the others are kept for their wording alone "
                         "(\"we review\", \"empirical study\", \"rethinking\", \"we introduce a dataset\" ...), so this "
                         f"corpus may hold no {first.direction} of the anchor beyond those.")
        if str(session.engines.get("reranker", "")).startswith("in-corpus citation count"):
            notes.append("Ordered by how many corpus papers cite each, as asked (\"most cited\"): the most cited of "
                         "all the anchor's neighbours that pass the constraints, not of the closest to a topic.")
        unlinked = [r.rank for r in session.results if r.anchor_link is None]
        if first.direction in ("sibling", "survey", "benchmark") and unlinked and len(session.turns) == 1:
            notes.append(f"Note: {len(unlinked)} of {len(session.results)} results (#"
                         f"{', #'.join(map(str, unlinked[:8]))}{' ...' if len(unlinked) > 8 else ''}) neither cite the "
                         "anchor nor are cited by it: they are listed for their likeness to it"
                         + (" and the papers it is cited with" if first.direction == "sibling" else "") + ".")
        if not first.intent_given and judged:
            routed = "read from the intent" in session.engines.get("navigator", "")
            why = "the intent asked for the anchor's neighbours" if routed else "no intent was given"
            notes.append(f"c1 is the anchor's title ({why}): its score says how close a paper's topic "
                         f"is to the anchor, not whether the paper is a {first.direction}.")
            judged = []
    quoted = reading(session.intent) == "passage" or bool(checklist and checklist.source_ids)
    if judged and quoted:
        notes.append("c1 is the pasted text as a whole, which no other paper states: read its score as how close "
                     "a paper comes, not as a verdict.")
    last = session.turns[-1].workflow if session.turns else (session.rounds[-1].workflow if session.rounds else None)
    asked = last.top_k() if last else None
    hard = hard_metadata(checklist) if checklist else []
    filtered = bool(session.rounds) and any(n.op == "filter" for n in session.rounds[-1].workflow.nodes)
    banned = bool(session.turns and session.turns[-1].bans)
    if hard and filtered and not banned and asked and len(session.results) < asked and (cut := _filter_counts(session)):
        n = len(session.results)
        if "workflow" in session.engines:  # a given workflow's channels may be shallow: say what its filter saw
            notes.append(f"{n} of {asked} results asked for: the workflow's filter passed {cut[0]} of the {cut[1]} "
                         f"candidates its searches retrieved ({'; '.join(f'{c.id}: {c.text}' for c in hard)})"
                         + (f", and its limit kept {cut[2]}." if cut[2] < cut[0] else "."))
        elif cut[0] < asked:
            notes.append(f"Only {n} {'paper' if n == 1 else 'papers'} found {'passes' if n == 1 else 'pass'} the "
                         f"hard constraints ({'; '.join(f'{c.id}: {c.text}' for c in hard)}); {asked} were asked for.")
    if judged and not quoted:  # no other paper states a pasted passage whole
        satisfied = sum(j.score >= 2.5 for j in judged)
        notes.append(f"{satisfied} of {len(judged)} results {'is' if satisfied == 1 else 'are'} judged to satisfy "
                     "the whole intent (c1)"
                     + ("; the scorer judges strictly (a paper on the topic can miss one phrase of it), so read the "
                        "top results before concluding that the corpus holds none." if satisfied == 0 else
                        _constraints_broken(session, checklist)))
        if reading(session.intent) == "claim":
            notes.append("The intent reads as a claim: c1 \"satisfied\" means a paper addresses it, with the quote "
                         "as its evidence; whether the paper supports or contradicts the claim is not judged (read "
                         "the quote).")
    if "planned by reflection" in session.engines.get("workflow", ""):
        given = session.engines["workflow"].split(";")[0].removesuffix(" (round 1)")
        notes.append(f"Note: round 1 ran the workflow {given}; later rounds were planned by reflection and may add "
                     "channels or filters it left out (`--rounds 1` runs it alone).")
    for role, engine in session.engines.items():  # llm.fallback: say so, not only inside the engines line
        if "fallback" in engine:
            notes.append(f"Note: the {role} LLM failed and fell back ({shorten(engine, 300)}).")
    return notes


def _constraints_broken(session: Session, checklist) -> str:
    """The end of the "k of n results satisfy c1" note: "." when every such result also meets the
    intent's stated constraints (exclusions and metadata of weight 1, or stated ones relaxed
    because no paper matches them), else which of them break one or cannot be checked against it
    (a "?" field), by rank, so a count of c1 verdicts does not read as a count of results that
    meet the whole request."""
    from litnav.navigator.planner import RELAXED_NOTE

    kinds = {c.id: c.kind for c in checklist.checkpoints} if checklist else {}
    stated = {c.id for c in checklist.checkpoints if c.kind in ("metadata", "exclusion")
              and (c.weight >= 1.0 or RELAXED_NOTE in c.text)} if checklist else set()
    broken: dict[str, list[int]] = {}
    unknown: dict[str, list[int]] = {}
    for r in session.results:
        if not any(j.checkpoint_id == "c1" and j.score >= 2.5 for j in r.checkpoints):
            continue
        for j in r.checkpoints:
            if j.checkpoint_id in stated and (j.unknown or j.score < 2.5):
                (unknown if j.unknown else broken).setdefault(j.checkpoint_id, []).append(r.rank)
    parts = []
    for cid, ranks in broken.items():
        shown = ", ".join(f"#{k}" for k in ranks[:8]) + (" …" if len(ranks) > 8 else "")
        parts.append(f"{cid} is judged {'violated' if kinds.get(cid) == 'exclusion' else 'not met'} by {shown}")
    for cid, ranks in unknown.items():
        parts.append(f"{cid} cannot be checked for {len(ranks)} of them (their records lack the field)")
    return f"; of those, {'; '.join(parts)}." if parts else "."


def _followed_citations(session: Session) -> list[str]:
    """For a refinement that followed citations ("follow the citing direction of the top paper"):
    how many papers the citation search found and, when none of them is among the results,
    where the best of them ranks, so the feedback does not read as ignored."""
    turn = session.turns[-1] if len(session.turns) > 1 else None
    if turn is None or not session.rounds:
        return []
    runs = {run.node_id: run for rnd in session.rounds if rnd.index in turn.rounds for run in rnd.operator_runs}
    ranks = {cid: i for i, (cid, _) in enumerate(session.rounds[-1].ranking, 1)}
    shown = {r.corpus_id for r in session.results}
    notes = []
    for e in turn.edits:
        run = runs.get(e.target)
        if e.action != "add_node" or run is None or run.op != "citation_expand":
            continue
        found = [cid for cid, _ in run.outputs]
        relation = "citing" if run.params.get("direction") == "citing" else "cited by"
        of = ", ".join(run.params.get("seed_ids") or [])
        if not found:
            notes.append(f"Note: \"{e.reason}\" found no corpus paper {relation} {of}.")
        elif not shown & set(found):
            best = min((ranks[c] for c in found if c in ranks), default=None)
            notes.append(f"Note: \"{e.reason}\" found {len(found)} paper{'s' if len(found) != 1 else ''} {relation} "
                         f"{of}; none ranks among these {len(session.results)} results"
                         + (f" (the best at #{best}: ask for more results, or pin it)." if best else "."))
    return notes


def _anchor_hint(session: Session) -> str:
    """Why an anchor search along citations can find nothing, and what to try."""
    first = session.turns[0] if session.turns else None
    if first is None or first.direction not in ("successor", "predecessor"):
        return ""
    edge = "cite" if first.direction == "successor" else "are cited by"
    emptied = [seen for passed, seen, _ in _filter_runs(session) if seen and not passed]
    if emptied:  # the neighbours were there; the constraints left them all out
        return (f": all {max(emptied)} papers that {edge} the anchor fail the hard constraints"
                + (" (a paper's references are not newer than it)" if first.direction == "predecessor" else ""))
    stats = f"litnav stats --corpus {session.corpus}" if session.corpus else "litnav stats --corpus DIR"
    return (f": a {first.direction} search reads the papers that {edge} the anchor in this corpus's citation "
            f"edges (`{stats}` counts them); `--direction sibling` finds similar papers without them")


def print_notes(session: Session, console: Console) -> None:
    """Print :func:`result_notes` as plain lines (no markup)."""
    for line in result_notes(session):
        console.print(visible_text(line), style="yellow", markup=False, highlight=False)


def print_session(session: Session, console: Console | None = None, rationales: int = 3,
                  links: dict[str, dict] | None = None) -> None:
    """Print the checklist, the ranked table and the first rationales of each result, with, for
    an anchor search's results, the citation edge to the anchor and its citing sentence
    (``links``: ``session.paper.anchor_links``)."""
    console = console or Console()
    console.print(checklist_table(session))
    console.print(results_table(session))
    print_notes(session, console)
    for r in session.results[:rationales]:
        console.print(Text(visible_text(f"#{r.rank} {r.title}"), style="bold"))
        if links and (link := links.get(r.corpus_id)):
            said = f": \"{link['contexts'][0]}\"" if link["contexts"] else " (no citing sentence recorded)"
            console.print(Text(visible_text(f"  {link['relation']}{said}")))
        console.print(rationale_lines(r))
    rounds = len(session.rounds)
    console.print(f"{rounds} round(s); stop: {session.stop_reason}; "
                  f"total {session.timings.get('total', 0):.2f}s; engines: {session.engines}")


def turns_table(session: Session) -> Table:
    """The session's turns: the feedback (or clarification), each edit with its reason, the nodes
    re-run and reused, and the result diff (new / dropped / moved)."""
    table = Table(title="Turns", show_lines=True)
    for col in ("turn", "feedback", "edits", "re-run / reused", "results"):
        table.add_column(col)
    for t in session.turns:
        said = escape(t.feedback or ("(first search" + (f": {t.direction} of {t.anchor}" if t.anchor else "") + ")"))
        if t.clarification is not None:
            said += f"\n[dim]asked: {escape(t.clarification.question)} -> {escape(t.clarification.answer)}[/dim]"
        edits = "\n".join(f"{e.action} {escape(e.target)}: {escape(e.reason)}" + _seeds(e) for e in t.edits) or "-"
        nodes = f"{', '.join(t.rerun) or '-'}\n[dim]reused: {', '.join(t.reused) or '-'}[/dim]"
        diff = (f"{len(t.results)} results; +{len(t.diff.new)} -{len(t.diff.dropped)} moved {len(t.diff.moved)}"
                if t.diff else f"{len(t.results)} results")
        for label, ids in (("new", t.diff.new if t.diff else []), ("dropped", t.diff.dropped if t.diff else [])):
            if ids:
                diff += f"\n{label}: " + ", ".join(escape(c) for c in ids[:8]) + (
                    f" and {len(ids) - 8} more" if len(ids) > 8 else "")
        table.add_row(str(t.index), said, edits, nodes, diff)
    return table
