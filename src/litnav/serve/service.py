"""The operations both servers expose (``litnav serve`` over HTTP, ``litnav mcp`` over stdio):
search, refine, show_paper, audit, verify_references, export, report.

One :class:`Service` holds one corpus opened read-only once, the base settings, and a sessions
directory where every search and refinement is stored (``<session_id>.json``, written
atomically). Each request works on its own deep copy of the settings; at most
``max_concurrent`` searches run at a time (the others wait), and each session is changed by one
request at a time.
"""

from __future__ import annotations

import logging
import re
import secrets
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from litnav.core.records import Session
from litnav.core.settings import Settings
from litnav.serve.models import (
    TOP_K_MAX,
    CheckpointOut,
    JudgementOut,
    ResultOut,
    SearchResponse,
    SessionInfo,
    TurnOut,
)
from litnav.session.io import OutputPathError, check_output

logger = logging.getLogger(__name__)

SESSION_ID = re.compile(r"^[0-9a-f]{16}$")
MAX_QUERY_CHARS = 2000
"""Default limit on an intent's or feedback's length (characters)."""


class ServiceError(Exception):
    """A request the service cannot serve; ``status`` is the HTTP status that fits it."""

    status = 400

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        if status is not None:
            self.status = status


class NotFound(ServiceError):
    """An unknown session id or corpus id."""

    status = 404


class NotAvailable(ServiceError):
    """An operation this installation does not have (e.g. ``refine`` without the multi-turn navigator)."""

    status = 501


