"""Pooling and judging tools of the intent benchmark (``bench/intents/PROTOCOL.md``).

    python bench/intents/judge.py pool --suite acl-pre2016 --corpus .cache/bench/acl-pre2016 \\
        --systems bm25,dense,hybrid,hybrid+filter,litnav          # add each system's top 20 to pool.jsonl
    python bench/intents/judge.py show --suite acl-pre2016 --qid a01   # unjudged candidates, in a
                                                                     # hash order (no system, no rank)
    python bench/intents/judge.py add --suite acl-pre2016 --qid a01 FILE   # append labels
    python bench/intents/judge.py stats                                    # per-suite counts

``add`` reads one line per candidate: ``corpus_id<TAB>c1=2 c2=0 x1=2<TAB>c1: why; c2: why; x1: why``;
metadata checkpoints (venue/year) are labelled from the record, never from the file. Records are
read from the suite's source file (the ACL subset of ``corpus.py``, SciFact's ``corpus.jsonl``).
Writes are atomic (temporary file, then rename).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "src"))
SOURCES = {
    "acl-pre2016": ROOT / ".cache" / "bench" / "acl-pre2016.jsonl",
    "acl-2016": ROOT / ".cache" / "bench" / "acl-2016.jsonl",
    "scifact": ROOT.parent / "shared" / "data" / "scifact-train" / "corpus.jsonl",
}
SUITES = tuple(SOURCES)
LINE = re.compile(r"^(\S+)\t((?:\w+=[012]\s*)+)\t(.*)$")


def records(suite: str) -> dict[str, dict]:
    """``{corpus_id: {"title", "abstract", "year", "venue"}}`` of a suite's source file."""
    out = {}
    with SOURCES[suite].open(encoding="utf-8") as handle:
        for line in handle:
            r = json.loads(line)
            if "acl_id" in r:
                out[r["acl_id"]] = {"title": r["title"], "abstract": r["abstract"], "year": int(r["year"]), "venue": r["venue"]}
            else:
                out[str(r["doc_id"])] = {"title": r["title"], "abstract": " ".join(r["abstract_sentences"]),
                                         "year": None, "venue": None}
    return out


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()] if path.exists() else []


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def intents(suite: str) -> dict[str, dict]:
    from litnav.evaluation.benchmark import read_intents

    return {i["qid"]: i for i in read_intents(HERE / suite)}


def cmd_pool(args) -> int:
    """Add the top ``depth`` of each system to ``pool.jsonl`` (``{qid, corpus_id, ranks: {system: rank}}``)."""
    from litnav.core.settings import load_settings
    from litnav.corpus import Corpus
    from litnav.evaluation.benchmark import MetadataFilter, Task
    from litnav.evaluation.systems import make_systems

    todo = intents(args.suite)
    if args.qids:
        todo = {q: todo[q] for q in args.qids.split(",")}
    path = HERE / args.suite / "pool.jsonl"
    pool = {(r["qid"], r["corpus_id"]): r for r in _read_jsonl(path)}
    settings = load_settings(overrides=args.overrides)
    corpus = Corpus.open(args.corpus)
    try:
        systems = make_systems(args.systems.split(","), corpus, settings, depth=args.depth)
        for system in systems:
            for qid, intent in todo.items():
                task = Task(qid, intent["query"], {}, intent["checklist"], MetadataFilter.from_checklist(intent["checklist"]))
                run = system.run_task(task) if hasattr(system, "run_task") else system.run(task.query)
                for rank, (cid, _) in enumerate(run.ranking[: args.depth], 1):
                    row = pool.setdefault((qid, cid), {"qid": qid, "corpus_id": cid, "ranks": {}})
                    row["ranks"][system.name] = rank
                print(f"{system.name} {qid}: pool now {sum(1 for q, _ in pool if q == qid)}", flush=True)
                _write_jsonl(path, sorted(pool.values(), key=lambda r: (r["qid"], r["corpus_id"])))
    finally:
        corpus.close()
    return 0


