"""The LLM Navigator: intent analysis into the same ``Checklist`` and ``Workflow`` types as the
no-LLM planner, with one clarifying question when the intent is ambiguous.

One structured call (``PlanReply``) returns the ambiguity verdict (question, 3-5 options, the
default reading), the checkpoints planned for the default reading, and optionally a workflow.
The prompt carries the operator library (names, edge types, parameters), the corpus venue
vocabulary (top venues) and the publication-type vocabulary. The reply is checked beyond its
schema: metadata checkpoints need a machine-checkable ``MetadataPredicate`` (venues from the
vocabulary, ISO dates), and the workflow must pass ``librarians.validate_workflow`` plus the
loop's needs (one locate_evidence -> score -> rerank tail, output = the rerank node, checkpoint
and seed ids that exist). A rejected reply goes back with the errors for repair
(``litnav.llm.checked``). Without a workflow, ``navigator.planner.plan_workflow`` plans one.

When the intent is ambiguous the question is put to ``ask`` (interactive) or its default is
taken; an answer other than the default re-plans in a second call. Every question and answer is
kept in ``clarifications`` (for ``Session.clarifications``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from litnav.core.records import (
    Checklist,
    Checkpoint,
    CheckpointKind,
    Clarification,
    MetadataField,
    MetadataPredicate,
    Node,
    Workflow,
)
from litnav.core.settings import Settings
from litnav.core.text import stop_words
from litnav.librarians import REGISTRY
from litnav.llm import LLMError
from litnav.llm.checked import structured_checked
from litnav.navigator.intent import PUBLICATION_TYPES
from litnav.navigator.planner import plan_workflow, with_top_k
from litnav.navigator.workflow_check import check_workflow

TOP_VENUES = 60
Ask = Callable[[str, list[str], str], str]
"""``ask(question, options, default) -> answer`` (one of ``options``)."""


class PredicateDraft(BaseModel):
    """A metadata predicate as the LLM writes it (dates as ISO strings)."""

    model_config = ConfigDict(extra="forbid")

    field: MetadataField
    values: list[str]
    start: str | None = Field(description="Inclusive ISO date YYYY-MM-DD, for fields 'year' and 'venue_year' (a "
                              "paper of one of the venues in values must lie in start..end; other venues pass).")
    end: str | None = Field(description="Inclusive ISO date YYYY-MM-DD, for fields 'year' and 'venue_year'.")
    negate: bool


class CheckpointDraft(BaseModel):
    """A checkpoint as the LLM writes it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    kind: CheckpointKind
    text: str = Field(min_length=1)
    weight: float = Field(ge=0.0, le=1.0)
    terms: list[str]
    predicate: PredicateDraft | None


class ParamDraft(BaseModel):
    """One operator parameter as the LLM writes it: its name and its value as JSON text."""

    model_config = ConfigDict(extra="forbid")

    name: str
    value: str = Field(description='The value as JSON text, e.g. "20", "\\"graph neural network\\"", "[\\"c1\\"]".')


def _params_list(value: Any) -> Any:
    """Accept a ``{name: value}`` object too (what a model not bound by the schema may write)."""
    if isinstance(value, dict):
        return [{"name": k, "value": json.dumps(v)} for k, v in value.items()]
    return value


class NodeDraft(BaseModel):
    """A workflow node as the LLM writes it. ``params`` is a list of name/JSON-value pairs, not an
    object: OpenAI's strict structured outputs accept no open dicts (``additionalProperties``
    must be false), and operators differ in their parameters."""

    model_config = ConfigDict(extra="forbid")

    id: str
    op: str
    params: Annotated[list[ParamDraft], BeforeValidator(_params_list)]
    inputs: list[str]
    note: str | None

    def params_dict(self) -> dict[str, Any]:
        """``{name: value}``; a value that is not JSON text is taken as a string."""
        out: dict[str, Any] = {}
        for p in self.params:
            try:
                out[p.name] = json.loads(p.value)
            except ValueError:
                out[p.name] = p.value
        return out

    def to_node(self) -> Node:
        """The workflow ``Node`` this draft describes."""
        return Node(id=self.id, op=self.op, params=self.params_dict(), inputs=self.inputs, note=self.note)


