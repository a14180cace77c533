"""Anchor-paper search: from one paper, in a direction, optionally with an intent.

Each direction is a workflow template, an editable JSON file (``navigator/data/anchor_<direction>.json``,
or any file given as ``template``) whose strings may hold the placeholders ``{anchor}`` (the
anchor's corpus id), ``{anchor_title}``, ``{anchor_text}`` (title and abstract), ``{query}``
(the intent, else the anchor's title) and ``{top_k}``:

- ``successor``: papers citing the anchor;
- ``predecessor``: papers the anchor cites;
- ``sibling``: co-citation and bibliographic coupling (``graph_neighbours``) fused with the
  anchor's semantic neighbours;
- ``benchmark``: dataset/benchmark papers among the anchor's references and its neighbourhood
  (publication type or title cues, dataset-release wording);
- ``survey``: review-type papers citing the anchor or covering its topic.

Every template ends in evidence -> score -> rerank under the intent's checklist, so the result
is ranked by the intent; hard metadata constraints of the intent add a ``filter`` node.
"""

from __future__ import annotations

import json
import re
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any

from litnav.core.records import Checklist, Checkpoint, Session, Turn, Workflow
from litnav.core.settings import Settings
from litnav.core.text import visible_text
from litnav.librarians import WorkflowError, validate_workflow
from litnav.navigator.results import link_to_anchor

DIRECTIONS = ("successor", "predecessor", "sibling", "benchmark", "survey")

_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)?(10\.\d{4,9}/\S+)$", re.I)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.I)
_ARXIV = re.compile(r"^(?:arxiv:|https?://arxiv\.org/abs/)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})$",
                    re.I)


class AnchorError(ValueError):
    """The anchor cannot be found in the corpus, or the direction/template is unknown."""


SHORT_TITLE_MAX_TITLES = 3
"""Most corpus titles a short title read from an intent's words may appear in: "Soft Actor-Critic"
names one paper, "Statistical Machine Translation" (in hundreds of ACL titles) a topic, though
one paper is titled "Statistical Machine Translation: ..."."""


def short_title_ids(corpus, ref: str, *, from_text: bool = False) -> list[str]:
    """``corpus.find_by_short_title(ref)``; with ``from_text`` (``ref`` read from an intent's words)
    ``[]`` when more than :data:`SHORT_TITLE_MAX_TITLES` corpus titles hold ``ref`` (a topic, not
    a paper's name). ``[]`` for a corpus without the method."""
    if not hasattr(corpus, "find_by_short_title"):
        return []
    if from_text and corpus.count_titles_with(ref) > SHORT_TITLE_MAX_TITLES:
        return []
    return corpus.find_by_short_title(ref)


