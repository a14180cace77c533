"""Train a title + abstract cross-encoder reranker at scale on one GPU, from a corpus's own text.

The CPU runs of ``litnav.training.cross_encoder_run`` (README, "Distilling your own scorer") saw
16,000 rows in 40 minutes; this script mines and trains on every paper of a corpus in minutes on
one GPU, to test whether scale is what those rerankers lacked. It needs only torch and
transformers (not litnav: the GPU machine has neither litnav's dependencies nor its bundled
encoder), so the mining of ``litnav.training.mine`` is re-done here in vectorised form:

- queries: each paper's title (its passage: the abstract without the title, which would give the
  answer away) and one random abstract sentence other than the first (its passage: the title and
  the rest of the abstract, the sentence removed), as in ``litnav.training.mine``;
- negatives per query: the ``--bm25`` best other papers by BM25 (k1 1.2, b 0.75; scikit-learn's
  English stop words, no stemming), the ``--dense`` best by cosine of the base encoder (mean
  pooling, as all-MiniLM-L6-v2), ``--random`` random ones; never a near duplicate of the source
  (cosine >= 0.95);
- ``--val`` of the source papers give held-out rows (never trained on): the report's AUC,
  accuracy at P = 0.5 and base rate (the majority-class share).

Training: binary cross-entropy (``--loss bce``), or a softmax over each query's positive and its
negatives (``--loss lce``: localized contrastive estimation, Gao et al., ECIR 2021), on the
logits of a one-output ``BertForSequenceClassification`` started from ``--base``, AdamW (weight decay 0.01), linear warm-up over 5 % of the steps then
linear decay to 0 at the step that the throughput of the first 100 steps says ``--time-budget``
seconds (from the start) allow, or at the end of the epochs if sooner; bfloat16 autocast. The weights come back
as float16 shards of at most 15 MB (the GPU tool returns files of at most 16 MiB), which
``assemble`` turns into a litnav cross-encoder folder (``scorer.cross_encoder`` delta format):

    # here: the base model in float16 (the tool carries 64 MiB at most)
    python bench/experiments/ce_gpu.py half --out .gpu/base
    # on the GPU machine (carry .gpu):
    python3 bench/experiments/ce_gpu.py train --base .gpu/base \\
        --papers .gpu/acl_2016-2022_with_abstracts_ccby4.jsonl.gz --out $OUT
    # here, with the files that came back:
    python bench/experiments/ce_gpu.py assemble --shards DIR --out ce-gpu/
    litnav eval ... --systems litnav,litnav-no-cross-encoder --set reranker.cross_encoder_path=ce-gpu
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])")
SHARD_BYTES = 15_000_000


def read_papers(paths: list[Path]) -> list[dict]:
    """``{"title", "sentences"}`` per paper with a title and >= 3 abstract sentences of > 20
    characters, from JSONL(.gz) files with ``title`` and ``abstract`` (a string or a list)."""
    out = []
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                d = json.loads(line)
                abstract = d.get("abstract")
                if isinstance(abstract, list):
                    abstract = " ".join(abstract)
                if not d.get("title") or not abstract:
                    continue
                sents = [s.strip() for s in SENT.split(" ".join(abstract.split())) if len(s.strip()) > 20]
                if len(sents) >= 3:
                    out.append({"title": " ".join(str(d["title"]).split()), "sentences": sents})
    return out


def encode(model, tok, texts: list[str], device: str, batch: int = 512):
    """Unit-length mean-pooled vectors (a torch tensor ``[n, 384]``, float32) of ``texts``, cut at 256
    word pieces."""
    import torch

    out = []
    with torch.no_grad(), torch.autocast(torch.device(device).type, dtype=torch.bfloat16):
        for i in range(0, len(texts), batch):
            enc = tok(texts[i:i + batch], padding=True, truncation=True, max_length=256, return_tensors="pt").to(device)
            h = model(**enc).last_hidden_state.float()
            m = enc["attention_mask"].unsqueeze(-1).float()
            v = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
            out.append(torch.nn.functional.normalize(v, dim=-1))
    return torch.cat(out)


def bm25_top(docs: list[str], queries: list[str], k: int, device: str, k1: float = 1.2, b: float = 0.75):
    """Indices ``[len(queries), k]`` of the BM25-best documents per query (Robertson et al.,
    Okapi at TREC-3, 1994; idf ``log(1 + (N - df + 0.5) / (df + 0.5))``), scored on ``device``."""
    import torch
    from sklearn.feature_extraction.text import CountVectorizer

    cv = CountVectorizer(stop_words="english", min_df=2, dtype=np.float32)
    tf = cv.fit_transform(docs).tocsr()
    n = tf.shape[0]
    df = np.bincount(tf.indices, minlength=tf.shape[1]).astype(np.float32)
    idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
    dl = np.asarray(tf.sum(1)).ravel()
    norm = k1 * (1 - b + b * dl / dl.mean())
    w = tf.copy()
    rows = np.repeat(np.arange(n), np.diff(tf.indptr))
    w.data = idf[w.indices] * w.data * (k1 + 1) / (w.data + norm[rows])
    wt = torch.sparse_csr_tensor(torch.from_numpy(w.indptr.astype(np.int64)), torch.from_numpy(w.indices.astype(np.int64)),
                                 torch.from_numpy(w.data), size=w.shape).to(device).to_dense().T.contiguous()
    q = cv.transform(queries).tocsr()
    q.data[:] = 1.0
    tops = []
    for i in range(0, q.shape[0], 2048):
        qd = torch.from_numpy(q[i:i + 2048].toarray()).to(device)
        tops.append(torch.topk(qd @ wt, k, dim=1).indices.cpu())
    return torch.cat(tops).numpy()


def mine(papers: list[dict], model, tok, device: str, args) -> tuple[list, list, dict]:
    """Training groups (one query's positive then its negatives) and validation pairs, each pair
    ``(query, passage, label)`` (see the module docstring)."""
    import torch

    rng = random.Random(args.seed)
    docs = [f"{p['title']} {' '.join(p['sentences'])}" for p in papers]
    queries = []  # (kind, source, text, dropped sentence)
    for i, p in enumerate(papers):
        queries.append(("title", i, p["title"], None))
        j = rng.randrange(1, len(p["sentences"]))
        queries.append(("sentence", i, p["sentences"][j], j))
    t0 = time.time()
    dv = encode(model, tok, docs, device)
    qv = encode(model, tok, [q[2] for q in queries], device)
    depth = args.bm25 + args.dense + 8
    dense_top = torch.cat([torch.topk(qv[i:i + 4096] @ dv.T, depth, dim=1).indices for i in range(0, len(qv), 4096)]).cpu().numpy()
    lex_top = bm25_top(docs, [q[2] for q in queries], depth, device)
    src = torch.tensor([q[1] for q in queries], device=device)
    dup_sets = {}
    for i in range(0, len(queries), 4096):
        s = dv[src[i:i + 4096]] @ dv.T
        for r, c in torch.nonzero(s >= 0.95).cpu().numpy().tolist():
            dup_sets.setdefault(r + i, set()).add(c)
    mined_s = time.time() - t0
    val_papers = set(rng.sample(range(len(papers)), int(args.val * len(papers))))

    def passage(kind: str, cand: int, srcp: int, drop: int | None) -> str:
        p = papers[cand]
        body = " ".join(s for k, s in enumerate(p["sentences"]) if not (cand == srcp and k == drop))
        return body if kind == "title" else f"{p['title']}. {body}"

    train, val = [], []
    for qi, (kind, s, text, drop) in enumerate(queries):
        bad = dup_sets.get(qi, set()) | {s}
        chosen: list[int] = []
        for top, n in ((lex_top[qi], args.bm25), (dense_top[qi], args.dense)):
            for j in top:
                if n <= 0:
                    break
                if int(j) not in bad and int(j) not in chosen:
                    chosen.append(int(j))
                    n -= 1
        while len(chosen) < args.bm25 + args.dense + args.random:
            j = rng.randrange(len(papers))
            if j not in bad and j not in chosen:
                chosen.append(j)
        rows = [(text, passage(kind, s, s, drop), 1.0)] + [(text, passage(kind, j, s, drop), 0.0) for j in chosen]
        if s in val_papers:
            val.extend(rows)
        else:
            train.append(rows)
    return train, val, {"papers": len(papers), "queries": len(queries), "mine_s": round(mined_s, 1)}


def scores(model, tok, pairs, device: str, max_len: int, batch: int = 512) -> np.ndarray:
    """Logits ``[n]`` of the cross-encoder for ``pairs``."""
    import torch

    out = []
    model.eval()
    with torch.no_grad(), torch.autocast(torch.device(device).type, dtype=torch.bfloat16):
        for i in range(0, len(pairs), batch):
            c = pairs[i:i + batch]
            enc = tok([a for a, _, _ in c], [b for _, b, _ in c], padding=True, truncation=True,
                      max_length=max_len, return_tensors="pt").to(device)
            out.append(model(**enc).logits[:, 0].float().cpu())
    return torch.cat(out).numpy()


def train(args) -> int:
    """The ``train`` command: mine, train, report, write float16 shards to ``--out``."""
    import torch
    from safetensors.torch import save_file
    from sklearn.metrics import roc_auc_score
    from transformers import AutoModel, AutoModelForSequenceClassification, AutoTokenizer

    t_start = time.time()
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tok = AutoTokenizer.from_pretrained(args.base)
    papers = read_papers(args.papers)
    if args.limit:
        papers = random.Random(args.seed).sample(papers, min(args.limit, len(papers)))
    enc_model = AutoModel.from_pretrained(args.base, dtype=torch.float32).to(device).eval()
    groups, val_rows, info = mine(papers, enc_model, tok, device, args)
    del enc_model
    g = len(groups[0])
    units = groups if args.loss == "lce" else [[r] for grp in groups for r in grp]
    per_batch = max(1, args.batch_size // len(units[0]))
    train_rows = [r for grp in groups for r in grp]
    print(json.dumps({"mined": info, "train_rows": len(train_rows), "val_rows": len(val_rows),
                      "elapsed_s": round(time.time() - t_start, 1)}), flush=True)
    model = AutoModelForSequenceClassification.from_pretrained(args.base, num_labels=1, dtype=torch.float32).to(device)
    steps = args.epochs * math.ceil(len(units) / per_batch)
    plan = {"steps": steps, "warm": max(1, int(0.05 * steps))}
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(  # the decay ends where the time budget will (re-planned below)
        opt, lambda s: (s + 1) / plan["warm"] if s < plan["warm"]
        else max(0.0, (plan["steps"] - s) / max(1, plan["steps"] - plan["warm"])))
    bce, ce = torch.nn.BCEWithLogitsLoss(), torch.nn.CrossEntropyLoss()
    losses, step, t_train, stopped = [], 0, time.time(), False
    for _epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(units)).tolist()
        for i in range(0, len(order), per_batch):
            b = [r for j in order[i:i + per_batch] for r in units[j]]
            enc = tok([q for q, _, _ in b], [p for _, p, _ in b], padding=True, truncation=True,
                      max_length=args.max_len, return_tensors="pt").to(device)
            with torch.autocast(torch.device(device).type, dtype=torch.bfloat16):
                out = model(**enc).logits[:, 0].float()
            if args.loss == "lce":  # the positive is each group's first pair
                loss = ce(out.view(-1, g), torch.zeros(len(b) // g, dtype=torch.long, device=device))
            else:
                loss = bce(out, torch.tensor([y for _, _, y in b], device=device))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            step += 1
            if step == 100:
                rate = 100 / (time.time() - t_train)
                fit = int(100 + rate * (args.time_budget - (time.time() - t_start)) * 0.97)
                plan["steps"] = max(200, min(steps, fit))
                plan["warm"] = min(plan["warm"], max(1, plan["steps"] // 20))
            if step % 50 == 0:
                losses.append(float(loss.detach()))
            if step % 500 == 0:
                print(json.dumps({"step": step, "of": plan["steps"], "loss": losses[-1], "train_s": round(time.time() - t_train, 1)}), flush=True)
            if time.time() - t_start > args.time_budget or step >= plan["steps"]:
                stopped = True
                break
        if stopped:
            break
    train_s = time.time() - t_train
    z = scores(model, tok, val_rows, device, args.max_len)
    y = np.array([r[2] for r in val_rows])
    report = {"mined": info, "train_rows": len(train_rows), "steps_done": step, "steps_one_epoch": steps,
              "steps_planned": plan["steps"],
              "stopped_early": stopped, "train_s": round(train_s, 1),
              "pairs_per_s": round(step * args.batch_size / max(train_s, 1e-9), 1),
              "loss_every_50_steps": [round(x, 4) for x in losses],
              "val": {"rows": len(val_rows), "auc": round(float(roc_auc_score(y, z)), 4),
                      "accuracy": round(float(((z > 0) == (y > 0.5)).mean()), 4),
                      "base_rate": round(float(max(y.mean(), 1 - y.mean())), 4)},
              "args": {k: json.loads(json.dumps(v, default=str)) for k, v in vars(args).items() if k != "func"},
              "torch": torch.__version__, "device_name": torch.cuda.get_device_name() if device == "cuda" else "cpu"}
    state = {}
    for k, v in model.state_dict().items():  # a tensor over a shard's size goes in row blocks, "name#i"
        v = v.detach().to("cpu", torch.float16).contiguous()
        rows = max(1, SHARD_BYTES // max(1, v[0].numel() * 2)) if v.dim() and v.numel() * 2 > SHARD_BYTES else 0
        state.update({f"{k}#{i}": p.contiguous() for i, p in enumerate(v.split(rows))} if rows else {k: v})
    args.out.mkdir(parents=True, exist_ok=True)
    shard, size, n = {}, 0, 0
    for k, v in state.items():
        if shard and size + v.numel() * 2 > SHARD_BYTES:
            save_file(shard, str(args.out / f"w-{n:02d}.safetensors"))
            shard, size, n = {}, 0, n + 1
        shard[k] = v
        size += v.numel() * 2
    save_file(shard, str(args.out / f"w-{n:02d}.safetensors"))
    (args.out / "report.json").write_text(json.dumps(report, indent=1))
    print(json.dumps({k: report[k] for k in ("steps_done", "steps_planned", "train_s", "pairs_per_s", "val")}))
    return 0


def half(args) -> int:
    """The ``half`` command: the bundled MiniLM (config, tokenizer, weights in float16) to ``--out``."""
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    from litnav.scorer.cross_encoder import default_base_model

    base = default_base_model()
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        shutil.copy(base / name, args.out / name)
    state = load_file(str(base / "model.safetensors"))
    save_file({k: v.to(torch.float16).contiguous() for k, v in state.items()}, str(args.out / "model.safetensors"))
    return 0


def assemble(args) -> int:
    """The ``assemble`` command: shards from ``train`` -> a litnav cross-encoder folder (delta
    format, ``passage`` "abstract"), loaded back once through litnav to check it."""
    import secrets

    from safetensors.torch import load_file, save_file

    from litnav.core.io import write_json
    from litnav.scorer.cross_encoder import FORMAT, CrossEncoderStudent, _load_cross_encoder, default_base_model
    from litnav.scorer.student import STUDENT_FILE

    own = _load_cross_encoder(default_base_model(), 256, num_labels=1).model.state_dict()
    state = {}
    import torch

    for f in sorted(args.shards.glob("w-*.safetensors")):
        state.update(load_file(str(f)))
    blocks = sorted((k for k in state if "#" in k), key=lambda k: (k.split("#")[0], int(k.split("#")[1])))
    for name in dict.fromkeys(k.split("#")[0] for k in blocks):
        state[name] = torch.cat([state.pop(k) for k in blocks if k.split("#")[0] == name])
    state = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
    missing = [k for k in own if k not in state and not k.endswith("position_ids")]
    if missing:
        raise SystemExit(f"{args.shards}: shards lack {missing[:5]}")
    report = json.loads((args.shards / "report.json").read_text())
    args.out.mkdir(parents=True, exist_ok=True)
    weights = f"delta-{secrets.token_hex(4)}.safetensors"
    save_file(state, str(args.out / weights))
    write_json(args.out / STUDENT_FILE, {
        "format": FORMAT, "name": "student:cross-encoder-gpu", "max_seq_length": report["args"]["max_len"],
        "passage": "abstract", "weights": "delta", "weights_path": weights, "relevance_model": None,
        "training": {"kind": "cross-encoder", "script": "bench/experiments/ce_gpu.py", **report}}, indent=1)
    CrossEncoderStudent.load(args.out)
    print(f"{args.out}: {len(state)} tensors")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(required=True)
    t = sub.add_parser("train")
    t.add_argument("--base", type=Path, required=True)
    t.add_argument("--papers", type=Path, action="append", required=True)
    t.add_argument("--out", type=Path, required=True)
    t.add_argument("--limit", type=int, default=0, help="sample this many papers (0: all)")
    t.add_argument("--bm25", type=int, default=3)
    t.add_argument("--dense", type=int, default=3)
    t.add_argument("--random", type=int, default=1)
    t.add_argument("--val", type=float, default=0.02)
    t.add_argument("--epochs", type=int, default=1)
    t.add_argument("--batch-size", type=int, default=64)
    t.add_argument("--lr", type=float, default=5e-5)
    t.add_argument("--loss", choices=("bce", "lce"), default="bce",
                   help="bce: pointwise binary cross-entropy; lce: softmax cross-entropy over each query's "
                   "positive and its negatives (localized contrastive estimation, Gao et al., ECIR 2021)")
    t.add_argument("--max-len", type=int, default=256)
    t.add_argument("--time-budget", type=float, default=300.0, help="seconds from start; training stops there")
    t.add_argument("--seed", type=int, default=0)
    t.set_defaults(func=train)
    h = sub.add_parser("half")
    h.add_argument("--out", type=Path, required=True)
    h.set_defaults(func=half)
    a = sub.add_parser("assemble")
    a.add_argument("--shards", type=Path, required=True)
    a.add_argument("--out", type=Path, required=True)
    a.set_defaults(func=assemble)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
