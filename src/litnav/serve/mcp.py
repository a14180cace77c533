"""``litnav mcp``: the service's operations as tools of a Model Context Protocol server over stdio
(the official ``mcp`` package, v2 ``MCPServer``; v1 called it ``FastMCP``).

Tools: ``search``, ``refine``, ``show_paper``, ``audit``, ``verify_references``, ``export``.
A failed operation is a tool error whose text is the one-line reason. Logging goes to stderr;
stdout carries only the protocol.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from pydantic import Field

from litnav.serve.models import (
    CONSTRAINTS_MAX,
    HARD_MAX_CHARS,
    ROUNDS_MAX,
    TOP_K_MAX,
    SearchRequest,
    SearchResponse,
    validation_message,
)
from litnav.serve.service import Service, ServiceError

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "litnav searches a local corpus of scientific papers for a complex intent: it turns the intent into a "
    "checklist of checkpoints (topic, method, data, year/venue constraints, exclusions), retrieves candidates "
    "in rounds, and scores every paper per checkpoint with a verbatim evidence quote. Call `search` first; "
    "use its session_id with `refine` (feedback such as 'drop #3' or 'only since 2019'), `audit` (evidence in "
    "context) and `export` (bibtex, ris, csljson, csv, jsonl, trec). `verify_references` checks a BibTeX/RIS "
    "list against the corpus; `show_paper` shows one paper."
)


def build_server(service: Service):
    """An ``MCPServer`` named ``litnav`` whose tools call ``service``. Every tool's input schema
    states its bounds and forbids unknown arguments (``additionalProperties: false``), and a call
    with one is refused naming it, as the HTTP API refuses it: a typo such as ``fmt`` for
    ``format`` must not silently return the default."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.mcpserver.tools import Tool

    def checked(model, **fields):
        """``fields`` validated by the HTTP API's request model (one set of bounds for both)."""
        from pydantic import ValidationError

        try:
            return model(**fields)
        except ValidationError as exc:
            raise ToolError(validation_message(exc.errors())) from None

    def call(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ServiceError as exc:
            raise ToolError(str(exc)) from None

    def search(intent: Annotated[str, Field(min_length=1, max_length=HARD_MAX_CHARS)],
               top_k: Annotated[int, Field(ge=1, le=TOP_K_MAX)] = 10,
               rounds: Annotated[int | None, Field(ge=1, le=ROUNDS_MAX)] = None,
               constraints: Annotated[list[str] | None, Field(max_length=CONSTRAINTS_MAX)] = None) -> SearchResponse:
        """Search the corpus for papers matching a complex intent.

        Args:
            intent: what you are looking for, in natural language.
            top_k: how many ranked results to return (1-100).
            rounds: at most this many search rounds (1-10; default from settings).
            constraints: extra phrases such as "since 2018", "in ACL or NAACL", "not surveys".

        Returns the session_id, the checklist and ranked results; each result carries its per-checkpoint
        score (0-5), rationale and the verbatim evidence quote (results below the scored top N have
        scored=false and null scores).
        """
        req = checked(SearchRequest, intent=intent, top_k=top_k, rounds=rounds, constraints=constraints or [])
        return call(service.search, req.intent, top_k=req.top_k, rounds=req.rounds, constraints=req.constraints)

    def refine(session_id: str, feedback: Annotated[str, Field(min_length=1, max_length=HARD_MAX_CHARS)]
               ) -> SearchResponse:
        """Refine an earlier search with one line of feedback (e.g. "drop #3", "more like #1",
        "only since 2019") and return the new ranking with what changed."""
        return call(service.refine, session_id, feedback)

    def show_paper(corpus_id: str) -> dict[str, Any]:
        """Everything the corpus holds about one paper: metadata, abstract, sections, evidence chunks,
        references (corpus papers, and the bibliography entries not in the corpus) and citing papers."""
        return call(service.show_paper, corpus_id)

    def audit(session_id: str, corpus_id: str | None = None) -> dict[str, Any]:
        """The audit of a search: checklist, every judgement with its evidence in the surrounding text
        (section and character offsets), the per-round history, clarifications, cost and timing.
        Give corpus_id to audit one result only."""
        return call(service.audit, session_id, corpus_id)

    def verify_references(text: Annotated[str, Field(min_length=1)],
                          format: Literal["bibtex", "ris", "csl-json", "csljson", "titles"] | None = None
                          ) -> dict[str, Any]:
        """Check a reference list (BibTeX, RIS, CSL-JSON or one title per line) against the corpus: per
        entry 'verified', 'metadata_mismatch' (with the differences) or 'not_found' (possibly fabricated)."""
        return call(service.verify_references, text, format).model_dump(mode="json")

    def export(session_id: str,
               format: Literal["bibtex", "ris", "csljson", "csl-json", "csv", "jsonl", "trec"] = "bibtex",
               top: Annotated[int | None, Field(ge=1)] = None,
               min_score: Annotated[float | None, Field(ge=0, le=1)] = None) -> str:
        """A search's results as BibTeX, RIS, CSL-JSON, CSV, JSONL or a TREC run (fields from the corpus
        records; CSV/JSONL add scores and quotes; min_score keeps scored results only)."""
        return call(service.export, session_id, format, top=top, min_score=min_score)

    tools = [_strict(Tool.from_function(fn)) for fn in (search, refine, show_paper, audit, verify_references, export)]
    from litnav.core.version import package_version

    return MCPServer(name="litnav", version=package_version(), instructions=INSTRUCTIONS, log_level="WARNING",
                     tools=tools)


def _strict(tool):
    """``tool`` with an argument model that forbids unknown arguments and takes each argument as its
    own JSON type (no ``true`` for a count, no ``"3"``, no list written as a JSON string: the SDK's
    pre-parsing of strings is turned off, so ``"null"`` stays a string), as the HTTP API does; the
    input schema it advertises regenerated from that model (``additionalProperties: false``); and a
    refused argument reported in one line (:func:`~litnav.serve.models.validation_message`), not the
    validator's multi-line dump."""
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import ConfigDict, ValidationError

    base = tool.fn_metadata.arg_model
    config = ConfigDict(**{**base.model_config, "extra": "forbid", "strict": True})
    strict = type(base.__name__, (base,), {"model_config": config, "__module__": base.__module__})
    tool.fn_metadata.arg_model = strict
    object.__setattr__(tool.fn_metadata, "pre_parse_json", lambda data: dict(data))
    tool.parameters = strict.model_json_schema(by_alias=True)
    run = tool.run

    async def one_line_errors(arguments, context, convert_result=False):
        try:
            return await run(arguments, context, convert_result=convert_result)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {tool.name}: "
                                f"{validation_message(exc.__cause__.errors())}") from None
            raise

    object.__setattr__(tool, "run", one_line_errors)
    return tool


def run(service: Service) -> None:
    """Serve ``service`` over stdio until the client closes the connection."""
    build_server(service).run("stdio")
