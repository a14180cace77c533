"""Train a MiniLM cross-encoder student on mined corpus supervision plus SciFact human labels,
and compare it with the feature student on held-out data it never saw.

    python -m litnav.training.mine --jsonl ../shared/data/corpora/acl_2016-2022_with_abstracts_ccby4.jsonl.gz \
        --papers 500 --queries 120 --out /tmp/mined-acl.jsonl
    python -m litnav.training.mine --jsonl ../shared/data/corpora/neurips_icml_arxiv_citations.jsonl.gz \
        --papers 400 --queries 60 --seed 1 --out /tmp/mined-neurips.jsonl
    flock /tmp/litnav-heavy.lock python -m litnav.training.cross_encoder_run \
        --mined /tmp/mined-acl.jsonl --heldout-mined /tmp/mined-neurips.jsonl \
        --bench bench/intents/acl-pre2016=../shared/data/corpora/acl_anthology_2022-05_papers.jsonl.gz \
        --bench bench/intents/scifact=../shared/data/scifact-train/corpus.jsonl \
        [--scifact ../shared/data/scifact-train] \
        --engine both --trainable-layers 2 --max-len 128 --out my-cross-encoder/ \
        --feature-out my-student.json --report report.json

Training rows: every row of the ``--mined`` files (``litnav.training.mine``) and, from SciFact,
the claims that ``training.train_default.split_claims`` keeps for training (fraction 0.8, seed 0),
each with its positive and ``--scifact-negatives`` of its negatives (seeded sample). Held-out
reports (never used for training or selection): the SciFact held-out claims' rows, and the rows
of ``--heldout-mined`` (mine them from a corpus the training rows do not come from). For each
held-out set the report gives, for the cross-encoder and for the feature student (``--student``,
default the bundled one) and for the cosine of the checkpoint and the paper's title + abstract
alone (``dense_cosine_only``, the first stage's signal; its accuracy at 0.5 is meaningless): ROC
AUC, accuracy at P = 0.5 beside the base rate (the accuracy of always answering the majority
class), and per-query hit@1. ``--bench`` adds a judged suite: dev judgements train, held-out
judgements are reported.

The cross-encoder is about 90 MB (``--delta``: only the tensors that differ from the bundled
MiniLM, float16, ~11 MB with ``--trainable-layers 3``), so it is saved to ``--out`` and used
through ``scorer.student = <that folder>`` (``scorer.device`` picks the torch device); it is not
bundled. With ``--passage abstract`` it reads title + abstract instead of evidence chunks: a
reranker for ``reranker.cross_encoder_path``. The reranker measured in README ("Distilling your
own scorer") was trained with

    flock /tmp/litnav-heavy.lock python -m litnav.training.cross_encoder_run \
        --mined mined-acl.jsonl --scifact ../shared/data/scifact-train \
        --bench bench/intents/acl-pre2016=../shared/data/corpora/acl_anthology_2022-05_papers.jsonl.gz \
        --bench bench/intents/scifact=../shared/data/scifact-train/corpus.jsonl \
        --engine cross-encoder --passage abstract --precision bf16 --max-len 256 --epochs 1 \
        --batch-size 16 --lr 5e-5 --max-train-rows 16000 --trainable-layers 3 \
        --encoder-backend openvino-bf16 --heldout-limit 1200 --out ce-rerank/ --report report.json

after ``python -m litnav.training.mine --jsonl
../shared/data/corpora/acl_2016-2022_with_abstracts_ccby4.jsonl.gz --papers 4000 --queries 1500
--seed 7 --out mined-acl.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from litnav.training.data import TrainingRow, from_scifact, read_rows, scifact_hash

log = logging.getLogger(__name__)


def _query(row: TrainingRow) -> str:
    return (row.group or row.checkpoint.text).split(":", 1)[0]


def binary_report(p: np.ndarray, rows: list[TrainingRow]) -> dict[str, float]:
    """AUC, accuracy at 0.5, base rate (majority-class accuracy), positive rate and per-query
    hit@1 of satisfaction probabilities ``p`` ``[n]`` against the rows' labels (score >= 2.5)."""
    from sklearn.metrics import roc_auc_score

    from litnav.training.train import satisfaction_target

    y = np.array([satisfaction_target(r) >= 0.5 for r in rows], dtype=float)
    by_q: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_q.setdefault(_query(r), []).append(i)
    hit1 = [float(y[idx][int(np.argmax(p[idx]))] == 1) for idx in by_q.values() if y[idx].any()]
    pos = float(y.mean())
    return {"n": len(rows), "queries": len(by_q), "positive_rate": round(pos, 4),
            "base_rate_accuracy": round(max(pos, 1 - pos), 4),
            "accuracy": round(float(((p >= 0.5) == (y == 1)).mean()), 4),
            "auc": round(float(roc_auc_score(y, p)), 4), "hit_at_1": round(float(np.mean(hit1)), 4)}


