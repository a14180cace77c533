"""``search``: the Python entry point of a checklist-driven search (see CONTRACT.md)."""

from __future__ import annotations

import re
from datetime import date
from typing import NamedTuple

from litnav.core.records import Session, Workflow
from litnav.core.settings import Settings
from litnav.core.text import visible_text
from litnav.navigator.arguments import check_arguments
from litnav.navigator.intent.dates import YEAR_PATTERN
from litnav.navigator.loop import SearchRun
from litnav.navigator.students import search_student


def _web_fn(settings: Settings):
    if not settings.web.providers:
        return None
    from litnav.web import web_search

    return web_search


def search(
    intent: str,
    corpus,
    settings: Settings | None = None,
    *,
    workflow: Workflow | None = None,
    rounds: int | None = None,
    top_k: int | None = None,
    meter=None,
    progress: bool = False,
    today: date | None = None,
    ask=None,
) -> Session:
    """Run a checklist-driven search of ``intent`` over ``corpus`` (an open ``Corpus``, or a corpus
    directory, opened and closed here) and return the session.

    ``workflow`` replaces the planned round-1 workflow (a user-edited plan); ``rounds``/``top_k``
    override the settings. Without a workflow, an intent asking for the citing, cited or similar
    papers of one corpus paper ("follow-up work on <its title>", "papers cited by <DOI>") runs
    that paper's anchor search (``navigator.anchor``; see :func:`_anchor_from_intent`). LLM roles
    configured in ``settings.llm`` replace the no-LLM engines (``navigator.agents``); their tokens are counted in ``meter`` (one is made when None) and
    land in ``session.usage``. The student is ``scorer.student``, else a corpus-local one
    (``student_path``), else the bundled default; its name lands in ``session.engines["scorer"]``.
    ``ask(question, options, default) -> answer`` answers a clarifying
    question when ``navigator.interactive`` is true (default: a terminal prompt); questions and
    answers land in ``session.clarifications``. Raises ``WorkflowError`` for an invalid
    workflow, ``ValueError`` for an empty intent, and ``LLMError`` when a configured LLM role
    fails without an explicit fallback (``llm.fallback``); ``StudentError`` (a ``ValueError``)
    names a missing or malformed ``scorer.student`` or ``reranker.cross_encoder_path``; a wrong
    argument type or a count below 1 raises as :func:`check_arguments` says.
    """
    from litnav.corpus.reader import opened

    check_arguments(intent=intent, settings=settings, workflow=workflow, rounds=rounds, top_k=top_k)
    intent = visible_text(intent)
    with opened(corpus, settings.corpus if settings else None) as c:
        return _search(intent, c, settings, workflow=workflow, rounds=rounds, top_k=top_k, meter=meter,
                       progress=progress, today=today, ask=ask)


def _search(intent, corpus, settings, *, workflow, rounds, top_k, meter, progress, today, ask) -> Session:
    settings = settings or Settings()
    if workflow is not None:
        from litnav.librarians import require_ranked_output

        require_ranked_output(workflow)
    routed = _anchor_from_intent(intent, corpus, settings, top_k=top_k, today=today) if workflow is None else None
    not_found = None
    if isinstance(routed, NotFound):  # a paper the corpus lacks: its words are the topic, as any search's
        intent, not_found = routed.topic, routed.reference
    elif routed is not None:
        return routed
    backend = getattr(corpus, "encoder_backend", None)
    if backend and backend != settings.corpus.encoder_backend:  # the session records the backend that ran
        settings = settings.model_copy(update={"corpus": settings.corpus.model_copy(update={"encoder_backend": backend})})
    student = search_student(settings, corpus)
    if settings.reranker.cross_encoder_path:  # a bad folder fails here, before any retrieval
        from litnav.scorer.cross_encoder import pair_scorer

        pair_scorer(settings.reranker.cross_encoder_path, settings.scorer.device, settings.reranker.cross_encoder_precision)
    agents = _llm_agents(settings, meter, corpus=corpus, student=student, ask=ask, top_k=top_k, today=today)
    run = SearchRun(intent, corpus, settings, workflow=workflow, rounds=rounds, top_k=top_k, student=student,
                    web_fn=_web_fn(settings), progress=progress, today=today, **agents.hooks())
    session = run.run()
    session.usage = agents.meter.by_role()
    if agents.planner is not None:
        session.clarifications = list(agents.planner.clarifications)
    if not_found is not None:
        from litnav.navigator.turns import ensure_turns

        session = ensure_turns(session)
        session.turns[0].paper_not_found = not_found
    return session


