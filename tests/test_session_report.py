"""The HTML audit report: self-contained, escaped, evidence in its surrounding text; and in a real
headless Chromium (the OS package, driven by Playwright) it loads without console errors or network
requests, has one matrix row per result, shows a cell's evidence on click, sorts and filters.
The browser test writes ``report.png`` into its output directory."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litnav.corpus import Corpus
from litnav.session.io import read_session
from litnav.session.report import audit_view, render_report


@pytest.fixture(scope="module")
def session(export_session):
    return read_session(export_session)


@pytest.fixture(scope="module")
def report_file(export_session, tmp_path_factory) -> Path:
    from litnav.cli import _register, app

    _register()
    out = tmp_path_factory.mktemp("report") / "report.html"
    res = CliRunner().invoke(app, ["report", str(export_session), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def test_audit_view_shows_evidence_in_its_text(session, export_corpus):
    with Corpus.open(export_corpus) as c:
        view = audit_view(session, c)
        checked = 0
        for r in view["results"]:
            full = c.full_text(r["corpus_id"])
            for j in r["judgements"].values():
                for e in j["evidence"]:
                    assert e["in_context"]
                    chunk = e["text_pre"] + e["quote"] + e["text_post"]
                    assert full[e["char_start"]:e["char_end"]] == chunk
                    assert full[:e["char_start"]].endswith(e["before"]) and full[e["char_end"]:].startswith(e["after"])
                    if j["quote"] and e["chunk_id"] == j["quote_chunk_id"]:
                        assert e["quote"] == j["quote"]  # the quote is highlighted in its chunk
                        checked += 1
    assert checked > 0
    assert [r["rank"] for r in view["results"]] == [r.rank for r in session.results]
    assert len(view["rounds"]) == len(session.rounds)
    found = {f["corpus_id"] for rd in view["rounds"] for f in rd["found"]}
    assert {r.corpus_id for r in session.results} <= found


def test_report_is_self_contained_and_escaped(report_file, session):
    html = report_file.read_text()
    assert not re.search(r"<(script|img|iframe)[^>]*\bsrc=", html, re.I)
    assert not re.search(r"<link[^>]*stylesheet", html, re.I)
    assert "http://" not in html and "https://" not in html
    assert "{BERT} &amp; Dense Retrieval" in html  # the special title, HTML-escaped
    assert session.intent in html
    # a shared report names its corpus by folder, never by where it lies on the author's machine
    folder = Path(session.corpus)
    assert folder.name in html and str(folder.parent) not in html


def test_report_without_corpus_shows_evidence_alone(session):
    html = render_report(session, None)
    quote = next(j.quote for r in session.results for j in r.checkpoints if j.quote)
    assert "surrounding text unavailable" in html and "<mark>" in html
    assert quote.split()[0] in html


def _chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("no chromium on PATH (install the OS package: apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    return path, sync_playwright


def test_report_in_a_real_browser(report_file, session, tmp_path):
    path, sync_playwright = _chromium()
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        except Exception as exc:  # the binary exists but cannot start here (no sandbox support, libs)
            pytest.skip(f"chromium at {path} cannot be launched: {str(exc).splitlines()[0]}")
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            errors: list[str] = []
            requests: list[str] = []
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(report_file.as_uri())
            page.wait_for_load_state("load")
            assert errors == []
            assert all(u.startswith(("file:", "data:", "about:")) for u in requests), requests

            rows = page.locator("#matrix tbody tr")
            assert rows.count() == len(session.results)

            # clicking a cell shows that judgement's evidence
            r = next(r for r in session.results if any(j.quote for j in r.checkpoints))
            k, j = next((k, j) for k, j in enumerate(r.checkpoints) if j.quote)
            ckpt_ids = [c.id for c in session.rounds[-1].checklist.checkpoints]
            cell = rows.nth(r.rank - 1).locator("td.cell").nth(ckpt_ids.index(j.checkpoint_id))
            cell.click()
            panel = page.locator("#evidence-panel")
            assert panel.locator(".judgement").count() == 1
            assert panel.locator("mark").first.inner_text() == j.quote
            assert r.title in panel.inner_text()

            # sorting by final score, best first
            page.locator("#matrix th[data-key=final]").click()
            finals = [float(x) for x in page.locator("#matrix tbody tr").evaluate_all(
                "rows => rows.map(r => r.dataset.final)")]
            assert finals == sorted(finals, reverse=True)

            # filtering by text
            page.locator("#filter-text").fill("biomedical")
            visible = page.locator("#matrix tbody tr:not([hidden])")
            expected = [x for x in session.results if "biomedical" in x.title.lower()]
            assert visible.count() == len(expected) >= 1
            page.locator("#filter-text").fill("")
            assert page.locator("#matrix tbody tr:not([hidden])").count() == len(session.results)

            cell = page.locator("#matrix tbody tr").first.locator("td.cell[data-target]").first
            cell.click()
            shot = tmp_path / "report.png"
            page.screenshot(path=str(shot))
            assert shot.stat().st_size > 10_000
            print(f"screenshot: {shot}")
            assert errors == []
        finally:
            browser.close()


def test_found_by_gives_each_channels_best_rank():
    from litnav.core.records import FoundBy
    from litnav.session.render import found_by_summary

    found = [FoundBy(channel="lexical", round=1, node_id="lexical_intent", rank=7),
             FoundBy(channel="lexical", round=2, node_id="lexical_facet", rank=2),
             FoundBy(channel="semantic", round=1, node_id="semantic_intent", rank=4),
             FoundBy(channel="citation", round=2, node_id="cites"),
             FoundBy(channel="citation", round=3, node_id="cites2")]
    assert found_by_summary(found) == ["lexical #2", "semantic #4", "citation in round 2"]
    assert found_by_summary([]) == []


def test_a_claim_intent_says_its_verdict_is_not_support(search_corpus):
    """A claim and its contradiction both "satisfy" c1 by the same quote: the note says that
    support against contradiction is not judged."""
    from litnav.core.settings import Settings
    from litnav.navigator import search
    from litnav.session.render import result_notes

    claim = search("Dense retrieval outperforms BM25 for open-domain question answering.", search_corpus,
                   Settings(), rounds=1, top_k=5)
    request = search("dense retrieval for open-domain question answering", search_corpus, Settings(), rounds=1, top_k=5)
    assert any("reads as a claim" in n for n in result_notes(claim))
    assert not any("reads as a claim" in n for n in result_notes(request))


def test_control_characters_never_reach_the_report(session):
    """A corpus title with NUL, BEL or an ESC sequence was written into the HTML as it was."""
    from litnav.session.report import render_report

    odd = session.model_copy(deep=True)
    odd.results[0].title = "Control\x07 \x1b[31mred\x1b[0m and \x00nul"
    html = render_report(odd, None)
    assert not any(ch in html for ch in "\x00\x07\x1b") and "Control" in html
    assert "&lt;code" not in html  # markup the report makes itself is not escaped twice


def test_results_below_the_scored_top_n_are_shown_until_a_minimum_is_set(session, tmp_path):
    """A break-it trial found "30 of 57 shown" on load: the min-score box (0 when empty) hid every
    result below the scored top N, whose final score is unknown, and clearing it did not help."""
    path, sync_playwright = _chromium()
    results = [r if i < 2 else r.model_copy(update={"checkpoints": []}) for i, r in enumerate(session.results)]
    assert len(results) > 2
    report = tmp_path / "unscored.html"
    report.write_text(render_report(session.model_copy(update={"results": results})), encoding="utf-8")
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        except Exception as exc:
            pytest.skip(f"chromium at {path} cannot be launched: {str(exc).splitlines()[0]}")
        try:
            page = browser.new_page()
            page.goto(report.as_uri())
            page.wait_for_load_state("load")
            visible = page.locator("#matrix tbody tr:not([hidden])")
            assert visible.count() == len(results)
            page.locator("#filter-min").fill("0.01")
            assert visible.count() == sum(r.final_score >= 0.01 for r in results[:2])
            page.locator("#filter-min").fill("")
            assert visible.count() == len(results)
        finally:
            browser.close()


def test_audit_of_a_session_whose_corpus_is_gone_says_so(export_session, tmp_path):
    """A break-it trial deleted a session's corpus: `litnav audit` exited 0 with no note, while
    `report` said the evidence is shown without its surrounding text."""
    import json

    from litnav.cli import _register, app

    _register()
    data = json.loads(Path(export_session).read_text(encoding="utf-8"))
    data["corpus"] = str(tmp_path / "deleted-corpus")
    moved = tmp_path / "s.json"
    moved.write_text(json.dumps(data), encoding="utf-8")
    res = CliRunner().invoke(app, ["audit", str(moved)])
    assert res.exit_code == 0, res.output
    assert "deleted-corpus does not exist" in res.output and "without its surrounding text" in res.output
