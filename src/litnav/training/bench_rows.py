"""Training (or report-only) rows from the judged intent benchmark ``bench/intents/``.

Each judged (intent, candidate, content checkpoint) becomes one ``TrainingRow``: the checkpoint
text of the benchmark's checklist, the candidate's title + abstract (its evidence: the
``evidence_k`` abstract sentences most cosine-similar to the checkpoint, as the evidence locator
returns them) and ``label_score = 2.5 * label`` (labels 0/1/2 of ``bench/intents/PROTOCOL.md``:
"partly" counts as satisfied at the 0.5 threshold). Benchmark kinds map onto row kinds
(``setting`` -> application; ``population``/``outcome`` -> topic). Exclusions (whose benchmark
text is negated: "The paper does not use Twitter data"), metadata and ``type`` checkpoints are
skipped. ``split`` ("dev" or "heldout", ``bench/intents/split.json``) chooses the intents:
train only on dev, and use held-out rows for reports only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from litnav.core.io import json_lines
from litnav.core.text import sentence_spans
from litnav.training.data import Encoder, RowCheckpoint, RowEvidence, RowPaper, TrainingRow, default_encoder

KIND_MAP = {"topic": "topic", "method": "method", "application": "application", "data": "data",
            "setting": "application", "population": "topic", "outcome": "topic"}


def read_records(paths: list[Path], ids: set[str]) -> dict[str, tuple[str, str]]:
    """``{id: (title, abstract)}`` for the wanted ``ids`` from JSONL(.gz) files (id field: the
    first of ``acl_id``, ``doc_id``, ``id``, ``corpus_id``; a list abstract is joined).
    Raises ``ValueError`` naming ``path:line`` on a line that is not JSON."""
    out: dict[str, tuple[str, str]] = {}
    for path in paths:
        for _lineno, d in json_lines(path):
            pid = next((str(d[k]) for k in ("acl_id", "doc_id", "id", "corpus_id") if k in d), None)
            if pid in ids:
                ab = d.get("abstract") or d.get("abstract_sentences") or ""
                out[pid] = (str(d.get("title") or ""), " ".join(ab) if isinstance(ab, list) else str(ab))
    return out


def judged_rows(folder: str | Path, split: str, sources: list[Path], *, encoder: Encoder | None = None,
                evidence_k: int = 3) -> list[TrainingRow]:
    """Rows of one benchmark suite folder (``bench/intents/<suite>``) for ``split`` (module
    docstring); ``sources`` are the corpus files holding its candidates' records. Candidates
    without a record or an abstract are skipped."""
    folder = Path(folder)
    split_doc = json.loads((folder.parent / "split.json").read_text(encoding="utf-8"))
    qids = set(split_doc[split][folder.name])
    intents = {}
    for _lineno, d in json_lines(folder / "intents.jsonl"):
        if d["qid"] in qids:
            intents[d["qid"]] = {c["id"]: c for c in d["checklist"]}
    judged = []
    for _lineno, j in json_lines(folder / "judgements.jsonl"):
        cp = intents.get(j["qid"], {}).get(j["checkpoint"])
        if cp is not None and cp["kind"] in KIND_MAP:
            judged.append((j, cp))
    records = read_records(sources, {j["corpus_id"] for j, _ in judged})
    judged = [(j, cp) for j, cp in judged if records.get(j["corpus_id"], ("", ""))[1]]
    if not judged:
        return []
    enc = encoder or default_encoder()
    texts = sorted({cp["text"] for _, cp in judged})
    tvec = dict(zip(texts, enc(texts)))
    ids = sorted({j["corpus_id"] for j, _ in judged})
    sents = {i: [records[i][1][a:b].strip() for a, b in sentence_spans(records[i][1])] or [records[i][1]] for i in ids}
    flat = [s for i in ids for s in sents[i]]
    svec = enc(flat)
    titles = enc([records[i][0] or "." for i in ids])
    docs = enc([f"{records[i][0]}\n{records[i][1]}" for i in ids])
    at, k = {}, 0
    for n, i in enumerate(ids):
        at[i] = (k, k + len(sents[i]), n)
        k += len(sents[i])
    rows = []
    for j, cp in judged:
        a, b, n = at[j["corpus_id"]]
        q = tvec[cp["text"]]
        sims = svec[a:b] @ q
        order = np.argsort(-sims, kind="stable")[:evidence_k]
        title, abstract = records[j["corpus_id"]]
        rows.append(TrainingRow(
            checkpoint=RowCheckpoint(kind=KIND_MAP[cp["kind"]], text=re.sub(r"\s+", " ", cp["text"]).strip()),
            paper=RowPaper(corpus_id=j["corpus_id"], title=title, abstract=abstract,
                           title_similarity=float(titles[n] @ q), doc_similarity=float(docs[n] @ q)),
            evidence=[RowEvidence(text=sents[j["corpus_id"]][o], similarity=float(sims[o])) for o in order],
            label_score=2.5 * int(j["label"]), label_relevant=None, source="judged",
            group=f"bench-{folder.name}-{j['qid']}-{cp['id']}:{j['corpus_id']}"))
    return rows
