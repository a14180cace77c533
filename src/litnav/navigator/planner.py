"""The no-LLM planner: a checklist becomes a retrieval workflow (an operator DAG).

Round 1 runs direct retrieval only: dense and BM25 retrieval of the whole intent and, with
``librarians.facet_weight`` > 0 (off by default), of each content checkpoint
(``librarians.semantic_k``/``lexical_k`` deep, >= 200 by default), fused by
reciprocal rank fusion over the whole depth (no cut). The *hard* metadata checkpoints
(``hard_metadata``; soft preferences re-weight the final ordering instead) are searched within:
each search ranks only the papers that satisfy them (``within``, ``Corpus.ids_matching``), so a
narrow venue or year range keeps its papers however deep they sit in a whole-corpus ranking; an
exact filter after the fusion enforces them for every channel,
then evidence location and scoring for the top ``librarians.pool_size`` fused candidates and the
final ordering, in which every other fused candidate follows in fused order (see
``navigator.scoring`` and ``reranker.combine``). Two more searches run the intent exactly as
typed (:func:`baseline_nodes`, weight :data:`BASELINE_WEIGHT` in the fusion): plain hybrid retrieval, whose top
``librarians.first_stage_guard`` the scored head is drawn from, so the final top D always holds
the baseline's top D. When ``web.providers`` is configured, a
``web_search`` node joins the fusion. Citation expansion (and, with ``librarians.facet_weight`` >
0, query expansion) is added by reflection (see ``navigator.reflect``).
"""

from __future__ import annotations

import logging

from litnav.core.records import CONTENT_KINDS, Checklist, Checkpoint, Node, Workflow
from litnav.core.settings import Settings

log = logging.getLogger(__name__)

TAIL_OPS = ("locate_evidence", "score", "rerank")

FIRST_STAGE_NODES = ("lexical_intent", "semantic_intent")
"""The round-1 whole-intent searches (:func:`retrieval_nodes`): the hybrid first stage."""

BASELINE_NODES = ("lexical_verbatim", "semantic_verbatim")
"""The round-1 searches of the intent exactly as typed (:func:`baseline_nodes`): plain hybrid
retrieval, whose top ``librarians.first_stage_guard`` the final ranking always holds."""

EXAMPLE_NODES = ("lexical_source", "semantic_source")
"""Round-1 searches by example: BM25 and dense retrieval of the title + abstract of the paper a
pasted passage is quoted from (``Checklist.source_ids``), when there is one (:func:`example_nodes`)."""

SOURCE_NODE = "not_source"
"""The node that drops a pasted passage's own paper (``Checklist.source_ids``) after the fusion."""

BASELINE_FILTERED_DEPTH = 1000
"""Hits per baseline search when the intent states hard metadata constraints: the whole corpus is
searched this deep and the exact filter applies after the fusion (the ``hybrid+filter`` baseline)."""

MAX_CHECKPOINT_BRANCHES = 16
"""With ``librarians.facet_weight`` > 0, content checkpoints that get their own dense + BM25 retrieval branch (the rest are still
judged by the scorer; they only share the whole-intent branches). Bounds the workflow a long
multi-clause intent makes: at most 2 + 2*16 + 2 baseline (+1 web) retrieval nodes."""

MAX_FAN_IN = 64
"""Most inputs one ``union`` takes (its operator's ``max_inputs``)."""


def with_top_k(workflow: Workflow, top_k: int) -> Workflow:
    """``workflow`` (a copy) whose ``rerank`` node returns ``top_k`` results, so a recorded
    workflow says how many results its round returned."""
    return workflow.model_copy(update={"nodes": [
        n.model_copy(update={"params": {**n.params, "top_k": top_k}}) if n.op == "rerank" else n
        for n in workflow.nodes]})


def hard_metadata(checklist: Checklist) -> list[Checkpoint]:
    """The metadata checkpoints stated as hard constraints: those with a predicate and weight
    >= 1. Soft preferences (weight < 1: "recent", "empirical") are never exact filters."""
    return [c for c in checklist.checkpoints if c.kind == "metadata" and c.predicate is not None and c.weight >= 1.0]


UNSATISFIABLE_WEIGHT = 0.5
"""Weight of a stated hard constraint that no paper of the corpus satisfies (see
:func:`relax_unsatisfiable`)."""


