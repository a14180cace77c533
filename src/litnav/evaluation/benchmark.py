"""Benchmarks: a list of tasks (query + graded gold corpus ids), loaded from one of two formats.

- litnav JSONL, one task per line::

      {"qid": "q1", "query": "...", "gold": {"123": 2, "456": 1}, "checklist": [...]}

  ``gold`` is a mapping corpus_id -> grade (int >= 0; 0 = judged not relevant) or a list of
  corpus ids (grade 1 each). ``checklist`` is optional: a list of checkpoint texts or objects, whose
  ``filter`` objects (as in judged intents below) are the task's exact metadata filter
  (``hybrid+filter``); other fields ("facet", "metadata") are not read, as in BEIR's queries.
- BEIR: ``queries.jsonl`` (``{"_id": ..., "text": ...}`` per line; a ``facet``/``kind``/``type``
  field groups the queries, :data:`KIND_FIELDS`) plus qrels: BEIR's
  ``qrels.tsv`` (``query-id<TAB>corpus-id<TAB>score``, header line optional) or TREC qrels
  (``qid iteration docid grade``). Queries without a relevant judgement are not tasks
  (``Benchmark.skipped_queries``); judged query ids absent from the queries file are left out
  (``Benchmark.unmatched_qrels``).

- judged intents (``bench/intents/<suite>/``): a folder with ``intents.jsonl`` (qid, query,
  type, checklist of checkpoints with ``id``/``kind``/``text`` and, for metadata checkpoints, an
  exact ``filter``), ``judgements.jsonl`` (one label 0/1/2 per qid, corpus_id and checkpoint) and
  a ``split.json`` beside it or one folder up; the grade of a paper is derived from its labels by
  :func:`grade_from_labels` (``bench/intents/PROTOCOL.md``) and ``split`` picks ``dev`` or
  ``heldout`` intents.

Bad lines raise :class:`BenchmarkError` naming the file and the 1-based line number.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litnav.core.io import json_lines, text_lines


class BenchmarkError(ValueError):
    """A benchmark file is malformed; the message names the file and line."""


@dataclass(frozen=True)
class Task:
    """One benchmark query: ``gold`` maps corpus_id -> grade (> 0 relevant, 0 judged non-relevant).

    ``filters`` is the exact metadata filter the query states (judged intents with venue/year
    checkpoints; None otherwise); ``kind`` the intent type (direct, problem, metadata, exclusion,
    survey) when the benchmark records one.
    """

    qid: str
    query: str
    gold: dict[str, int]
    checklist: Any = None
    filters: MetadataFilter | None = None
    kind: str | None = None

    @property
    def relevant(self) -> set[str]:
        """Corpus ids with grade > 0."""
        return {cid for cid, g in self.gold.items() if g > 0}


@dataclass
class Benchmark:
    """Tasks in file order, where they came from, queries skipped for lack of a relevant
    judgement, and judged query ids the queries file lacks."""

    tasks: list[Task]
    source: str
    skipped_queries: list[str] = field(default_factory=list)
    unmatched_qrels: list[str] = field(default_factory=list)
    """Judged query ids that the queries file does not hold (left out)."""

    def limit(self, n: int | None) -> Benchmark:
        """The first ``n`` tasks (all when ``n`` is None)."""
        if n is None:
            return self
        if n < 1:
            raise ValueError(f"limit must be >= 1, got {n}")
        return Benchmark(self.tasks[:n], self.source, self.skipped_queries, self.unmatched_qrels)

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


def _text_field(obj: dict[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key in ("qid", "_id"):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise BenchmarkError(f"{where}: field {key!r} must be a non-empty string")
    return value


MAX_GRADE = 1_000_000
"""The largest grade accepted (graded relevance is a small scale; trec_eval's C integers, as
pytrec_eval reads them, overflow at 2**32 and score every query 0)."""


def _grade(value: Any, where: str) -> int:
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or value != int(value) or value < 0 or value > MAX_GRADE):
        raise BenchmarkError(f"{where}: grade {value!r} must be an integer from 0 to {MAX_GRADE}")
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
    for lineno, obj in json_lines(path, error=BenchmarkError):
        where = f"{path}:{lineno}"
        qid = _text_field(obj, "qid", where).strip()
        if qid in seen:
            raise BenchmarkError(f"{where}: duplicate qid {qid!r}")
        seen.add(qid)
        if "gold" not in obj:
            raise BenchmarkError(f"{where}: missing field 'gold'")
        checklist = obj.get("checklist")
        if checklist is not None and not isinstance(checklist, list):
            raise BenchmarkError(f"{where}: 'checklist' must be a list (of checkpoint texts or objects)")
        try:
            filters = MetadataFilter.from_checklist([c for c in checklist if isinstance(c, dict)]) if checklist else None
        except BenchmarkError as exc:
            raise BenchmarkError(f"{where}: {exc}") from None
        tasks.append(Task(qid, _text_field(obj, "query", where), _gold(obj["gold"], where), checklist, filters))
    if not tasks:
        raise BenchmarkError(f"{path}: no tasks")
    return Benchmark(tasks, str(path))


QRELS_HEADERS = {("query-id", "corpus-id"), ("query_id", "corpus_id"), ("query-id", "doc-id"), ("query_id", "doc_id"),
                 ("qid", "docid"), ("qid", "doc_id"), ("query", "doc"), ("qid", "iter"), ("qid", "iteration"),
                 ("topic", "iteration"), ("query_id", "iteration")}
"""First two columns of a qrels header line (BEIR writes ``query-id corpus-id score``)."""


def _qrels_grade(raw: str, where: str) -> int:
    """A qrels grade: an integer; a negative one (TREC's -1/-2 for junk) is judged not relevant (0),
    as trec_eval counts it."""
    try:
        value = float(raw)
    except ValueError:
        raise BenchmarkError(f"{where}: grade {raw!r} is not a number") from None
    if not math.isfinite(value) or value != int(value):
        raise BenchmarkError(f"{where}: grade {raw!r} must be an integer (0 = judged not relevant)")
    if value > MAX_GRADE:
        raise BenchmarkError(f"{where}: grade {raw!r} is above {MAX_GRADE} (graded relevance is a small scale)")
    return max(0, int(value))


def load_qrels_tsv(path: str | Path) -> dict[str, dict[str, int]]:
    """Read qrels into ``{qid: {corpus_id: grade}}``: BEIR's TSV (``query-id corpus-id score``,
    with or without its header line) or TREC's qrels (``qid iteration docid grade``, the file
    trec_eval reads); columns are tab-separated, or split on spaces in a file without tabs; gzip
    when the name ends in ``.gz``, a byte-order mark dropped. A (qid, corpus_id) pair judged twice
    differently, a row of another width than the first, and a grade that is not an integer (or is
    above :data:`MAX_GRADE`) are errors naming the file and line; a negative grade counts as 0;
    an exact repeat of a row is read once."""
    path = Path(path)
    qrels: dict[str, dict[str, int]] = {}
    width = 0
    for lineno, line in text_lines(path, error=BenchmarkError):
        if not line.strip():
            continue
        row = [c.strip() for c in line.split("\t")] if "\t" in line else []
        if len(row) not in (3, 4) or (width and len(row) != width):  # trec_eval splits on any whitespace
            row = line.split()
        where = f"{path}:{lineno}"
        if not width:
            if tuple(c.lower() for c in row[:2]) in QRELS_HEADERS:
                continue
            if len(row) not in (3, 4):
                raise BenchmarkError(f"{where}: expected qrels rows of 3 columns (BEIR: query-id, corpus-id, score) "
                                     f"or 4 (TREC: qid, iteration, docid, grade), got {len(row)}")
            width = len(row)
        if len(row) != width:
            raise BenchmarkError(f"{where}: expected {width} columns as on the first row, got {len(row)}")
        qid, cid, raw = (row[0], row[1], row[2]) if width == 3 else (row[0], row[2], row[3])
        if not qid or not cid:
            raise BenchmarkError(f"{where}: empty query id or corpus id")
        grade = _qrels_grade(raw, where)
        if cid in qrels.setdefault(qid, {}) and qrels[qid][cid] != grade:
            raise BenchmarkError(f"{where}: a second, different judgement for ({qid}, {cid}): "
                                 f"{qrels[qid][cid]} then {grade}")
        qrels[qid][cid] = grade
    return qrels


KIND_FIELDS = ("facet", "kind", "type", "category")
"""Query fields that group a BEIR suite's queries (CSFCube's background/method/result facets):
the first one present, a string, is the query's ``Task.kind`` (per-kind means in the report)."""


