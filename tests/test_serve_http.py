"""``litnav serve``: the real server process on 127.0.0.1 (a free port) over the export fixture
corpus. Bearer token, concurrent searches with their sessions on disk, refine, audit, export,
report, papers, reference verification, the OpenAPI schema, and clear 4xx errors for bad input
and limits."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi", reason="the serve extra is not installed (pip install -e '.[dev]')")
pytest.importorskip("uvicorn", reason="the serve extra is not installed (pip install -e '.[dev]')")

TOKEN = "s3cret-token"
INTENT = "dense retrieval for question answering"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(args: list[str], port: int, log: Path) -> subprocess.Popen:
    """Start ``litnav serve`` and wait (up to 180 s) until /health answers."""
    exe = Path(sys.executable).with_name("litnav")
    fh = log.open("w")
    proc = subprocess.Popen([str(exe), "serve", "--port", str(port), *args], stdout=fh, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.terminate()
    raise AssertionError(f"server did not answer within 180 s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def server(export_corpus, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve")
    port = free_port()
    proc = start_server(["--corpus", str(export_corpus), "--token", TOKEN, "--sessions", str(tmp / "sessions"),
                         "--max-query-chars", "500", "--max-body-bytes", "20000", "--max-concurrent", "2"],
                        port, tmp / "server.log")
    yield {"url": f"http://127.0.0.1:{port}", "sessions": tmp / "sessions"}
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server["url"], headers={"Authorization": f"Bearer {TOKEN}"}, timeout=300) as c:
        yield c


@pytest.fixture(scope="module")
def searched(client):
    r = client.post("/search", json={"intent": INTENT, "top_k": 5})
    assert r.status_code == 200, r.text
    return r.json()


def test_health_and_token(server):
    h = httpx.get(server["url"] + "/health").json()
    assert h["papers"] == 17 and h["status"] == "ok"
    r = httpx.post(server["url"] + "/search", json={"intent": INTENT})
    assert r.status_code == 401 and "bearer token" in r.json()["detail"]
    r = httpx.post(server["url"] + "/search", json={"intent": INTENT}, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401


def test_search_returns_ranked_results_and_stores_the_session(searched, server):
    assert len(searched["results"]) == 5
    assert [r["rank"] for r in searched["results"]] == [1, 2, 3, 4, 5]
    assert all(r["checkpoints"] and r["title"] for r in searched["results"])
    assert (server["sessions"] / f"{searched['session_id']}.json").exists()


def test_concurrent_searches_are_independent(client, server):
    intents = [INTENT, "dense retrieval for question answering since 2021", "biomedical question answering",
               "sentiment analysis of movie reviews"]
    with ThreadPoolExecutor(4) as pool:
        responses = list(pool.map(lambda q: client.post("/search", json={"intent": q, "top_k": 3}), intents))
    assert [r.status_code for r in responses] == [200] * 4, [r.text for r in responses]
    bodies = [r.json() for r in responses]
    assert [b["intent"] for b in bodies] == intents
    assert len({b["session_id"] for b in bodies}) == 4
    for b in bodies:
        stored = client.get(f"/sessions/{b['session_id']}").json()
        assert stored["intent"] == b["intent"]
        assert [r["corpus_id"] for r in stored["results"]] == [r["corpus_id"] for r in b["results"]]
    since = next(b for b in bodies if "since 2021" in b["intent"])
    assert all(r["year"] >= 2021 for r in since["results"])
    listed = {s["session_id"] for s in client.get("/sessions").json()}
    assert {b["session_id"] for b in bodies} <= listed
    everything = [s["session_id"] for s in client.get("/sessions", params={"limit": 1000}).json()]
    pages = [s["session_id"] for off in range(0, len(everything), 2)
             for s in client.get("/sessions", params={"limit": 2, "offset": off}).json()]
    assert pages == everything  # newest first, page after page, nothing twice
    assert client.get("/sessions", params={"limit": 0}).status_code == 422


def test_refine(client, searched):
    health = client.get("/health").json()
    r = client.post(f"/sessions/{searched['session_id']}/refine", json={"feedback": "ban #1"})
    if not health["refine_available"]:
        assert r.status_code == 501 and "not available" in r.json()["detail"]
        return
    assert r.status_code == 200, r.text
    body = r.json()
    banned = searched["results"][0]["corpus_id"]
    assert banned not in [x["corpus_id"] for x in body["results"]]
    assert body["turn"]["feedback"] == "ban #1" and banned in body["turn"]["dropped"]
    assert client.get(f"/sessions/{searched['session_id']}").json()["turns"][-1]["feedback"] == "ban #1"


def test_refine_takes_the_session_files_lock_as_litnav_refine_does(client, searched, server):
    """A `litnav refine` of the stored file holds ``.ID.json.lock``; the API's refinement waits for
    it instead of writing over that turn (both turns were kept by neither before)."""
    import threading

    from litnav.session.io import session_lock

    if not client.get("/health").json()["refine_available"]:
        pytest.skip("refine is not available")
    sid = searched["session_id"]
    before = len(client.get(f"/sessions/{sid}").json()["turns"])
    answer: dict = {}
    with session_lock(server["sessions"] / f"{sid}.json"):
        worker = threading.Thread(target=lambda: answer.update(
            r=client.post(f"/sessions/{sid}/refine", json={"feedback": "show 4 results"})))
        worker.start()
        worker.join(timeout=3)
        assert worker.is_alive() and not answer, "the refinement ran while the file was locked"
    worker.join()
    assert answer["r"].status_code == 200, answer["r"].text
    turns = client.get(f"/sessions/{sid}").json()["turns"]
    assert len(turns) > before and turns[-1]["feedback"] == "show 4 results"


def test_a_session_id_that_links_out_of_the_folder_is_not_followed(client, server, tmp_path):
    outside = tmp_path / "target.json"
    outside.write_text("{}")
    link = server["sessions"] / "aaaaaaaaaaaaaaac.json"
    link.symlink_to(outside)
    try:
        assert client.get("/sessions/aaaaaaaaaaaaaaac").status_code == 404
        assert client.post("/sessions/aaaaaaaaaaaaaaac/refine", json={"feedback": "ban #1"}).status_code == 404
        assert outside.read_text() == "{}" and client.get("/sessions").status_code == 200
        assert client.post("/sessions/0123456789abcdef/refine", json={"feedback": "ban #1"}).status_code == 404
        assert not (server["sessions"] / ".0123456789abcdef.json.lock").exists()  # nothing left behind
    finally:
        link.unlink()


def test_audit_export_report(client, searched):
    sid = searched["session_id"]
    audit = client.get(f"/sessions/{sid}/audit").json()
    assert audit["intent"] == INTENT and audit["results"]
    first = audit["results"][0]["corpus_id"]
    one = client.get(f"/sessions/{sid}/audit", params={"corpus_id": first}).json()
    assert [r["corpus_id"] for r in one["results"]] == [first]

    import bibtexparser

    r = client.get(f"/sessions/{sid}/export", params={"format": "bibtex", "top": 2})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-bibtex")
    assert len(bibtexparser.parse_string(r.text).entries) == 2
    assert r.headers["content-disposition"] == f'attachment; filename="litnav-{sid}.bib"'
    r = client.get(f"/sessions/{sid}/export", params={"format": "docx"})
    assert r.status_code == 422 and "bibtex" in r.json()["detail"]
    r = client.get(f"/sessions/{sid}/report")
    assert r.status_code == 200 and r.text.startswith("<!DOCTYPE html>") and INTENT in r.text


def test_responses_name_the_corpus_without_the_servers_folders(client, searched, server, export_corpus):
    """A client learns the corpus's name, never where the server keeps its corpus or input files."""
    sid = searched["session_id"]
    folders = str(Path(export_corpus).resolve().parent)
    bodies = {"health": httpx.get(server["url"] + "/health").text, "session": client.get(f"/sessions/{sid}").text,
              "audit": client.get(f"/sessions/{sid}/audit").text, "report": client.get(f"/sessions/{sid}/report").text,
              "paper": client.get("/papers/215737187").text}
    assert {k: folders in v for k, v in bodies.items()} == dict.fromkeys(bodies, False)
    assert json.loads(bodies["session"])["corpus"] == Path(export_corpus).name
    assert json.loads(bodies["health"])["corpus"] == Path(export_corpus).name


