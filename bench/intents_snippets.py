"""How often a sentence or two of a paper draws a search constraint from its own text.

Samples ``--papers`` abstracts of a corpus (``--seed``), cuts 1, 2 and 3 consecutive sentences
from each, at a random place, and parses each snippet alone and after the paper's title with
``parse_intent`` (the corpus's venues and phrase table). A paper's prose states no search
constraint, so every metadata or exclusion checkpoint counted here is a misreading (a CSFCube-style
facet query that would be filtered by its own "in 2017" or "without retraining"). Prints the
counts by checkpoint kind; ``--show`` prints each misread snippet.

    python bench/intents_snippets.py .cache/bench/citations/corpus --seed 1
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from datetime import date

from litnav.core.text import split_sentences
from litnav.corpus import Corpus
from litnav.corpus.phrases import corpus_phrases
from litnav.navigator.intent.parser import parse_intent

TODAY = date(2026, 12, 2)


def main(argv: list[str] | None = None) -> None:
    """Print ``{total, with_constraints, <kind>:<field>:<hard|soft>: n}`` for one corpus."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus")
    ap.add_argument("--papers", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    with Corpus.open(args.corpus) as corpus:
        venues, phrases = corpus.venues(), corpus_phrases(corpus)
        ids = rng.sample(sorted(corpus.all_ids()), args.papers)
        abstracts, papers = corpus.abstracts(ids), corpus.papers(ids)
    counts: Counter[str] = Counter()
    for cid in ids:
        sentences = split_sentences(abstracts.get(cid) or "")
        if len(sentences) < 3:
            continue
        for n in (1, 2, 3):
            i = rng.randrange(0, len(sentences) - n + 1)
            snippet = " ".join(sentences[i:i + n])
            for text in (snippet, f"{papers[cid].title}. {snippet}"):
                counts["total"] += 1
                odd = [c for c in parse_intent(text, venues, TODAY, phrases).checkpoints if c.kind in ("metadata", "exclusion")]
                if odd:
                    counts["with_constraints"] += 1
                    counts.update(f"{c.kind}:{c.predicate.field if c.predicate else ''}:{'hard' if c.weight >= 1 else 'soft'}"
                                  for c in odd)
                    if args.show:
                        print(f"{text[:160]!r} -> {[c.text for c in odd]}")
    print(dict(counts))


if __name__ == "__main__":
    main()
