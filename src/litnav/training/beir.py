"""Human relevance labels in BEIR layout as student training rows (``litnav scorer convert --format beir``).

A BEIR folder holds ``corpus.jsonl`` (``_id``, ``title``, ``text``; SciFact's ``doc_id`` +
``abstract_sentences`` is read too), ``queries.jsonl`` (``_id``, ``text``) and ``qrels.tsv``
(``query-id  corpus-id  score``, header optional; also found as ``qrels/train.tsv`` or one
``qrels*.tsv`` / ``queries*.jsonl``). Each judged query becomes a topic checkpoint (terms from
``key_phrases``); its papers are

- the judged documents: ``label_score = 5 * score / max score`` of the file, relevant when
  score > 0 (a judged 0 is a labelled negative);
- ``n_hard`` unjudged documents with the highest max-sentence cosine to the query (hard
  negatives) and ``n_random`` random unjudged ones (seeded), label 0.

Evidence = the ``evidence_k`` sentences of the document most cosine-similar to the query, as the
evidence locator would pick them; ``group`` is ``"{query-id}:{corpus-id}"``.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from litnav.core.io import json_lines
from litnav.core.text import sentence_spans
from litnav.scorer.text import key_phrases
from litnav.training.data import DataError, Encoder, RowCheckpoint, RowEvidence, RowPaper, TrainingRow, _embed


def _find(src: Path, given: Path | None, names: list[str], pattern: str, what: str) -> Path:
    if given is not None:
        if not given.is_file():
            raise DataError(f"{given}: {what} file not found")
        return given
    for n in names:
        if (src / n).is_file():
            return src / n
    hits = sorted(src.glob(pattern))
    if len(hits) == 1:
        return hits[0]
    raise DataError(f"{src}: cannot tell the {what} file ({'several' if hits else 'none'} of "
                    f"{names + [pattern]} found{': ' + ', '.join(h.name for h in hits) if hits else ''}); name it explicitly")


def _sentences(d: dict) -> list[str]:
    if isinstance(d.get("abstract_sentences"), list):
        return [str(s).strip() for s in d["abstract_sentences"] if str(s).strip()]
    text = d.get("text") if d.get("text") is not None else d.get("abstract", "")
    if isinstance(text, list):
        return [str(s).strip() for s in text if str(s).strip()]
    text = str(text or "")
    return [text[a:b] for a, b in sentence_spans(text) if text[a:b].strip()] if text.strip() else []


def load_beir(src: str | Path, *, queries: str | Path | None = None, qrels: str | Path | None = None,
              corpus: str | Path | None = None) -> tuple[list[dict], dict[str, str], dict[str, dict[str, int]]]:
    """(documents ``{doc_id, title, sentences}``, queries ``{qid: text}``, qrels ``{qid: {doc_id: score}}``).
    Raises ``DataError`` naming the file and line of a bad record."""
    src = Path(src)
    cpath = _find(src, Path(corpus) if corpus else None, ["corpus.jsonl"], "corpus*.jsonl", "corpus")
    qpath = _find(src, Path(queries) if queries else None, ["queries.jsonl"], "queries*.jsonl", "queries")
    rpath = _find(src, Path(qrels) if qrels else None, ["qrels.tsv", "qrels/train.tsv", "qrels/test.tsv"],
                  "qrels*.tsv", "qrels")
    docs: list[dict] = []
    for lineno, d in json_lines(cpath, error=DataError):
        try:
            doc_id = str(d["_id"] if "_id" in d else d["doc_id"])
            docs.append({"doc_id": doc_id, "title": str(d.get("title") or ""), "sentences": _sentences(d)})
        except (KeyError, TypeError) as exc:
            raise DataError(f"{cpath}:{lineno}: {exc!r}") from exc
    qs: dict[str, str] = {}
    for lineno, d in json_lines(qpath, error=DataError):
        try:
            qs[str(d["_id"])] = str(d["text"]).strip()
        except (KeyError, TypeError) as exc:
            raise DataError(f"{qpath}:{lineno}: {exc!r}") from exc
    judged: dict[str, dict[str, int]] = {}
    with rpath.open(encoding="utf-8", newline="") as fh:
        for lineno, rec in enumerate(csv.reader(fh, delimiter="\t"), 1):
            if not rec or (lineno == 1 and rec[0].strip().lower() in ("query-id", "query_id", "qid")):
                continue
            try:
                qid, doc, score = rec[0].strip(), rec[1].strip(), int(float(rec[-1]))
            except (IndexError, ValueError) as exc:
                raise DataError(f"{rpath}:{lineno}: expected query-id, corpus-id, score: {exc!r}") from exc
            judged.setdefault(qid, {})[doc] = score
    known = {d["doc_id"] for d in docs}
    for qid, per in judged.items():
        if qid not in qs:
            raise DataError(f"{rpath}: query {qid!r} is not in {qpath.name}")
        missing = sorted(set(per) - known)
        if missing:
            raise DataError(f"{rpath}: query {qid!r} judges documents absent from {cpath.name}: {missing[:5]}")
    return docs, qs, judged


def from_beir(src: str | Path, *, queries: str | Path | None = None, qrels: str | Path | None = None,
              corpus: str | Path | None = None, encoder: Encoder | None = None,
              cache_dir: str | Path | None = None, n_hard: int = 5, n_random: int = 5, evidence_k: int = 2,
              seed: int = 0) -> Iterator[TrainingRow]:
    """Training rows from a BEIR folder (see the module docstring). Vectors come from
    ``encoder`` (default: bundled MiniLM), cached in ``cache_dir`` when given. Raises ``DataError``."""
    docs, qs, judged = load_beir(src, queries=queries, qrels=qrels, corpus=corpus)
    if not judged:
        raise DataError(f"{src}: the qrels judge no query")
    top = max(max(per.values()) for per in judged.values())
    if top <= 0:
        raise DataError(f"{src}: no qrels score above 0; nothing is relevant")
    idx = {d["doc_id"]: i for i, d in enumerate(docs)}
    qids = sorted(judged, key=lambda q: (len(q), q))
    cache = Path(cache_dir) if cache_dir is not None else None
    holder: dict = {}
    sents = [s for d in docs for s in d["sentences"]]
    sent_vec = _embed(sents, encoder, cache, "beir-sentences", holder) if sents else np.zeros((0, 1), np.float32)
    q_vec = _embed([qs[q] for q in qids], encoder, cache, "beir-queries", holder)
    title_vec = _embed([d["title"] for d in docs], encoder, cache, "beir-titles", holder)
    offsets = np.cumsum([0] + [len(d["sentences"]) for d in docs])
    owner = np.repeat(np.arange(len(docs)), np.diff(offsets))
    rng = random.Random(seed)
    for qi, qid in enumerate(qids):
        text = qs[qid]
        sims = sent_vec @ q_vec[qi] if len(sents) else np.zeros(0)
        doc_max = np.full(len(docs), -1.0, dtype=np.float32)
        if len(sims):
            np.maximum.at(doc_max, owner, sims)
        per = judged[qid]
        hard = [j for j in np.argsort(-doc_max, kind="stable") if docs[j]["doc_id"] not in per][:n_hard]
        pool = [j for j in range(len(docs)) if docs[j]["doc_id"] not in per and j not in set(hard)]
        easy = rng.sample(pool, min(n_random, len(pool)))
        picks = [(idx[d], s) for d, s in sorted(per.items())] + [(j, 0) for j in hard + easy]
        for j, score in picks:
            d = docs[j]
            s = sims[offsets[j]:offsets[j + 1]]
            order = np.argsort(-s, kind="stable")[:evidence_k]
            yield TrainingRow(
                checkpoint=RowCheckpoint(kind="topic", text=text, terms=key_phrases(text)),
                paper=RowPaper(corpus_id=d["doc_id"], title=d["title"] or "(untitled)",
                               abstract=" ".join(d["sentences"]) or None,
                               title_similarity=float(title_vec[j] @ q_vec[qi])),
                evidence=[RowEvidence(text=d["sentences"][i], similarity=float(s[i])) for i in order],
                label_score=5.0 * max(score, 0) / top, label_relevant=int(score > 0), source="beir",
                group=f"{qid}:{d['doc_id']}")
