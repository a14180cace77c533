"""Benchmark loading: litnav JSONL and BEIR formats, missing gold, bad lines."""

from __future__ import annotations

import pytest

from litnav.evaluation.benchmark import BenchmarkError, load_benchmark


def test_jsonl_graded_and_list_gold(fixtures):
    b = load_benchmark(fixtures / "evaluation" / "tasks.jsonl")
    assert [t.qid for t in b.tasks] == ["q1", "q2", "q3"]
    assert b.tasks[0].gold == {"a": 2, "b": 1, "c": 1}
    assert b.tasks[1].gold == {"d": 1, "zz-missing": 1}
    assert b.tasks[1].checklist == ["mentions d"]
    assert b.tasks[2].relevant == {"e"}
    assert b.qrels()["q3"] == {"e": 1, "x": 0}
    assert [t.qid for t in b.limit(2).tasks] == ["q1", "q2"]


def test_beir_pair(fixtures):
    d = fixtures / "evaluation"
    b = load_benchmark(queries=d / "queries.jsonl", qrels=d / "qrels.tsv")
    assert [(t.qid, t.query) for t in b.tasks] == [("1", "first claim"), ("2", "second claim")]
    assert b.tasks[0].gold == {"a": 1, "b": 2}
    assert b.skipped_queries == ["3"]


def test_missing_gold_is_reported_not_dropped(fixtures):
    b = load_benchmark(fixtures / "evaluation" / "tasks.jsonl")
    missing = b.missing_gold({"a", "b", "c", "d", "e", "x"})
    assert missing == {"q2": ["zz-missing"]}
    assert "zz-missing" in b.qrels()["q2"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "invalid JSON"),
        ('{"qid": "q9", "query": "x"}', "missing field 'gold'"),
        ('{"qid": "q9", "query": "x", "gold": {"a": -1}}', "grade -1"),
        ('{"qid": "q9", "query": "x", "gold": {"a": Infinity}}', "grade inf"),
        ('{"qid": "q9", "query": "x", "gold": {"a": NaN}}', "grade nan"),
        ('{"qid": "q9", "query": "", "gold": ["a"]}', "'query'"),
        ('{"qid": "q9", "query": "x", "gold": {"a": 0}}', "no relevant id"),
        ('{"qid": "q1", "query": "x", "gold": ["a"]}', "duplicate qid"),
    ],
)
def test_bad_jsonl_line_names_file_and_line(tmp_path, line, message):
    path = tmp_path / "bench.jsonl"
    path.write_text('{"qid": "q1", "query": "ok", "gold": ["a"]}\n' + line + "\n")
    with pytest.raises(BenchmarkError) as err:
        load_benchmark(path)
    assert f"{path}:2" in str(err.value)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("row", "message"),
    [("1\ta", "expected 3 columns"), ("1\ta\thigh", "not a number"), ("1\ta\t2", "a second, different judgement"),
     ("1\tb\t2.5", "must be an integer"), ("1\tb\t99999999999", "is above")],
)
def test_bad_qrels_line_names_file_and_line(tmp_path, row, message):
    (tmp_path / "q.jsonl").write_text('{"_id": "1", "text": "t"}\n')
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("query-id\tcorpus-id\tscore\n1\ta\t1\n" + row + "\n")
    with pytest.raises(BenchmarkError) as err:
        load_benchmark(queries=tmp_path / "q.jsonl", qrels=qrels)
    assert f"{qrels}:3" in str(err.value)
    assert message in str(err.value)