def test_exporting_a_session_whose_papers_the_corpus_lacks_is_a_422(client, searched, server):
    stored = json.loads((server["sessions"] / f"{searched['session_id']}.json").read_text())
    for i, r in enumerate(stored["results"]):
        r["corpus_id"] = f"missing-{i}"
    (server["sessions"] / "0123456789abcdee.json").write_text(json.dumps(stored))
    r = client.get("/sessions/0123456789abcdee/export", params={"format": "ris"})
    assert r.status_code == 422 and "none of the" in r.json()["detail"]
    # one result the corpus lacks: the export answers without it and says how many it left out
    stored = json.loads((server["sessions"] / f"{searched['session_id']}.json").read_text())
    stored["results"][0]["corpus_id"] = "missing-0"
    (server["sessions"] / "0123456789abcdea.json").write_text(json.dumps(stored))
    r = client.get("/sessions/0123456789abcdea/export", params={"format": "ris"})
    assert r.status_code == 200 and r.headers["X-Litnav-Left-Out"] == "1" and "missing-0" not in r.text
    assert "X-Litnav-Left-Out" not in client.get(f"/sessions/{searched['session_id']}/export").headers


def test_errors_and_session_views_never_name_the_servers_places(client, searched, server):
    """A break-it trial read the server's corpus folders in a 422 of export and refine, and its cache
    folders in a session's settings snapshot."""
    stored = json.loads((server["sessions"] / f"{searched['session_id']}.json").read_text())
    stored["corpus"], stored["corpus_fingerprint"] = "/srv/secret/other-corpus", "0" * 16
    settings = stored.get("settings") or {}
    settings.setdefault("llm", {})["cache_dir"] = "/srv/private/llm-cache"
    stored["settings"] = settings
    (server["sessions"] / "0123456789abcded.json").write_text(json.dumps(stored))
    export = client.get("/sessions/0123456789abcded/export", params={"format": "bibtex"})
    refined = client.post("/sessions/0123456789abcded/refine", json={"feedback": "only papers after 2019"})
    # a report or audit of another corpus's session read its evidence in the served corpus's text
    report = client.get("/sessions/0123456789abcded/report")
    audit = client.get("/sessions/0123456789abcded/audit")
    view = client.get("/sessions/0123456789abcded")
    refused = (export, refined, report, audit)
    assert {r.status_code for r in refused} == {422} and view.status_code == 200, [r.text for r in refused]
    for r in (*refused, view):
        assert "/srv/" not in r.text and "other-corpus" in r.text, r.text
    assert view.json()["settings"]["llm"]["cache_dir"] == "(set on the server)"