def feature_probabilities(student, rows: list[TrainingRow]) -> np.ndarray:
    """The feature student's P(satisfied) ``[n]`` for training rows."""
    from litnav.training.train import row_input

    return student.predict_satisfaction([row_input(r) for r in rows])


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; prints and writes the JSON report; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m litnav.training.cross_encoder_run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mined", type=Path, action="append", default=[], help="mined rows (JSONL) to train on")
    ap.add_argument("--scifact", type=Path, help="SciFact folder; its training claims join the training rows")
    ap.add_argument("--scifact-rows", type=Path, help="the rows of scorer data from_scifact(--scifact), written "
                    "earlier with write_rows (saves recomputing them)")
    ap.add_argument("--scifact-negatives", type=int, default=3)
    ap.add_argument("--heldout-mined", type=Path, action="append", default=[], help="mined rows to report on only")
    ap.add_argument("--bench", type=str, action="append", default=[], metavar="SUITE_DIR=CORPUS_FILE",
                    help="a bench/intents suite and the corpus file of its records: its dev judgements join the "
                    "training rows, its held-out judgements are reported on only (training.bench_rows)")
    ap.add_argument("--student", type=Path, help="feature student to compare with (default: bundled)")
    ap.add_argument("--out", type=Path, help="folder for the cross-encoder student")
    ap.add_argument("--feature-out", type=Path, help="JSON file for the feature student trained on the same rows")
    ap.add_argument("--engine", choices=("feature", "cross-encoder", "both"), default="both")
    ap.add_argument("--max-train-rows", type=int, help="seeded sample of the training rows")
    ap.add_argument("--heldout-limit", type=int, help="report on about this many rows per held-out set (whole queries)")
    ap.add_argument("--trainable-layers", type=int, help="train only the top k transformer layers (short CPU runs)")
    ap.add_argument("--report", type=Path, help="write the JSON report here too")
    ap.add_argument("--delta", action="store_true", help="save only the cross-encoder's tensors that differ from the "
                    "bundled MiniLM (float16; ~11 MB with --trainable-layers 3)")
    ap.add_argument("--max-len", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--passage", choices=("evidence", "abstract"), default="evidence",
                    help="what the cross-encoder reads beside the checkpoint: evidence chunks (a checkpoint "
                    "scorer) or title + abstract (a reranker, reranker.cross_encoder_path)")
    ap.add_argument("--precision", choices=("fp32", "bf16"), default="fp32",
                    help="bf16: bfloat16 autocast for training and the reports (CPUs with native bf16)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--encoder-backend", default="torch",
                    help="encoder of the rows' similarities and evidence (training.data.default_encoder)")
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "litnav-scorer-cache")
    args = ap.parse_args(argv)
    from litnav.core.tool import tool_errors

    with tool_errors(ap):
        return _run(ap, args, argv)