def _query_kind(obj: dict[str, Any]) -> str | None:
    """The query's group: the first of :data:`KIND_FIELDS` it holds as a non-empty string or a
    number, lower-cased ("Method" and "method" are one kind)."""
    for key in KIND_FIELDS:
        value = obj.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if isinstance(value, str) and value.strip():
            return value.strip().lower()
    return None


def load_beir(queries: str | Path, qrels: str | Path) -> Benchmark:
    """Load BEIR ``queries.jsonl`` + qrels (:func:`load_qrels_tsv`). Tasks follow the queries
    file's order; qrels naming a query absent from the queries file are left out and counted in
    ``Benchmark.unmatched_qrels`` (one qrels file shared by several query files, as CSFCube's
    facets share theirs), unless no query of the file is judged at all."""
    queries, qrels = Path(queries), Path(qrels)
    judged = load_qrels_tsv(qrels)
    texts: dict[str, str] = {}
    kinds: dict[str, str | None] = {}
    for lineno, obj in json_lines(queries, error=BenchmarkError):
        where = f"{queries}:{lineno}"
        qid = _text_field(obj, "_id", where).strip()  # qrels ids are read stripped: "q2 " is q2
        if qid in texts:
            raise BenchmarkError(f"{where}: duplicate _id {qid!r}")
        texts[qid] = _text_field(obj, "text", where)
        kinds[qid] = _query_kind(obj)
    orphans = sorted(set(judged) - set(texts))
    tasks, skipped = [], []
    for qid, text in texts.items():
        gold = judged.get(qid, {})
        if any(g > 0 for g in gold.values()):
            tasks.append(Task(qid, text, gold, kind=kinds[qid]))
        else:
            skipped.append(qid)
    if not judged:
        raise BenchmarkError(f"{qrels}: no judgements (an empty file, or a header alone)")
    if not tasks:
        hint = f" ({len(orphans)} judged query ids are not in it, e.g. {orphans[:5]})" if orphans else ""
        raise BenchmarkError(f"{queries}: no query has a relevant judgement in {qrels}{hint}")
    return Benchmark(tasks, f"{queries} + {qrels}", skipped, orphans)