class WorkflowDraft(BaseModel):
    """A workflow as the LLM writes it."""

    model_config = ConfigDict(extra="forbid")

    nodes: list[NodeDraft]
    output: str


class PlanReply(BaseModel):
    """The Navigator's reply: ambiguity first, then the plan for the default reading."""

    model_config = ConfigDict(extra="forbid")

    ambiguous: bool
    question: str | None
    options: list[str]
    default: str | None
    checkpoints: list[CheckpointDraft]
    workflow: WorkflowDraft | None


# -- prompt ----------------------------------------------------------------------------------------

def _param_line(name: str, prop: dict[str, Any], required: set[str]) -> str:
    kind = prop.get("type") or "/".join(a.get("type", "?") for a in prop.get("anyOf", []))
    if "enum" in prop:
        kind = "|".join(map(str, prop["enum"]))
    bits = [kind]
    for key, label in (("minimum", ">="), ("maximum", "<=")):
        if key in prop:
            bits.append(f"{label}{prop[key]}")
    bits.append("required" if name in required else f"default {prop.get('default', '[]')!r}")
    desc = f" - {prop['description']}" if prop.get("description") else ""
    return f"    {name}: {', '.join(bits)}{desc}"


def library_summary() -> str:
    """The operator library for the prompt: per operator its edge types, inputs, doc and parameters."""
    lines = []
    for name, spec in sorted(REGISTRY.items()):
        schema = spec.params.model_json_schema()
        ins = ("no inputs" if spec.max_inputs == 0
               else f"{spec.min_inputs}..{spec.max_inputs} inputs of type {spec.input_type}")
        lines.append(f"- {name} ({ins}; output {spec.output}): {spec.doc.splitlines()[0] if spec.doc else ''}")
        required = set(schema.get("required", []))
        lines += [_param_line(p, prop, required) for p, prop in schema.get("properties", {}).items()]
    return "\n".join(lines)


def _example() -> str:
    checklist = Checklist(intent="graph neural networks for molecules since 2020", checkpoints=[
        Checkpoint(id="c1", kind="method", text="The paper uses graph neural networks", terms=["graph neural network"]),
        Checkpoint(id="c2", kind="application", text="The work predicts molecular properties", terms=["molecule"]),
        Checkpoint(id="m1", kind="metadata", text="Published from 2020", predicate=MetadataPredicate(
            field="year", start=date(2020, 1, 1)))])
    wf = plan_workflow(checklist, Settings(), 20)
    drafts = [NodeDraft(id=n.id, op=n.op, params=n.params, inputs=n.inputs, note=n.note) for n in wf.nodes]
    return json.dumps({"nodes": [d.model_dump(exclude_none=True) for d in drafts], "output": wf.output})


def system_prompt(venues: dict[str, int], today: date) -> str:
    """The Navigator's instructions: checklist rules, vocabularies and the operator library."""
    top = sorted(venues.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_VENUES]
    vocab = ", ".join(v for v, _ in top) or "(the corpus records no venues)"
    return f"""You are the Navigator of a literature search system over a local corpus of papers.
Turn the user's search intent into a checklist of verifiable checkpoints and, optionally, a retrieval workflow.

Checklist rules:
- Content checkpoints have kind topic, method, application or data; ids c1, c2, ...; text is one
  verifiable statement ("The paper uses graph neural networks"); terms are 1-4 key phrases for retrieval.
- Exclusions ("not about X") have kind exclusion, ids x1, ...; text names what is excluded; terms name X.
- Constraints on metadata have kind metadata, ids m1, ..., and a predicate (null for every other kind):
  field year: start/end inclusive ISO dates (today is {today.isoformat()}; "to Oct 2025" ends 2025-10-31), values [];
  field venue: values copied exactly from the venue vocabulary below;
  field venue_year: venue values as for venue and start/end as for year: papers of those venues must
  lie in that period ("EMNLP 2019 or ACL 2020": venue [EMNLP, ACL], venue_year EMNLP 2019, venue_year ACL 2020);
  negated it leaves out only those venues' papers of that period ("excluding EMNLP 2020");
  field publication_type: values from {sorted(PUBLICATION_TYPES)};
  field author: values are author names. negate=true inverts ("not surveys").
- weight in [0, 1]: 1.0 for what the user requires, lower (e.g. 0.5) for soft preferences.

Ambiguity: if the intent has two or more clearly different readings that would change the search,
set ambiguous=true, ask one short question with 3 to 5 options (short phrases) and name the option
you would assume as default; plan the checklist for that default. Otherwise ambiguous=false,
question=null, options=[], default=null.

Workflow (optional; null lets the system plan it): an acyclic graph of operator nodes. Retrieval
nodes feed a union, optionally a filter (metadata checkpoints), then exactly one locate_evidence ->
score -> rerank chain; output is the rerank node. Edges carry the types named below.
Operators:
{library_summary()}
Example workflow: {_example()}

Venue vocabulary (top venues of the corpus): {vocab}

Reply with one JSON object only."""