def _run(ap: argparse.ArgumentParser, args: argparse.Namespace, argv: list[str] | None) -> int:

    from litnav.scorer import load_student
    from litnav.training.cross_encoder import train_cross_encoder
    from litnav.training.train_default import split_claims

    if args.engine != "feature" and args.out is None:
        ap.error("--out is needed to keep the cross-encoder (or use --engine feature)")
    if args.scifact_rows and not args.scifact:
        ap.error("--scifact-rows needs --scifact (the SciFact folder its held-out claims are split from)")
    for f in [*args.mined, *args.heldout_mined, *([args.scifact_rows] if args.scifact_rows else [])]:
        if not f.is_file():
            ap.error(f"{f}: no such file")
    if not (args.scifact or args.heldout_mined or args.bench):
        log.warning("no held-out data (--scifact, --heldout-mined or --bench): the model is saved unevaluated")

    from litnav.training.data import default_encoder

    enc = default_encoder(backend=args.encoder_backend)
    cache_dir = args.cache_dir if args.encoder_backend == "torch" else args.cache_dir / args.encoder_backend
    rng = random.Random(args.seed)
    train: list[TrainingRow] = [r for f in args.mined for r in read_rows(f)]
    if args.mined and not train:
        ap.error(f"no training rows in {', '.join(map(str, args.mined))}")
    heldout: dict[str, list[TrainingRow]] = {}
    meta: dict = {"mined": [str(f) for f in args.mined]}
    if args.scifact:
        sf = (list(read_rows(args.scifact_rows)) if args.scifact_rows
              else list(from_scifact(args.scifact, encoder=enc, cache_dir=cache_dir, seed=args.seed)))
        sf_train, sf_test = split_claims(sf, 0.2, 0)
        by_claim: dict[str, list[TrainingRow]] = {}
        for r in sf_train:
            by_claim.setdefault(_query(r), []).append(r)
        for rs in by_claim.values():
            pos = [r for r in rs if r.label_score >= 2.5]
            neg = [r for r in rs if r.label_score < 2.5]
            train += pos + rng.sample(neg, min(args.scifact_negatives, len(neg)))
        heldout["scifact_heldout_claims"] = sf_test
        meta.update({"scifact_sha256": scifact_hash(args.scifact), "scifact_heldout": "split_claims(0.2, seed 0)"})
    for f in args.heldout_mined:
        heldout[f"mined:{f.name}"] = list(read_rows(f))
    if args.bench:
        from litnav.training.bench_rows import judged_rows

        for spec in args.bench:
            suite, _, source = spec.partition("=")
            train += judged_rows(Path(suite), "dev", [Path(source)], encoder=enc)
            heldout[f"bench:{Path(suite).name}:heldout"] = judged_rows(Path(suite), "heldout", [Path(source)], encoder=enc)
        meta["bench"] = args.bench
    sources: dict[str, int] = {}
    for r in train:
        sources[r.source] = sources.get(r.source, 0) + 1
    meta["checkpoint_kinds"] = sorted({r.checkpoint.kind for r in train})
    meta["data"] = "+".join(sorted(sources))
    if args.max_train_rows and len(train) > args.max_train_rows:
        train = rng.sample(train, args.max_train_rows)
        sources = {}
        for r in train:
            sources[r.source] = sources.get(r.source, 0) + 1
    for name in list(heldout):
        heldout[name] = _limit(heldout[name], args.heldout_limit, args.seed)
    log.info("training on %d rows %s", len(train), sources)
    meta["command"] = "python -m litnav.training.cross_encoder_run " + " ".join(sys.argv[1:] if argv is None else argv)
    report: dict = {"train_rows": sources, "checkpoint_kinds": meta["checkpoint_kinds"], "heldout": {}}
    engines: dict = {"feature_student_bundled": load_student(args.student)}
    if args.engine in ("feature", "both"):
        from litnav.training.train import train_student

        t0 = time.time()
        mixed = train_student(train, seed=args.seed, name="student:logreg-mixed-v1", metadata=dict(meta))
        report["feature_train_seconds"] = round(time.time() - t0, 1)
        engines["feature_student_mixed"] = mixed
    if args.engine in ("cross-encoder", "both"):
        t0 = time.time()
        engines["cross_encoder"] = train_cross_encoder(
            train, seed=args.seed, epochs=args.epochs, batch_size=args.batch_size, learning_rate=args.lr,
            max_seq_length=args.max_len, device=args.device, name="student:cross-encoder-mixed", metadata=dict(meta),
            trainable_layers=args.trainable_layers, passage=args.passage, precision=args.precision)
        report["cross_encoder_train_seconds"] = round(time.time() - t0, 1)
        done = engines["cross_encoder"].training
        if done["final_loss"] >= 0.98 * done["constant_loss"]:
            log.warning("the cross-encoder's final training loss %.3f is no lower than predicting the mean label "
                        "(%.3f): it learned nothing; more rows, epochs or trainable layers may help",
                        done["final_loss"], done["constant_loss"])
    for name, rows in heldout.items():
        items = [_row_input(r) for r in rows]
        report["heldout"][name] = {k: binary_report(e.predict_satisfaction(items), rows) for k, e in engines.items()}
        report["heldout"][name]["dense_cosine_only"] = binary_report(
            np.array([r.paper.doc_similarity if r.paper.doc_similarity is not None else 0.0 for r in rows]), rows)
    for key, out in (("feature_student_mixed", args.feature_out), ("cross_encoder", args.out)):
        if key in engines and out is not None:
            engines[key].training["heldout"] = {n: v[key] for n, v in report["heldout"].items()}
            engines[key].save(out, **({"delta": args.delta} if key == "cross_encoder" else {}))
    text = json.dumps(report, indent=1)
    print(text)
    if args.report:
        args.report.write_text(text + "\n", encoding="utf-8")
    return 0


def _limit(rows: list[TrainingRow], n: int | None, seed: int) -> list[TrainingRow]:
    """At most about ``n`` rows, whole queries at a time (seeded), so per-query hit@1 stays defined."""
    if not n or len(rows) <= n:
        return rows
    by_q: dict[str, list[TrainingRow]] = {}
    for r in rows:
        by_q.setdefault(_query(r), []).append(r)
    keys = sorted(by_q)
    random.Random(seed).shuffle(keys)
    out: list[TrainingRow] = []
    for k in keys:
        if len(out) >= n:
            break
        out += by_q[k]
    return out


def _row_input(row: TrainingRow):
    from litnav.training.train import row_input

    return row_input(row)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    raise SystemExit(main())