def load_benchmark(
    bench: str | Path | None = None, *, queries: str | Path | None = None, qrels: str | Path | None = None,
    split: str | None = None,
) -> Benchmark:
    """Load a litnav JSONL or a judged-intents folder (``bench``; ``split`` picks dev/heldout
    intents of a folder, None = all) or a BEIR pair (``queries`` + ``qrels``)."""
    if split is not None and (bench is None or not Path(bench).is_dir()):
        raise BenchmarkError(f"--split {split} needs a judged-intents folder as the benchmark")
    if bench is not None and (queries is None and qrels is None):
        if Path(bench).is_dir():
            return load_intents(bench, split)
        return load_tasks_jsonl(bench)
    if bench is None and queries is not None and qrels is not None:
        return load_beir(queries, qrels)
    raise BenchmarkError("give either a benchmark JSONL, or both a queries JSONL and a qrels TSV")


METADATA_KINDS = ("venue", "year")
"""Checkpoint kinds decided exactly from the record (a ``filter``), never by reading."""
CONTENT_LABELS = (0, 1, 2)
SPLITS = ("dev", "heldout")


@dataclass(frozen=True)
class MetadataFilter:
    """An exact metadata predicate: inclusive year bounds and a case-insensitive regular
    expression searched in the raw venue string. A bound or pattern that is None does not
    constrain; a paper without the constrained field fails. Built from the ``filter`` objects of
    an intent's venue/year checkpoints (:meth:`from_checklist`)."""

    year_min: int | None = None
    year_max: int | None = None
    venue_regex: str | None = None

    @classmethod
    def from_spec(cls, spec: dict[str, Any], where: str = "filter") -> MetadataFilter:
        """One checkpoint's ``filter`` object; unknown keys or bad values raise :class:`BenchmarkError`."""
        import re

        if not isinstance(spec, dict) or not spec:
            raise BenchmarkError(f"{where}: 'filter' must be a non-empty object")
        unknown = set(spec) - {"year_min", "year_max", "venue_regex"}
        if unknown:
            raise BenchmarkError(f"{where}: unknown filter key(s) {sorted(unknown)}")
        for key in ("year_min", "year_max"):
            if key in spec and (isinstance(spec[key], bool) or not isinstance(spec[key], int)):
                raise BenchmarkError(f"{where}: {key} must be an integer year")
        if "venue_regex" in spec:
            try:
                re.compile(spec["venue_regex"])
            except (re.error, TypeError) as exc:
                raise BenchmarkError(f"{where}: venue_regex {spec['venue_regex']!r} is not a regular expression") from exc
        return cls(spec.get("year_min"), spec.get("year_max"), spec.get("venue_regex"))

    @classmethod
    def from_checklist(cls, checklist: Sequence[dict[str, Any]]) -> MetadataFilter | None:
        """The conjunction of every checkpoint's ``filter`` (None when there is none)."""
        lo, hi, venue = None, None, None
        found = False
        for cp in checklist:
            if cp.get("filter"):
                f = cls.from_spec(cp["filter"], f"checkpoint {cp.get('id')}")
                found = True
                lo = f.year_min if lo is None else max(lo, f.year_min or lo)
                hi = f.year_max if hi is None else min(hi, f.year_max or hi)
                venue = f.venue_regex or venue
        return cls(lo, hi, venue) if found else None

    def failures(self, year: int | None, venue_raw: str | None) -> list[str]:
        """Why a paper with this year and raw venue fails (empty list: it passes)."""
        import re

        out = []
        if self.year_min is not None or self.year_max is not None:
            if year is None:
                out.append("no year")
            elif (self.year_min is not None and year < self.year_min) or (self.year_max is not None and year > self.year_max):
                out.append(f"year {year} outside {self.year_min or ''}..{self.year_max or ''}")
        if self.venue_regex is not None:
            if not venue_raw:
                out.append("no venue")
            elif not re.search(self.venue_regex, venue_raw, re.IGNORECASE):
                out.append(f"venue {venue_raw!r} does not match /{self.venue_regex}/")
        return out

    def passes(self, year: int | None, venue_raw: str | None) -> bool:
        """True when the paper satisfies every bound and the venue pattern."""
        return not self.failures(year, venue_raw)