# -- checks ---------------------------------------------------------------------------------------

MAX_CHECKPOINTS = 30
"""The most checkpoints an LLM-planned checklist may have (a trial's model sent 200)."""
YEARS = (1800, 2100)
"""The publication years a date predicate may name."""


def _date(value: str | None, where: str, problems: list[str]) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        problems.append(f"{where}: {value!r} is not an ISO date YYYY-MM-DD")
        return None


def to_checklist(intent: str, drafts: list[CheckpointDraft], venues: dict[str, int]) -> tuple[Checklist, list[str]]:
    """The checklist of a reply and its problems (ids, kinds vs predicates, dates, vocabularies).
    Venue values are mapped to the corpus spelling (case-insensitive)."""
    problems: list[str] = []
    spelled = {v.casefold(): v for v in venues}
    checkpoints: list[Checkpoint] = []
    seen: set[str] = set()
    if not drafts:
        problems.append("the checklist has no checkpoint")
    if len(drafts) > MAX_CHECKPOINTS:
        problems.append(f"the checklist has {len(drafts)} checkpoints; give at most {MAX_CHECKPOINTS}, the "
                        "intent's own concepts and constraints")
    for d in drafts:
        where = f"checkpoint {d.id!r}"
        if d.id in seen:
            problems.append(f"{where}: duplicate id")
        seen.add(d.id)
        predicate = None
        if d.kind == "metadata":
            if d.predicate is None:
                problems.append(f"{where}: kind metadata needs a predicate")
            else:
                p = d.predicate
                start, end = _date(p.start, f"{where} start", problems), _date(p.end, f"{where} end", problems)
                values = list(p.values)
                if p.field in ("year", "venue_year") and start is None and end is None and p.start is None \
                        and p.end is None:
                    problems.append(f"{where}: a {p.field} predicate needs start or end")
                if p.field != "year" and not values:
                    problems.append(f"{where}: a {p.field} predicate needs values")
                if p.field in ("venue", "venue_year") and venues:
                    unknown = [v for v in values if v.casefold() not in spelled]
                    if unknown:
                        problems.append(f"{where}: venues {unknown} are not in the venue vocabulary")
                    values = [spelled.get(v.casefold(), v) for v in values]
                if p.field == "publication_type":
                    unknown = [v for v in values if v not in PUBLICATION_TYPES]
                    if unknown:
                        problems.append(f"{where}: publication types {unknown} not in {sorted(PUBLICATION_TYPES)}")
                if start and end and start > end:
                    problems.append(f"{where}: start {start} is after end {end}")
                if any(d_ is not None and not YEARS[0] <= d_.year <= YEARS[1] for d_ in (start, end)):
                    problems.append(f"{where}: a date outside {YEARS[0]}-{YEARS[1]}, which no paper has")
                predicate = MetadataPredicate(field=p.field, values=values, start=start, end=end, negate=p.negate)
        elif d.predicate is not None:
            problems.append(f"{where}: only metadata checkpoints take a predicate")
        if d.kind == "exclusion" and not any(w.lower() not in stop_words() for t in d.terms
                                             for w in re.findall(r"\w+", t)):
            problems.append(f"{where}: an exclusion needs terms that name something (not {d.terms!r})")
        checkpoints.append(Checkpoint(id=d.id, kind=d.kind, text=d.text, weight=d.weight,
                                      terms=[t for t in d.terms if t.strip()], predicate=predicate, source="llm"))
    return Checklist(intent=intent, checkpoints=checkpoints), problems