def _unsatisfiable(predicate, corpus) -> bool:
    """True when no paper of ``corpus`` satisfies the positive ``predicate`` (years, venues, kinds
    of venue, authors), or, for a kind of venue either way ("no conference papers"), when no
    paper's venue names its kind at all (a demo corpus whose venues are "ACL", "EMNLP")."""
    from litnav.corpus.predicates import VENUE_KINDS, names_venue_kind

    venue_kind = names_venue_kind(predicate)
    if venue_kind and hasattr(corpus, "ids_matching"):
        known = predicate.model_copy(update={"values": sorted(VENUE_KINDS), "negate": False})
        if corpus.ids_matching([known], limit=0) == set():
            return True
    if predicate.negate:
        return False
    if (predicate.field in ("year", "venue") or venue_kind) and hasattr(corpus, "ids_matching"):
        return corpus.ids_matching([predicate], limit=0) == set()  # limit 0: an existence test, no id list
    if predicate.field == "author" and hasattr(corpus, "has_author"):
        return not any(corpus.has_author(name) for name in predicate.values)
    return False


RELAXED_NOTE = "no paper of this corpus matches it: a preference, not a filter"
"""Appended to the text of a constraint :func:`relax_unsatisfiable` turned into a preference."""
NO_YEARS_NOTE = "no paper of this corpus has a publication year: a preference, not a filter"
""":data:`RELAXED_NOTE` for a date constraint over a corpus whose papers carry no year at all."""
NO_VENUES_NOTE = "no paper of this corpus names a venue: a preference, not a filter"
""":data:`RELAXED_NOTE` for a venue constraint over a corpus whose papers name no venue at all."""
NO_AUTHORS_NOTE = "no paper of this corpus lists its authors: a preference, not a filter"
""":data:`RELAXED_NOTE` for an author constraint over a corpus whose papers list no author at all."""
NO_KINDS_NOTE = "no venue of this corpus names its kind (journal, conference): a preference, not a filter"
""":data:`RELAXED_NOTE` for a kind of venue over a corpus whose venues are names such as "ACL"."""
FIELD_ABSENT_NOTES = {NO_YEARS_NOTE: "has a publication year or date", NO_VENUES_NOTE: "names a venue",
                      NO_AUTHORS_NOTE: "lists its authors", NO_KINDS_NOTE: "has a venue that names its kind"}
"""Each note of a constraint on a field the whole corpus lacks -> what no paper of the corpus does."""


def _field_absent(field: str, corpus) -> bool:
    """Whether no paper of ``corpus`` has ``field`` at all (year, venue or author); False when the
    corpus cannot say."""
    if field == "year":
        return hasattr(corpus, "newest_date") and corpus.newest_date() is None
    if field == "venue":
        return hasattr(corpus, "venues") and not corpus.venues()
    if field == "author":
        return hasattr(corpus, "lists_authors") and not corpus.lists_authors()
    return False


def relax_unsatisfiable(checklist: Checklist, corpus) -> Checklist:
    """``checklist`` with every hard year, venue or author constraint that no paper of ``corpus``
    satisfies turned into a soft preference (weight :data:`UNSATISFIABLE_WEIGHT`, its text saying
    why: :data:`RELAXED_NOTE`, or one of :data:`FIELD_ABSENT_NOTES` when no paper of the corpus has
    the field at all: a date over a corpus without years, a venue or author over one without; a
    negated one there too, "not in ICML" over a corpus without venues, which would drop every paper;
    and a kind of venue, "only journals", over a corpus without venues).

    A filter that keeps nothing only empties the result list ("at WMT" when the corpus files those
    papers under "Conference on Machine Translation"; "translations by Google Translate" read as an
    author): the checkpoint stays in the checklist and the plan, where the user sees it, and the
    search runs without it. Decided with ``corpus.ids_matching`` (years, venues and kinds of venue:
    exact, in SQL) and ``corpus.has_author``; a corpus without those methods is left as it is."""
    from litnav.corpus.predicates import names_venue_kind

    hard = {c.id for c in hard_metadata(checklist)}
    changed = []
    for c in checklist.checkpoints:
        field = c.predicate.field.replace("venue_year", "venue") if c.predicate is not None else None
        kind = c.predicate is not None and names_venue_kind(c.predicate)
        if kind:
            field = "venue"  # "only journals": known from the venue's name, absent where no paper names one
        # a negated one keeps every paper that has the field, so it empties the list only where none has it
        if c.id in hard and (_unsatisfiable(c.predicate, corpus) or ((c.predicate.negate or kind)
                                                                    and _field_absent(field, corpus))):
            absent = {"year": NO_YEARS_NOTE, "venue": NO_VENUES_NOTE, "author": NO_AUTHORS_NOTE}.get(field)
            note = (absent if absent and _field_absent(field, corpus)
                    else NO_KINDS_NOTE if kind else RELAXED_NOTE)
            c = c.model_copy(update={"weight": UNSATISFIABLE_WEIGHT, "text": f"{c.text} ({note})"})
        changed.append(c)
    return checklist.model_copy(update={"checkpoints": changed})