def cmd_pool_lexical(args) -> int:
    """Add the top ``depth`` of a standalone BM25 (bm25s, English stop words and Snowball stemmer,
    title + abstract of the source file) as system ``bm25s``: pooling before the corpus is built."""
    import bm25s
    import Stemmer

    recs = records(args.suite)
    ids = list(recs)
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([recs[i]["title"] + " " + recs[i]["abstract"] for i in ids], stopwords="en",
                                   stemmer=stemmer, show_progress=False), show_progress=False)
    path = HERE / args.suite / "pool.jsonl"
    pool = {(r["qid"], r["corpus_id"]): r for r in _read_jsonl(path)}
    for qid, intent in intents(args.suite).items():
        found, _ = retriever.retrieve(bm25s.tokenize([intent["query"]], stopwords="en", stemmer=stemmer, show_progress=False),
                                      k=args.depth, show_progress=False)
        for rank, row_idx in enumerate(found[0], 1):
            row = pool.setdefault((qid, ids[row_idx]), {"qid": qid, "corpus_id": ids[row_idx], "ranks": {}})
            row["ranks"]["bm25s"] = rank
    _write_jsonl(path, sorted(pool.values(), key=lambda r: (r["qid"], r["corpus_id"])))
    print(f"{args.suite}: pool has {len(pool)} (intent, candidate) pairs")
    return 0


def _judged(suite: str) -> dict[tuple[str, str], dict[str, int]]:
    out: dict[tuple[str, str], dict[str, int]] = {}
    for r in _read_jsonl(HERE / suite / "judgements.jsonl"):
        out.setdefault((r["qid"], r["corpus_id"]), {})[r["checkpoint"]] = r["label"]
    return out


def _order(qid: str, cid: str) -> str:
    return hashlib.sha256(f"{qid}:{cid}".encode()).hexdigest()


def cmd_show(args) -> int:
    """Print the intent, its checklist and each unjudged pooled candidate's record."""
    intent = intents(args.suite)[args.qid]
    recs = records(args.suite)
    judged = _judged(args.suite)
    content = [cp for cp in intent["checklist"] if "filter" not in cp]
    cands = sorted({r["corpus_id"] for r in _read_jsonl(HERE / args.suite / "pool.jsonl") if r["qid"] == args.qid},
                   key=lambda c: _order(args.qid, c))
    todo = [c for c in cands if not all(cp["id"] in judged.get((args.qid, c), {}) for cp in content)]
    print(f"# {args.qid} ({intent['type']}): {intent['query']}")
    for cp in intent["checklist"]:
        print(f"#   {cp['id']} [{cp['kind']}] {cp['text']}" + (" (metadata: from the record)" if "filter" in cp else ""))
    print(f"# {len(todo)} of {len(cands)} candidates to judge\n")
    for c in todo[args.skip: args.skip + args.max]:
        r = recs[c]
        print(f"## {c} | {r['year']} | {r['venue']}\nT: {r['title']}\nA: {r['abstract']}\n")
    return 0


