"""The LLM navigator's reading of feedback: free-form feedback -> canonical edit phrases -> edits.

The ``llm.navigator`` engine sees the checklist, the workflow's node ids and operators, the
current results (rank, id, year, title) and the user's feedback, and answers with the feedback
restated as canonical phrases the rule parser understands ("only papers after 2019", "follow the
citing direction of paper 2", "drop anything about speech", "focus on X", "pin paper 3", "show 20
results" ...). Those phrases go through ``navigator.feedback.parse_feedback``, so every edit is
typed, validated and carries its reason whichever engine read the feedback; a phrase the rules
cannot read is sent back to the LLM as a problem (``llm.checked.structured_checked`` repairs).
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, Field

from litnav.core.records import Checklist, Edit, Workflow
from litnav.llm import LLMError
from litnav.llm.checked import structured_checked

PHRASES = (
    "only papers after YEAR", "only papers before YEAR", "only papers in VENUE", "not surveys",
    "follow the citing direction of paper N", "what does paper N cite", "drop anything about TOPIC",
    "focus on TOPIC", "TOPIC matters more important", "ignore the year constraint", "pin paper N", "ban paper N",
    "show N results",
)


class FeedbackReply(BaseModel):
    """The feedback restated as canonical edit phrases (one edit each)."""

    phrases: list[str] = Field(description="Canonical phrases, e.g. 'only papers after 2019'.")


def _prompt(checklist: Checklist, workflow: Workflow, ranking: list[str], corpus) -> str:
    papers = corpus.papers(ranking[:20]) if corpus is not None else {}
    lines = [f"{i}. [{cid}] {papers[cid].year} {papers[cid].title}" for i, cid in enumerate(ranking[:20], 1)
             if cid in papers]
    return ("You turn a literature-search user's feedback into edits of the search. Restate the feedback as a "
            "list of canonical phrases, one per change, using only these forms (N is a result number, YEAR a "
            "year, TOPIC a short noun phrase):\n- " + "\n- ".join(PHRASES) +
            f"\n\nSearch intent: {checklist.intent}\nCheckpoints: "
            + "; ".join(f"{c.id} ({c.kind}): {c.text}" for c in checklist.checkpoints)
            + "\nWorkflow nodes: " + ", ".join(f"{n.id}={n.op}" for n in workflow.nodes)
            + "\nCurrent results:\n" + "\n".join(lines))


class LLMFeedbackParser:
    """A ``parser`` for ``navigator.refine``: ``(feedback, checklist, workflow, ranking, corpus, today)
    -> list[Edit]``. ``engine`` is an ``llm.navigator`` engine; with ``fallback`` an ``LLMError``
    falls back to the rule parser on the raw feedback (``engine`` then names the fallback)."""

    def __init__(self, engine, *, fallback: bool = False):
        self.llm = engine
        self.fallback = fallback
        self.engine = engine.name
        self.records: list = []

    def __call__(self, feedback: str, checklist: Checklist, workflow: Workflow, ranking: list[str], corpus=None,
                 today: date | None = None) -> list[Edit]:
        from litnav.navigator.feedback import parse_feedback

        messages = [{"role": "system", "content": _prompt(checklist, workflow, ranking, corpus)},
                    {"role": "user", "content": f"Feedback: {feedback}"}]

        def check(reply: FeedbackReply) -> list[str]:
            problems = []
            for p in reply.phrases:
                try:
                    parse_feedback(p, checklist, workflow, ranking, corpus, today)
                except ValueError as exc:
                    problems.append(f"{p!r}: {exc}")
            return problems if reply.phrases else ["give at least one phrase"]

        try:
            reply, recs = structured_checked(self.llm, messages, FeedbackReply, check, role="navigator",
                                             what="feedback edits")
        except LLMError as exc:
            if not self.fallback:
                raise
            self.engine = f"rules (fallback from {self.llm.name}: {exc})"
            return parse_feedback(feedback, checklist, workflow, ranking, corpus, today)
        self.records += recs
        edits = parse_feedback("; ".join(reply.phrases), checklist, workflow, ranking, corpus, today)
        return [e.model_copy(update={"reason": f"{e.reason} (from {feedback!r})"}) for e in edits]
