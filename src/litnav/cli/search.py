"""``litnav search``, ``litnav plan``, ``litnav audit`` and ``litnav operators``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from litnav.cli.common import (
    SetOpt,
    SettingsOpt,
    clean_errors,
    err_console,
    fail,
    make_console,
    open_corpus,
    settings_from,
)


def search_cmd(
    query: Optional[str] = typer.Argument(None, help="The search intent, in natural language (optional with "
                                          "--anchor; the feedback with --continue)."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", "-c", help="Corpus directory (with --continue: "
                                          "default the session's)."),
    anchor: Optional[str] = typer.Option(None, "--anchor", help="Search from this paper: corpus id, DOI, arXiv "
                                         "id, exact title or its acronym (DDPM)."),
    direction: Optional[str] = typer.Option(None, "--direction", help="With --anchor: successor (default), predecessor, "
                                  "sibling, benchmark or survey."),
    continue_from: Optional[Path] = typer.Option(None, "--continue", help="Continue this session file: QUERY is "
                                                 "the feedback (same as `litnav refine SESSION FEEDBACK`)."),
    rounds: Optional[int] = typer.Option(None, "--rounds", min=1, help="Maximum rounds."),
    top: Optional[int] = typer.Option(None, "--top", "-k", min=1, help="Results to return (default: "
                                      "navigator.top_k, 20)."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the session file here."),
    export: Optional[Path] = typer.Option(None, "--export", help="Also export the results here; the format "
                                          "comes from the extension (.bib .ris .json .csv .jsonl .trec)."),
    workflow: Optional[Path] = typer.Option(None, "--workflow", help="Run this (edited) workflow JSON in round 1 "
                                            "(with --anchor: the direction's template, placeholders allowed)."),
    rationales: int = typer.Option(3, "--rationales", help="Results whose rationales are printed."),
    interactive: Optional[bool] = typer.Option(
        None, "--interactive/--no-interactive",
        help="Ask which branch to follow when the top results split into distinct groups (not with --anchor), "
             "and let an LLM navigator ask its clarifying question (default: only when stdin is a terminal)."),
    settings_file: Optional[Path] = SettingsOpt,
    overrides: Optional[list[str]] = SetOpt,
) -> None:
    """Search the corpus for papers matching a complex intent; print a ranked table and write a session."""
    import sys

    from litnav.session.export import ExportError, format_for_path

    export_format = None
    if export is not None:
        try:
            export_format = format_for_path(export)
        except ExportError as exc:
            fail(str(exc), code=2)
    settings = settings_from(settings_file, overrides)
    named = json_out is not None  # else the first free litnav-session[-N].json, taken when written
    if continue_from is None:
        json_out = json_out or _free_session_path(DEFAULT_SESSION)
        if export is not None and json_out.resolve() == Path(export).resolve():
            fail(f"--json and --export name the same file {export}; give two paths", code=2)
    if continue_from is not None:
        from litnav.cli.refine import continue_session

        if not query and top is None:
            fail("--continue needs the feedback as QUERY, e.g. `litnav search --continue s.json 'only after 2019'`, "
                 "or --top N", code=2)
        ignored = [flag for flag, given in (("--anchor", anchor), ("--direction", direction), ("--workflow", workflow),
                                            ("--rounds", rounds), ("--export", export)) if given is not None]
        if ignored:
            fail(f"--continue refines a session with feedback; {', '.join(ignored)} cannot apply to it", code=2)
        continue_session(continue_from, query or "", corpus, json_out, settings_file, overrides, top)
        return
    if corpus is None:
        fail("give the corpus with --corpus DIR", code=2)
    before = _stamp(json_out) if named else None
    if not query and not anchor:
        fail("give a search intent (or --anchor PAPER)", code=2)
    if direction is not None and not anchor:  # "follow-up work of X" --direction predecessor ran X's successors
        fail(f"--direction {direction} needs --anchor PAPER (an intent such as \"papers cited by <title>\" says its "
             "direction in words)", code=2)
    ask = sys.stdin.isatty() if interactive is None else interactive
    settings = settings.model_copy(update={"navigator": settings.navigator.model_copy(update={"interactive": ask})})
    from litnav.corpus import CorpusError

    c = open_corpus(corpus, settings)
    from litnav.session.io import check_output

    with clean_errors(ValueError):  # a bad --json or --export fails before the search, not after
        for path, kind in ((json_out, "session"), (export, "export")):
            if path is not None:
                check_output(path, kind, corpus=c)
    c.warm_encoder()  # the query encoder loads while the navigator is imported
    from litnav import search
    from litnav.librarians import WorkflowError, load_workflow
    from litnav.llm import LLMError

    branches: list = []
    with clean_errors(WorkflowError, LLMError, ValueError, CorpusError):
        if anchor:
            from litnav.navigator.anchor import anchor_search

            session = anchor_search(anchor, direction or "successor", c, settings, intent=query, top_k=top,
                                    template=workflow)
        else:
            wf = load_workflow(workflow) if workflow else None
            if wf is not None:
                _workflow_notes(workflow, query, c)
            try:
                session = search(query, c, settings, workflow=wf, rounds=rounds, top_k=top, progress=True)
            except WorkflowError as exc:  # a workflow fit as a graph but not for this checklist: name the file
                if wf is None:
                    raise
                raise WorkflowError(exc.node_id, f"{exc.message} (in {workflow})", exc.field) from None
            if wf is not None:
                session.engines["workflow"] = session.engines.get("workflow", "given").replace(
                    "given", str(Path(workflow).resolve()), 1)
            from litnav.navigator.branch_question import clarify

            # the branch question's default answer ("all") is recorded; it is asked after the results
            session, branches = clarify(session, c, settings)
    json_out = _write(session, json_out, named=named, before=before)
    _print(session, c, rationales)
    if branches:
        session, json_out = _ask_branch(session, branches, c, settings, json_out, ask)
    if export is not None:
        from litnav.session.export import export_session
        from litnav.session.io import write_text_atomic

        with clean_errors(OSError, ValueError):
            write_text_atomic(export_session(session, c, export_format), export)
        make_console(stderr=True).print(f"{export_format} export written to {export}")


def _ask_branch(session, branches: list, corpus, settings, json_out: Path, ask: bool):
    """After the results: ask the branch question in the terminal (``ask``), or say how to answer
    it later; a chosen branch runs as a refinement ("branch a") whose turn is written and printed.
    Returns the session and its file."""
    import shlex

    from litnav.navigator.branches import question

    text, options = question(branches)
    later = f"litnav refine {shlex.quote(str(json_out))} 'branch {branches[0].label}'"
    console = make_console(stderr=True)
    if not ask:
        console.print(f"{text} -> all (not asked: no terminal or --no-interactive); to follow one: {later}",
                      markup=False, highlight=False)
        return session, json_out
    from litnav.navigator.clarify import terminal_ask

    try:
        chosen = terminal_ask(text, options, "all")
    except (EOFError, KeyboardInterrupt):
        console.print(f"\nnot answered; the session keeps every branch (to follow one: {later})",
                      markup=False, highlight=False)
        return session, json_out
    if chosen in ("all", "stop"):
        for record in (session.clarifications[-1], session.turns[-1].clarification):
            record.answer, record.interactive = chosen, True
        return session, _write(session, json_out, named=True, before=None, quiet=True)
    from litnav import refine
    from litnav.cli.refine import print_turn
    from litnav.librarians import WorkflowError
    from litnav.llm import LLMError

    with clean_errors(WorkflowError, LLMError, ValueError):
        session = refine(session, f"branch {chosen}", corpus, settings)
    json_out = _write(session, json_out, named=True, before=None)
    print_turn(session)
    return session, json_out


def _write(session, json_out: Path, *, named: bool, before, quiet: bool = False) -> Path:
    """Write ``session`` to ``json_out`` (``named``: the user gave the path, else the first free
    ``litnav-session[-N].json``), under the session file's lock; say where on stderr unless
    ``quiet``. ``before``: the file's stamp when the search began (a note when another run changed
    it meanwhile)."""
    from litnav import write_session
    from litnav.session.io import write_new_session

    with clean_errors(OSError, ValueError):  # written before anything is printed: `| head` keeps the session
        if named:
            from litnav.session.io import session_lock

            with session_lock(json_out):  # a `litnav refine` of this file finishes its turn first
                if before is not None and _stamp(json_out) != before:
                    make_console(stderr=True).print(
                        f"note: {json_out} was changed by another litnav run while this search ran "
                        "(a refinement?); it is replaced by this search's session")
                json_out = write_session(session, json_out)
        else:
            json_out = write_new_session(session, DEFAULT_SESSION)
    if not quiet:
        import shlex

        make_console(stderr=True).print(f"session written to {json_out} (audit it with `litnav audit "
                                        f"{shlex.quote(str(json_out))}`)", markup=False, highlight=False)
    return json_out


def _print(session, corpus, rationales: int) -> None:
    """Print the checklist, results and rationales; a closed pipe (``| head``) ends it quietly."""
    from litnav.session.paper import anchor_links
    from litnav.session.render import print_session

    try:
        print_session(session, make_console(), rationales=rationales, links=anchor_links(session, corpus))
    except BrokenPipeError:  # the reader went away; the session is already on disk
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _workflow_notes(path: Path, query: str, corpus) -> None:
    """Warn (stderr) when the workflow file was planned for another intent (``litnav plan --out``
    records it: its checkpoint ids now name this intent's checkpoints), and when the intent asks
    for an anchor paper's neighbours, which the file's search replaces."""
    import json

    from litnav.navigator.search import anchor_routing

    console = make_console(stderr=True)
    try:
        planned = json.loads(Path(path).read_text()).get("intent")
    except (OSError, ValueError, AttributeError):
        planned = None
    if isinstance(planned, str) and " ".join(planned.split()).lower() != " ".join(query.split()).lower():
        console.print(f"note: {path} was planned for the intent {planned!r}; its checkpoint ids (within, "
                      "checkpoint_ids) now name this intent's checkpoints (`litnav plan` lists them)",
                      markup=False, highlight=False)
    if (routed := anchor_routing(query, corpus)) is not None:
        console.print(f"note: the intent asks for the {routed[0]} papers of {routed[1]}, which a search without "
                      f"--workflow runs as an anchor search; {path} runs instead (`litnav search --anchor "
                      f"{routed[1]} --direction {routed[0]} --workflow TEMPLATE` edits the anchor search)",
                      markup=False, highlight=False)


def plan_cmd(
    query: str = typer.Argument(..., help="The search intent."),
    corpus: Path = typer.Option(..., "--corpus", "-c", help="Corpus directory (for its venue vocabulary)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the workflow JSON here (edit, then "
                                       "`litnav search --workflow FILE`)."),
    as_json: bool = typer.Option(False, "--json", help="Print the workflow JSON instead of the table."),
    settings_file: Optional[Path] = SettingsOpt,
    overrides: Optional[list[str]] = SetOpt,
) -> None:
    """Show the checklist and the round-1 workflow that a search would run (a table; the JSON
    with --json or --out FILE)."""
    from litnav.navigator.intent import describe
    from litnav.navigator.planner import plan_workflow, rule_checklist

    settings = settings_from(settings_file, overrides)
    c = open_corpus(corpus)
    with clean_errors(ValueError):
        if out:
            from litnav.session.io import check_output

            check_output(out, "export", corpus=c)
        checklist = rule_checklist(query, c, settings)
    from litnav.librarians import WorkflowError, validate_workflow

    workflow = plan_workflow(checklist, settings)
    with clean_errors(WorkflowError):
        validate_workflow(workflow)  # never write a workflow `search --workflow` would refuse
    from litnav.navigator.search import anchor_routing
    from litnav.session.render import workflow_table

    console = make_console(stderr=as_json)  # with --json, stdout carries the workflow JSON alone
    console.print(describe(checklist), markup=False, highlight=False)
    text = workflow.model_dump_json(indent=2)
    if as_json:
        sys.stdout.write(text + "\n")
    else:
        console.print(workflow_table(workflow))
    if (routed := anchor_routing(query, c)) is not None:
        console.print(f"Note: `litnav search` runs this intent as the anchor search of {routed[1]} ({routed[0]}: "
                      f"its template, navigator/data/anchor_{routed[0]}.json, not the workflow above); "
                      f"`litnav search --anchor {routed[1]} --direction {routed[0]} --workflow TEMPLATE` runs an "
                      "edited one, and `--workflow` with this plan runs the topic search above instead.",
                      markup=False, highlight=False)
    if out:
        import json

        from litnav.session.io import write_text_atomic

        with clean_errors(OSError, ValueError):  # the intent and checkpoints the workflow's ids name
            write_text_atomic(json.dumps({"intent": query, "checkpoints": {cp.id: cp.text for cp in checklist.checkpoints},
                                          **workflow.model_dump(mode="json")}, indent=2), out)
        console.print(f"workflow written to {out} (with the intent and checkpoints its ids name)")


def audit_cmd(
    session_file: Path = typer.Argument(..., help="A session file written by `litnav search --json`."),
    paper: Optional[str] = typer.Option(None, "--paper", "-p", help="Show only this corpus_id."),
    corpus: Optional[Path] = typer.Option(None, "--corpus", "-c",
                                          help="Corpus to show evidence in context (default: the session's)."),
    turns: bool = typer.Option(False, "--turns", help="Show only the turn history: feedback, edits, re-run "
                               "nodes and result diffs."),
) -> None:
    """The paper × checkpoint matrix and every judgement with its verbatim evidence (and the turns)."""
    from litnav.session.io import SessionFileError, read_session
    from litnav.session.render import checklist_table, matrix_table, paper_panel, result_notes

    with clean_errors(SessionFileError):
        session = read_session(session_file)
    if turns:
        from litnav.session.render import turns_table

        make_console().print(turns_table(session) if session.turns else "this session has a single turn")
        return
    results = session.results
    if paper is not None:
        results = [r for r in results if r.corpus_id == paper]
        if not results:
            fail(f"{session_file}: no result with corpus_id {paper!r}")
    console = make_console()
    console.print(f"intent: {session.intent}", markup=False, highlight=False)
    if session.rounds:  # what ran: the round-1 workflow's nodes, and whose workflow it was
        source = session.engines.get("workflow") or session.engines.get("navigator", "rules")
        nodes = ", ".join(f"{n.id} ({n.op})" for n in session.rounds[0].workflow.nodes)
        console.print(f"round-1 workflow [{source}]: {nodes}", markup=False, highlight=False)
    if len(session.turns) > 1:
        from litnav.session.render import turns_table

        console.print(turns_table(session))
    console.print(checklist_table(session))
    for line in result_notes(session):
        console.print(line, style="yellow", markup=False, highlight=False)
    if paper is None:
        console.print(matrix_table(session))
    c = None
    path = corpus or (Path(session.corpus) if session.corpus else None)
    if corpus is not None and not corpus.exists():  # one the user named: say so, as report and export do
        fail(f"corpus directory {corpus} does not exist (--corpus)")
    if path is not None and path.exists():
        from litnav.corpus import Corpus, CorpusError

        try:
            c = Corpus.open(path)
        except CorpusError as exc:
            if corpus is not None:
                fail(f"{exc} (--corpus)")
            err_console.print(f"note: {exc}; evidence is shown without its surrounding text", highlight=False)
            c = None
        if c is not None and session.corpus_fingerprint and c.fingerprint() != session.corpus_fingerprint:
            console.print(f"[yellow]note: {path} has changed since this search (fingerprint differs); evidence "
                          "is shown in context only where the stored offsets still match[/yellow]")
    elif path is not None:
        err_console.print(f"note: corpus directory {path} does not exist (--corpus DIR names where it is now); "
                          "evidence is shown without its surrounding text", highlight=False)
    for r in results:
        # soft_wrap off: a panel wraps its text inside its border even when the output is not a terminal
        console.print(paper_panel(r, c.full_text(r.corpus_id) if c else None), soft_wrap=False)


def operators_cmd() -> None:
    """List the workflow operator library with parameter schemas (JSON)."""
    from litnav.navigator.loop import operator_library

    print(json.dumps(operator_library(), indent=2))


def _stamp(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of ``path``, None when it does not exist: whether a file changed."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def register(app: typer.Typer) -> None:
    """Add the search-side commands to ``app``."""
    app.command("search")(search_cmd)
    app.command("plan")(plan_cmd)
    app.command("audit")(audit_cmd)
    app.command("operators")(operators_cmd)


DEFAULT_SESSION = Path("litnav-session.json")
"""Where a search without ``--json`` writes its session (``-2``, ``-3``, ... when taken)."""


def _free_session_path(path: Path) -> Path:
    """``path``, or ``stem-2.json``, ``stem-3.json``, ... when it exists: the name a search without
    ``--json`` checks before it runs (it takes the first free one when it writes,
    ``session.io.write_new_session``, so two searches at once never share one)."""
    n = 2
    candidate = path
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        n += 1
    return candidate
