"""One search on a copy of a corpus without its evidence cache: what a new topic costs.

Copies ``--corpus`` (database and indexes, not ``chunk_cache``) to a temporary folder, loads the
query encoder, then runs one search for INTENT and prints its wall and CPU seconds and the word
pieces the encoder was given: real ones and padded ones (batch size x longest text of the batch,
summed over batches), so the effect of batching is visible apart from machine noise.

    python bench/cold_search.py "character-level models for morphologically rich languages" \\
        --corpus .cache/demo-corpus
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("intent")
    ap.add_argument("--corpus", type=Path, default=ROOT / ".cache" / "demo-corpus")
    ap.add_argument("--top", type=int, default=10)
    args = ap.parse_args(argv)
    if not (args.corpus / "corpus.duckdb").is_file():
        print(f"no corpus at {args.corpus} (build one with `litnav demo`)", file=sys.stderr)
        return 1
    from litnav.corpus import encoder as enc

    tokens = {"real": 0, "padded": 0}
    embed = enc._Exported.embed

    def counting(self, ids):
        tokens["real"] += sum(len(x) for x in ids)
        tokens["padded"] += len(ids) * max(len(x) for x in ids)
        return embed(self, ids)

    enc._Exported.embed = counting
    from litnav import Corpus, search
    from litnav.core.settings import Settings

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "corpus"
        shutil.copytree(args.corpus, copy, ignore=shutil.ignore_patterns("chunk_cache", ".lock"))
        with Corpus.open(copy) as corpus:
            corpus.encode(["load the model"])
            tokens.update(real=0, padded=0)
            t0, c0 = time.perf_counter(), time.process_time()
            session = search(args.intent, corpus, Settings(), top_k=args.top)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"cold search: {wall:.2f} s wall, {cpu:.2f} CPU-s; word pieces embedded {tokens['real']:,} "
          f"(padded to {tokens['padded']:,}); {len(session.results)} results")
    return 0


if __name__ == "__main__":
    sys.exit(main())
