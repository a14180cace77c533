"""The branch question on a search's results (PaperPilot's clarification without an LLM): find the
branches (``navigator.branches``), take the answer, and run a chosen branch as a new turn
(``navigator.refine.run_turn``). Kept apart from ``navigator.branches``, which the refinement
itself reads to take a later answer ("branch a")."""

from __future__ import annotations

from collections.abc import Callable

from litnav.core.records import Clarification, Session
from litnav.core.settings import Settings
from litnav.navigator.branches import Branch, branch_checkpoint_id, branch_edits, latest_branches, question
from litnav.navigator.refine import ensure_turns, run_turn


def clarify(
    session: Session,
    corpus,
    settings: Settings | None = None,
    *,
    ask: Callable[[str, list[str], str], str] | None = None,
    answer: str | None = None,
    top: int = 20,
    default: str = "all",
) -> tuple[Session, list[Branch]]:
    """Offer the branch question on the latest turn of ``session`` when its top ``top`` results
    split clearly; returns the session (with a new turn when a branch was chosen) and the branches.

    The answer is ``answer`` when given, else ``ask(question, options, default)`` when given,
    else ``default`` (non-interactive); it is recorded in ``session.clarifications`` and on the
    turn it created (or the latest turn). Raises ``ValueError`` for an answer that is not an option.
    """
    settings = settings or Settings()
    ensure_turns(session)
    branches = latest_branches(session, corpus, top)
    if not branches:
        return session, []
    text, options = question(branches)
    interactive = answer is None and ask is not None
    chosen = answer if answer is not None else ask(text, options, default) if ask is not None else default
    if chosen not in options:
        raise ValueError(f"answer {chosen!r} is not one of {options}")
    record = Clarification(question=text, options=options, answer=chosen, interactive=interactive)
    session.clarifications.append(record)
    branch = next((b for b in branches if b.label == chosen), None)
    if branch is None:
        session.turns[-1].clarification = record
        return session, branches
    session = run_turn(session, branch_edits(branch, branch_checkpoint_id(session)), corpus, settings,
                       feedback=f"[{chosen}] {', '.join(branch.terms)}", clarification=record)
    return session, branches