def resolve_anchor(corpus, ref: str, *, fuzzy: bool = True, from_text: bool = False) -> str:
    """The corpus id of the paper ``ref`` names: a corpus id, a DOI, an arXiv id (with or
    without version), an exact (normalised) title, the paper's acronym (``Corpus.find_by_acronym``:
    "DDPM", "BERT"), or (``fuzzy``) a title close enough for the
    reference matcher (``web.matcher.Matcher``, as ``litnav verify`` uses it) to verify. Raises
    ``AnchorError`` when none matches (naming the closest title the matcher found) or an exact
    title matches several papers (listing them). A title before its subtitle's colon ("Soft
    Actor-Critic") and arXiv's DOI (10.48550/arXiv.ID) name the paper too; with ``from_text`` (the
    reference was read from an intent's words) the short title only when at most
    :data:`SHORT_TITLE_MAX_TITLES` corpus titles hold it, else it reads as a topic."""
    ref = ref.strip()
    if not ref:
        raise AnchorError("the anchor is empty")
    if corpus.paper(ref) is not None:
        return ref
    if m := _DOI.match(ref):
        if cid := corpus.find_by_external_id("doi", m.group(1)):
            return cid
        if arxiv := _ARXIV_DOI.match(m.group(1)):  # arXiv's DataCite DOI: the arXiv id
            ref = arxiv.group(1)
    if m := _ARXIV.match(ref):
        bare = re.sub(r"v\d+$", "", m.group(1))
        for value in (m.group(1), bare):
            if cid := corpus.find_by_external_id("arxiv", value):
                return cid
    ids = corpus.find_by_title(ref)
    if len(ids) == 1:
        return ids[0]
    if len(ids) > 1:
        raise AnchorError(f"the title {ref!r} matches {len(ids)} papers ({', '.join(ids[:5])}); give a corpus id")
    for how, find in (("acronym", lambda: corpus.find_by_acronym(ref) if hasattr(corpus, "find_by_acronym") else []),
                      ("short title", lambda: short_title_ids(corpus, ref, from_text=from_text))):
        ids = find()
        if len(ids) == 1:
            return ids[0]
        if len(ids) > 1:
            papers = corpus.papers(ids[:5])
            listed = "; ".join(f"{cid} {papers[cid].title!r}" if cid in papers else cid for cid in ids[:5])
            raise AnchorError(f"the {how} {ref!r} names {len(ids)} papers ({listed}); give a corpus id")
    if not fuzzy:
        raise AnchorError(f"could not resolve {ref!r} to a corpus paper (tried corpus id, DOI, arXiv id, exact title, "
                          "acronym and short title)")
    from litnav.web.matcher import Matcher
    from litnav.web.records import ExternalRecord

    # a title cited loosely ("... Unsupervised MT", without its subtitle): the reference matcher's
    # fuzzy title match decides, as `litnav verify` does; the note under the results names the paper
    match = Matcher.for_corpus(corpus).match(ExternalRecord(title=ref, provider="bibliography"))
    if match.status == "verified" and match.corpus_id:
        return match.corpus_id
    hint = (f"; {match.reason}: corpus id {match.corpus_id}" if match.corpus_id and match.reason else "")
    raise AnchorError(f"could not resolve {ref!r} to a corpus paper (tried corpus id, DOI, arXiv id, title, acronym "
                      f"and short title){hint}")


def template_path(direction: str) -> Path:
    """The packaged template file of ``direction``; raises ``AnchorError`` for an unknown one."""
    if direction not in DIRECTIONS:
        raise AnchorError(f"unknown direction {direction!r}; expected one of {', '.join(DIRECTIONS)}")
    return Path(str(resources.files("litnav.navigator") / "data" / f"anchor_{direction}.json"))


def _fill(value: Any, subs: dict[str, str]) -> Any:
    if isinstance(value, str):
        for k, v in subs.items():
            if value == "{" + k + "}" and k == "top_k":
                return int(v)
            value = value.replace("{" + k + "}", v)
        return value
    if isinstance(value, list):
        return [_fill(v, subs) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, subs) for k, v in value.items()}
    return value


ANCHOR_PLACEHOLDERS = ("anchor", "anchor_title", "anchor_text")
"""Placeholders through which a template's nodes read the anchor paper."""
PLACEHOLDERS = (*ANCHOR_PLACEHOLDERS, "query", "top_k")
"""Every placeholder :func:`anchor_workflow` fills."""


def _slips(text: str) -> list[tuple[str, str]]:
    """``(name, meant)`` for each ``{name}`` in a raw template that is no placeholder but close to
    one ("{anchr}", "{Anchor}", "{anchor1}": rapidfuzz ratio >= 75 in lower case); braces far from
    every placeholder ("$AP^{box}$" in a template's own text) are left alone."""
    from rapidfuzz import fuzz, process

    found = []
    for name in dict.fromkeys(re.findall(r"\{([A-Za-z_][\w]*)\}", text)):
        if name in PLACEHOLDERS:
            continue
        best = process.extractOne(name.lower(), PLACEHOLDERS, scorer=fuzz.ratio, score_cutoff=75)
        if best:
            found.append((name, best[0]))
    return found


