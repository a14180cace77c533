"""``litnav refine SESSION "feedback"``: continue a search with one line of feedback (also
reachable as ``litnav search --continue SESSION "feedback"``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from litnav.cli.common import SetOpt, clean_errors, fail, make_console, open_corpus, settings_from


def continue_session(session_file: Path, feedback: str, corpus: Optional[Path], out: Optional[Path],
                     settings_file: Optional[Path], overrides: Optional[list[str]], top_k: Optional[int] = None) -> None:
    """Refine the session in ``session_file`` with ``feedback`` (and ``top_k`` results when given),
    under the settings of ``settings_file``, else the session's own recorded ones (its LLM roles
    and student), ``overrides`` applied on top; write it (to ``out`` or in place),
    and print the turns and the new results. Refinements of one session file run one at a time
    (a lock file ``.NAME.lock`` beside it; a second one waits), so none is lost; where no lock
    file can be made (a read-only folder with ``--out`` elsewhere) it runs without."""
    from litnav.session.io import session_lock

    with session_lock(session_file):
        _continue_session(session_file, feedback, corpus, out, settings_file, overrides, top_k)


def _continue_session(session_file: Path, feedback: str, corpus: Optional[Path], out: Optional[Path],
                      settings_file: Optional[Path], overrides: Optional[list[str]], top_k: Optional[int]) -> None:
    from litnav.librarians import WorkflowError
    from litnav.llm import LLMError
    from litnav.navigator import refine
    from litnav.navigator.feedback import FeedbackError
    from litnav.navigator.refine import session_settings
    from litnav.session.io import SessionFileError, check_output, read_session, write_session

    with clean_errors(SessionFileError):
        session = read_session(session_file)
    with clean_errors(ValueError):
        base = None if settings_file else session_settings(session).model_dump(mode="json")
    settings = settings_from(settings_file, overrides, base=base)
    path = corpus or (Path(session.corpus) if session.corpus else None)
    if path is None:
        fail(f"{session_file}: the session names no corpus; give --corpus")
    if corpus is None and not path.exists():
        fail(f"{session_file}: the corpus this session searched, {path}, does not exist (moved or deleted); "
             "pass its new place with --corpus")
    c = open_corpus(path, settings)
    with clean_errors(ValueError):
        check_output(out or session_file, "session", corpus=c)
    same_place = corpus is None or Path(corpus).resolve() == Path(session.corpus or corpus).resolve()
    searched = session.turns[-1].corpus_fingerprint if session.turns else None
    searched = searched or session.corpus_fingerprint
    if same_place and searched and c.fingerprint() != searched:
        make_console(stderr=True).print(f"[yellow]note: {path} changed since this session searched it; its "
                                        "searches run again on the corpus as it is now[/yellow]")
    with clean_errors(FeedbackError, WorkflowError, ValueError, LLMError):
        session = refine(session, feedback, c, settings, top_k=top_k)
    target = out or session_file
    with clean_errors(OSError, ValueError):
        write_session(session, target)
    print_turn(session)
    import shlex

    make_console(stderr=True).print(f"session written to {target} (turn {session.turns[-1].index}; "
                                    f"history: `litnav audit {shlex.quote(str(target))} --turns`)",
                                    markup=False, highlight=False)


def refine_cmd(
    session_file: Path = typer.Argument(..., help="A session file written by `litnav search`."),
    feedback: str = typer.Argument("", help="What to change, e.g. 'only papers after 2019', 'follow the citing "
                                   "direction of the top paper', 'drop anything about speech', 'pin paper 2' "
                                   "(may be left out with --top)."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", "-c", help="Corpus directory (default: the session's)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the refined session here (default: in place)."),
    top: Optional[int] = typer.Option(None, "--top", "-k", min=1, help="Results this turn returns (as feedback "
                                      "'show N results')."),
    settings_file: Optional[Path] = typer.Option(None, "--settings", help="Settings file (JSON or TOML); default: "
                                                 "the settings the session recorded (its LLM roles, student)."),
    overrides: Optional[list[str]] = SetOpt,
) -> None:
    """Turn feedback into workflow edits, re-run only what changed, and append a turn to the session."""
    if not feedback.strip() and top is None:
        fail("give the feedback, e.g. `litnav refine s.json 'only papers after 2019'`, or --top N", code=2)
    if any(o.split("=", 1)[0].strip() == "navigator.top_k" for o in overrides or []):
        fail("a refinement's result count is --top N (or feedback 'show N results'); navigator.top_k sets only "
             "a new search's", code=2)
    settings_from(settings_file, overrides)  # a bad file or --set fails here, before the session is read
    continue_session(session_file, feedback, corpus, out, settings_file, overrides, top)


def register(app: typer.Typer) -> None:
    """Add ``refine`` to ``app``."""
    app.command("refine")(refine_cmd)


def print_turn(session) -> None:
    """Print a refinement's turns table, its results and the notes a reader of them needs."""
    from litnav.session.render import print_notes, results_table, turns_table

    console = make_console()
    console.print(turns_table(session))
    console.print(results_table(session))
    print_notes(session, console)
