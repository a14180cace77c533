"""Benchmarks: a list of tasks (query + graded gold corpus ids), loaded from one of two formats.

- litnav JSONL, one task per line::

      {"qid": "q1", "query": "...", "gold": {"123": 2, "456": 1}, "checklist": [...]}

  ``gold`` is a mapping corpus_id -> grade (int >= 0; 0 = judged not relevant) or a list of
  corpus ids (grade 1 each). ``checklist`` is optional and kept as given.
- BEIR: ``queries.jsonl`` (``{"_id": ..., "text": ...}`` per line) plus ``qrels.tsv``
  (``query-id<TAB>corpus-id<TAB>score`` with a header line). Queries without any qrels line
  are not tasks (counted in ``Benchmark.skipped_queries``).

Bad lines raise :class:`BenchmarkError` naming the file and the 1-based line number.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class BenchmarkError(ValueError):
    """A benchmark file is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Task:
    """One benchmark query: ``gold`` maps corpus_id -> grade (> 0 relevant, 0 judged non-relevant)."""

    qid: str
    query: str
    gold: dict[str, int]
    checklist: Any = None

    @property
    def relevant(self) -> set[str]:
        """Corpus ids with grade > 0."""
        return {cid for cid, g in self.gold.items() if g > 0}


@dataclass
class Benchmark:
    """Tasks in file order, where they came from, and queries skipped for lack of judgements."""

    tasks: list[Task]
    source: str
    skipped_queries: list[str] = field(default_factory=list)

    def limit(self, n: int | None) -> "Benchmark":
        """The first ``n`` tasks (all when ``n`` is None)."""
        if n is None:
            return self
        if n < 1:
            raise ValueError(f"limit must be >= 1, got {n}")
        return Benchmark(self.tasks[:n], self.source, self.skipped_queries)

    def qrels(self) -> dict[str, dict[str, int]]:
        """``{qid: {corpus_id: grade}}`` in the shape ir-measures takes."""
        return {t.qid: dict(t.gold) for t in self.tasks}

    def missing_gold(self, known: Iterable[str] | set[str]) -> dict[str, list[str]]:
        """Relevant gold ids absent from the corpus, per qid (only qids with some missing).

        ``known`` is the corpus's id set. Missing gold stays in the qrels: a system cannot
        retrieve it, so it lowers recall for every system alike, and the report says so.
        """
        known = known if isinstance(known, set) else set(known)
        out: dict[str, list[str]] = {}
        for t in self.tasks:
            miss = sorted(cid for cid in t.relevant if cid not in known)
            if miss:
                out[t.qid] = miss
        return out


def _json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise BenchmarkError(f"{path}: {exc}") from exc
    with handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BenchmarkError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from exc
            if not isinstance(obj, dict):
                raise BenchmarkError(f"{path}:{lineno}: expected a JSON object")
            yield lineno, obj