def test_papers_and_verify(client):
    p = client.get("/papers/215737187").json()
    assert p["paper"]["external_ids"]["doi"] == "10.18653/v1/2020.emnlp-main.550"
    assert client.get("/papers/2104.08663v2").status_code == 200
    r = client.get("/papers/no-such-paper")
    assert r.status_code == 404 and "no-such-paper" in r.json()["detail"]
    bib = ("@inproceedings{dpr, title={Dense Passage Retrieval for Open-Domain Question Answering}, year={2020}}\n"
           "@article{fake, title={Quantum Bananas as Universal Retrievers}, year={2023}}\n")
    report = client.post("/verify", json={"text": bib}).json()
    assert report["format"] == "bibtex"
    assert [(x["key"], x["status"]) for x in report["references"]] == [("dpr", "verified"), ("fake", "not_found")]
    ris = "TY  - JOUR\nTI  - Dense Passage Retrieval for Open-Domain Question Answering\nPY  - 2020\nER  - \n"
    assert client.post("/verify", json={"text": ris}).json()["references"][0]["corpus_id"] == "dpr"
    bad = client.post("/verify", json={"text": "@article{x, title={unclosed", "format": "bibtex"})
    assert bad.status_code == 422 and "BibTeX" in bad.json()["detail"]
    # text holding no reference is an error, as on the command line, not an empty report
    none = client.post("/verify", json={"text": "abc", "format": "bibtex"})
    assert none.status_code == 422 and "no references found" in none.json()["detail"]
    csl = '[{"id": "dpr", "title": "Dense Passage Retrieval for Open-Domain Question Answering"}]'
    assert client.post("/verify", json={"text": csl, "format": "csljson"}).json()["references"][0]["corpus_id"] == "dpr"