def grade_from_labels(checklist: Sequence[dict[str, Any]], labels: dict[str, int]) -> int | None:
    """A candidate's grade from its per-checkpoint labels (``bench/intents/PROTOCOL.md``).

    ``labels`` maps checkpoint id -> 0/1/2. Grade 0 when a metadata checkpoint fails (label 0)
    or any content/exclusion label is 0; else the minimum content/exclusion label (2 or 1).
    Returns None when some checkpoint is unlabelled (the candidate is not fully judged).
    """
    if any(cp["id"] not in labels for cp in checklist):
        return None
    meta = [labels[cp["id"]] for cp in checklist if cp["kind"] in METADATA_KINDS]
    content = [labels[cp["id"]] for cp in checklist if cp["kind"] not in METADATA_KINDS]
    if any(v == 0 for v in meta):
        return 0
    return min(content) if content else 2


def _checklist(value: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not value:
        raise BenchmarkError(f"{where}: 'checklist' must be a non-empty list")
    seen = set()
    for i, cp in enumerate(value):
        if not isinstance(cp, dict) or not all(isinstance(cp.get(k), str) and cp.get(k) for k in ("id", "kind", "text")):
            raise BenchmarkError(f"{where}: checklist[{i}] needs string fields id, kind, text")
        if cp["id"] in seen:
            raise BenchmarkError(f"{where}: duplicate checkpoint id {cp['id']!r}")
        seen.add(cp["id"])
        if (cp["kind"] in METADATA_KINDS) != bool(cp.get("filter")):
            raise BenchmarkError(f"{where}: checkpoint {cp['id']!r}: venue/year checkpoints (and only they) carry a 'filter'")
    return value


def _split_ids(folder: Path, split: str) -> set[str]:
    if split not in SPLITS:
        raise BenchmarkError(f"split must be one of {SPLITS}, got {split!r}")
    for path in (folder / "split.json", folder.parent / "split.json"):
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                ids = data[split]
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise BenchmarkError(f"{path}: expected an object with 'dev' and 'heldout' ({exc})") from exc
            if isinstance(ids, dict):
                if folder.name not in ids:
                    raise BenchmarkError(f"{path}: no {split!r} list for suite {folder.name!r}")
                ids = ids[folder.name]
            return {str(q) for q in ids}
    raise BenchmarkError(f"{folder}: no split.json here or one folder up (needed for split {split!r})")


def read_judgements(path: str | Path) -> dict[str, dict[str, dict[str, int]]]:
    """``{qid: {corpus_id: {checkpoint_id: label}}}`` from a judgements JSONL (fields qid,
    corpus_id, checkpoint, label 0/1/2, rationale). A repeated triple is an error."""
    path = Path(path)
    out: dict[str, dict[str, dict[str, int]]] = {}
    for lineno, obj in json_lines(path, error=BenchmarkError):
        where = f"{path}:{lineno}"
        qid, cid, cp = (_text_field(obj, k, where) if k != "corpus_id" else str(obj.get(k) or "")
                        for k in ("qid", "corpus_id", "checkpoint"))
        if not cid:
            raise BenchmarkError(f"{where}: field 'corpus_id' must be a non-empty string")
        label = obj.get("label")
        if label not in CONTENT_LABELS or isinstance(label, bool):
            raise BenchmarkError(f"{where}: label {label!r} must be 0, 1 or 2")
        slot = out.setdefault(qid, {}).setdefault(cid, {})
        if cp in slot:
            raise BenchmarkError(f"{where}: duplicate judgement for ({qid}, {cid}, {cp})")
        slot[cp] = label
    return out


def read_intents(folder: str | Path) -> list[dict[str, Any]]:
    """The validated intent records of ``folder/intents.jsonl`` in file order."""
    path = Path(folder) / "intents.jsonl"
    intents, seen = [], set()
    for lineno, obj in json_lines(path, error=BenchmarkError):
        where = f"{path}:{lineno}"
        qid = _text_field(obj, "qid", where).strip()
        if qid in seen:
            raise BenchmarkError(f"{where}: duplicate qid {qid!r}")
        seen.add(qid)
        _text_field(obj, "query", where)
        _checklist(obj.get("checklist"), where)
        MetadataFilter.from_checklist(obj["checklist"])
        intents.append(obj)
    if not intents:
        raise BenchmarkError(f"{path}: no intents")
    return intents


def load_intents(folder: str | Path, split: str | None = None) -> Benchmark:
    """Load a judged-intents folder (see module doc) as a :class:`Benchmark`.

    Each fully judged candidate gets the grade of :func:`grade_from_labels`; partly judged
    candidates are left out (and counted in the source line). Intents with no relevant
    candidate are skipped (``Benchmark.skipped_queries``). ``split`` ("dev"/"heldout") keeps
    only that split's intents. Raises :class:`BenchmarkError` for malformed files.
    """
    folder = Path(folder)
    intents = read_intents(folder)
    judged = read_judgements(folder / "judgements.jsonl")
    keep = _split_ids(folder, split) if split else None
    tasks, skipped, partial = [], [], 0
    for intent in intents:
        qid = intent["qid"]
        if keep is not None and qid not in keep:
            continue
        gold = {}
        for cid, labels in judged.get(qid, {}).items():
            g = grade_from_labels(intent["checklist"], labels)
            if g is None:
                partial += 1
            else:
                gold[cid] = g
        if any(g > 0 for g in gold.values()):
            tasks.append(Task(qid, intent["query"], gold, intent["checklist"],
                              MetadataFilter.from_checklist(intent["checklist"]), intent.get("type")))
        else:
            skipped.append(qid)
    if not tasks:
        raise BenchmarkError(f"{folder}: no intent{f' of split {split!r}' if split else ''} has a relevant judged candidate")
    source = f"{folder}" + (f" [{split}]" if split else "") + (f" ({partial} partly judged candidates left out)" if partial else "")
    return Benchmark(tasks, source, skipped)
