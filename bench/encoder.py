"""Encoder backends compared in one run on the same texts: throughput and agreement with torch fp32.

Backends: torch (fp32, the reference), torch-bf16 (autocast), onnx (ONNX Runtime fp32), onnx-int8
(dynamic int8 weights), openvino (fp32), all from the packaged all-MiniLM-L6-v2 (exported locally
once, see ``litnav.corpus.onnx_export``).

* Throughput: texts/s on abstract-length texts (SciFact title + abstract) and sentence-length texts
  (SciFact abstract sentences). Backends run interleaved, ``--rounds`` times each, and each round's
  rate is divided by torch fp32's rate of the same round; the report gives the median rate and the
  median ratio (ratios survive a loaded machine better than rates).
* Agreement: every backend embeds the SciFact corpus (all 5,183 abstracts unless ``--docs``) and the
  training claims; mean and minimum cosine of its document vectors to fp32's, and nDCG@10 of exact
  dense retrieval over the qrels (ir-measures), with the difference to fp32.

    python bench/encoder.py                              # everything (long on 2 busy cores)
    python bench/encoder.py --docs 1500 --rounds 3       # a quicker agreement subset
    python bench/encoder.py --backends torch,onnx-int8 --skip-agreement

Writes ``--out`` (JSON) and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "scifact-train"
sys.path.insert(0, str(ROOT / "src"))  # run from a checkout without `pip install -e .`
ALL = ("torch", "torch-bf16", "onnx", "onnx-int8", "openvino", "openvino-bf16")


def load_scifact(data: Path, docs: int | None, seed: int = 0, n_queries: int | None = None):
    """``(doc_ids, doc_texts, sentences, queries {id: text}, qrels {qid: {doc: rel}})``; with
    ``n_queries`` only the first judged queries (by id); with ``docs``, the corpus is cut to every
    document judged for those queries plus a seeded random sample up to ``docs``."""
    import random

    ids, texts, sentences = [], [], []
    for line in (data / "corpus.jsonl").open():
        r = json.loads(line)
        ids.append(str(r["doc_id"]))
        texts.append(f"{r['title']}\n{' '.join(r['abstract_sentences'])}")
        sentences.extend(r["abstract_sentences"])
    qrels: dict[str, dict[str, int]] = {}
    for row in (data / "qrels_train.tsv").read_text().splitlines()[1:]:
        q, d, s = row.split("\t")
        qrels.setdefault(q, {})[d] = int(s)
    queries = {str(r["_id"]): r["text"] for r in map(json.loads, (data / "queries_train.jsonl").open())
               if str(r["_id"]) in qrels}
    if n_queries:
        queries = {q: queries[q] for q in sorted(queries, key=int)[:n_queries]}
        qrels = {q: qrels[q] for q in queries}
    if docs and docs < len(ids):
        judged = {d for rel in qrels.values() for d in rel}
        rest = [i for i in range(len(ids)) if ids[i] not in judged]
        keep = sorted([i for i in range(len(ids)) if ids[i] in judged]
                      + random.Random(seed).sample(rest, max(0, docs - len(judged))))
        ids, texts = [ids[i] for i in keep], [texts[i] for i in keep]
    return ids, texts, sentences, queries, qrels


def ndcg10(doc_ids, doc_vecs, queries, q_vecs, qrels) -> float:
    """nDCG@10 of exact cosine retrieval (ir-measures)."""
    import ir_measures
    from ir_measures import nDCG

    scores = q_vecs @ doc_vecs.T
    run = []
    for qi, q in enumerate(queries):
        top = scores[qi].argsort()[::-1][:100]
        run.extend(ir_measures.ScoredDoc(q, doc_ids[j], float(scores[qi, j])) for j in top)
    qr = [ir_measures.Qrel(q, d, r) for q, rel in qrels.items() if q in queries for d, r in rel.items()]
    return float(ir_measures.calc_aggregate([nDCG @ 10], qr, run)[nDCG @ 10])


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; returns 0."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--backends", default=",".join(ALL))
    p.add_argument("--abstracts", type=int, default=256, help="Abstract-length texts per throughput round.")
    p.add_argument("--sentences", type=int, default=1024, help="Sentence-length texts per throughput round.")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--docs", type=int, default=None, help="Cut the agreement corpus (judged docs + sample).")
    p.add_argument("--queries", type=int, default=None, help="Only the first N judged claims for agreement.")
    p.add_argument("--agreement-backends", default=None,
                   help="Backends whose agreement is measured (default: all of --backends).")
    p.add_argument("--skip-agreement", action="store_true")
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "encoder.json")
    args = p.parse_args(argv)
    if not args.data.is_dir():
        print(f"SciFact data not found at {args.data}", file=sys.stderr)
        return 2
    import numpy as np

    from litnav.corpus.encoder import Encoder

    backends = [b for b in args.backends.split(",") if b]
    if "torch" not in backends:
        backends.insert(0, "torch")
    doc_ids, docs, sentences, queries, qrels = load_scifact(args.data, args.docs, n_queries=args.queries)
    rng = np.random.default_rng(0)
    abs_sample = [docs[i] for i in rng.choice(len(docs), size=min(args.abstracts, len(docs)), replace=False)]
    sent_sample = [sentences[i] for i in rng.choice(len(sentences), size=min(args.sentences, len(sentences)),
                                                     replace=False)]
    encoders = {b: Encoder(backend=b, batch_size=args.batch_size) for b in backends}
    t0 = time.perf_counter()
    for e in encoders.values():  # load / export outside the timings
        e.encode(["warm up"])
    print(f"loaded {len(encoders)} backends in {time.perf_counter() - t0:.1f} s", flush=True)
    result: dict = {"cpu_count": os.cpu_count(), "load_avg_start": os.getloadavg(), "backends": {},
                    "abstracts": len(abs_sample), "sentences": len(sent_sample), "rounds": args.rounds}
    rates = {kind: {b: [] for b in backends} for kind in ("abstracts", "sentences")}
    for r in range(args.rounds):
        for kind, texts in (("abstracts", abs_sample), ("sentences", sent_sample)):
            for b in backends:
                start = time.perf_counter()
                encoders[b].encode(texts)
                rates[kind][b].append(len(texts) / (time.perf_counter() - start))
            print(f"round {r + 1} {kind}: " + ", ".join(f"{b} {rates[kind][b][-1]:.1f}/s" for b in backends),
                  flush=True)
    for b in backends:
        row = result["backends"].setdefault(b, {})
        for kind in rates:
            row[f"{kind}_per_s"] = round(statistics.median(rates[kind][b]), 1)
            row[f"{kind}_x_fp32"] = round(statistics.median(
                x / y for x, y in zip(rates[kind][b], rates[kind]["torch"])), 2)
    if not args.skip_agreement:
        qids = sorted(queries)
        qtexts = [queries[q] for q in qids]
        ref = None
        agree = [b for b in backends if args.agreement_backends is None or b == "torch"
                 or b in args.agreement_backends.split(",")]
        for b in agree:
            start = time.perf_counter()
            dv = encoders[b].encode(docs)
            qv = encoders[b].encode(qtexts)
            row = result["backends"][b]
            row["corpus_embed_s"] = round(time.perf_counter() - start, 1)
            if ref is None:
                ref = (dv, qv)
            cos = (dv * ref[0]).sum(1)
            row["cos_mean"], row["cos_min"] = round(float(cos.mean()), 6), round(float(cos.min()), 6)
            row["ndcg10"] = round(ndcg10(doc_ids, dv, {q: queries[q] for q in qids}, qv, qrels), 4)
            row["ndcg10_delta"] = round(row["ndcg10"] - result["backends"]["torch"]["ndcg10"], 4)
            print(f"{b}: agreement {row}", flush=True)
        result["docs"], result["queries"] = len(docs), len(qids)
    result["load_avg_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    cols = ["abstracts_per_s", "abstracts_x_fp32", "sentences_per_s", "sentences_x_fp32", "corpus_embed_s",
            "cos_mean", "cos_min", "ndcg10", "ndcg10_delta"]
    print("\n| backend | " + " | ".join(cols) + " |\n" + "|---" * (len(cols) + 1) + "|")
    for b, row in result["backends"].items():
        print(f"| {b} | " + " | ".join(str(row.get(c, "")) for c in cols) + " |")
    print(f"\nload average {result['load_avg_start']} -> {result['load_avg_end']} on {result['cpu_count']} CPUs; "
          f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
