"""``litnav build``, ``litnav stats --json`` and ``litnav show --json`` through the typer app,
on one tiny corpus built once for the module, plus their error paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from litnav.cli import _register, app

if not any(c.name == "build" for c in app.registered_commands):
    _register()

runner = CliRunner()
COUNTS = ("papers", "abstracts", "full_texts", "chunks", "citations", "rejects")


@pytest.fixture(scope="module")
def corpus(fixtures: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "corpus"
    src = fixtures / "ingest"
    result = runner.invoke(app, ["build", str(src / "generic.jsonl"), str(src / "papers"),
                                 "--corpus", str(path), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "papers" in result.output and "rejects" in result.output
    return path


def test_build_then_stats_json(corpus: Path) -> None:
    result = runner.invoke(app, ["stats", "--corpus", str(corpus), "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)
    assert all(isinstance(stats[k], int) for k in COUNTS), stats
    # generic.jsonl: 3 papers + 4 rejected lines; papers/: 2 full-text papers
    assert (stats["papers"], stats["rejects"], stats["full_texts"]) == (5, 4, 2)
    assert stats["abstracts"] == 4 and stats["chunks"] > 0


def test_rebuild_skips_ingested_files(corpus: Path, fixtures: Path) -> None:
    result = runner.invoke(app, ["build", str(fixtures / "ingest" / "generic.jsonl"), "--corpus", str(corpus),
                                 "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "files skipped (already ingested)" in result.output


def test_show_json(corpus: Path) -> None:
    result = runner.invoke(app, ["show", "2020.acl-main.207", "--corpus", str(corpus), "--json"])
    assert result.exit_code == 0, result.output
    view = json.loads(result.output)
    paper = view["paper"]
    assert paper["corpus_id"] == "2020.acl-main.207" and paper["year"] == 2020 and paper["venue"] == "ACL"
    assert paper["external_ids"]["doi"] == "10.18653/v1/2020.acl-main.207"
    assert view["abstract"] == "Representation learning is critical."
    assert view["chunks"] and view["chunks"][0]["section"] == "Abstract"


def test_show_takes_a_doi_or_title_as_anchor_searches_do(corpus: Path) -> None:
    by_id = json.loads(runner.invoke(app, ["show", "2020.acl-main.207", "--corpus", str(corpus), "--json"]).output)
    by_doi = runner.invoke(app, ["show", "10.18653/v1/2020.acl-main.207", "--corpus", str(corpus), "--json"])
    assert by_doi.exit_code == 0, by_doi.output
    assert json.loads(by_doi.output)["paper"]["corpus_id"] == "2020.acl-main.207"
    by_title = runner.invoke(app, ["show", by_id["paper"]["title"], "--corpus", str(corpus), "--json"])
    assert json.loads(by_title.output)["paper"]["corpus_id"] == "2020.acl-main.207"


def test_show_unknown_paper(corpus: Path) -> None:
    result = runner.invoke(app, ["show", "no-such-id", "--corpus", str(corpus)])
    assert result.exit_code == 1 and "could not resolve 'no-such-id'" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["build", "{tmp}/missing.jsonl"], "no such file"),
    (["build", "{fx}/generic.jsonl", "--format", "pdf"], "unknown format 'pdf'"),
    (["build", "{fx}/generic.jsonl", "--map", "id"], "expected target=source_field"),
    (["build", "{fx}/generic.jsonl", "--map", "colour=acl_id"], "unknown target 'colour'"),
    (["stats"], "does not exist"),
])
def test_error_paths(args: list[str], message: str, fixtures: Path, tmp_path: Path) -> None:
    argv = [a.format(tmp=tmp_path, fx=fixtures / "ingest") for a in args] + ["--corpus", str(tmp_path / "c")]
    result = runner.invoke(app, argv)
    assert result.exit_code != 0
    assert message in " ".join(result.output.split()), result.output  # rich wraps long lines
    assert not (tmp_path / "c").exists()  # a rejected command creates no corpus


def test_show_lists_references_that_matched_no_corpus_paper(corpus: Path) -> None:
    # the fixture paper's bibliography has two entries; each is a corpus edge or listed as unresolved
    result = runner.invoke(app, ["show", "2020.acl-main.999", "--corpus", str(corpus), "--json"])
    assert result.exit_code == 0, result.output
    view = json.loads(result.output)
    unresolved = view["unresolved_references"]
    assert len(view["references"]) + len(unresolved) == 2
    assert all(set(r) == {"title", "year", "authors", "contexts"} for r in unresolved)
    plain = runner.invoke(app, ["show", "2020.acl-main.999", "--corpus", str(corpus)])
    held = [r for r in view["references"] if r["in_corpus"]]
    assert all(r["title"] for r in held) and all(r["title"] is None for r in view["references"] if not r["in_corpus"])
    assert f"{len(held)} corpus papers" in plain.output
    for r in unresolved:
        assert f"(not in the corpus) {r['title']}" in plain.output


def test_show_counts_citation_edges_to_papers_the_corpus_lacks_apart(tmp_path: Path) -> None:
    # a citation graph names cited papers by id; a slice of it lacks some: they are no "corpus papers"
    src = tmp_path / "g.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "a", "title": "Meta-learning for fast adaptation", "abstract": "We learn.", "outbound_citations": ["b", "zz"]},
        {"id": "b", "title": "Trust region policy optimization", "abstract": "We optimise."}]))
    assert runner.invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c")]).exit_code == 0
    view = json.loads(runner.invoke(app, ["show", "a", "--corpus", str(tmp_path / "c"), "--json"]).output)
    assert {r["cited_id"]: r["in_corpus"] for r in view["references"]} == {"b": True, "zz": False}
    plain = " ".join(runner.invoke(app, ["show", "a", "--corpus", str(tmp_path / "c")]).output.split())
    assert "Cites 1 corpus papers, 1 papers by an id the corpus does not hold" in plain
    assert "zz (not in this corpus)" in plain


def test_a_map_naming_a_field_no_record_has_is_a_warning(tmp_path):
    """``--map abstract=absract`` (a typo) built a corpus without abstracts and said nothing."""
    from typer.testing import CliRunner

    from litnav.cli import _register, app

    _register()
    src = tmp_path / "a.jsonl"
    src.write_text('{"acl_id": "P1", "title": "Paper one on parsing", "abstract": "Dependency parsing."}\n')
    res = CliRunner().invoke(app, ["build", str(src), "--corpus", str(tmp_path / "c"), "--map", "id=acl_id",
                                   "--map", "abstract=absract", "--no-progress"])
    assert res.exit_code == 0 and "--map abstract=absract: no record read in this build has the field 'absract'" in \
        " ".join(res.output.split())
    ok = CliRunner().invoke(app, ["build", str(src), "--corpus", str(tmp_path / "d"), "--map", "id=acl_id",
                                  "--map", "abstract=abstract", "--no-progress"])
    assert ok.exit_code == 0 and "no record read" not in ok.output


def test_the_reject_summary_counts_this_builds_records_with_their_numbers(tmp_path):
    """The reasons in brackets added up to more than the headline (they were the corpus's, over all
    builds), and every number in them read "<id>" ("line <id> column <id>")."""
    from typer.testing import CliRunner

    from litnav.cli import _register, app

    _register()
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text('{"acl_id": "P1", "title": "ok"}\n{bad json\n{"acl_id": "P3", "title": "x", "year": "19"}\n')
    second.write_text('{"acl_id": "P9", "title": "ok"}\n{bad\n')
    corpus = str(tmp_path / "c")
    for src in (first, second):
        res = CliRunner().invoke(app, ["build", str(src), "--corpus", corpus, "--map", "id=acl_id", "--no-progress"])
    out = " ".join(res.output.split())
    assert "1 records rejected (1 x invalid JSON" in out and "at character 2 of the line" in out and "not a year" not in out


def test_build_help_lists_every_map_target():
    """`litnav build --help` did not list the --map targets; only the error for an unknown one did."""
    from litnav.cli.build import MAP_TARGETS
    from litnav.ingest.readers.generic import MAPPABLE

    assert tuple(MAP_TARGETS) == tuple(MAPPABLE)