def corpus_parse(text: str, corpus, today=None, *, phrases=None) -> Checklist:
    """``intent.parse_intent(text)`` over ``corpus``: its venue vocabulary and newest paper's date
    ("recent" counts back from it), and ``phrases`` (a ``corpus.phrases.PhraseTable``) when given.
    Raises ``ValueError`` for a text with nothing to read."""
    from litnav.navigator.intent import parse_intent

    newest = corpus.newest_date() if hasattr(corpus, "newest_date") else None
    return parse_intent(text, venues=corpus.venues(), today=today, phrases=phrases, newest=newest)


def rule_checklist(intent: str, corpus, settings: Settings, today=None) -> Checklist:
    """The no-LLM checklist of ``intent`` over ``corpus``: ``intent.parse_intent`` with the corpus's
    venue vocabulary and phrase table, exclusions widened to their terms' corpus word families
    (``word_family.with_word_family``: "Twitter" also "tweets"), hard constraints no paper satisfies relaxed
    (:func:`relax_unsatisfiable`), and the source of a pasted passage found
    (``navigator.source.with_source``). ``today`` (a ``date``) anchors relative dates, and
    "recent" counts back from the corpus's newest paper when that is older. Raises
    ``ValueError`` for an empty intent."""
    from litnav.corpus.phrases import corpus_phrases
    from litnav.navigator.source import with_source
    from litnav.navigator.word_family import with_word_family

    table = corpus_phrases(corpus)
    checklist = with_word_family(corpus_parse(intent, corpus, today, phrases=table), corpus, table)
    return with_source(relax_unsatisfiable(checklist, corpus), corpus, settings, text=intent)


def content_terms(checklist: Checklist) -> list[str]:
    """Key phrases of the content checkpoints, in checklist order, deduplicated."""
    terms: list[str] = []
    for c in checklist.checkpoints:
        if c.kind in CONTENT_KINDS:
            terms += c.terms or [c.text]
    return list(dict.fromkeys(t for t in terms if t.strip()))


def whole_intent_checkpoint(checklist: Checklist):
    """The checkpoint that is the whole intent (the rule parser's ``c1``: a topic checkpoint from
    the intent, whose text is the intent less its metadata, exclusions and request words), or None."""
    for c in checklist.checkpoints:
        if c.id == "c1" and c.kind == "topic" and c.source == "intent" and not c.text.startswith("The paper "):
            return c
    return None


def preferred_types(checklist: Checklist) -> list[str]:
    """Publication types the intent prefers but does not enforce (positive ``publication_type``
    predicates of weight < 1, e.g. "Surveys of ..."), in the user's words (the checkpoint's
    ``terms``: "Systematic reviews or meta-analyses", not the canonical "survey"), else the
    predicate values: no filter keeps them, so their words stay in the retrieval query, as they
    are in the raw intent the hybrid baseline searches with."""
    return list(dict.fromkeys(v for c in checklist.checkpoints
                              if c.kind == "metadata" and c.predicate is not None and c.weight < 1.0
                              and c.predicate.field == "publication_type" and not c.predicate.negate
                              for v in (c.terms or c.predicate.values)))