def anchor_routing(intent: str, corpus) -> tuple[str, str] | None:
    """``(direction, anchor corpus id)`` when ``intent`` asks for the citing, cited or similar
    papers of one corpus paper named whole, which :func:`search` without a workflow runs as that
    paper's anchor search (a given workflow replaces it); None otherwise. For notes: ``litnav plan``
    shows the topic workflow, and ``search --workflow`` runs it instead of the anchor search."""
    from litnav.navigator.anchor import AnchorError, resolve_anchor
    from litnav.navigator.intent.anchor_request import anchor_request

    request = anchor_request(intent)
    if request is None:
        return None
    # on a corpus without citation edges the search runs the papers most like it (sibling)
    direction = request.direction if request.direction == "sibling" or _has_citation_edges(corpus) else "sibling"
    if request.exact_title:
        ids = _exact_title_ids(corpus, request.reference)
        return (direction, ids[0]) if len(ids) == 1 else None
    try:
        return direction, resolve_anchor(corpus, request.reference, from_text=True)
    except AnchorError:
        return None


def _exact_title_ids(corpus, ref: str) -> list[str]:
    """The papers a short reference read from an intent names exactly ("papers similar to Deep
    Sets"): its whole title, else its acronym, else a rare short title before a subtitle
    (``navigator.anchor.short_title_ids``)."""
    from litnav.navigator.anchor import short_title_ids

    return corpus.find_by_title(ref) or corpus.find_by_acronym(ref) or short_title_ids(corpus, ref, from_text=True)


class NotFound(NamedTuple):
    """An intent that asks for the neighbours of a paper shaped as one (quoted, an identifier, a
    title) that no corpus paper is: ``topic`` (its words and the constraints after it) is searched
    instead, and the session says so (``Turn.paper_not_found``: ``reference``)."""

    topic: str
    reference: str


def _anchor_from_intent(intent: str, corpus, settings: Settings, *, top_k, today) -> Session | NotFound | None:
    """An anchor search when ``intent`` asks for the citing, cited or similar papers of one corpus
    paper named whole ("follow-up work on <title>", ``navigator.intent.anchor_request``) and, for
    citing and cited papers, the corpus holds citation edges (a paper without such neighbours then
    gets the anchor search's empty result and its hint, as ``--anchor`` gives; a corpus without
    any edge gets the papers most like the anchor, the sibling direction, and says so:
    ``Turn.asked_direction``); None (search the intent as a topic) when no corpus paper is named."""
    from litnav.navigator.anchor import AnchorError, anchor_search, resolve_anchor
    from litnav.navigator.intent.anchor_request import anchor_request

    request = anchor_request(intent)
    if request is None:
        return None
    direction, ref, rest = request.direction, request.reference, request.rest
    if request.exact_title:  # "papers similar to Deep Sets": the paper of that title, else a topic
        ids = _exact_title_ids(corpus, ref)
        if len(ids) != 1:
            return _not_found(request, corpus, settings, top_k=top_k, today=today) if not ids else None
        ref = ids[0]
    try:
        anchor = resolve_anchor(corpus, ref, from_text=True)
    except AnchorError:
        if rest or (found := _anchor_and_rest(ref, corpus, today)) is None:
            return _not_found(request, corpus, settings, top_k=top_k, today=today)
        anchor, rest = found
    asked = None
    if direction != "sibling" and not _has_citation_edges(corpus):
        asked, direction = direction, "sibling"  # nothing cites anything here: the papers most like it
        rest = _in_time_of(asked, corpus.papers([anchor]).get(anchor), rest)
    asked_about = _TOPIC_LEAD.sub("", rest.strip(" ,;"), count=1).strip(" ,;") if rest else ""
    topic = asked_about if asked_about and _names_a_topic(asked_about, corpus, today) else None
    session = anchor_search(anchor, direction, corpus, settings, intent=topic, top_k=top_k, today=today,
                            constraints=None if topic else rest or None)
    session.engines["navigator"] += " (read from the intent)"
    session.turns[0].asked_direction = asked
    return session


