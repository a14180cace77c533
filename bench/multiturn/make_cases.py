"""Write the multi-turn anchor benchmark (``cases.jsonl``) and its corpus subset.

The judgements below are by hand (see README.md for the protocol): for each case, the ids in
``judged`` were read (titles, and abstracts where the title was unclear) against the case's query
and judged relevant. The gold of a case is ``judged`` restricted mechanically to the papers that
also satisfy the scripted feedback: the year bound of turn 2 and the exclusion of turn 3 (a paper
whose title or abstract mentions the excluded term is not gold: the user asked to drop it).

    python bench/multiturn/make_cases.py [--subset .cache/neurips-mt.jsonl.gz]

The subset (for machines where embedding all 6,545 abstracts is too slow) holds every case's
anchor, its citers and references, its judging pool (``candidates.pool``), its judged papers and
300 random others (seed 0); edges are kept where both ends are in the subset.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from pathlib import Path

from candidates import load, pool

HERE = Path(__file__).resolve().parent

# (anchor, direction, query, turn-2 year feedback (first year kept), turn-3 excluded term, judged ids)
CASES: list[tuple[str, str, str, int, str, list[str]]] = [
    # successor: papers citing the anchor
    ("2006.11477v3", "successor", "self-supervised speech representation learning", 2022, "music",
     ["2204.09224v2", "2206.02211v3", "2305.08099v3", "2310.01128v3", "2405.14161v1"]),
    ("2106.06860v2", "successor", "offline reinforcement learning algorithms with policy constraints or conservative "
     "value estimation", 2023, "diffusion",
     ["2302.11048v2", "2305.09836v2", "2306.03362v1", "2307.03406v2", "2310.04411v2", "2310.06268v1", "2311.00267v1",
      "2405.05468v1", "2410.14069v1", "2412.18855v1", "2402.05876v1", "2406.00079v1", "2304.13774v1",
      "2407.14653v1", "2402.02439v2", "2402.04080v3", "2405.16907v5", "2407.12448v2"]),
    ("1810.03292v3", "successor", "evaluating the faithfulness and robustness of feature attribution explanations",
     2020, "graph neural network",
     ["2002.00526v3", "2006.06643v2", "2102.10618v4", "2105.06506v3", "2106.00786v2", "2201.12114v3", "2206.11104v5",
      "2209.13429v1", "2306.01464v1", "2307.15007v2"]),
    ("2010.13902v3", "successor", "graph contrastive self-supervised learning", 2022, "molecule",
     ["2206.01535v2", "2208.02810v3", "2210.02330v1", "2305.04501v2", "2310.03312v1", "2406.19258v2", "2412.00742v1",
      "2306.10683v1", "2205.09802v1", "2110.02027v3", "2110.15438v1", "2110.00987v2", "2207.06010v2",
      "2310.03274v2", "2310.14753v2"]),
    ("2006.09011v2", "successor", "diffusion and score-based generative models for images", 2023, "graph",
     ["2301.11699v3", "2302.08357v3", "2305.17431v1", "2310.17638v3", "2311.01797v4", "2403.01666v2", "2405.14822v2",
      "2405.15986v1", "2406.12839v4", "2410.17521v1", "2307.07055v1", "2006.11239v2", "2107.03006v3",
      "2111.04726v1", "2206.08265v2"]),
    ("1705.08690v3", "successor", "continual learning methods that prevent catastrophic forgetting", 2021,
     "reinforcement learning",
     ["2107.04384v1", "2107.05757v2", "2109.14035v3", "2110.00175v1", "2110.11526v3", "2111.07736v1", "2112.02706v1",
      "2205.14922v2", "2210.08442v1", "2211.06866v3", "2303.14771v2", "2306.12646v1", "2306.14775v1", "2406.02428v1",
      "2407.20956v1", "2410.20768v1", "2410.22658v2", "2207.11240v3", "1904.00310v3", "1905.11614v3",
      "1908.04742v3", "2006.14769v3", "2010.00352v1"]),
    ("2005.11401v4", "successor", "retrieval-augmented language models", 2023, "robot",
     ["2310.07713v3", "2405.13792v2", "2407.02485v1", "2406.09459v1", "2404.13207v3", "2410.15116v1",
      "2101.00436v3", "2210.05758v1", "2211.12561v2"]),
    ("2001.06782v4", "successor", "gradient conflict in multi-task optimization", 2022, "reinforcement learning",
     ["2209.11379v1", "2306.03792v3", "2310.08910v1", "2402.02998v2", "2402.04005v2", "2402.19078v3", "2211.02077v1",
      "2206.04496v1", "2109.04617v2"]),
    # predecessor: papers the anchor cites
    ("2402.05876v1", "predecessor", "offline reinforcement learning with pessimism", 2020, "imitation",
     ["2012.15085v3", "2103.01948v2", "2106.04895v2", "2106.06860v2", "2108.08812v1", "2110.08695v1",
      "2103.12021v2", "1812.02900v3", "1906.00949v2"]),
    ("2402.02216v3", "predecessor", "self-supervised and contrastive pretraining of graph neural networks", 2021,
     "molecule", ["2206.01535v2", "2210.02330v1", "2207.06010v2", "2110.00987v2", "2310.14753v2", "2006.05582v1",
                  "2010.13902v3"]),
    ("2110.14565v1", "predecessor", "world models and latent dynamics for model-based reinforcement learning", 2018,
     "disentangle",
     ["1809.01999v1", "1806.02426v1", "2005.05960v2", "1808.04768v3", "1910.00775v1", "2106.15612v2"]),
    ("2202.04736v2", "predecessor", "network pruning and sparse lottery tickets", 2018, "graph",
     ["1810.11809v3", "1906.02773v2", "1911.11134v3", "2007.12223v2", "2010.10732v2", "2101.09048v3", "2102.02887v3",
      "2111.00162v1", "2102.06790v2", "1608.03665v4", "1608.04493v2"]),
    ("2402.19078v3", "predecessor", "multi-objective optimization and Pareto front learning", 2019,
     "Bayesian optimization",
     ["2006.16434v2", "2011.01821v1", "2001.06782v4", "2209.11379v1", "2310.08910v1", "2006.04655v2", "1906.00127v2",
      "2202.07549v4", "1809.07803v2"]),
    ("2301.07067v2", "predecessor", "in-context learning and meta-learning in transformers", 2017, "matrix completion",
     ["1703.03400v3", "1905.05301v2", "2005.14165v4", "2208.01066v3"]),
    ("2406.17711v1", "predecessor", "data selection, pruning and curation for efficient training", 2019,
     "reinforcement learning", ["2107.07075v2", "2206.14486v6", "2305.10429v4", "1704.07433v4", "1704.03003v1"]),
    # sibling: co-cited, coupled or semantically close papers
    ("1905.00414v4", "sibling", "comparing and measuring the similarity of neural network representations", 2018,
     "speech", ["2106.07682v1", "2202.00095v1", "1810.11750v2", "1706.05806v2"]),
    ("2006.09661v1", "sibling", "implicit neural representations and coordinate-based networks", 2021, "adversarial",
     ["2106.02795v3", "2405.10531v1", "2406.03919v2", "2312.00252v1", "2312.06642v1", "2412.01618v1", "2406.12095v2",
      "2106.11944v2", "2006.10739v1", "2210.13982v1"]),
    ("2205.10536v3", "sibling", "knowledge distillation for image classification", 2020, "graph",
     ["2002.01775v3", "2206.14532v1", "2412.08139v1", "2307.11030v2", "2305.15734v1", "2311.01441v2", "2210.13014v2",
      "1806.04606v2", "1905.08114v1"]),
    ("1909.01377v2", "sibling", "implicit layers: deep equilibrium models and differentiable optimization layers",
     2017, "medical", ["1703.00443v5", "2211.09961v1", "2407.05920v1", "2206.02761v2"]),
    ("2206.08720v1", "sibling", "neural tangent kernel theory and computation", 2021, "federated",
     ["2105.03703v1", "2106.03186v4", "2206.03688v2", "2206.12543v3", "2210.05577v2", "2402.11867v3", "2107.12723v2",
      "2106.05710v3", "2110.03681v3", "2207.06343v2", "2002.04026v2", "2010.11775v2"]),
    ("2002.08546v6", "sibling", "source-free unsupervised domain adaptation", 2021, "reinforcement learning",
     ["2110.03374v6", "2202.00796v3", "2205.04183v3", "2206.08009v1", "2210.10378v1"]),
    # benchmark: dataset/benchmark papers the anchor uses or is evaluated on
    ("2212.07489v2", "benchmark", "benchmarks and environments for reinforcement learning", 2019, "language model",
     ["1912.01588v2", "2006.13760v2", "2006.13888v4", "2009.14471v7", "2102.00714v2", "2206.08851v2", "2206.09889v3",
      "2211.03107v1", "2306.08772v2", "2209.10485v1"]),
    ("2410.01926v1", "benchmark", "benchmarks for physical and psychological reasoning of agents", 2021,
     "language model", ["2102.11938v4", "2102.12321v4", "1908.05656v1"]),
    ("2406.06565v2", "benchmark", "benchmarks and evaluation platforms for large language models", 2023, "medical",
     ["2403.04132v1", "2305.14387v4", "2405.00332v4", "2401.12794v3", "2406.17271v1", "2310.00741v2", "2311.18760v4",
      "2401.13178v2", "2406.09948v2", "2410.21965v1", "2306.04618v2", "2402.07844v4", "2410.20745v2", "2402.12659v2",
      "2404.13207v3", "2407.02680v5", "2403.04814v3", "2407.10725v1", "2406.00922v3", "2402.16040v5"]),
    ("2407.12043v2", "benchmark", "benchmarks for the robustness and safety of language models", 2019, "fairness",
     ["2206.08514v2", "2306.04618v2", "2307.04657v3", "2410.21965v1"]),
    ("2407.16695v2", "benchmark", "benchmarks for evaluating language understanding of language models", 2019,
     "safety", ["1905.00537v3", "2107.07170v2", "2206.10668v2", "2206.05224v2", "2211.13112v1", "2410.20745v2",
                "2406.09948v2"]),
    # survey: review-type papers (overviews, re-examinations, large-scale studies, unified views)
    ("2010.13902v3", "survey", "analyses and re-examinations of graph contrastive learning", 2022, "molecule",
     ["2206.01535v2", "2210.02330v1", "2208.02810v3"]),
    ("1706.08500v6", "survey", "large-scale studies and unified views of generative adversarial networks", 2017,
     "compression", ["1711.10337v4", "1902.04697v7", "2111.01035v1", "2110.14439v2"]),
    ("1802.09477v3", "survey", "re-examinations and unified views of deep reinforcement learning methods", 2020,
     "transformer", ["2001.11113v7", "2305.09836v2", "2312.17248v2", "2410.14069v1", "2311.00267v1"]),
    ("2006.11239v2", "survey", "unified frameworks and analyses of diffusion models", 2022, "text",
     ["2305.19638v2", "2404.15766v2", "2409.04847v2", "2310.13165v2"]),
]


def mentions(record: dict, term: str) -> bool:
    """Whole-word, suffix-tolerant match of ``term`` in title + abstract (as ``text_filter`` does)."""
    words = re.findall(r"\w+", term)
    pat = re.compile(r"\b" + r"[\s\-]+".join(map(re.escape, words)) + r"\w*", re.I)
    return bool(pat.search(record["title"] + "\n" + (record.get("abstract") or "")))


def main() -> None:
    ap = argparse.ArgumentParser(description="write bench/multiturn/cases.jsonl and the corpus subset")
    ap.add_argument("--subset", type=Path, default=Path(".cache/neurips-mt.jsonl.gz"))
    ap.add_argument("--distractors", type=int, default=300)
    args = ap.parse_args()
    by, citers = load()
    keep: set[str] = set()
    lines = []
    for n, (anchor, direction, query, year, term, judged) in enumerate(CASES, 1):
        missing = [c for c in [anchor, *judged] if c not in by]
        if missing:
            raise SystemExit(f"case {n}: ids not in the corpus: {missing}")
        gold = [c for c in dict.fromkeys(judged) if (by[c]["year"] or 0) >= year and not mentions(by[c], term)]
        if not gold:
            raise SystemExit(f"case {n} ({anchor} {direction}): no gold left after the feedback constraints")
        lines.append({"id": f"{direction}-{n:02d}", "anchor": anchor, "direction": direction, "query": query,
                      "turns": [f"only papers after {year - 1}", f"drop anything about {term}"],
                      "constraints": {"min_year": year, "exclude": term}, "judged": list(dict.fromkeys(judged)),
                      "gold": gold})
        keep |= {anchor, *judged, *pool(anchor, direction, by, citers, limit=60), *citers.get(anchor, []),
                 *by[anchor]["outbound_citations"]}
    (HERE / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in lines))
    rest = sorted(set(by) - keep)
    keep |= set(random.Random(0).sample(rest, min(args.distractors, len(rest))))
    args.subset.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(args.subset, "wt") as fh:
        for cid in sorted(keep):
            r = dict(by[cid])
            r["outbound_citations"] = [c for c in r["outbound_citations"] if c in keep]
            fh.write(json.dumps(r) + "\n")
    by_dir: dict[str, int] = {}
    for c in lines:
        by_dir[c["direction"]] = by_dir.get(c["direction"], 0) + 1
    print(f"{len(lines)} cases {by_dir}; gold per case {min(len(c['gold']) for c in lines)}.."
          f"{max(len(c['gold']) for c in lines)}; subset {len(keep)} papers -> {args.subset}")


if __name__ == "__main__":
    main()