def content_query(checklist: Checklist) -> str:
    """The intent's content as one query: the whole-intent checkpoint's text (plus the preferred
    publication types, :func:`preferred_types`) when there is one (always, for the rule parser), else the raw intent when it has no metadata or exclusion
    constraint (it is then all content), else the content checkpoints' key phrases."""
    whole = whole_intent_checkpoint(checklist)
    if whole is not None:
        return " ".join([whole.text, *preferred_types(checklist)])
    constrained = any(c.kind in ("metadata", "exclusion") for c in checklist.checkpoints)
    terms = content_terms(checklist)
    if not constrained or not terms:
        return checklist.intent.strip()
    return " ".join(terms)


FIRST_STAGE_ID_NOTE = " (the scorer reads this id as the first stage: keep it)"
BASELINE_ID_NOTE = " (the scorer reads this id as the hybrid baseline: keep it)"
"""Node notes that say a planner id is read by the scorer (``navigator.scoring``: the first stage
and the recall guard go by :data:`FIRST_STAGE_NODES` and :data:`BASELINE_NODES`), so a user who
renames it knows what is lost."""


def _within_note(hard: list[str]) -> str:
    return f", within the papers that satisfy {', '.join(hard)}" if hard else ""


def retrieval_nodes(checklist: Checklist, settings: Settings) -> list[Node]:
    """Round-1 retrieval nodes: whole-intent dense and BM25 searches, per-checkpoint ones when
    ``librarians.facet_weight`` > 0, the baseline searches (:func:`baseline_nodes`) and, with
    ``web.providers``, a web search."""
    lib = settings.librarians
    query = content_query(checklist)
    hard = [c.id for c in hard_metadata(checklist)]
    within = {"within": hard} if hard else {}
    from litnav.navigator.intent.parser import reading

    what = "the whole intent"
    if reading(checklist.intent) == "passage" and not any(c.kind in ("metadata", "exclusion") for c in checklist.checkpoints):
        what += " (read as a paper's own text, passage mode: no constraint taken from it)"
    # BM25 first, then dense: the same input order as the hybrid baseline's fusion, so equal RRF
    # scores break the same way and a one-checkpoint intent's first stage IS the hybrid ranking
    nodes = [
        Node(id=FIRST_STAGE_NODES[0], op="lexical_search", params={"query": query, "k": lib.lexical_k, **within},
             note=f"BM25 retrieval of {what}{_within_note(hard)}{FIRST_STAGE_ID_NOTE}"),
        Node(id=FIRST_STAGE_NODES[1], op="semantic_search", params={"query": query, "k": lib.semantic_k, **within},
             note=f"dense retrieval of {what}{_within_note(hard)}{FIRST_STAGE_ID_NOTE}"),
    ]
    whole = whole_intent_checkpoint(checklist)
    content = [c for c in checklist.checkpoints if c.kind in CONTENT_KINDS and c is not whole]
    if lib.facet_weight > 0 and (len(content) > 1 or (whole is not None and content)):
        if len(content) > MAX_CHECKPOINT_BRANCHES:
            log.info("intent has %d content checkpoints; the first %d get their own retrieval branches",
                     len(content), MAX_CHECKPOINT_BRANCHES)
        for c in content[:MAX_CHECKPOINT_BRANCHES]:
            q = " ".join(c.terms) if c.terms else c.text
            nodes.append(Node(id=f"semantic_{c.id}", op="semantic_search",
                              params={"query": q, "k": max(10, lib.semantic_k // 2), "checkpoint_id": c.id, **within},
                              note=f"dense retrieval for checkpoint {c.id}"))
            nodes.append(Node(id=f"lexical_{c.id}", op="lexical_search",
                              params={"query": q, "k": max(10, lib.lexical_k // 2), "checkpoint_id": c.id, **within},
                              note=f"BM25 retrieval for checkpoint {c.id}"))
    nodes += baseline_nodes(checklist, settings) + example_nodes(checklist, settings)
    if settings.web.providers:
        nodes.append(Node(id="web_intent", op="web_search",
                          params={"query": query, "limit": settings.web.per_provider_limit},
                          note="external scholarly search, verified against the corpus"))
    return nodes


def baseline_nodes(checklist: Checklist, settings: Settings) -> list[Node]:
    """BM25 and dense retrieval of the intent exactly as typed (``checklist.intent``), none with
    ``librarians.first_stage_guard`` (D) = 0: the plain hybrid baseline. The BM25 search is
    max(D, ``librarians.lexical_k``) deep and the dense one max(D, ``librarians.semantic_k``) (the
    depths ``evaluation.systems.HybridSystem`` fuses: a hybrid of shallower lists orders its tail
    differently), or, when the intent states hard metadata constraints, max(D, :data:`BASELINE_FILTERED_DEPTH`)
    deep over the whole corpus so that the exact filter after the fusion leaves
    hybrid-then-filter's ranking. They weigh :data:`BASELINE_WEIGHT` in the fusion
    (:func:`_fusion_weight`) and decide which candidates are scored (``navigator.scoring``), so
    litnav's top D always holds the baseline's top D."""
    guard = settings.librarians.first_stage_guard
    if not guard:
        return []
    lib = settings.librarians
    hard = hard_metadata(checklist)
    lexical_k, semantic_k = ((BASELINE_FILTERED_DEPTH, BASELINE_FILTERED_DEPTH) if hard
                             else (lib.lexical_k, lib.semantic_k))
    query = checklist.intent.strip()
    why = "the intent as typed: plain hybrid retrieval, whose top results the final ranking keeps"
    return [Node(id=BASELINE_NODES[0], op="lexical_search", params={"query": query, "k": max(guard, lexical_k)},
                 note=f"BM25 of {why}{BASELINE_ID_NOTE}"),
            Node(id=BASELINE_NODES[1], op="semantic_search", params={"query": query, "k": max(guard, semantic_k)},
                 note=f"dense retrieval of {why}{BASELINE_ID_NOTE}")]


def example_nodes(checklist: Checklist, settings: Settings) -> list[Node]:
    """Query by example: when the intent is quoted from corpus papers (``checklist.source_ids``)
    and ``librarians.source_weight`` > 0, BM25 and dense retrieval of those papers' title +
    abstract (``lexical_k``/``semantic_k`` deep), so a pasted facet of a paper ranks what resembles
    the whole paper; the sources themselves are dropped after the fusion (:data:`SOURCE_NODE`)."""
    lib = settings.librarians
    if not checklist.source_ids or not lib.source_weight:
        return []
    seeds = list(checklist.source_ids)
    why = "the paper the passage is quoted from (query by example)"
    return [Node(id=EXAMPLE_NODES[0], op="example_lexical", params={"seed_ids": seeds, "k": lib.lexical_k},
                 note=f"BM25 of the title and abstract of {why}"),
            Node(id=EXAMPLE_NODES[1], op="example_semantic", params={"seed_ids": seeds, "k": lib.semantic_k},
                 note=f"dense retrieval by the title and abstract of {why}")]


WEB_WEIGHT = 0.3
"""Fusion weight of the ``web_search`` branch (a whole-intent branch weighs 1)."""


BASELINE_WEIGHT = 0.5
"""Fusion weight of the baseline searches of the intent as typed. Chosen on the dev splits with the
fused final order (facet weight 0; nDCG@10 ACL intents / SciFact intents / SciFact claims /
citations): 0.5 gave 0.730 / 0.653 / 0.931 / 0.168, 1.0 0.730 / 0.649 / 0.931 / 0.166. Under the
scorer's reordering (before it was found not to earn its place) 0 had been best."""


LLM_QUERY_WEIGHT = 0.3
"""Fusion weight of a search the LLM reflector asks for (``add_query``, or a re-score after a
checklist edit): the weight every non-whole-intent branch had before facet searches were turned
off; the LLM path has no benchmark here to tune it on."""


def _fusion_weight(node: Node, settings: Settings, query_weight: float | None = None) -> float:
    """Whole-intent branches weigh 1.0 in the fusion, the baseline searches (:func:`baseline_nodes`)
    :data:`BASELINE_WEIGHT`, the searches by a passage's source paper ``librarians.source_weight``,
    citation expansion ``librarians.citation_weight``, web
    :data:`WEB_WEIGHT`; any other search ``query_weight`` when given (the LLM reflector's), else
    ``librarians.facet_weight`` (the rule planner's per-checkpoint and rule reflection's query
    expansion searches)."""
    if node.id in BASELINE_NODES:
        return BASELINE_WEIGHT
    if node.id in EXAMPLE_NODES:
        return settings.librarians.source_weight
    if node.op == "citation_expand":
        return settings.librarians.citation_weight
    if node.op == "web_search":
        return WEB_WEIGHT
    if node.op == "feedback_search":
        return settings.librarians.feedback_weight
    if node.id in FIRST_STAGE_NODES:
        return 1.0
    return settings.librarians.facet_weight if query_weight is None else query_weight


def assemble(retrieval: list[Node], checklist: Checklist, settings: Settings, top_k: int,
             query_weight: float | None = None) -> Workflow:
    """Wire retrieval nodes into fuse -> (drop the passage's source, ``checklist.source_ids``, with
    ``navigator.exclude_source``) ->
    hard metadata filter -> evidence -> score -> rerank.

    The fusion keeps every candidate (no cut: the tail below the scored top-N keeps its fused
    order in the final ranking). Weights: see ``_fusion_weight`` (``query_weight``: the weight of
    searches that are neither whole-intent, baseline, citation nor web). Evidence is located for the
    top ``librarians.pool_size`` fused candidates.
    """
    lib = settings.librarians
    if len(retrieval) > MAX_FAN_IN:  # e.g. many expansion branches added by reflection
        log.warning("workflow has %d retrieval branches; fusing the first %d (the union's limit)",
                    len(retrieval), MAX_FAN_IN)
        retrieval = retrieval[:MAX_FAN_IN]
    weights = [_fusion_weight(n, settings, query_weight) for n in retrieval]
    hard = hard_metadata(checklist)
    nodes = list(retrieval)
    nodes.append(Node(id="fuse", op="union", inputs=[n.id for n in retrieval],
                      params={"method": "rrf", "k": lib.rrf_k, "weights": weights},
                      note="reciprocal rank fusion of every channel"))
    last = "fuse"
    if checklist.source_ids and settings.navigator.exclude_source:
        nodes.append(source_node(checklist.source_ids, [last]))
        last = SOURCE_NODE
    if hard:
        nodes.append(Node(id="filter", op="filter", inputs=[last],
                          params={"checkpoint_ids": [c.id for c in hard]},
                          note="exact filter by the hard metadata constraints"))
        last = "filter"
    nodes += [
        Node(id="evidence", op="locate_evidence", inputs=[last], params={"k": lib.evidence_k, "limit": lib.pool_size},
             note="top evidence chunks per paper and checkpoint"),
        Node(id="score", op="score", inputs=["evidence"], note="checkpoint judgements and final score"),
        Node(id="rank", op="rerank", inputs=["score"], params={"top_k": top_k}, note="final ordering"),
    ]
    return Workflow(nodes=nodes, output="rank")


def source_node(source_ids: list[str], inputs: list[str]) -> Node:
    """The :data:`SOURCE_NODE` filter that drops a pasted passage's own papers (``source_ids``)."""
    return Node(id=SOURCE_NODE, op="text_filter", inputs=list(inputs), params={"ban_ids": list(source_ids)},
                note="never the paper the passage is quoted from (navigator.source)")


def plan_workflow(checklist: Checklist, settings: Settings, top_k: int | None = None) -> Workflow:
    """The round-1 workflow for ``checklist`` (see module docstring)."""
    return assemble(retrieval_nodes(checklist, settings), checklist, settings,
                    top_k or settings.navigator.top_k)


def _evidence_node(workflow: Workflow) -> Node:
    evidence = next((n for n in workflow.nodes if n.op == "locate_evidence"), None)
    if evidence is None:
        raise ValueError("the workflow has no locate_evidence node to refine before")
    return evidence


def chain_head(workflow: Workflow) -> str:
    """The id of the pool node feeding ``locate_evidence`` (the end of the retrieval side);
    raises ``ValueError`` when the workflow has no ``locate_evidence`` node."""
    return _evidence_node(workflow).inputs[0]


def insert_before_evidence(workflow: Workflow, node: Node) -> None:
    """Put ``node`` (one pool input) between :func:`chain_head` and ``locate_evidence``; raises
    ``ValueError`` when the workflow has no ``locate_evidence`` node."""
    evidence = _evidence_node(workflow)
    node.inputs = [evidence.inputs[0]]
    for n in workflow.nodes:
        if n.op == "locate_evidence":
            n.inputs = [node.id]
    workflow.nodes.insert(workflow.nodes.index(evidence), node)