def _anchor_and_rest(ref: str, corpus, today) -> tuple[str, str] | None:
    """``(anchor id, what follows)`` of a reference that runs on past the paper's name: a topic
    (:func:`_anchor_and_topic`) or constraints (:func:`_title_and_constraints`); None when no part
    of it names a corpus paper."""
    from litnav.navigator.anchor import AnchorError, resolve_anchor

    if (found := _anchor_and_topic(ref, corpus)) is not None:
        return found
    for cut in sorted((m.start() for m in _CONSTRAINT_START.finditer(ref)), reverse=True):  # longest title first
        if len(ids := corpus.find_by_title(ref[:cut])) == 1:  # "Deep Learning without Poor Local Minima since 2019"
            return ids[0], ref[cut:].strip(" ,;")
    if (split := _title_and_constraints(ref, corpus, today)) is None:
        return None
    try:
        return resolve_anchor(corpus, split[0], from_text=True), split[1]
    except AnchorError:
        return None


_CONSTRAINT_START = re.compile(rf"\s*,?\s+(?=(?:since|after|before|from|until|between|during|in\s+{YEAR_PATTERN}|not|no"
                               r"|excluding|only|published|(?:the\s+)?(?:most|highly|widely)\s+(?:cited|influential))\b)")
"""Where constraints may begin after a whole title (their words in lower case, as no title has
them): the title before it is read as a whole before the intent parser reads its words, which
took "without Poor Local Minima" of a title for an exclusion."""


def _in_time_of(asked: str, paper, rest: str | None) -> str | None:
    """The constraints ``rest`` with the years a citing (``successor``: from the anchor's year on)
    or cited paper (``predecessor``: up to it) must have, for the similar papers that stand in for
    them on a corpus without citation edges; ``rest`` as it is when it names a year itself, when
    the anchor has none, or for another direction."""
    year = getattr(paper, "year", None)
    if year is None or asked not in ("successor", "predecessor") or re.search(rf"\b{YEAR_PATTERN}\b", rest or ""):
        return rest
    bound = f"since {year}" if asked == "successor" else f"until {year}"
    return f"{rest}, {bound}" if rest else bound


def _not_found(request, corpus, settings: Settings, *, top_k, today) -> NotFound | None:
    """When the paper an intent asks the neighbours of is shaped as a paper
    (``anchor_request.names_a_paper``: quoted, an identifier, a title) but is no corpus paper: the
    search of its words (and the constraints after it) as the topic, which says so
    (:class:`NotFound`), rather than of the request's words ("follow-up", "of") with its title read
    as an author; None for a topic ("prior work of knowledge distillation for speech")."""
    from litnav.navigator.intent.anchor_request import names_a_paper

    if not names_a_paper(request):
        return None
    return NotFound(f"{request.reference}, {request.rest}" if request.rest else request.reference, request.reference)


_TOPIC_LINK = re.compile(r"\s*,?\s+(?=(?:and|that|which|who|to|on|in|about|for|with|applying|applied|using|focusing"
                         r"|focused|related|dealing|concerning|regarding)\b)", re.I)