def test_qrels_header_and_orphan_queries(tmp_path):
    """BEIR with or without its header, TREC's 4 columns, gzip and a byte-order mark all read alike;
    judged queries the queries file lacks are left out and counted (CSFCube shares one qrels file
    among its facets' query files), unless none of the file's queries is judged."""
    import gzip

    (tmp_path / "q.jsonl").write_text('{"_id": "1", "text": "t"}\n{"_id": "2", "text": "u"}\n')
    want = {"1": {"a": 1, "b": 0}, "2": {"c": 2}}
    forms = {"noheader.tsv": "1\ta\t1\n1\tb\t0\n2\tc\t2\n",
             "bom.tsv": "\ufeffquery-id\tcorpus-id\tscore\n1\ta\t1\n1\tb\t0\n2\tc\t2\n",
             "trec.txt": "1 0 a 1\n1 0 b -1\n2 Q0 c 2\n",  # trec_eval's qrels; a negative grade is not relevant
             "spaces.txt": "1 a 1\n1 b 0\n2 c 2\n"}
    for name, text in forms.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with gzip.open(tmp_path / "q.tsv.gz", "wt") as fh:
        fh.write(forms["noheader.tsv"])
    for name in [*forms, "q.tsv.gz"]:
        b = load_benchmark(queries=tmp_path / "q.jsonl", qrels=tmp_path / name)
        assert b.qrels() == want, name
    (tmp_path / "orphan.tsv").write_text("query-id\tcorpus-id\tscore\n1\ta\t1\n7\ta\t1\n")
    b = load_benchmark(queries=tmp_path / "q.jsonl", qrels=tmp_path / "orphan.tsv")
    assert [t.qid for t in b.tasks] == ["1"] and b.unmatched_qrels == ["7"] and b.skipped_queries == ["2"]
    (tmp_path / "others.tsv").write_text("query-id\tcorpus-id\tscore\n7\ta\t1\n")
    with pytest.raises(BenchmarkError, match=r"no query has a relevant judgement.*not in it"):
        load_benchmark(queries=tmp_path / "q.jsonl", qrels=tmp_path / "others.tsv")
    (tmp_path / "latin1.tsv").write_bytes("1\tcaf\xe9\t1\n".encode("latin-1"))
    with pytest.raises(BenchmarkError, match=r"latin1.tsv:1: not UTF-8"):
        load_benchmark(queries=tmp_path / "q.jsonl", qrels=tmp_path / "latin1.tsv")


def test_needs_one_format(tmp_path):
    with pytest.raises(BenchmarkError, match="either"):
        load_benchmark(queries=tmp_path / "q.jsonl")


def test_scifact_train_golden_records(shared_data):
    d = shared_data / "scifact-train"
    b = load_benchmark(queries=d / "queries_train.jsonl", qrels=d / "qrels_train.tsv")
    assert len(b.tasks) == 505 and b.skipped_queries == []
    assert sum(len(t.gold) for t in b.tasks) == 564
    first, last = b.tasks[0], b.tasks[-1]
    assert (first.qid, first.query, first.gold) == ("2", "1 in 5 million in UK have abnormal PrP positivity.", {"13734012": 1})
    assert (last.qid, last.gold) == ("1406", {"2617858": 1})
    assert last.query.startswith("\u03b2-sheet opening")


def test_a_beir_querys_facet_groups_it(tmp_path):
    """CSFCube-style queries carry their facet; the report's per-kind means need it as the task's kind."""
    (tmp_path / "q.jsonl").write_text('{"_id": "1", "text": "t", "facet": "method"}\n'
                                      '{"_id": "2", "text": "u", "metadata": {"facet": "x"}}\n')
    (tmp_path / "r.tsv").write_text("1\ta\t1\n2\tb\t2\n")
    b = load_benchmark(queries=tmp_path / "q.jsonl", qrels=tmp_path / "r.tsv")
    assert [(t.qid, t.kind) for t in b.tasks] == [("1", "method"), ("2", None)]


def test_qrels_read_as_trec_eval_reads_them(tmp_path):
    """trec_eval splits on any whitespace and reads a repeated row once; a query id's stray spaces
    ("q2 ") no longer keep it from its judgements; an empty qrels file says so."""
    (tmp_path / "q.jsonl").write_text('{"_id": "1 ", "text": "t"}\n')
    (tmp_path / "mixed.txt").write_text("qid iter docno rel\n1 0\ta 1\n1 0 a 1\n")
    b = load_benchmark(queries=tmp_path / "q.jsonl", qrels=tmp_path / "mixed.txt")
    assert b.qrels() == {"1": {"a": 1}}
    (tmp_path / "empty.tsv").write_text("query-id\tcorpus-id\tscore\n")
    with pytest.raises(BenchmarkError, match="no judgements"):
        load_benchmark(queries=tmp_path / "q.jsonl", qrels=tmp_path / "empty.tsv")