class Service:
    """Search, refine, show, audit, verify and export over one read-only corpus.

    ``corpus``: an open :class:`litnav.corpus.Corpus` (kept open; closed by :meth:`close`).
    ``sessions_dir``: where session files live (created; ``session.io.OutputPathError`` when it lies
    inside a corpus directory or under a file). ``max_concurrent``: searches run at once.
    ``max_query_chars``: longest intent or feedback accepted.
    """

    def __init__(self, corpus, settings: Settings | None = None, sessions_dir: str | Path = "litnav-sessions", *,
                 max_concurrent: int = 2, max_query_chars: int = MAX_QUERY_CHARS):
        self.corpus = corpus
        base = settings or Settings()
        self.settings = base.model_copy(update={"navigator": base.navigator.model_copy(update={"interactive": False})})
        self.sessions_dir = Path(sessions_dir)
        try:  # every search would run in full and fail on its write
            check_output(self.sessions_dir / "session.json", "session")
        except OutputPathError as exc:
            raise OutputPathError(f"sessions folder {self.sessions_dir}: {str(exc).split(': ', 1)[-1]}") from None
        self.sessions_dir.mkdir(parents=True, exist_ok=True)
        self.max_query_chars = max_query_chars
        self._slots = threading.BoundedSemaphore(max_concurrent)
        self._session_locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    @classmethod
    def open(cls, corpus_dir: str | Path, settings: Settings | None = None, **kw) -> Service:
        """Open ``corpus_dir`` read-only (the encoder named by ``settings.corpus``) and make a service.

        Raises ``litnav.corpus.CorpusError`` naming the directory when it is not a usable corpus.
        """
        from litnav.corpus import Corpus, CorpusError

        settings = settings or Settings()
        corpus = Corpus.open(corpus_dir, settings=settings.corpus)
        if corpus.stats().get("indexes_dirty"):
            corpus.close()
            raise CorpusError(f"corpus {corpus_dir} has content whose indexes were not built; finish its build first")
        return cls(corpus, settings, **kw)

    def warm(self) -> None:
        """Load the encoder and the search indexes once, before concurrent requests arrive."""
        t = time.perf_counter()
        if not self.corpus.missing_channels():
            self.corpus.semantic_search("warm up", 1)
        else:  # a corpus still embedding: searches use BM25 (and the encoder, for evidence) meanwhile
            self.corpus.encode(["warm up"])
        self.corpus.lexical_search("warm up", 1)
        logger.info("corpus %s warmed in %.1fs", self.corpus.directory, time.perf_counter() - t)

    def close(self) -> None:
        """Close the corpus."""
        self.corpus.close()

    # -- sessions --------------------------------------------------------------------------------
    def _path(self, session_id: str) -> Path:
        if not SESSION_ID.match(session_id or ""):
            raise NotFound(f"no session {_shown(session_id)} (ids are 16 hex characters)")
        path = self.sessions_dir / f"{session_id}.json"
        if path.is_symlink() or (path.exists() and not path.is_file()):  # a link out, a FIFO: never followed
            raise NotFound(f"no session {session_id!r}: its file is not a regular file")
        return path

    def _lock(self, session_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._session_locks.setdefault(session_id, threading.Lock())

    def load(self, session_id: str) -> Session:
        """The stored session; raises ``NotFound`` for an unknown id."""
        from litnav.session.io import SessionFileError, read_session

        path = self._path(session_id)
        if not path.exists():
            raise NotFound(f"no session {session_id!r} on this server")
        try:
            return read_session(path)
        except SessionFileError as exc:  # the server's folders are no business of a client
            raise ServiceError(str(exc).replace(str(path), f"stored session {session_id}"), status=500) from None

    def session_view(self, session_id: str) -> dict[str, Any]:
        """The stored session as JSON (the format ``litnav audit`` reads), its corpus named by its
        folder's name rather than the server's path to it."""
        view = self.load(session_id).model_dump(mode="json")
        view["corpus"] = _folder_name(view.get("corpus"))
        if "settings" in view:
            view["settings"] = _redact_settings(view["settings"])
        return view

    def _store(self, session: Session, session_id: str | None = None) -> str:
        from litnav.session.io import write_session

        session_id = session_id or secrets.token_hex(8)
        write_session(session, self._path(session_id))
        return session_id

    def sessions(self, limit: int | None = None, offset: int = 0) -> list[SessionInfo]:
        """Stored sessions, newest (last written) first: ``limit`` of them from ``offset`` (all
        when ``limit`` is None). Only the page's files are read; a damaged one is left out, so a
        page can hold fewer than ``limit``."""
        out = []
        paths = sorted((p for p in self.sessions_dir.glob("*.json") if SESSION_ID.match(p.stem)),
                       key=lambda p: p.lstat().st_mtime, reverse=True)
        for path in paths[offset:None if limit is None else offset + limit]:
            try:
                s = self.load(path.stem)
            except ServiceError:
                continue
            out.append(SessionInfo(session_id=path.stem, intent=s.intent, created_at=s.created_at,
                                   results=len(s.results), turns=max(1, len(getattr(s, "turns", [])))))
        return out

    # -- operations ------------------------------------------------------------------------------
    def _check_text(self, text: str, what: str) -> str:
        text = (text or "").strip()
        if not text:
            raise ServiceError(f"{what} is empty", status=422)
        if len(text) > self.max_query_chars:
            raise ServiceError(f"{what} has {len(text)} characters; the limit is {self.max_query_chars}", status=422)
        return text

    def search(self, intent: str, top_k: int = 10, rounds: int | None = None,
               constraints: list[str] | None = None) -> SearchResponse:
        """Run a search and store its session.

        ``constraints`` are extra phrases in the intent's own language (``"since 2018"``,
        ``"in ACL or NAACL"``, ``"not surveys"``), appended to ``intent`` so the intent parser
        turns them into metadata or exclusion checkpoints. Raises ``ServiceError`` (422) for an
        empty or over-long intent or an invalid plan, (502) when a configured LLM fails.
        """
        from litnav.librarians import WorkflowError
        from litnav.llm import LLMError
        from litnav.navigator import search

        self._check_text(intent, "intent")  # constraints alone ("since 2018") name nothing to search for
        text = self._check_text(", ".join([intent, *[c.strip() for c in constraints or [] if c.strip()]]), "intent")
        settings = self.settings.model_copy(deep=True)
        with self._slots:
            t = time.perf_counter()  # the search's own work, not the wait for a slot
            try:
                session = search(text, self.corpus, settings, rounds=rounds, top_k=top_k)
            except (WorkflowError, ValueError) as exc:
                raise ServiceError(str(exc), status=422) from None
            except LLMError as exc:
                raise ServiceError(f"LLM failure: {exc}", status=502) from None
        session_id = self._store(session)
        return summarize(session_id, session, time.perf_counter() - t)

    def refine(self, session_id: str, feedback: str) -> SearchResponse:
        """Refine a stored session with one line of feedback (the multi-turn navigator) and store
        the new turn. Raises ``NotAvailable`` where this litnav has no ``navigator.refine``,
        ``NotFound`` for an unknown session, ``ServiceError`` (422) for feedback that yields no edit."""
        try:
            from litnav.navigator.refine import refine
        except ImportError:
            raise NotAvailable("refine is not available in this litnav installation "
                               "(it needs the multi-turn navigator, litnav.navigator.refine)") from None
        from litnav.librarians import WorkflowError
        from litnav.session.io import session_lock

        feedback = self._check_text(feedback, "feedback")
        settings = self.settings.model_copy(deep=True)
        if not self._path(session_id).is_file():  # no lock file for a session that is not there
            raise NotFound(f"no session {session_id!r} on this server")
        with self._lock(session_id), session_lock(self._path(session_id)):  # the CLI's lock too
            session = self.load(session_id)
            with self._slots:
                t = time.perf_counter()
                try:
                    corpus_path = session.corpus
                    session = refine(session, feedback, self.corpus, settings, max_top_k=TOP_K_MAX)
                except (WorkflowError, ValueError) as exc:  # FeedbackError is a ValueError
                    raise ServiceError(_without_paths(str(exc), corpus_path, self.corpus.directory), status=422) from None
            self._store(session, session_id)
        return summarize(session_id, session, time.perf_counter() - t)

    def show_paper(self, corpus_id: str) -> dict[str, Any]:
        """Everything the corpus holds about one paper (``session.paper.paper_view``); ``NotFound`` when absent."""
        from litnav.session.paper import paper_view

        view = paper_view(self.corpus, corpus_id)
        if view is None:
            raise NotFound(f"no paper {_shown(corpus_id)} in the served corpus")
        if view["paper"].get("source_file"):  # the input file by name: the server's folders stay its own
            view["paper"]["source_file"] = Path(view["paper"]["source_file"]).name
        return view

    def audit(self, session_id: str, corpus_id: str | None = None) -> dict[str, Any]:
        """The session's audit (``session.report.audit_view``), optionally for one result only."""
        from litnav.session.report import audit_view

        view = audit_view(self._own_session(session_id, "an audit reads its evidence in that corpus's text"), self.corpus)
        view["corpus"] = _folder_name(view.get("corpus"))
        if corpus_id is not None:
            view["results"] = [r for r in view["results"] if r["corpus_id"] == corpus_id]
            if not view["results"]:
                raise NotFound(f"session {session_id} has no result {_shown(corpus_id)}")
        return view

    def _own_session(self, session_id: str, doing: str) -> Session:
        """The stored session, or a 422 when it searched another corpus than the served one."""
        from litnav.navigator.refine import check_same_corpus

        session = self.load(session_id)
        try:
            check_same_corpus(session, self.corpus, doing)
        except ValueError as exc:
            raise ServiceError(_without_paths(str(exc), session.corpus, self.corpus.directory), status=422) from None
        return session

    def report(self, session_id: str) -> str:
        """The session's self-contained HTML report."""
        from litnav.session.report import render_report

        session = self._own_session(session_id, "a report shows its evidence in that corpus's text")
        return render_report(session.model_copy(update={"corpus": _folder_name(session.corpus)}), self.corpus)

    def export(self, session_id: str, fmt: str, top: int | None = None, min_score: float | None = None) -> str:
        """The session's results as ``fmt`` text (``session.export.FORMATS``; "csl-json" is read as
        "csljson"); 422 for an unknown format
        or a session whose results the served corpus does not hold (``ExportError``)."""
        return self.export_with_left_out(session_id, fmt, top, min_score)[0]

    def export_with_left_out(self, session_id: str, fmt: str, top: int | None = None,
                             min_score: float | None = None) -> tuple[str, list[str]]:
        """:meth:`export`'s text and the corpus ids of the selected results it left out because the
        served corpus no longer holds them (the CLI warns of each; a client learns of them here)."""
        from litnav.session.export import FORMAT_ALIASES, FORMATS, ExportError, export_session, select_results

        fmt = FORMAT_ALIASES.get(fmt.lower(), fmt.lower())
        if fmt not in FORMATS:
            raise ServiceError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}", status=422)
        session = self.load(session_id)
        try:
            text = export_session(session, self.corpus, fmt, top=top, min_score=min_score)  # type: ignore[arg-type]
        except ExportError as exc:
            raise ServiceError(_without_paths(str(exc), session.corpus, self.corpus.directory), status=422) from None
        ids = [r.corpus_id for r in select_results(session, top, min_score)]
        held = self.corpus.papers(ids)
        return text, [c for c in ids if c not in held]

    def verify_references(self, text: str, fmt: str | None = None):
        """Audit a reference list given as text (BibTeX, RIS, CSL-JSON or one title per line;
        ``fmt`` None = detected from the content) against the corpus: a ``web.VerifyReport``. It runs
        in one of the searches' slots (``max_concurrent``). Raises ``ServiceError``: 422 for
        unparseable text, an unknown format or text holding no reference, 413 for text over
        :data:`MAX_REFERENCE_CHARS`."""
        from litnav.web import ReferenceParseError, verify_references

        suffix = {None: ".refs", "bibtex": ".bib", "ris": ".ris", "csl-json": ".json", "csljson": ".json",
                  "titles": ".txt"}
        if fmt not in suffix:
            raise ServiceError(f"unknown reference format {fmt!r}; use bibtex, ris, csl-json or titles", status=422)
        if not (text or "").strip():
            raise ServiceError("the reference text is empty", status=422)
        if len(text) > MAX_REFERENCE_CHARS:
            raise ServiceError(f"the reference text has {len(text):,} characters; the limit is "
                               f"{MAX_REFERENCE_CHARS:,} (about 500 BibTeX entries): split it", status=413)
        with tempfile.TemporaryDirectory(prefix="litnav-verify-") as tmp, self._slots:  # a search's share of the CPU
            path = Path(tmp) / f"references{suffix[fmt]}"
            path.write_text(text, encoding="utf-8")
            try:
                report = verify_references(path, self.corpus, self.settings.web)
            except ReferenceParseError as exc:
                raise ServiceError(str(exc).replace(str(path), "references"), status=422) from None
        if not report.references:
            raise ServiceError(f"no references found (read as {report.format}); nothing was verified", status=422)
        report.file = "(request)"
        return report


