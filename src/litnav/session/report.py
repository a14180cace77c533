"""The audit of a session as data (``audit_view``) and as one self-contained HTML report
(``render_report``): intent, checklist, paper × checkpoint matrix, every judgement with its
verbatim evidence highlighted in the surrounding text (section and offsets), the per-round
history, clarification and feedback turns, cost and timing. Nothing is recomputed here; the
corpus is read only for the text around each evidence chunk and for titles of papers that
rounds found but did not return.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

from litnav.core.records import Session
from litnav.navigator.intent.describe import predicate_text
from litnav.session.paper import anchor_links
from litnav.session.render import found_by_summary, result_notes, score_text

CONTEXT_CHARS = 240
"""Characters of surrounding text shown either side of an evidence chunk."""


def _score_class(score: float | None) -> str:
    if score is None:
        return "none"
    return "hi" if score >= 4 else "mid" if score >= 2.5 else "lo"


def _evidence(e, quote: str | None, full_text: str | None) -> dict[str, Any]:
    in_context = full_text is not None and full_text[e.char_start:e.char_end] == e.text
    before = full_text[max(0, e.char_start - CONTEXT_CHARS):e.char_start] if in_context else ""
    after = full_text[e.char_end:e.char_end + CONTEXT_CHARS] if in_context else ""
    i = e.text.find(quote) if quote else -1
    pieces = ([e.text[:i], e.text[i:i + len(quote)], e.text[i + len(quote):]] if i >= 0 and quote
              else [e.text, "", ""])
    return {"chunk_id": e.chunk_id, "section": e.section, "char_start": e.char_start, "char_end": e.char_end,
            "similarity": round(e.similarity, 4), "in_context": in_context, "before": before, "after": after,
            "text_pre": pieces[0], "quote": pieces[1], "text_post": pieces[2],
            "truncated_before": in_context and e.char_start > CONTEXT_CHARS,
            "truncated_after": in_context and full_text is not None and e.char_end + CONTEXT_CHARS < len(full_text)}


def audit_view(session: Session, corpus=None) -> dict[str, Any]:
    """JSON-ready audit of ``session``.

    Keys: ``intent``, ``corpus``, ``created_at``, ``stop_reason``, ``engines``, ``usage`` (role ->
    counts and ``cost_usd``), ``total_usage``, ``timings`` (stage -> seconds), ``checklist`` (list of
    checkpoints with ``predicate``), ``results`` (rank order; ``judgements`` maps checkpoint id ->
    score, rationale, quote and ``evidence`` with ``before``/``after`` context when ``corpus`` holds
    the text at the stored offsets), ``rounds`` (plan notes, what changed and why, ``found`` = papers
    first seen in that round), ``clarifications`` and ``feedback`` (the user turns of a refined
    session: feedback, typed edits with the phrase that asked for them, results new/dropped/moved,
    workflow nodes rerun or reused), ``notes`` (``session.render.result_notes``: relaxed constraints, the
    passage's source left out, how many results satisfy ``c1``); a result of an anchor search that
    follows citations has ``anchor_link`` (``session.paper.anchor_links``: the edge to the anchor
    with its citing sentences; None otherwise). ``corpus`` may be None: evidence is then shown alone.
    """
    checklist = session.rounds[-1].checklist.checkpoints if session.rounds else []
    fingerprint_ok = corpus is None or not session.corpus_fingerprint or corpus.fingerprint() == session.corpus_fingerprint
    results = []
    links = anchor_links(session, corpus) if corpus is not None else {}
    for r in session.results:
        full_text = corpus.full_text(r.corpus_id) if corpus is not None else None
        judgements = {}
        for j in r.checkpoints:
            judgements[j.checkpoint_id] = {
                "kind": j.kind, "text": j.text, "score": None if j.unknown else j.score,
                "score_class": _score_class(None if j.unknown else j.score), "shown": score_text(j),
                "rationale": j.rationale, "quote": j.quote, "quote_chunk_id": j.quote_chunk_id,
                "quote_start": j.quote_start, "quote_end": j.quote_end,
                "engine": j.engine, "evidence": [_evidence(e, j.quote, full_text) for e in j.evidence],
            }
        results.append({
            "rank": r.rank, "corpus_id": r.corpus_id, "title": r.title, "year": r.year, "venue": r.venue,
            "authors": r.authors, **dict(zip(("final_score", "probability"), session.shown_scores(r))),
            "found_by": found_by_summary(r.found_by), "judgements": judgements,
            "anchor_link": links.get(r.corpus_id),
        })
    titles = {r.corpus_id: r.title for r in session.results}
    seen: set[str] = set()
    rounds = []
    per_round_found = []
    for rnd in session.rounds:
        ids = list(dict.fromkeys(cid for run in rnd.operator_runs for cid, _ in run.outputs))
        new = [cid for cid in ids if cid not in seen]
        seen.update(ids)
        per_round_found.append(new)
    missing = {cid for new in per_round_found for cid in new} - set(titles)
    if corpus is not None and missing:
        titles.update({cid: p.title for cid, p in corpus.papers(sorted(missing)).items()})
    returned = {r.corpus_id for r in session.results}
    for rnd, new in zip(session.rounds, per_round_found):
        rounds.append({
            "index": rnd.index, "seconds": round(rnd.seconds, 3), "candidates": rnd.candidates,
            "checkpoints": [c.id for c in rnd.checklist.checkpoints],
            "workflow": [{"id": n.id, "op": n.op, "note": n.note, "inputs": n.inputs} for n in rnd.workflow.nodes],
            "operators": [{"node_id": o.node_id, "op": o.op, "outputs": len(o.outputs), "seconds": round(o.seconds, 3),
                           "engine": o.engine} for o in rnd.operator_runs],
            "found": [{"corpus_id": cid, "title": titles.get(cid), "returned": cid in returned} for cid in new],
            "new_above_threshold": [{"corpus_id": cid, "title": titles.get(cid)} for cid in rnd.new_above_threshold],
            "ranking": [{"corpus_id": cid, "score": round(s, 4), "title": titles.get(cid)} for cid, s in rnd.ranking[:10]],
            "changes": [c.model_dump(mode="json") for c in rnd.changes],
        })
    usage = {role: u.model_dump(mode="json") for role, u in session.usage.items()}
    total: dict[str, float] = {}
    for u in usage.values():
        for k, v in u.items():
            total[k] = total.get(k, 0) + v
    feedback = [{
        "index": t.index, "feedback": t.feedback, "engine": t.engine, "anchor": t.anchor, "direction": t.direction,
        "edits": [{"action": e.action, "target": e.target, "reason": e.reason} for e in t.edits],
        "new": list(t.diff.new) if t.diff else [], "dropped": list(t.diff.dropped) if t.diff else [],
        "moved": [list(m) for m in t.diff.moved] if t.diff else [], "rerun": t.rerun, "reused": t.reused,
        "pins": t.pins, "bans": t.bans, "results": [r.corpus_id for r in t.results],
    } for t in getattr(session, "turns", [])]
    return {
        "intent": session.intent, "corpus": session.corpus, "corpus_fingerprint": session.corpus_fingerprint,
        "corpus_matches": fingerprint_ok, "created_at": session.created_at.isoformat(),
        "stop_reason": session.stop_reason, "engines": session.engines, "usage": usage, "total_usage": total,
        "timings": {k: round(v, 3) for k, v in session.timings.items()},
        "checklist": [{"id": c.id, "kind": c.kind, "weight": c.weight, "text": c.text, "terms": c.terms,
                       "predicate": predicate_text(c.predicate) if c.predicate else "", "source": c.source} for c in checklist],
        "results": results, "rounds": rounds, "notes": result_notes(session),
        "clarifications": [c.model_dump(mode="json") for c in session.clarifications],
        "feedback": feedback,
    }


def _environment():
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
    from markupsafe import Markup

    from litnav.core.text import visible_text

    # every printed text without control characters or terminal escapes (a corpus may hold a NUL or ESC)
    env = Environment(loader=PackageLoader("litnav.session", "templates"),
                      autoescape=select_autoescape(["html", "j2"]), undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True,
                      finalize=lambda v: (Markup(visible_text(v)) if isinstance(v, Markup) else visible_text(v))
                      if isinstance(v, str) else v)
    env.filters["fmt"] = lambda v, spec: format(v, spec) if v is not None else ""
    env.filters["tojson_safe"] = lambda v: json.dumps(v, ensure_ascii=False).replace("</", "<\\/")
    env.filters["code_spans"] = _code_spans
    return env


def _code_spans(text: str):
    """``text`` HTML-escaped, its `backquoted` spans (commands, settings) as ``<code>``."""
    import re

    from markupsafe import Markup, escape

    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(escape(text))))


def render_report(session: Session, corpus=None) -> str:
    """The HTML audit report of ``session``: one self-contained page (inline CSS and JS, no
    network). ``corpus`` (optional) supplies the text around each evidence chunk. The page names
    the corpus by its folder's name, never by where it lies on this machine (a report is shared)."""
    from litnav.core.version import package_version

    litnav_version = package_version()
    view = audit_view(session, corpus)
    if view.get("corpus"):
        view["corpus"] = PurePath(str(view["corpus"])).name or view["corpus"]
    return _environment().get_template("report.html.j2").render(v=view, version=litnav_version)