def check_plan(reply: PlanReply, intent: str, venues: dict[str, int], corpus) -> list[str]:
    """All problems of a ``PlanReply`` (clarification shape, checklist, workflow)."""
    problems: list[str] = []
    if reply.ambiguous:
        if not (reply.question or "").strip():
            problems.append("ambiguous=true needs a question")
        if not 3 <= len(reply.options) <= 5:
            problems.append(f"ambiguous=true needs 3 to 5 options, got {len(reply.options)}")
        if reply.default not in reply.options:
            problems.append(f"default {reply.default!r} must be one of the options")
    checklist, more = to_checklist(intent, reply.checkpoints, venues)
    problems += more
    if reply.workflow is not None and not more:
        wf = Workflow(nodes=[n.to_node() for n in reply.workflow.nodes], output=reply.workflow.output)
        problems += check_workflow(wf, checklist, corpus)
    return problems


# -- the planner hook -----------------------------------------------------------------------------

class LLMPlanner:
    """``planner`` hook of the search loop: ``(intent, corpus, settings) -> (Checklist, Workflow | None,
    engine_name)``.

    ``engine`` is the ``llm.navigator`` engine; ``ask`` answers a clarifying question when
    ``interactive`` (else the default is taken); ``top_k`` is written into the rerank node of
    an LLM workflow. On ``LLMError``: with ``fallback`` the rule-based ``parse_intent`` plans
    and the returned engine name says so; otherwise the error propagates.
    """

    def __init__(self, engine, *, ask: Ask | None = None, interactive: bool = False, top_k: int | None = None,
                 fallback: bool = False, today: date | None = None):
        self.llm = engine
        self.ask = ask
        self.interactive = interactive and ask is not None
        self.top_k = top_k
        self.fallback = fallback
        self.today = today
        self.clarifications: list[Clarification] = []
        self.records: list = []

    def __call__(self, intent: str, corpus, settings: Settings) -> tuple[Checklist, Workflow | None, str]:
        try:
            checklist, workflow = self.plan(intent, corpus, settings)
            return checklist, workflow, self.llm.name
        except LLMError as exc:
            if not self.fallback:
                raise
            from litnav.corpus.phrases import corpus_phrases
            from litnav.navigator.intent import parse_intent

            checklist = parse_intent(intent, venues=corpus.venues(), today=self.today, phrases=corpus_phrases(corpus))
            return checklist, None, f"rules (fallback from {self.llm.name}: {exc})"

    def plan(self, intent: str, corpus, settings: Settings) -> tuple[Checklist, Workflow | None]:
        """The LLM plan (asking the clarifying question when needed). Raises ``LLMError``."""
        venues = corpus.venues()
        messages = [{"role": "system", "content": system_prompt(venues, self.today or date.today())},
                    {"role": "user", "content": f"Search intent: {intent}"}]

        def check(r: PlanReply) -> list[str]:
            return check_plan(r, intent, venues, corpus)

        reply, recs = structured_checked(self.llm, messages, PlanReply, check, role="navigator", what="plan")
        self.records += recs
        if reply.ambiguous:
            answer = self.ask(reply.question, reply.options, reply.default) if self.interactive else reply.default
            if answer not in reply.options:
                raise ValueError(f"clarification answer {answer!r} is not one of {reply.options}")
            self.clarifications.append(Clarification(question=reply.question, options=reply.options,
                                                     answer=answer, interactive=self.interactive))
            if answer != reply.default:
                follow = messages + [
                    {"role": "assistant", "content": recs[-1].text},
                    {"role": "user", "content": f"The user answered: {answer}. Plan the checklist and workflow for "
                                                "this reading; set ambiguous=false."}]
                reply, more = structured_checked(self.llm, follow, PlanReply, check, role="navigator",
                                                 what="plan after clarification")
                self.records += more
        checklist, _ = to_checklist(intent, reply.checkpoints, venues)
        if reply.workflow is None:
            return checklist, None
        workflow = Workflow(nodes=[n.to_node() for n in reply.workflow.nodes], output=reply.workflow.output)
        return checklist, with_top_k(workflow, self.top_k or settings.navigator.top_k)

