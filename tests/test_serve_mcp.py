"""``litnav mcp``: the real server process over stdio, driven by the official ``mcp`` client.
Every tool is called; failures come back as tool errors with the reason."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp.client.stdio", reason="the serve extra is not installed (pip install -e '.[dev]')")

INTENT = "dense retrieval for question answering"


def _payload(result):
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return data.get("result", data) if set(data) == {"result"} else data
    return json.loads(result.content[0].text)


async def _session(export_corpus: Path, sessions: Path):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    exe = Path(sys.executable).with_name("litnav")
    params = StdioServerParameters(command=str(exe), args=["mcp", "--corpus", str(export_corpus),
                                                           "--sessions", str(sessions)])
    return Client(params, read_timeout_seconds=300)


def test_mcp_tools_over_stdio(export_corpus, tmp_path):
    import anyio

    async def scenario():
        async with await _session(export_corpus, tmp_path / "sessions") as client:
            listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
            assert {"search", "refine", "show_paper", "audit", "verify_references", "export"} <= set(listed)
            # the schemas an assistant reads state the bounds and refuse unknown arguments
            assert all(schema.get("additionalProperties") is False for schema in listed.values())
            assert listed["search"]["properties"]["top_k"]["maximum"] == 100
            assert listed["search"]["properties"]["intent"]["minLength"] == 1

            found = _payload(await client.call_tool("search", {"intent": INTENT, "top_k": 4,
                                                               "constraints": ["since 2020"]}))
            assert len(found["results"]) == 4 and all(r["year"] >= 2020 for r in found["results"])
            assert all(r["checkpoints"] for r in found["results"])
            sid = found["session_id"]
            assert (tmp_path / "sessions" / f"{sid}.json").exists()

            bib = await client.call_tool("export", {"session_id": sid, "format": "bibtex"})
            assert not bib.is_error
            import bibtexparser

            text = bib.structured_content["result"] if bib.structured_content else bib.content[0].text
            assert len(bibtexparser.parse_string(text).entries) == 4

            audit = _payload(await client.call_tool("audit", {"session_id": sid}))
            assert [r["corpus_id"] for r in audit["results"]] == [r["corpus_id"] for r in found["results"]]

            paper = _payload(await client.call_tool("show_paper", {"corpus_id": "215737187"}))
            assert paper["paper"]["external_ids"]["acl"] == "2020.emnlp-main.550"
            missing = await client.call_tool("show_paper", {"corpus_id": "nope"})
            assert missing.is_error and "nope" in missing.content[0].text

            refs = ("TY  - JOUR\nTI  - Dense Passage Retrieval for Open-Domain Question Answering\nPY  - 2020\nER  - \n"
                    "TY  - JOUR\nTI  - Quantum Bananas as Universal Retrievers\nPY  - 2023\nER  - \n")
            verdict = _payload(await client.call_tool("verify_references", {"text": refs}))
            assert [r["status"] for r in verdict["references"]] == ["verified", "not_found"]

            refined = await client.call_tool("refine", {"session_id": sid, "feedback": "ban #1"})
            try:
                import litnav.navigator.refine  # noqa: F401
            except ImportError:
                assert refined.is_error and "not available" in refined.content[0].text
            else:
                body = _payload(refined)
                banned = found["results"][0]["corpus_id"]
                assert banned not in [r["corpus_id"] for r in body["results"]]
            bad = await client.call_tool("refine", {"session_id": "../../etc", "feedback": "ban #1"})
            assert bad.is_error and "no session" in bad.content[0].text
            # the same bounds as the HTTP API: no silent defaults for out-of-range values
            for args in ({"rounds": -3}, {"rounds": 1000}, {"top_k": 0}):
                out = await client.call_tool("search", {"intent": INTENT, **args})
                assert out.is_error and next(iter(args)) in out.content[0].text, args
            typo = await client.call_tool("export", {"session_id": sid, "fmt": "ris"})
            assert typo.is_error and "fmt" in typo.content[0].text  # never BibTeX, the default, in silence
            elsewhere = await client.call_tool("search", {"intent": INTENT, "corpus": "/nonexistent"})
            assert elsewhere.is_error and "corpus" in elsewhere.content[0].text
            csl = await client.call_tool("export", {"session_id": sid, "format": "csl-json"})
            assert not csl.is_error
            for args in ({"top": 0}, {"min_score": 5}):
                out = await client.call_tool("export", {"session_id": sid, **args})
                assert out.is_error and next(iter(args)) in out.content[0].text, args
            # each argument as its own type, as the HTTP API takes it: `true` ran with top_k 1
            for args in ({"top_k": True}, {"top_k": "3"}, {"top_k": 3.0}, {"constraints": '["since 2018"]'}):
                out = await client.call_tool("search", {"intent": INTENT, **args})
                text = out.content[0].text
                assert out.is_error and next(iter(args)) in text and "\n" not in text.strip(), (args, text)
            null = await client.call_tool("audit", {"session_id": sid, "corpus_id": "null"})
            assert null.is_error and "'null'" in null.content[0].text  # the string, not None: no whole audit

    anyio.run(scenario)
