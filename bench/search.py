"""Search latency per stage on the ACL 2016–2022 corpus (26,336 papers with abstracts).

Builds the corpus once into ``--corpus`` (default ``~/.cache/litnav/bench/acl-2016-2022``) from
``../shared/data/corpora/acl_2016-2022_with_abstracts_ccby4.jsonl.gz``, then runs each intent of
``INTENTS`` with ``--rounds`` rounds (default 3). The first query warms the process (model load,
caches) and is not counted; the table shows, per stage, the median and max over the rest.

    python bench/search.py                 # build if needed, 3-round searches
    python bench/search.py --repeat 2 --json out.json
    python bench/search.py --corpus DIR --no-build --intents FILE   # any built corpus, your intents
    python bench/search.py --corpus DIR --no-build --passages 16    # pasted passages (query by example)

Building the 26k corpus embeds its 26,336 titles + abstracts (evidence chunks are embedded lazily, when
a search reads them): 240 s for the whole `litnav build` on 2 Zen 5 cores with the default
openvino-bf16 encoder (2026-12-02), minutes on a GPU (``--set corpus.device=cuda
--set corpus.encoder_backend=torch``).

Exit status 1 when the data file is absent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SOURCE = ROOT.parent / "shared" / "data" / "corpora" / "acl_2016-2022_with_abstracts_ccby4.jsonl.gz"
DEFAULT_CORPUS = Path.home() / ".cache" / "litnav" / "bench" / "acl-2016-2022"
MAPPING = {"id": "acl_id"}
TARGET_S = 5.0
INTENTS = (
    "dense passage retrieval for open-domain question answering",
    "empirical studies of low-resource neural machine translation with back-translation since 2019, "
    "in ACL or EMNLP, not surveys",
    "detecting hate speech or offensive language in social media with transformers, excluding multimodal",
    "knowledge distillation to compress BERT models",
    "evaluation metrics for text summarization that correlate with human judgements, 2020 to 2022",
    "cross-lingual transfer for named entity recognition in low-resource languages",
    "bias and fairness in word embeddings rather than in classifiers",
    "dialogue state tracking on MultiWOZ",
)
STAGES = ("plan", "retrieve", "score", "rerank", "reflect", "total")


def ensure_corpus(corpus_dir: Path, settings=None) -> None:
    """Build the benchmark corpus unless it is already there (a re-run is a no-op)."""
    from litnav.ingest import build

    report = build([SOURCE], corpus_dir, fmt="jsonl", mapping=MAPPING, settings=settings, progress=True)
    print(f"corpus {corpus_dir}: {report.stats if hasattr(report, 'stats') else report}", file=sys.stderr)


def passages(corpus, n: int, seed: int = 7) -> tuple[str, ...]:
    """``n + 1`` passages (the first warms up): sentences 2-3 of random abstracts of >= 4 sentences."""
    import random

    from litnav.core.text import split_sentences

    ids, out = corpus.all_ids(), []
    for cid in random.Random(seed).sample(ids, min(len(ids), 50 * (n + 1))):
        sentences = split_sentences(corpus.abstract(cid) or "")
        if len(sentences) >= 4:
            out.append(" ".join(sentences[1:3]))
        if len(out) == n + 1:
            break
    return tuple(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=1, help="Run the intent list this many times.")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--no-build", action="store_true", help="Use --corpus as it is (no ingest).")
    ap.add_argument("--intents", type=Path, default=None,
                    help="A file of intents, one per line (default: the built-in ACL intents).")
    ap.add_argument("--passages", type=int, default=0, metavar="N",
                    help="Instead of intents: N pasted passages (the 2nd and 3rd sentence of random corpus "
                    "abstracts of >= 4 sentences, seed 7), each quoted from a corpus paper (its source).")
    ap.add_argument("--set", dest="overrides", action="append", default=[],
                    help="Settings override group.field=value (e.g. corpus.device=cuda).")
    args = ap.parse_args(argv)
    if not SOURCE.exists() and not args.no_build:
        print(f"data file {SOURCE} is absent", file=sys.stderr)
        return 1
    from litnav.core.settings import load_settings
    from litnav.corpus import Corpus
    from litnav.navigator import search

    settings = load_settings(overrides=args.overrides)
    settings.navigator.rounds = args.rounds
    if not args.no_build:
        ensure_corpus(args.corpus, settings)
    intents = INTENTS
    if args.intents:
        intents = tuple(line.strip() for line in args.intents.read_text().splitlines() if line.strip())
    corpus = Corpus.open(args.corpus)
    if args.passages:
        intents = passages(corpus, args.passages)
        if not intents:
            print(f"{args.corpus}: no abstract of 4 sentences or more to quote", file=sys.stderr)
            return 1
    t0 = time.perf_counter()
    search(intents[0], corpus, settings)
    warmup = time.perf_counter() - t0
    rows = []
    for _ in range(args.repeat):
        for intent in intents:
            s = search(intent, corpus, settings)
            rows.append({"intent": intent, "rounds": len(s.rounds), "results": len(s.results),
                         "source_ids": s.rounds[0].checklist.source_ids,
                         **{k: s.timings.get(k, 0.0) for k in STAGES}})
    summary = {k: {"median_s": statistics.median(r[k] for r in rows), "max_s": max(r[k] for r in rows)}
               for k in STAGES}
    print(f"\nsearch latency, {len(rows)} warm queries, up to {args.rounds} rounds "
          f"(warm-up query {warmup:.2f}s, not counted), corpus {corpus.stats()['papers']} papers")
    print(f"{'stage':<10}{'median s':>10}{'max s':>10}")
    for k in STAGES:
        print(f"{k:<10}{summary[k]['median_s']:>10.3f}{summary[k]['max_s']:>10.3f}")
    if args.passages:
        print(f"passages whose source was found: {sum(bool(r['source_ids']) for r in rows)} of {len(rows)}")
    print(f"rounds run: median {statistics.median(r['rounds'] for r in rows)}; "
          f"target: 3-round search under {TARGET_S:.0f} s median -> "
          f"{'met' if summary['total']['median_s'] < TARGET_S else 'NOT met'}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "queries": rows, "warmup_s": warmup}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
