"""Provider clients and the web channel against local fake servers (never a real host)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from litnav.core.settings import Settings, WebSettings
from litnav.corpus.records import Paper
from litnav.web import (
    Arxiv,
    Crossref,
    OpenAlex,
    ProviderError,
    SemanticScholar,
    web_search,
)
from litnav.web.evaluation import MemoryCorpus

WEB = Path(__file__).resolve().parent / "fixtures" / "web"


class FakeServer:
    """A local HTTP server: ``routes[path]`` is a list of responses served in turn (the last
    one repeats); each is ``(status, body, headers, delay_s)``. ``requests`` logs
    ``(path, query dict, headers dict)``."""

    def __init__(self):
        self.routes: dict[str, list[tuple[int, str, dict, float]]] = {}
        self.requests: list[tuple[str, dict, dict]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                u = urlparse(self.path)
                server.requests.append((u.path, parse_qs(u.query), dict(self.headers)))
                queue = server.routes.get(u.path)
                if not queue:
                    status, body, headers, delay = 404, '{"error": "not found"}', {}, 0.0
                else:
                    status, body, headers, delay = queue.pop(0) if len(queue) > 1 else queue[0]
                if delay:
                    time.sleep(delay)
                data = body.encode()
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def route(self, path: str, *responses) -> None:
        """Serve ``responses`` (``(status, body)`` or ``(status, body, headers, delay)``) at ``path``."""
        self.routes[path] = [(r + ({}, 0.0))[:4] if len(r) == 2 else r for r in responses]

    def hits(self, path: str) -> int:
        return sum(1 for p, _, _ in self.requests if p == path)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server():
    s = FakeServer()
    yield s
    s.close()


def _fx(name: str) -> str:
    return (WEB / name).read_text(encoding="utf-8")


def _settings(server: FakeServer, tmp_path: Path, **kw) -> WebSettings:
    base = {name: server.url for name in ("semantic_scholar", "openalex", "crossref", "arxiv")}
    opts = dict(base_urls=base, cache_dir=str(tmp_path / "cache"), timeout_s=2.0, max_retries=2,
                backoff_initial_s=0.01, backoff_max_s=0.05, rate_limit_per_s=1000.0)
    opts.update(kw)
    return WebSettings(**opts)


@pytest.fixture(scope="module")
def corpus() -> MemoryCorpus:
    with (WEB / "corpus_papers.jsonl").open(encoding="utf-8") as fh:
        return MemoryCorpus(Paper.model_validate(json.loads(line)) for line in fh)


# ----------------------------------------------------------------- parsing of each provider
def test_semantic_scholar_search_paper_references_citations(server, tmp_path, monkeypatch):
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", "k-123")
    server.route("/graph/v1/paper/search", (200, _fx("s2_search.json")))
    server.route("/graph/v1/paper/CorpusId:52967399", (200, _fx("s2_paper.json")))
    server.route("/graph/v1/paper/CorpusId:52967399/references", (200, _fx("s2_references.json")))
    server.route("/graph/v1/paper/CorpusId:52967399/citations", (200, _fx("s2_citations.json")))
    with SemanticScholar(_settings(server, tmp_path)) as s2:
        recs = s2.search("neural machine translation", limit=3)
        paper = s2.paper("CorpusId:52967399")
        refs = s2.references("CorpusId:52967399")
        cits = s2.citations("CorpusId:52967399")
    assert [r.title for r in recs][0] == "Attention is All you Need"
    assert recs[0].external_ids == {"arxiv": "1706.03762", "s2": "13756489"}
    assert recs[0].authors == ["Ashish Vaswani", "Noam M. Shazeer"] and recs[0].year == 2017
    assert paper.external_ids["doi"] == "10.18653/v1/N19-1423" and paper.external_ids["acl"] == "N19-1423"
    assert [r.title for r in refs] == ["Attention is All you Need"]  # the untitled reference is dropped
    assert cits[0].external_ids["arxiv"] == "1907.11692"
    path, query, headers = server.requests[0]
    assert query["query"] == ["neural machine translation"] and "externalIds" in query["fields"][0]
    assert headers.get("x-api-key") == "k-123"


def test_openalex_crossref_arxiv_parse(server, tmp_path):
    server.route("/works", (200, _fx("openalex_works.json")))
    server.route("/api/query", (200, _fx("arxiv_feed.xml"), {"Content-Type": "application/atom+xml"}, 0.0))
    st = _settings(server, tmp_path, mailto="lib@example.org")
    with OpenAlex(st) as oa:
        works = oa.search("residual learning", limit=5)
    assert works[0].external_ids == {"doi": "https://doi.org/10.1109/cvpr.2016.90", "arxiv": "1512.03385"}
    assert works[0].authors == ["Kaiming He", "Xiangyu Zhang"] and works[0].year == 2016
    assert works[1].external_ids["pubmed"] == "33000000"
    assert server.requests[-1][1]["mailto"] == ["lib@example.org"]
    assert server.requests[-1][1]["search"] == ["residual learning"]

    server.route("/works", (200, _fx("crossref_works.json")))
    with Crossref(st) as cr:
        items = cr.search("glove word vectors", limit=5)
    assert items[0].title == "Glove: Global Vectors for Word Representation"
    assert items[0].authors == ["Jeffrey Pennington", "Richard Socher"] and items[0].year == 2014
    assert items[1].external_ids == {"doi": "10.1162/neco.1997.9.8.1735"}
    assert server.requests[-1][1]["query.bibliographic"] == ["glove word vectors"]

    with Arxiv(st) as ax:
        feed = ax.search("bert pre-training", limit=5)
    assert feed[0].title == "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"
    assert feed[0].external_ids == {"arxiv": "1810.04805"} and feed[0].year == 2018
    assert feed[1].authors == ["Iz Beltagy", "Matthew E. Peters", "Arman Cohan"]
    assert server.requests[-1][1]["search_query"] == ["all:bert AND all:pre-training"]


def test_real_s2_response_shapes_parse(shared_data, server, tmp_path):
    """The real Graph API bodies in ../shared/data parse (paper with its citations/references)."""
    raw = json.loads((shared_data / "s2-graph-api-responses" / "Paper.json").read_text())
    refs = {"data": [{"citedPaper": p} for p in raw["references"][:50]]}
    cits = json.loads("[" + (shared_data / "s2-graph-api-responses" / "Citation.json").read_text() + "]")
    server.route("/graph/v1/paper/CorpusId:14636783", (200, json.dumps(raw)))
    server.route("/graph/v1/paper/CorpusId:14636783/references", (200, json.dumps(refs)))
    server.route("/graph/v1/paper/CorpusId:14636783/citations", (200, json.dumps({"data": cits})))
    with SemanticScholar(_settings(server, tmp_path)) as s2:
        paper = s2.paper("CorpusId:14636783")
        got_refs = s2.references("CorpusId:14636783", limit=50)
        got_cits = s2.citations("CorpusId:14636783")
    assert paper.title == "Computing Machinery and Intelligence" and paper.year == 1950
    assert paper.external_ids["doi"] == "10.1093/MIND/LIX.236.433" and paper.external_ids["s2"] == "14636783"
    assert paper.authors == ["A. Turing"]
    assert len(got_refs) == sum(1 for p in raw["references"][:50] if p.get("title"))
    assert len(got_cits) == 1 and got_cits[0].title


# ----------------------------------------------------------------- failures, retries, cache
def test_429_then_success_and_retry_after(server, tmp_path):
    server.route("/works", (429, "slow down", {"Retry-After": "0"}, 0.0), (503, "busy"),
                 (200, _fx("crossref_works.json")))
    with Crossref(_settings(server, tmp_path, max_retries=3, cache=False)) as cr:
        items = cr.search("lstm")
    assert [i.title for i in items][1] == "Long Short-Term Memory"
    assert server.hits("/works") == 3 and cr.http.requests_made == 3


def test_retries_are_bounded(server, tmp_path):
    server.route("/works", (429, "slow down"))
    with OpenAlex(_settings(server, tmp_path, max_retries=2, cache=False)) as oa:
        with pytest.raises(ProviderError) as err:
            oa.search("anything")
    assert err.value.provider == "openalex" and server.url in err.value.url
    assert "HTTP 429 after 3 attempts" in str(err.value)
    assert server.hits("/works") == 3


def test_timeout_is_a_provider_error(server, tmp_path):
    server.route("/graph/v1/paper/search", (200, _fx("s2_search.json"), {}, 1.0))
    with SemanticScholar(_settings(server, tmp_path, timeout_s=0.2, max_retries=1, cache=False)) as s2:
        with pytest.raises(ProviderError, match=r"semantic_scholar: .*paper/search.*timed out after 2 attempts"):
            s2.search("slow")


@pytest.mark.parametrize("provider,path,body", [
    (SemanticScholar, "/graph/v1/paper/search", '{"data": [1, 2'),
    (SemanticScholar, "/graph/v1/paper/search", '{"message": "Internal"}'),
    (OpenAlex, "/works", "<html>oops</html>"),
    (Crossref, "/works", '{"status": "ok", "message": {"items": "nope"}}'),
    (Arxiv, "/api/query", "<feed><entry>"),
    (Arxiv, "/api/query", '{"not": "atom"}'),
])
def test_malformed_body_is_a_provider_error(server, tmp_path, provider, path, body):
    server.route(path, (200, body))
    with provider(_settings(server, tmp_path, cache=False)) as p:
        with pytest.raises(ProviderError, match="malformed response body") as err:
            p.search("x")
    assert err.value.provider == provider.name and path in err.value.url


def test_cache_hit_makes_no_request(server, tmp_path):
    server.route("/graph/v1/paper/search", (200, _fx("s2_search.json")))
    st = _settings(server, tmp_path)
    with SemanticScholar(st) as s2:
        first = s2.search("attention", limit=3)
    with SemanticScholar(st) as s2:
        second = s2.search("attention", limit=3)
        assert s2.http.requests_made == 0
    assert first == second and server.hits("/graph/v1/paper/search") == 1
    cached = list((tmp_path / "cache" / "semantic_scholar").rglob("*.json"))
    assert len(cached) == 1 and not list((tmp_path / "cache" / "semantic_scholar").rglob(".*"))


def test_rate_limit_spaces_requests(server, tmp_path):
    server.route("/works", (200, _fx("crossref_works.json")))
    with Crossref(_settings(server, tmp_path, rate_limit_per_s=20.0, cache=False)) as cr:
        t0 = time.monotonic()
        for q in ("a", "b", "c"):
            cr.search(q)
        elapsed = time.monotonic() - t0
    assert elapsed >= 2 * (1 / 20.0) * 0.9  # two enforced gaps of 50 ms


# ----------------------------------------------------------------- the web channel
def test_web_search_is_skipped_without_providers(corpus):
    out = web_search("transformers", corpus, Settings(), limit=5)
    assert out.skipped_reason and "no provider" in out.skipped_reason
    assert out.hits == [] and out.unverified == []


def test_web_search_keeps_only_verified_hits(server, tmp_path, corpus):
    server.route("/graph/v1/paper/search", (200, _fx("s2_search.json")))
    server.route("/works", (200, _fx("openalex_works.json")))
    st = _settings(server, tmp_path, providers=["semantic_scholar", "openalex"])
    out = web_search("attention translation residual", corpus, st, limit=5)
    assert out.skipped_reason is None and out.errors == []
    got = [(h.rank, h.corpus_id, h.provider, h.method) for h in out.hits]
    # round-robin by provider rank: S2 #1, OpenAlex #1, then S2 #3 (Bahdanau, year 2014 vs 2015 within tolerance)
    assert got == [(1, "fx001", "semantic_scholar", "arxiv"), (2, "fx003", "openalex", "doi"),
                   (3, "fx008", "semantic_scholar", "title_exact")]
    assert all(0.9 <= h.score == h.confidence <= 1.0 for h in out.hits)
    unverified = {u.external.title: u.match.status for u in out.unverified}
    assert unverified == {
        "Google's Neural Machine Translation System: Bridging the Gap between Human and Machine Translation": "not_found",
        "Quantum Attention Networks for Protein Folding": "not_found",
    }


def test_web_search_reports_a_failing_provider(server, tmp_path, corpus):
    server.route("/graph/v1/paper/search", (500, "boom"))
    server.route("/works", (200, _fx("crossref_works.json")))
    st = _settings(server, tmp_path, providers=["semantic_scholar", "crossref"], max_retries=1)
    out = web_search("lstm", corpus, st)
    assert [e.provider for e in out.errors] == ["semantic_scholar"] and "HTTP 500" in out.errors[0].error
    assert [h.corpus_id for h in out.hits] == ["fx005", "fx007"]
    assert {h.provider for h in out.hits} == {"crossref"}