def test_limits_and_bad_requests(client):
    r = client.post("/search", json={"intent": "dense retrieval " * 40})
    assert r.status_code == 422 and "limit is 500" in r.json()["detail"]
    r = client.post("/search", json={"intent": "x", "top_k": 0})
    assert r.status_code == 422 and "top_k" in r.json()["detail"]
    r = client.post("/search", json={"intent": "x", "unexpected": 1})
    assert r.status_code == 422 and "unexpected" in r.json()["detail"]
    for coerced in ("5", True, 5.0):  # no coercion: a field is given as its own type
        r = client.post("/search", json={"intent": "x", "top_k": coerced})
        assert r.status_code == 422 and "top_k" in r.json()["detail"], coerced
    r = client.post("/verify", json={"text": "a" * 30000})
    assert r.status_code == 413 and "20000 bytes" in r.json()["detail"]
    # a chunked body declares no length: still 413, not the body parser's 400
    chunks = (b'{"text": "' + b"a" * 10000, b"a" * 10000, b"a" * 10000 + b'"}')
    r = client.post("/verify", content=iter(chunks), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "20000 bytes" in r.json()["detail"]
    # a body that is no UTF-8 JSON object says what to send
    r = client.post("/search", content=b"\xff\xfe{", headers={"content-type": "application/json"})
    assert r.status_code in (400, 422) and "JSON" in r.json()["detail"], r.text
    r = client.post("/search", content=b'{"intent": "x"}', headers={"content-type": "text/plain"})
    assert r.status_code == 422 and "Content-Type: application/json" in r.json()["detail"], r.text
    assert client.get("/sessions/0123456789abcdef/audit").status_code == 404
    r = client.get("/sessions/..%2F..%2Fetc%2Fpasswd")
    assert r.status_code == 404


def test_constraints_without_an_intent_and_feedback_past_the_result_limit_are_refused(client, searched):
    """A break-it trial stored a search whose intent was ", since 2018", and refined a session with
    "show 1000000 results" although /search allows at most 100."""
    r = client.post("/search", json={"intent": " ", "constraints": ["since 2018"]})
    assert r.status_code == 422 and "intent is empty" in r.json()["detail"]
    r = client.post(f"/sessions/{searched['session_id']}/refine", json={"feedback": "show 1000000 results"})
    assert r.status_code == 422 and "1,000,000 results" in r.json()["detail"] and "100" in r.json()["detail"]


def test_openapi_schema(server):
    schema = httpx.get(server["url"] + "/openapi.json").json()
    assert {"/search", "/sessions/{session_id}/refine", "/verify", "/sessions/{session_id}/export"} <= set(schema["paths"])
    assert "SearchRequest" in schema["components"]["schemas"]
    # the error bodies it documents are the ones the server sends: {"detail": "<one sentence>"}
    for path in ("/search", "/sessions/{session_id}/export"):
        responses = next(iter(schema["paths"][path].values()))["responses"]
        assert {"401", "404", "413", "422"} <= set(responses)
        for code in ("401", "404", "422"):
            body = responses[code]["content"]["application/json"]["schema"]
            assert body["properties"]["detail"]["type"] == "string" and body["required"] == ["detail"]


def test_refuses_missing_corpus(tmp_path):
    exe = Path(sys.executable).with_name("litnav")
    res = subprocess.run([str(exe), "serve", "--corpus", str(tmp_path / "none")], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 1 and "does not exist" in res.stderr


def test_a_sessions_folder_inside_the_corpus_is_refused_at_start(export_corpus, tmp_path):
    """A break-it trial's `serve --sessions CORPUS/index` started, then every search ran in full and
    failed on its write with a plain-text 500."""
    exe = Path(sys.executable).with_name("litnav")
    for bad in (Path(export_corpus) / "sessions", tmp_path / "afile" / "sessions"):
        (tmp_path / "afile").write_text("x")
        res = subprocess.run([str(exe), "serve", "--corpus", str(export_corpus), "--sessions", str(bad),
                              "--port", str(free_port())], capture_output=True, text=True, timeout=120)
        said = " ".join(res.stderr.split())
        assert res.returncode == 1 and "sessions folder" in said, said
        assert "Traceback" not in res.stderr and not bad.exists()


def test_an_unexpected_server_error_is_json(export_corpus):
    """Any exception a route did not expect answers {"detail": ...} as the README promises, not
    Starlette's plain-text "Internal Server Error"."""
    from fastapi.testclient import TestClient

    from litnav.serve.http import create_app
    from litnav.serve.service import Service

    service = Service.open(export_corpus, sessions_dir=Path(export_corpus).parent / "unexpected-sessions")
    try:
        service.show_paper = lambda corpus_id: 1 / 0  # an unexpected failure inside a route
        with TestClient(create_app(service), raise_server_exceptions=False) as client:
            r = client.get("/papers/anything")
        assert r.status_code == 500 and r.json() == {"detail": "internal error (see the server log)"}
    finally:
        service.close()


def test_export_formats_are_read_as_the_cli_reads_them_and_long_ids_are_cut(client, searched):
    """A break-it trial's format=CSV and format=json were 422s; an 8,000-character paper id came back
    whole in the 404."""
    sid = searched["session_id"]
    csv_ = client.get(f"/sessions/{sid}/export", params={"format": "CSV"})
    js = client.get(f"/sessions/{sid}/export", params={"format": "json"})
    assert csv_.status_code == 200 and csv_.text.startswith("rank,")
    assert js.status_code == 200 and isinstance(json.loads(js.text), list)
    r = client.get("/papers/" + "x" * 8000)
    assert r.status_code == 404 and len(r.json()["detail"]) < 300



def test_a_port_in_use_is_refused_before_anything_is_made(export_corpus, tmp_path):
    import socket

    exe = Path(sys.executable).with_name("litnav")
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        res = subprocess.run([str(exe), "serve", "--corpus", str(export_corpus), "--port", str(port), "--sessions",
                              str(tmp_path / "s")], capture_output=True, text=True, timeout=120)
    assert res.returncode == 1 and "cannot listen on" in res.stderr and "serving" not in res.stderr
    assert not (tmp_path / "s").exists()