MAX_REFERENCE_CHARS = 500_000
"""The longest reference list one request audits (1 MB of BibTeX took 23 s of both cores)."""


def _folder_name(path: str | None) -> str | None:
    """The last part of a server path (``/srv/corpora/acl`` -> ``acl``)."""
    return Path(path).name if path else path


def _without_paths(message: str, *paths: str | Path | None) -> str:
    """``message`` with each of ``paths`` (as given and resolved) written as its folder's name:
    a client learns which corpus, never where the server keeps it."""
    forms = {str(f) for p in paths if p for f in (p, Path(p).resolve()) if str(f) not in (".", "")}
    for form in sorted(forms, key=len, reverse=True):  # "/a/b/c" before "b/c"
        message = message.replace(form, Path(form).name)
    return message


_SERVER_SETTING = re.compile(r"(?:^|_)(?:dir|path|url|file)s?$")
"""Setting names whose values are places on the server (``cache_dir``, ``base_url``,
``cross_encoder_path``)."""
_PATH_VALUE = re.compile(r"^(?:/|~|\.{1,2}/|[A-Za-z]:[\\/])|[\\/].*\.\w+$")
"""A value that reads as a file system path whatever its setting's name (``scorer.student``:
"/srv/models/student.json", "models/student.json")."""


def _redact_settings(settings: Any) -> Any:
    """A settings snapshot with every place on the server (a setting named by :data:`_SERVER_SETTING`
    or a value that reads as a path, :data:`_PATH_VALUE`) replaced by ``"(set on the server)"``;
    other values as they are."""
    if isinstance(settings, dict):
        return {k: ("(set on the server)" if isinstance(v, str) and v and (_SERVER_SETTING.search(k)
                                                                           or _PATH_VALUE.search(v))
                    else _redact_settings(v)) for k, v in settings.items()}
    if isinstance(settings, list):
        return [_redact_settings(v) for v in settings]
    return settings