_TOPIC_LEAD = re.compile(
    r"^(?:(?:and|that|which|who)\s+)?(?:(?:apply|applies|applying|applied|use|uses|using|study|studies|studying"
    r"|address|addresses|addressing|extend|extends|extending|adapt|adapts|adapting|focus(?:es)?\s+on"
    r"|(?:are|is)\s+about|deals?\s+with|dealing\s+with|work\s+on|focusing\s+on|focused\s+on|applied\s+to"
    r"|related\s+to|concerning|regarding)\s+)?(?:(?:it|them|this|the\s+(?:method|model|paper))\s+)?"
    r"(?:(?:to|for|on|in|about|with)\s+)?", re.I)
"""The words between an anchor's title and the topic its citing papers should have: "and apply it
to", "that study", "on"."""


def _anchor_and_topic(ref: str, corpus) -> tuple[str, str] | None:
    """``(anchor id, topic)`` of a reference that names a corpus paper exactly (id, DOI, arXiv id or
    whole title) and goes on with what the neighbours should be about: "Denoising Diffusion
    Probabilistic Models and apply it to molecules" -> (its id, "molecules"), "1703.03400 on
    few-shot image classification" -> (its id, "few-shot image classification"). The longest
    title that names a paper wins (titles hold "and", "for", "with"); None when none does."""
    from litnav.navigator.anchor import AnchorError, resolve_anchor

    for cut in reversed([m.start() for m in _TOPIC_LINK.finditer(ref)]):
        head = ref[:cut].strip(" ,;")
        if not head:
            continue
        try:
            anchor = resolve_anchor(corpus, head, fuzzy=False, from_text=True)
        except AnchorError:
            continue
        topic = _TOPIC_LEAD.sub("", ref[cut:].strip(" ,;"), count=1).strip(" ,;")
        return (anchor, topic) if topic else None
    return None


def _names_a_topic(text: str, corpus, today) -> bool:
    """Whether ``text`` (what follows an anchor's title) states a topic, not only metadata and
    exclusions ("since 2023, not surveys"): its checklist has a content checkpoint."""
    from litnav.navigator.planner import corpus_parse

    try:
        checklist = corpus_parse(text, corpus, today)
    except ValueError:
        return False
    return any(c.kind not in ("metadata", "exclusion") for c in checklist.checkpoints)


def _title_and_constraints(ref: str, corpus, today) -> tuple[str, str] | None:
    """``(title, constraints)`` of a reference that ends with constraints ("Denoising Diffusion
    Probabilistic Models since 2023" -> the title, "since 2023"): the intent parser's whole-intent
    checkpoint when the reference opens with it and the rest states metadata or an exclusion;
    else None."""
    from litnav.navigator.planner import corpus_parse

    try:
        checklist = corpus_parse(ref, corpus, today)
    except ValueError:
        return None
    whole = next((c for c in checklist.checkpoints if c.id == "c1"), None)
    at = ref.lower().find(whole.text.lower()) if whole is not None else -1
    if at < 0 or ref[:at].strip().lower() not in ("", "a", "an", "the"):  # "A simple framework ...": c1 has no "A"
        return None
    end = at + len(whole.text)
    rest = ref[end:].strip(" ,;")
    if not rest or not any(c.kind in ("metadata", "exclusion") for c in checklist.checkpoints):
        return None
    return ref[:end], rest


def _has_citation_edges(corpus) -> bool:
    """Whether the corpus holds any citation edge (its stored counts; True when it cannot say)."""
    try:
        return bool(corpus.stats().get("citations", 1))
    except (AttributeError, TypeError):
        return True


def _llm_agents(settings: Settings, meter, *, corpus, student=None, ask=None, top_k=None, today=None):
    """LLM-backed planner, reflector, teacher and listwise reranker for the configured roles
    (``navigator.agents.build_agents``)."""
    from litnav.navigator.agents import build_agents

    if ask is None and settings.navigator.interactive:
        from litnav.navigator.clarify import terminal_ask

        ask = terminal_ask
    return build_agents(settings, corpus, meter=meter, student=student, ask=ask, top_k=top_k, today=today)
