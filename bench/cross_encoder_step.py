"""Seconds per cross-encoder training step and per scoring batch, fp32 against bf16 autocast.

The bundled all-MiniLM-L6-v2 as a one-output cross-encoder (``scorer.cross_encoder``), a batch of
``--batch`` (query, abstract-length passage) pairs cut to each of ``--lengths`` word pieces; each
precision runs ``--steps`` AdamW steps (the first is dropped as warm-up) and then scores the batch
``--steps`` times. Prints one JSON line per (length, precision) with the median seconds.

    python bench/cross_encoder_step.py
    python bench/cross_encoder_step.py --lengths 128 --steps 6
"""

from __future__ import annotations

import argparse
import json
import statistics
import time


def main(argv: list[str] | None = None) -> int:
    """Run the measurement; returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lengths", default="128,256")
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args(argv)

    import torch

    from litnav.scorer.cross_encoder import _load_cross_encoder, autocast, default_base_model

    ce = _load_cross_encoder(default_base_model(), 512, num_labels=1)
    model, tok = ce.model, ce.tokenizer
    query = ["graph neural networks for abusive language detection on social media"] * args.batch
    passage = ["We study the detection of abusive language with a model over the graph of users. " * 12] * args.batch
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    for length in (int(x) for x in args.lengths.split(",")):
        enc = tok(query, passage, padding=True, truncation=True, max_length=length, return_tensors="pt")
        for precision in ("fp32", "bf16"):
            train = []
            model.train()
            for _ in range(args.steps):
                t0 = time.perf_counter()
                with autocast("cpu", precision):
                    loss = model(**enc).logits[:, 0].float().pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                train.append(time.perf_counter() - t0)
            score = []
            model.eval()
            with torch.no_grad(), autocast("cpu", precision):
                for _ in range(args.steps):
                    t0 = time.perf_counter()
                    model(**enc)
                    score.append(time.perf_counter() - t0)
            print(json.dumps({"length": length, "precision": precision, "pairs": args.batch,
                              "train_step_s": round(statistics.median(train[1:]), 3),
                              "score_batch_s": round(statistics.median(score[1:]), 3),
                              "threads": torch.get_num_threads()}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