def _shown(value: str, limit: int = 120) -> str:
    """``value`` quoted for an error message, cut to ``limit`` characters (a request may name any id)."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def summarize(session_id: str, session: Session, seconds: float) -> SearchResponse:
    """The API view of a session: checklist, ranked results with each checkpoint's score,
    rationale and verbatim quote (no evidence lists; ``audit`` has those), and the last turn."""
    checklist = session.rounds[-1].checklist.checkpoints if session.rounds else []
    turn = None
    turns = getattr(session, "turns", [])
    if turns:
        t = turns[-1]
        turn = TurnOut(index=t.index, feedback=t.feedback, edits=[f"{e.action} {e.target}: {e.reason}" for e in t.edits],
                       new=t.diff.new if t.diff else [], dropped=t.diff.dropped if t.diff else [],
                       rerun=t.rerun, reused=t.reused)
    return SearchResponse(
        session_id=session_id, intent=session.intent, stop_reason=session.stop_reason, rounds=len(session.rounds),
        seconds=round(seconds, 3),
        checklist=[CheckpointOut(id=c.id, kind=c.kind, text=c.text, weight=c.weight) for c in checklist],
        results=[ResultOut(rank=r.rank, corpus_id=r.corpus_id, title=r.title, year=r.year, venue=r.venue,
                           authors=r.authors, scored=session.is_scored(r),
                           **dict(zip(("final_score", "probability"), session.shown_scores(r))),
                           checkpoints=[JudgementOut(id=j.checkpoint_id, kind=j.kind, score=j.score,
                                                     rationale=j.rationale, quote=j.quote) for j in r.checkpoints])
                 for r in session.results],
        turn=turn,
    )