def load_template(direction: str | None = None, path: str | Path | None = None) -> dict[str, Any]:
    """The raw template (with placeholders) of ``direction`` or from ``path``; raises
    ``AnchorError`` naming the file when it is not JSON with ``nodes`` and ``output``, or when a
    file's nodes name no anchor placeholder (:data:`ANCHOR_PLACEHOLDERS`: an ordinary workflow
    would list another search's papers as the anchor's neighbours)."""
    p = Path(path) if path is not None else template_path(direction or "")
    try:
        data = json.loads(p.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise AnchorError(f"{p}: {exc}") from None
    if not isinstance(data, dict) or "nodes" not in data or "output" not in data:
        raise AnchorError(f"{p}: a workflow template needs 'nodes' and 'output'")
    for node in data.get("nodes") or []:
        for name in _slips(json.dumps(node.get("params", {}) if isinstance(node, dict) else node)):
            raise AnchorError(f"{p}: node {node.get('id')!r}: {{{name[0]}}} is no placeholder; did you mean "
                              f"{{{name[1]}}}? (a template fills {', '.join('{' + k + '}' for k in PLACEHOLDERS)})")
    if path is not None and not any("{" + k + "}" in json.dumps(data.get("nodes")) for k in ANCHOR_PLACEHOLDERS):
        raise AnchorError(f"{p}: the workflow names no anchor ({', '.join('{' + k + '}' for k in ANCHOR_PLACEHOLDERS)}), "
                          f"so its searches would ignore the anchor paper; start from the direction's template "
                          f"({template_path(direction) if direction in DIRECTIONS else 'navigator/data/anchor_*.json'})")
    return data


def anchor_workflow(template: dict[str, Any], anchor: str, title: str, abstract: str | None, query: str,
                    top_k: int) -> Workflow:
    """The template with its placeholders filled, validated; raises ``WorkflowError``."""
    subs = {"anchor": anchor, "anchor_title": title, "anchor_text": f"{title}. {abstract or ''}".strip(),
            "query": query, "top_k": str(top_k)}
    body = {k: v for k, v in template.items() if k in ("nodes", "output")}
    wf = Workflow.model_validate(_fill(body, subs))
    validate_workflow(wf)
    return wf


def _coverage(corpus, cid: str, direction: str) -> tuple[int | None, int | None]:
    """(corpus papers citing or cited by ``cid``, references matching no corpus paper: bibliography
    entries without a corpus id and edges to ids the corpus does not hold) for
    the successor and predecessor directions, so the results can say how much of the anchor's
    neighbourhood the corpus holds; (None, None) for the others."""
    if direction == "successor":
        return len(corpus.papers({c.citing_id for c in corpus.citations(cid)})), None
    if direction == "predecessor":
        cited = {r.cited_id for r in corpus.references(cid)}
        held = len(corpus.papers(cited))  # an edge may name a paper id the corpus does not hold
        unresolved = corpus.unresolved_references(cid) if hasattr(corpus, "unresolved_references") else None
        return held, None if unresolved is None else len(unresolved) + len(cited) - held
    return None, None


NOT_OLDER = "(a survey of the anchor is not older than it)"
"""The end of the text of the year checkpoint a survey search implies (:func:`_not_older`): the
user did not state it, so feedback stating the same period makes it theirs ("only papers after
2016" of a 2017 anchor) rather than changing nothing."""


def _not_older(checklist: Checklist, paper, corpus, today: date | None) -> Checklist:
    """``checklist`` with "published since the anchor's year" when it names no year: a survey that
    covers the anchor is not older than it (a trial's survey lists held papers years older than
    their anchor); as it is when the anchor has no year."""
    if paper.year is None or any(c.predicate is not None and c.predicate.field == "year" for c in checklist.checkpoints):
        return checklist
    found = [c for c in _constraints(f"since {paper.year}", corpus, today) if c.predicate is not None]
    if not found:
        return checklist
    n = 1 + max((int(c.id[1:]) for c in checklist.checkpoints if re.fullmatch(r"m\d+", c.id)), default=0)
    cp = found[0].model_copy(update={"id": f"m{n}", "text": f"{found[0].text} {NOT_OLDER}"})
    return checklist.model_copy(update={"checkpoints": [*checklist.checkpoints, cp]})


_MOST_CITED = re.compile(r"\b(?:(?:only|just)\s+)?(?:the\s+)?(?:most|highly|widely)[\s-]+(?:cited|influential)"
                         r"(?:\s+(?:ones|papers|works?|first))?\b|\b(?:ordered|sorted|ranked)\s+by\s+(?:citations?|citation"
                         r"\s+counts?|how\s+often\s+(?:they\s+are\s+)?cited)\b", re.I)
"""An anchor intent asking for the most cited neighbours ("only the most cited ones", "highly
cited papers", "sorted by citations"): an order, not a topic."""
BY_CITATIONS_POOL = 1000
"""Neighbours ranked when the most cited are asked for, of which the most cited are shown."""


def _without_order(text: str) -> str:
    """``text`` less its :data:`_MOST_CITED` wording and the commas it leaves."""
    return " ".join(_MOST_CITED.sub(" ", text).split()).strip(" ,;")


def _most_cited_first(results: list, corpus, top_k: int) -> list:
    """``results`` ordered by how many corpus papers cite each (most first; ties keep their order),
    the first ``top_k``, ranked anew."""
    counts = {r.corpus_id: len(corpus.citations(r.corpus_id)) for r in results}
    ordered = sorted(results, key=lambda r: -counts[r.corpus_id])[:top_k]
    return [r.model_copy(update={"rank": i}) for i, r in enumerate(ordered, 1)]


def _names_content(text: str, corpus, today: date | None) -> bool:
    """True when the intent parser reads a topic in ``text`` (a checkpoint other than metadata and
    exclusions), so it orders the anchor's neighbours; "only since 2021, not surveys" names none."""
    from litnav.navigator.planner import corpus_parse

    try:
        checklist = corpus_parse(text, corpus, today)
    except ValueError:
        return False
    return any(c.kind not in ("metadata", "exclusion") for c in checklist.checkpoints)


def _constraints(text: str | None, corpus, today: date | None) -> list[Checkpoint]:
    """The metadata and exclusion checkpoints the intent parser reads in ``text`` (none without)."""
    from litnav.navigator.planner import corpus_parse

    if not text or not text.strip():
        return []
    try:
        checklist = corpus_parse(text, corpus, today)
    except ValueError:
        return []
    return [c for c in checklist.checkpoints if c.kind in ("metadata", "exclusion")]


def anchor_search(
    anchor: str,
    direction: str,
    corpus,
    settings: Settings | None = None,
    *,
    intent: str | None = None,
    top_k: int | None = None,
    template: str | Path | None = None,
    today: date | None = None,
    constraints: str | None = None,
) -> Session:
    """Search from the paper ``anchor`` (id, DOI, arXiv id or title) in ``direction``.

    The intent (default: the anchor's title) gives the checklist that scores and orders the
    candidates; its hard metadata constraints become a ``filter`` node. ``constraints`` ("since
    2023, not surveys"; with no intent) adds the metadata and exclusion checkpoints the intent
    parser reads in it to the title's checklist; its other words are dropped. An intent that names
    no topic ("only since 2021, not surveys") is read as ``constraints``: the title stays the topic.
    An exclusion of the intent leaves its papers out (a ``text_filter`` on title and abstract, as
    feedback's "drop anything about X" does). "The most cited ones" (:data:`_MOST_CITED`) orders
    the neighbours by how many corpus papers cite them. Returns a session whose
    turn 1 records the anchor and direction, ready for ``navigator.refine``. Raises
    ``AnchorError`` (unknown anchor/direction/template) or ``WorkflowError``.
    """
    from litnav.core.records import Node
    from litnav.navigator.arguments import check_arguments
    from litnav.navigator.loop import SearchRun
    from litnav.navigator.planner import (
        corpus_parse,
        hard_metadata,
        insert_before_evidence,
        relax_unsatisfiable,
        source_node,
    )
    from litnav.navigator.source import with_source
    from litnav.navigator.students import search_student

    check_arguments(intent=intent or "", settings=settings, top_k=top_k)
    if not isinstance(anchor, str):
        raise TypeError(f"anchor must be a string (corpus id, DOI, arXiv id or title), got {type(anchor).__name__}")
    settings = settings or Settings()
    raw = load_template(direction, template)
    written = next((n.get("params", {}).get("top_k") for n in raw["nodes"] if isinstance(n, dict) and n.get("op") == "rerank"),
                   None)  # an edited template's own number of results, as a given workflow's is
    top_k = top_k or (written if isinstance(written, int) and not isinstance(written, bool) else None) \
        or settings.navigator.top_k
    cid = resolve_anchor(corpus, anchor)
    paper = corpus.paper(cid)
    given = visible_text(intent or "").strip()
    by_citations = any(_MOST_CITED.search(t) for t in (given, constraints or ""))
    given = _without_order(given)
    constraints = _without_order(constraints or "") or None
    shown = top_k
    if by_citations:  # the most cited of all the neighbours, not of the ones closest to the intent
        top_k = max(top_k, BY_CITATIONS_POOL)
    if given and constraints is None and not _names_content(given, corpus, today):
        given, constraints = "", given  # "only since 2021, not surveys": constraints on the title's search
    query = given or paper.title
    try:
        checklist = corpus_parse(query, corpus, today)
    except ValueError:
        checklist = Checklist(intent=query, checkpoints=[Checkpoint(id="c1", kind="topic", text=query,
                                                                     terms=[query])])
    content_q = " ".join(t for c in checklist.checkpoints if c.kind not in ("metadata", "exclusion")
                         for t in (c.terms or [c.text])) or query
    wf = anchor_workflow(raw, cid, paper.title, corpus.abstract(cid), content_q, top_k)
    lib = settings.librarians
    for n in wf.nodes:
        if n.op == "locate_evidence":
            n.params = {"k": lib.evidence_k, "limit": lib.pool_size, **n.params}
    if not given:  # the anchor's title is no request: one checkpoint, the title whole
        checklist = Checklist(intent=query, checkpoints=[Checkpoint(id="c1", kind="topic", text=query,
                                                                    terms=[t for c in checklist.checkpoints if c.id == "c1"
                                                                           for t in c.terms] or [query]),
                                                         *_constraints(constraints, corpus, today)])
    if direction == "survey":
        checklist = _not_older(checklist, paper, corpus, today)
    checklist = relax_unsatisfiable(checklist, corpus)  # "since 2030": a preference, as in a search
    checklist = with_source(checklist, corpus, settings, text=query) if given else checklist
    if checklist.source_ids and settings.navigator.exclude_source:  # a pasted passage: never its own paper
        insert_before_evidence(wf, source_node(checklist.source_ids, []))
        validate_workflow(wf)
    if excluded := [t for c in checklist.checkpoints if c.kind == "exclusion" and c.weight >= 1.0 for t in c.terms]:
        # left out, as feedback's "drop anything about X" leaves it out: among a few hundred
        # neighbours a demotion kept 7 of 20 results about the excluded topic in a trial
        insert_before_evidence(wf, Node(id="exclude", op="text_filter", params={"exclude_terms": excluded},
                                        note="leave out what the intent excludes (title and abstract)"))
        validate_workflow(wf)
    hard = hard_metadata(checklist)
    if hard and not any(n.op == "filter" for n in wf.nodes):
        insert_before_evidence(wf, Node(id="filter", op="filter", params={"checkpoint_ids": [c.id for c in hard]},
                                         note="exact filter by the hard metadata constraints"))
        validate_workflow(wf)
    student = search_student(settings, corpus)
    run = SearchRun(query, corpus, settings, workflow=wf, checklist=checklist, rounds=1, top_k=top_k,
                    student=student, today=today)
    session = run.run()
    if by_citations:
        session.results = _most_cited_first(session.results, corpus, shown)
        session.engines["reranker"] = "in-corpus citation count, most cited first (asked for in the intent)"
    session.results = link_to_anchor(session.results, corpus, cid, direction)
    session.engines["navigator"] = f"anchor:{direction}" if template is None else f"anchor:{direction} ({template})"
    session.engines.pop("workflow", None)  # the template is named above, not a user's round-1 workflow
    linked, unresolved = _coverage(corpus, cid, direction)
    session.turns = [Turn(index=1, anchor=cid, direction=direction, anchor_title=paper.title,
                          intent_given=bool(given), anchor_linked=linked,
                          anchor_unresolved=unresolved, checklist=checklist, workflow=wf,
                          rounds=[r.index for r in session.rounds],
                          rerun=[op.node_id for r in session.rounds for op in r.operator_runs],
                          results=list(session.results))]
    return session


__all__ = ["DIRECTIONS", "AnchorError", "WorkflowError", "anchor_search", "anchor_workflow", "load_template",
           "resolve_anchor", "short_title_ids", "template_path"]
