"""``litnav serve`` (local HTTP API) and ``litnav mcp`` (MCP server over stdio)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Optional

import typer

from litnav.cli.common import SetOpt, SettingsOpt, err_console, fail, settings_from


def _service(corpus: Path, settings_file, overrides, sessions: Path, max_concurrent: int, max_query_chars: int):
    from litnav.corpus import CorpusError
    from litnav.serve.service import Service

    if not corpus.exists():
        fail(f"corpus directory {corpus} does not exist (build one with `litnav build SOURCE --corpus {corpus}`)")
    settings = settings_from(settings_file, overrides)
    try:
        service = Service.open(corpus, settings, sessions_dir=sessions, max_concurrent=max_concurrent,
                               max_query_chars=max_query_chars)
    except (CorpusError, OSError, ValueError) as exc:
        fail(str(exc))
    service.warm()
    return service


def _require_free_port(host: str, port: int) -> None:
    """Exit with an error, before the corpus is opened or a folder made, when ``host:port`` cannot be
    bound (another server holds it; port 0 picks a free one)."""
    import socket

    try:
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc} (another server there? choose --port)")


def _missing_extra(exc: ImportError) -> None:
    fail(f"{exc.name or exc} is not installed; install the server extra: pip install 'litnav[serve]'")


def serve_cmd(
    corpus: Path = typer.Option(..., "--corpus", "-c", help="Corpus directory (opened read-only)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: loopback only)."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="TCP port."),
    token: Optional[str] = typer.Option(None, "--token", envvar="LITNAV_TOKEN",
                                        help="Require 'Authorization: Bearer TOKEN' (also $LITNAV_TOKEN)."),
    sessions: Path = typer.Option(Path("litnav-sessions"), "--sessions", help="Where session files are stored."),
    max_concurrent: int = typer.Option(2, "--max-concurrent", min=1, help="Searches run at once (others wait)."),
    max_query_chars: int = typer.Option(2000, "--max-query-chars", min=1, help="Longest intent or feedback."),
    max_body_bytes: int = typer.Option(1_000_000, "--max-body-bytes", min=1, help="Largest request body."),
    settings_file: Optional[Path] = SettingsOpt,
    overrides: Optional[list[str]] = SetOpt,
) -> None:
    """Serve search, refine, paper, audit, verify and export as a local JSON API (OpenAPI at /docs)."""
    try:
        from litnav.serve.http import run
    except ImportError as exc:
        _missing_extra(exc)
    if host not in ("127.0.0.1", "localhost", "::1") and token is None:
        err_console.print(f"[yellow]warning:[/yellow] serving on {host} without --token: anyone who can reach "
                          "this address can search and read sessions", highlight=False)
    _require_free_port(host, port)
    service = _service(corpus, settings_file, overrides, sessions, max_concurrent, max_query_chars)
    err_console.print(f"litnav serving {corpus} on http://{host}:{port} (docs at /docs; sessions in {sessions})",
                      highlight=False)
    try:
        run(service, host, port, token=token, max_body_bytes=max_body_bytes)
    finally:
        service.close()


def mcp_cmd(
    corpus: Path = typer.Option(..., "--corpus", "-c", help="Corpus directory (opened read-only)."),
    sessions: Path = typer.Option(Path("litnav-sessions"), "--sessions", help="Where session files are stored."),
    max_query_chars: int = typer.Option(2000, "--max-query-chars", min=1, help="Longest intent or feedback."),
    settings_file: Optional[Path] = SettingsOpt,
    overrides: Optional[list[str]] = SetOpt,
) -> None:
    """Run an MCP server over stdio with the tools search, refine, show_paper, audit,
    verify_references and export (for Claude Desktop, IDEs and other MCP clients)."""
    try:
        import mcp.server.mcpserver  # noqa: F401  (the optional dependency, checked before the corpus loads)
    except ImportError as exc:
        _missing_extra(exc)
    from litnav.serve.mcp import run

    # stdout carries the protocol: every log line goes to stderr
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    service = _service(corpus, settings_file, overrides, sessions, 1, max_query_chars)
    try:
        run(service)
    finally:
        service.close()


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``mcp`` to ``app``."""
    app.command("serve")(serve_cmd)
    app.command("mcp")(mcp_cmd)