def cmd_add(args) -> int:
    """Append the labels of a judgement file (see module doc) plus metadata labels from the record.

    Holds an exclusive lock on ``judgements.jsonl.lock`` while it reads and rewrites the file, so
    judges adding labels at the same time never drop each other's lines."""
    import fcntl

    with (HERE / args.suite / "judgements.jsonl.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _add(args)


def _add(args) -> int:
    from litnav.evaluation.benchmark import MetadataFilter

    intent = intents(args.suite)[args.qid]
    recs = records(args.suite)
    pooled = {r["corpus_id"] for r in _read_jsonl(HERE / args.suite / "pool.jsonl") if r["qid"] == args.qid}
    content = {cp["id"] for cp in intent["checklist"] if "filter" not in cp}
    path = HERE / args.suite / "judgements.jsonl"
    rows = _read_jsonl(path)
    have = {(r["qid"], r["corpus_id"], r["checkpoint"]) for r in rows}
    added = 0
    for lineno, line in enumerate(Path(args.file).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            raise SystemExit(f"{args.file}:{lineno}: expected 'corpus_id<TAB>c1=2 ...<TAB>rationale'")
        cid, labels_text, why_text = m.groups()
        if cid not in pooled:
            raise SystemExit(f"{args.file}:{lineno}: {cid} is not in the pool of {args.qid}")
        labels = dict(x.split("=") for x in labels_text.split())
        if set(labels) != content:
            raise SystemExit(f"{args.file}:{lineno}: labels for {sorted(labels)}, expected {sorted(content)}")
        whys = {}
        for part in why_text.split(";"):
            key, _, text = part.strip().partition(":")
            whys[key.strip()] = text.strip()
        for cp_id, label in labels.items():
            if (args.qid, cid, cp_id) in have:
                raise SystemExit(f"{args.file}:{lineno}: ({args.qid}, {cid}, {cp_id}) is already judged")
            rows.append({"qid": args.qid, "corpus_id": cid, "checkpoint": cp_id, "label": int(label),
                         "rationale": whys.get(cp_id, "")})
            have.add((args.qid, cid, cp_id))
            added += 1
    # metadata checkpoints: exactly from the record, for every pooled candidate
    for cp in intent["checklist"]:
        if "filter" not in cp:
            continue
        flt = MetadataFilter.from_spec(cp["filter"])
        for cid in sorted(pooled):
            if (args.qid, cid, cp["id"]) in have:
                continue
            rec = recs[cid]
            fails = flt.failures(rec["year"], rec["venue"])
            rows.append({"qid": args.qid, "corpus_id": cid, "checkpoint": cp["id"], "label": 0 if fails else 2,
                         "rationale": "; ".join(fails) if fails else f"record: year {rec['year']}, venue {rec['venue']!r}"})
            have.add((args.qid, cid, cp["id"]))
            added += 1
    rows.sort(key=lambda r: (r["qid"], r["corpus_id"], r["checkpoint"]))
    _write_jsonl(path, rows)
    print(f"{args.qid}: {added} labels added")
    return 0


def cmd_stats(args) -> int:
    """Per suite and split: intents by type, judged pairs, relevant (grade >= 1) and grade-2 counts."""
    from litnav.evaluation.benchmark import grade_from_labels

    split = json.loads((HERE / "split.json").read_text())
    for suite in SUITES:
        its = intents(suite)
        judged = _judged(suite)
        pool = _read_jsonl(HERE / suite / "pool.jsonl")
        for part in ("dev", "heldout"):
            qids = split[part][suite]
            types: dict[str, int] = {}
            pairs = rel = rel2 = unjudged = 0
            per_q = []
            for q in qids:
                types[its[q]["type"]] = types.get(its[q]["type"], 0) + 1
                cands = {r["corpus_id"] for r in pool if r["qid"] == q}
                n_rel = 0
                for c in cands:
                    g = grade_from_labels(its[q]["checklist"], judged.get((q, c), {}))
                    if g is None:
                        unjudged += 1
                        continue
                    pairs += 1
                    rel += g >= 1
                    rel2 += g == 2
                    n_rel += g >= 1
                per_q.append(n_rel)
            base = rel / pairs if pairs else 0.0
            print(f"{suite} {part}: {len(qids)} intents {types}; judged pairs {pairs} (+{unjudged} not yet); "
                  f"relevant {rel} (grade 2: {rel2}); base rate {base:.3f}; relevant per intent {per_q}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pool")
    p.add_argument("--suite", required=True, choices=SOURCES)
    p.add_argument("--corpus", type=Path, required=True)
    p.add_argument("--systems", default="bm25,dense,hybrid,hybrid+filter,litnav")
    p.add_argument("--depth", type=int, default=20)
    p.add_argument("--qids", default=None)
    p.add_argument("--set", dest="overrides", action="append", default=[])
    pl = sub.add_parser("pool-lexical")
    pl.add_argument("--suite", required=True, choices=SOURCES)
    pl.add_argument("--depth", type=int, default=20)
    s = sub.add_parser("show")
    s.add_argument("--suite", required=True, choices=SOURCES)
    s.add_argument("--qid", required=True)
    s.add_argument("--max", type=int, default=100)
    s.add_argument("--skip", type=int, default=0)
    a = sub.add_parser("add")
    a.add_argument("--suite", required=True, choices=SOURCES)
    a.add_argument("--qid", required=True)
    a.add_argument("file")
    sub.add_parser("stats")
    args = ap.parse_args(argv)
    return {"pool": cmd_pool, "pool-lexical": cmd_pool_lexical, "show": cmd_show, "add": cmd_add, "stats": cmd_stats}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
