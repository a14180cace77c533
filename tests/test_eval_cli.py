"""``litnav eval`` end to end on a tiny corpus: baselines and litnav, every output written."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from litnav.corpus.records import Document, Paper

PAPERS = [
    ("p1", "Protein folding with deep learning", "We predict protein structures from amino acid sequences with attention networks."),
    ("p2", "Graph neural networks for molecules", "Message passing networks predict molecular properties such as solubility."),
    ("p3", "Malaria vaccine efficacy in children", "A randomised trial of a malaria vaccine in African children shows reduced infection."),
    ("p4", "Statin therapy and cardiovascular risk", "Statins lower LDL cholesterol and reduce heart attacks in older adults."),
    ("p5", "Neural machine translation with transformers", "Transformer encoders and decoders translate between languages."),
    ("p6", "Coral reef bleaching under ocean warming", "Rising sea temperatures cause coral bleaching across tropical reefs."),
    ("p7", "Gut microbiome and obesity", "Bacterial communities of the gut differ between obese and lean individuals."),
    ("p8", "Vitamin D supplements and bone fractures", "Vitamin D supplementation does not prevent fractures in elderly people."),
]
TASKS = [
    {"qid": "t1", "query": "malaria vaccine trial in children", "gold": ["p3"]},
    {"qid": "t2", "query": "statins reduce heart attack risk", "gold": {"p4": 2, "not-a-paper": 1}},
    {"qid": "t3", "query": "coral bleaching caused by warming oceans", "gold": ["p6"]},
]


@pytest.mark.parametrize("flag", ["--json", "--markdown", "--run-dir"])
def test_an_output_over_the_corpus_or_the_benchmark_is_refused_before_the_run(tiny_corpus, app, tmp_path, flag):
    """A break-it trial's `eval --json CORPUS/corpus.duckdb` exited 0 and left a corpus no command
    could open; `--json q.jsonl` replaced the queries being evaluated with the report."""
    bench = tmp_path / "bench.jsonl"
    bench.write_text("\n".join(json.dumps(t) for t in TASKS) + "\n")
    database = tiny_corpus / "corpus.duckdb"
    before = database.read_bytes()
    targets = [tiny_corpus / "runs"] if flag == "--run-dir" else [database, tiny_corpus / "out.json", bench]
    for bad in targets:
        result = CliRunner().invoke(app, ["eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--systems",
                                          "bm25", flag, str(bad), "--no-progress"], terminal_width=200)
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and ("inside the corpus directory" in said or "is an input" in said), said
    assert database.read_bytes() == before and not (tiny_corpus / "runs").exists()
    assert json.loads(bench.read_text().splitlines()[0]) == TASKS[0]


@pytest.fixture(scope="module")
def tiny_corpus(tmp_path_factory):
    corpus = pytest.importorskip("litnav.corpus")
    if not hasattr(corpus, "Corpus") or not hasattr(corpus, "CorpusWriter"):
        pytest.skip("corpus.Corpus / CorpusWriter not available yet")
    path = tmp_path_factory.mktemp("eval-corpus") / "corpus"
    docs = [Document(paper=Paper(corpus_id=cid, title=t, year=2020), abstract=a) for cid, t, a in PAPERS]
    with corpus.CorpusWriter.open(path) as w:
        with w.source("tiny.jsonl", 1, "0" * 64) as tx:
            tx.add_documents(docs)
        w.finalize(progress=False)
    return path


@pytest.fixture(scope="module")
def app():
    from litnav.cli import eval as eval_command

    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """litnav (test app)."""

    eval_command.register(app)
    return app


def test_eval_end_to_end(tiny_corpus, app, tmp_path):
    bench = tmp_path / "bench.jsonl"
    bench.write_text("\n".join(json.dumps(t) for t in TASKS) + "\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--systems", "bm25,dense,hybrid,litnav,litnav-no-scorer",
        "--k", "1,5", "--json", str(out / "eval.json"), "--markdown", str(out / "eval.md"),
        "--run-dir", str(out / "runs"), "--plot", str(out / "rounds.png"), "--no-progress",
        "--set", "navigator.rounds=2",
    ])
    assert result.exit_code == 0, result.output + repr(result.exception)
    assert "Gold ids missing from the corpus: 1" in " ".join(result.output.split())
    data = json.loads((out / "eval.json").read_text())
    assert list(data["systems"]) == ["bm25", "dense", "hybrid", "litnav", "litnav-no-scorer"]
    assert data["missing_gold"]["by_query"] == {"t2": ["not-a-paper"]}
    for name, entry in data["systems"].items():
        assert set(entry["per_query"]) == {"t1", "t2", "t3"}
        assert entry["hallucination_rate"] == 0.0, name
        assert (out / "runs" / f"{name}.run").is_file()
    # the lexical channel finds the exact-wording abstracts at rank 1
    assert data["systems"]["bm25"]["per_query"]["t1"]["Hit@1"] == 1.0
    assert data["systems"]["bm25"]["per_query"]["t3"]["Hit@1"] == 1.0
    assert data["systems"]["litnav"]["per_round"] and data["systems"]["litnav-no-scorer"]["per_round"]
    assert (out / "eval.md").read_text().startswith("# litnav eval")
    # the judged system reports how its verdicts agree with their quotes; baselines judge nothing
    verdicts = data["systems"]["litnav"]["verdicts"]
    assert verdicts["n"] > 0 and verdicts["agree"] == 1.0 and 0 <= verdicts["supported"] <= verdicts["positive"]
    assert "verdicts" not in data["systems"]["bm25"]
    assert "litnav verdicts:" in (out / "eval.md").read_text()
    assert (out / "rounds.png").read_bytes()[:4] == b"\x89PNG"


def test_eval_bad_input_is_a_clear_error(tiny_corpus, app, tmp_path):
    bench = tmp_path / "bad.jsonl"
    bench.write_text('{"qid": "x", "query": "q", "gold": ["p1"]}\n{oops\n')
    runner = CliRunner()
    result = runner.invoke(app, ["eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--no-progress"])
    assert result.exit_code == 2
    assert f"{bench}:2" in result.output
    result = runner.invoke(app, ["eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--systems", "bm99"])
    assert result.exit_code == 2 and "unknown system 'bm99'" in result.output
    result = runner.invoke(app, ["eval", "--corpus", str(tiny_corpus), "--queries", str(bench)])
    assert result.exit_code == 2 and "both --queries FILE and --qrels FILE" in result.output


def test_a_jsonl_tasks_checklist_filter_is_read_and_checked(tiny_corpus, app, tmp_path):
    """A break-it trial's JSONL task with a year filter in its checklist got the same hybrid+filter
    ranking as hybrid (the filter was never read), and "checklist": "garbage" was accepted."""
    bench = tmp_path / "b.jsonl"
    task = {**TASKS[0], "checklist": [{"id": "c1", "kind": "topic", "text": "malaria vaccines"},
                                      {"id": "m1", "kind": "year", "text": "2021 on", "filter": {"year_min": 2021}}]}
    bench.write_text(json.dumps(task) + "\n")
    result = CliRunner().invoke(app, ["eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--systems",
                                      "hybrid,hybrid+filter", "--run-dir", str(tmp_path / "runs"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "runs" / "hybrid.run").read_text().strip()
    assert not (tmp_path / "runs" / "hybrid+filter.run").read_text().strip()  # every paper is from 2020
    for bad, said in (("garbage", "'checklist' must be a list"), ([{"id": "m1", "filter": {"year": 2021}}], "unknown filter")):
        bench.write_text(json.dumps({**TASKS[0], "checklist": bad}) + "\n")
        result = CliRunner().invoke(app, ["eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--no-progress"],
                                    terminal_width=200)
        assert result.exit_code == 2 and f"{bench}:1" in result.output and said in result.output, result.output


def test_a_query_litnav_reads_no_search_in_is_ranked_by_its_first_stage(tiny_corpus, app, tmp_path):
    """"the of and" stopped a whole evaluation after every other system had run, and nothing was
    saved; now litnav's first stage ranks it, and the report says so. Extra fields ("facet") are
    not read, as in BEIR."""
    tasks = [*TASKS, {"qid": "odd", "query": "the of and", "gold": ["p5"], "facet": "background"},
]
    bench = tmp_path / "bench.jsonl"
    bench.write_text("\n".join(json.dumps(t) for t in tasks) + "\n")
    result = CliRunner().invoke(app, ["eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--systems",
                                      "hybrid,litnav", "--k", "1,5", "--json", str(tmp_path / "e.json"), "--no-progress"],
                                terminal_width=200)
    assert result.exit_code == 0, result.output + repr(result.exception)
    data = json.loads((tmp_path / "e.json").read_text())
    litnav, hybrid = data["systems"]["litnav"], data["systems"]["hybrid"]
    assert list(litnav["fallbacks"]) == ["odd"] and "names no topic" in litnav["fallbacks"]["odd"]
    assert litnav["per_query"]["odd"]["nDCG@5"] == hybrid["per_query"]["odd"]["nDCG@5"]
    said = " ".join(result.output.split())  # the console wraps at the terminal's width (COLUMNS)
    assert "litnav: 1 queries were ranked by its first stage alone" in said
    assert data["meta"]["litnav_version"] and data["benchmark"]["judgements"]["base_rate"] is not None
    assert litnav["engines"]["scorer"].startswith("student:") and "litnav ran with scorer student:" in said


@pytest.mark.parametrize("flag", ["--json", "--markdown"])
def test_an_output_that_cannot_be_written_is_refused_before_the_run(tiny_corpus, app, tmp_path, flag):
    """A folder given for --json failed with a traceback after the whole run, leaving the other
    outputs half written."""
    bench = tmp_path / "bench.jsonl"
    bench.write_text("\n".join(json.dumps(t) for t in TASKS) + "\n")
    (tmp_path / "afile").write_text("x")
    for bad, message in ((tmp_path, "is a folder"), (tmp_path / "afile" / "out.json", "is a file, not a folder"),
                         (tmp_path / "other.out", "name the same file")):
        result = CliRunner().invoke(app, ["eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--systems",
                                          "bm25", flag, str(bad), "--json" if flag == "--markdown" else "--markdown",
                                          str(tmp_path / "other.out"), "--no-progress"], terminal_width=200)
        assert result.exit_code == 2 and message in " ".join(result.output.split()), result.output
        assert not (tmp_path / "other.out").exists()


def test_hybrid_no_source_leaves_out_a_quoted_querys_own_paper(tmp_path, app):
    """On a query-by-example suite whose query papers are in the corpus, plain hybrid ranks the
    query's own paper first; hybrid-no-source is the baseline that leaves it out as litnav does."""
    corpus = pytest.importorskip("litnav.corpus")
    long = ("We predict the three-dimensional structures of proteins from their amino acid sequences with deep "
            "attention networks trained on the Protein Data Bank, and we reach atomic accuracy on held-out targets.")
    docs = [Document(paper=Paper(corpus_id=cid, title=t, year=2020), abstract=a) for cid, t, a in PAPERS]
    docs.append(Document(paper=Paper(corpus_id="src", title="Accurate protein structure prediction", year=2021),
                         abstract=long))
    path = tmp_path / "c"
    with corpus.CorpusWriter.open(path) as w:
        with w.source("tiny2.jsonl", 1, "1" * 64) as tx:
            tx.add_documents(docs)
        w.finalize(progress=False)
    bench = tmp_path / "bench.jsonl"
    bench.write_text(json.dumps({"qid": "q", "query": long, "gold": ["p1"]}) + "\n")
    result = CliRunner().invoke(app, ["eval", "--corpus", str(path), "--bench", str(bench), "--systems",
                                      "hybrid,hybrid-no-source", "--k", "1,5", "--json", str(tmp_path / "e.json"),
                                      "--run-dir", str(tmp_path / "runs"), "--no-progress"], terminal_width=200)
    assert result.exit_code == 0, result.output + repr(result.exception)
    data = json.loads((tmp_path / "e.json").read_text())
    assert data["systems"]["hybrid-no-source"]["left_out"] == {"q": ["src"]}
    hybrid = (tmp_path / "runs" / "hybrid.run").read_text().split()
    no_source = (tmp_path / "runs" / "hybrid-no-source.run").read_text()
    assert hybrid[2] == "src" and " src " not in no_source
    assert "delta_vs_hybrid-no-source" not in data["systems"]["hybrid-no-source"]


@pytest.mark.skipif(not __import__("pathlib").Path("/proc/self").is_dir(), reason="needs Linux's /proc (unwritable)")
def test_a_place_no_file_can_be_written_is_refused_before_the_run(tiny_corpus, app, tmp_path):
    bench = tmp_path / "bench.jsonl"
    bench.write_text("\n".join(json.dumps(t) for t in TASKS) + "\n")
    for flag in ("--json", "--run-dir"):
        result = CliRunner().invoke(app, ["eval", "--corpus", str(tiny_corpus), "--bench", str(bench), "--systems",
                                          "bm25", flag, "/proc/litnav-nope/out", "--no-progress"], terminal_width=200)
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and "cannot write there" in said and "bm25" not in said, flag
