"""``litnav serve``: the service's operations as a local JSON API (FastAPI; OpenAPI at
``/openapi.json``, docs at ``/docs``).

Binds to 127.0.0.1 by default. With a token every endpoint except ``/health`` needs
``Authorization: Bearer <token>`` (401 otherwise). Request bodies over ``max_body_bytes`` get
413, intents or feedback over the service's ``max_query_chars`` get 422, unknown sessions or
papers 404, ``refine`` without the multi-turn navigator 501; every error body is
``{"detail": "<one clear sentence>"}``.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException

from litnav.core.version import package_version
from litnav.serve.models import (
    ErrorBody,
    Health,
    RefineRequest,
    SearchRequest,
    SearchResponse,
    SessionInfo,
    VerifyRequest,
    validation_message,
)
from litnav.serve.service import Service, ServiceError
from litnav.session.export import FORMAT_ALIASES

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 1_000_000
"""Default limit on a request body (bytes)."""

MEDIA_TYPES = {"bibtex": "application/x-bibtex", "ris": "application/x-research-info-systems",
               "csljson": "application/vnd.citationstyles.csl+json", "csv": "text/csv",
               "jsonl": "application/x-ndjson", "trec": "text/plain"}
EXTENSIONS = {"bibtex": "bib", "ris": "ris", "csljson": "json", "csv": "csv", "jsonl": "jsonl", "trec": "trec"}
"""Export format -> the file extension of the ``Content-Disposition`` filename."""


class BodyLimit:
    """ASGI middleware: a request whose body exceeds ``limit`` bytes (declared or streamed) gets 413."""

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            return await self._reject(send, int(declared))
        # read the (small) body here and hand it on whole: an error raised inside the app's own
        # body parsing would come back as a 400, not as this 413 (chunked bodies have no length)
        body, message = b"", {"type": "http.request", "body": b"", "more_body": False}
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > self.limit:
                return await self._reject(send, len(body))
            if not message.get("more_body", False):
                break
        pending = [message if message["type"] != "http.request" else
                   {"type": "http.request", "body": body, "more_body": False}]

        async def replay():
            return pending.pop() if pending else await receive()

        await self.app(scope, replay, send)

    async def _reject(self, send, size: int):
        response = JSONResponse({"detail": f"request body of {size} bytes exceeds the limit of {self.limit} bytes"},
                                status_code=413)
        await response({"type": "http"}, None, send)


LEFT_OUT_HEADER = "X-Litnav-Left-Out"
"""Response header of an export: how many selected results it left out (not in the served corpus)."""


def create_app(service: Service, *, token: str | None = None, max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """The FastAPI application over ``service``; ``token`` (optional) is the bearer token every
    endpoint but ``/health`` requires."""
    bearer = HTTPBearer(auto_error=False)

    def authorize(creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> None:
        if token is None:
            return
        if creds is None or not secrets.compare_digest(creds.credentials.encode(), token.encode()):
            raise HTTPException(401, "missing or wrong bearer token (send 'Authorization: Bearer <token>')",
                                headers={"WWW-Authenticate": "Bearer"})

    errors = {413: "request body too large", 422: "invalid request", 404: "no such session or paper",
              500: "internal error (see the server log)", 501: "refine needs the multi-turn navigator",
              502: "an LLM endpoint failed"}
    if token is not None:
        errors[401] = "missing or wrong bearer token"
    app = FastAPI(title="litnav", version=package_version(),
                  description="Agentic, checklist-driven literature search over a local corpus.",
                  responses={code: {"description": text,  # JSON also from the text and HTML routes
                                     "content": {"application/json": {"schema": ErrorBody.model_json_schema()}}}
                             for code, text in errors.items()})
    app.add_middleware(BodyLimit, limit=max_body_bytes)
    auth = [Depends(authorize)]

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return JSONResponse({"detail": validation_message(exc.errors())}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        detail = exc.detail
        if exc.status_code == 400 and detail == "There was an error parsing the body":
            detail = "the body is not readable JSON: send a UTF-8 JSON object, uncompressed, with Content-Type: application/json"
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError):
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):  # the traceback goes to the server log
        return JSONResponse({"detail": "internal error (see the server log)"}, status_code=500)

    info = Health(corpus=service.corpus.directory.name, papers=int(service.corpus.stats()["papers"]),
                  fingerprint=service.corpus.fingerprint(), refine_available=_refine_available())

    @app.get("/health", response_model=Health)
    async def health() -> Health:
        """The corpus this server searches (answers at once, even while every search slot is busy)."""
        return info

    @app.post("/search", response_model=SearchResponse, dependencies=auth)
    def search(req: SearchRequest) -> SearchResponse:
        """Search the corpus; the session is stored and its id returned."""
        return service.search(req.intent, top_k=req.top_k, rounds=req.rounds, constraints=req.constraints)

    @app.post("/sessions/{session_id}/refine", response_model=SearchResponse, dependencies=auth)
    def refine(session_id: str, req: RefineRequest) -> SearchResponse:
        """Refine a stored session with one line of feedback."""
        return service.refine(session_id, req.feedback)

    @app.get("/sessions", response_model=list[SessionInfo], dependencies=auth)
    def sessions(limit: int = Query(50, ge=1, le=1000, description="sessions per page"),
                 offset: int = Query(0, ge=0, description="sessions to skip (newest first)")) -> list[SessionInfo]:
        """Stored sessions, newest first, one page at a time."""
        return service.sessions(limit=limit, offset=offset)

    @app.get("/sessions/{session_id}", dependencies=auth)
    def session(session_id: str) -> dict[str, Any]:
        """The whole session file (the format `litnav audit` reads)."""
        return service.session_view(session_id)

    @app.get("/sessions/{session_id}/audit", dependencies=auth)
    def audit(session_id: str, corpus_id: str | None = None) -> dict[str, Any]:
        """Checklist, per-result judgements with evidence in context, round history, cost."""
        return service.audit(session_id, corpus_id)

    @app.get("/sessions/{session_id}/export", response_class=PlainTextResponse, dependencies=auth)
    def export(session_id: str, format: str = Query("bibtex", description="bibtex|ris|csljson|csv|jsonl|trec"),
               top: int | None = Query(None, ge=1), min_score: float | None = Query(None, ge=0, le=1)):
        """The results as BibTeX, RIS, CSL-JSON, CSV, JSONL or a TREC run."""
        text, left_out = service.export_with_left_out(session_id, format, top=top, min_score=min_score)
        fmt = FORMAT_ALIASES.get(format.lower(), format.lower())
        name = f"litnav-{session_id}.{EXTENSIONS[fmt]}"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        if left_out:  # results the served corpus no longer holds: the count, as the CLI warns of each
            headers[LEFT_OUT_HEADER] = str(len(left_out))
        return PlainTextResponse(text, media_type=MEDIA_TYPES.get(fmt, "text/plain"), headers=headers)

    @app.get("/sessions/{session_id}/report", response_class=HTMLResponse, dependencies=auth)
    def report(session_id: str) -> HTMLResponse:
        """The self-contained HTML audit report."""
        return HTMLResponse(service.report(session_id))

    @app.get("/papers/{corpus_id:path}", dependencies=auth)
    def paper(corpus_id: str) -> dict[str, Any]:
        """Metadata, abstract, sections, chunks, references and citations of one paper."""
        return service.show_paper(corpus_id)

    @app.post("/verify", dependencies=auth)
    def verify(req: VerifyRequest) -> dict[str, Any]:
        """Match every reference of a BibTeX/RIS/CSL-JSON/title list to the corpus."""
        return service.verify_references(req.text, req.format).model_dump(mode="json")

    return app


def _refine_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("litnav.navigator.refine") is not None


def run(service: Service, host: str = "127.0.0.1", port: int = 8000, *, token: str | None = None,
        max_body_bytes: int = MAX_BODY_BYTES, log_level: str = "info") -> None:
    """Serve ``service`` with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(service, token=token, max_body_bytes=max_body_bytes), host=host, port=port,
                log_level=log_level)