def _text_field(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key in ("qid", "_id"):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise BenchmarkError(f"{where}: field {key!r} must be a non-empty string")
    return value


def _grade(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value) or value < 0:
        raise BenchmarkError(f"{where}: grade {value!r} must be a non-negative integer")
    return int(value)


def _gold(value: Any, where: str) -> dict[str, int]:
    if isinstance(value, list):
        gold = {}
        for cid in value:
            if not isinstance(cid, (str, int)) or isinstance(cid, bool) or not str(cid).strip():
                raise BenchmarkError(f"{where}: gold id {cid!r} must be a non-empty string")
            gold[str(cid)] = 1
    elif isinstance(value, dict):
        gold = {str(cid): _grade(g, f"{where}: gold[{cid!r}]") for cid, g in value.items()}
    else:
        raise BenchmarkError(f"{where}: field 'gold' must be a list of ids or an object id -> grade")
    if not any(g > 0 for g in gold.values()):
        raise BenchmarkError(f"{where}: field 'gold' has no relevant id (grade > 0)")
    return gold


def load_tasks_jsonl(path: str | Path) -> Benchmark:
    """Load a litnav JSONL benchmark (see module doc). Duplicate qids are an error."""
    path = Path(path)
    tasks: list[Task] = []
    seen: set[str] = set()
    for lineno, obj in _json_lines(path):
        where = f"{path}:{lineno}"
        unknown = set(obj) - {"qid", "query", "gold", "checklist"}
        if unknown:
            raise BenchmarkError(f"{where}: unknown field(s) {sorted(unknown)}")
        qid = _text_field(obj, "qid", where)
        if qid in seen:
            raise BenchmarkError(f"{where}: duplicate qid {qid!r}")
        seen.add(qid)
        if "gold" not in obj:
            raise BenchmarkError(f"{where}: missing field 'gold'")
        tasks.append(Task(qid, _text_field(obj, "query", where), _gold(obj["gold"], where), obj.get("checklist")))
    if not tasks:
        raise BenchmarkError(f"{path}: no tasks")
    return Benchmark(tasks, str(path))


def load_qrels_tsv(path: str | Path) -> dict[str, dict[str, int]]:
    """Read a BEIR qrels TSV (header line, then ``query-id corpus-id score``) into
    ``{qid: {corpus_id: grade}}``. A repeated (qid, corpus_id) pair is an error."""
    path = Path(path)
    qrels: dict[str, dict[str, int]] = {}
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise BenchmarkError(f"{path}: {exc}") from exc
    with handle:
        rows = csv.reader(handle, delimiter="\t")
        for lineno, row in enumerate(rows, 1):
            if lineno == 1:
                if [c.strip().lower() for c in row[:2]] != ["query-id", "corpus-id"]:
                    raise BenchmarkError(f"{path}:1: expected the header 'query-id<TAB>corpus-id<TAB>score'")
                continue
            if not row or all(not c.strip() for c in row):
                continue
            where = f"{path}:{lineno}"
            if len(row) != 3:
                raise BenchmarkError(f"{where}: expected 3 tab-separated columns, got {len(row)}")
            qid, cid, raw = (c.strip() for c in row)
            if not qid or not cid:
                raise BenchmarkError(f"{where}: empty query-id or corpus-id")
            try:
                grade = _grade(float(raw), where)
            except ValueError as exc:
                raise BenchmarkError(f"{where}: score {raw!r} is not a number") from exc
            if cid in qrels.setdefault(qid, {}):
                raise BenchmarkError(f"{where}: duplicate judgement for ({qid}, {cid})")
            qrels[qid][cid] = grade
    return qrels


def load_beir(queries: str | Path, qrels: str | Path) -> Benchmark:
    """Load BEIR ``queries.jsonl`` + ``qrels.tsv``. Tasks follow the queries file's order;
    qrels naming a query absent from the queries file are an error (naming the qid)."""
    queries, qrels = Path(queries), Path(qrels)
    judged = load_qrels_tsv(qrels)
    texts: dict[str, str] = {}
    for lineno, obj in _json_lines(queries):
        where = f"{queries}:{lineno}"
        qid = _text_field(obj, "_id", where)
        if qid in texts:
            raise BenchmarkError(f"{where}: duplicate _id {qid!r}")
        texts[qid] = _text_field(obj, "text", where)
    orphans = sorted(set(judged) - set(texts))
    if orphans:
        raise BenchmarkError(f"{qrels}: {len(orphans)} query id(s) not in {queries}: {orphans[:10]}")
    tasks, skipped = [], []
    for qid, text in texts.items():
        gold = judged.get(qid, {})
        if any(g > 0 for g in gold.values()):
            tasks.append(Task(qid, text, gold))
        else:
            skipped.append(qid)
    if not tasks:
        raise BenchmarkError(f"{queries}: no query has a relevant judgement in {qrels}")
    return Benchmark(tasks, f"{queries} + {qrels}", skipped)


def load_benchmark(
    bench: str | Path | None = None, *, queries: str | Path | None = None, qrels: str | Path | None = None
) -> Benchmark:
    """Load either a litnav JSONL (``bench``) or a BEIR pair (``queries`` + ``qrels``)."""
    if bench is not None and (queries is None and qrels is None):
        return load_tasks_jsonl(bench)
    if bench is None and queries is not None and qrels is not None:
        return load_beir(queries, qrels)
    raise BenchmarkError("give either a benchmark JSONL, or both a queries JSONL and a qrels TSV")
