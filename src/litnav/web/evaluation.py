"""Measure the matcher: an in-memory ``CorpusLookup`` over a list of papers, and precision /
recall of verified mappings on a labelled set of title variants.

A labelled example is ``{"id", "kind", "title", "authors", "year", "expected_corpus_id",
"expected_status"}``; ``expected_status`` is ``verified`` (the record is that corpus paper
with consistent metadata), ``metadata_mismatch`` (that paper with a wrong year or author) or
``not_found`` (not in the corpus).

precision = correct verified / all verified;  recall = correct verified / examples expected
``verified`` (a verified example counts as correct only with the expected corpus id).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from litnav.core.ids import find_external_id
from litnav.core.text import normalise_title
from litnav.corpus.records import Paper

from .matcher import Matcher
from .records import ExternalRecord


class MemoryCorpus:
    """A ``CorpusLookup`` over ``Paper``s held in memory (evaluation and tests)."""

    def __init__(self, papers: Iterable[Paper]):
        self._papers = {p.corpus_id: p for p in papers}
        self._ids: dict[tuple[str, str], str] = {}
        for p in self._papers.values():
            for kind, value in p.external_ids.items():
                norm = find_external_id(kind, value)
                if norm:
                    self._ids[(kind, norm)] = p.corpus_id

    def find_by_external_id(self, kind: str, value: str) -> str | None:
        """Corpus id with that (normalised) external id, or None."""
        return self._ids.get((kind, value))

    def title_index(self) -> list[tuple[str, str]]:
        """(corpus_id, normalised title) for every paper."""
        return [(cid, normalise_title(p.title)) for cid, p in self._papers.items()]

    def papers(self, ids: Iterable[str]) -> dict[str, Paper]:
        """The papers among ``ids`` that exist."""
        return {i: self._papers[i] for i in ids if i in self._papers}

    def paper(self, corpus_id: str) -> Paper | None:
        """One paper or None."""
        return self._papers.get(corpus_id)


def evaluate(matcher: Matcher, examples: Iterable[dict]) -> dict:
    """Run ``matcher`` over labelled examples; returns precision, recall, counts, the
    confusion of expected vs predicted status, mismatch detection, per-kind recall and the
    wrong verifications (for inspection)."""
    tp = fp = positives = 0
    mismatch_expected = mismatch_found = 0
    confusion: Counter = Counter()
    per_kind: dict[str, Counter] = {}
    errors = []
    for ex in examples:
        rec = ExternalRecord(title=ex["title"], authors=ex.get("authors") or [], year=ex.get("year"),
                             external_ids=ex.get("external_ids") or {}, provider="bibliography")
        m = matcher.match(rec)
        exp = ex["expected_status"]
        confusion[(exp, m.status)] += 1
        k = per_kind.setdefault(ex["kind"], Counter())
        k["n"] += 1
        if exp == "verified":
            positives += 1
        if m.status == "verified":
            if exp == "verified" and m.corpus_id == ex["expected_corpus_id"]:
                tp += 1
                k["verified_correct"] += 1
            else:
                fp += 1
                errors.append({"id": ex["id"], "kind": ex["kind"], "title": ex["title"],
                               "got": m.corpus_id, "expected": ex["expected_corpus_id"], "method": m.method,
                               "confidence": m.confidence})
        if exp == "metadata_mismatch":
            mismatch_expected += 1
            if m.status == "metadata_mismatch" and m.corpus_id == ex["expected_corpus_id"]:
                mismatch_found += 1
        if m.status == exp and (exp == "not_found" or m.corpus_id == ex["expected_corpus_id"]):
            k["status_correct"] += 1
    return {
        "examples": sum(confusion.values()),
        "positives": positives,
        "verified": tp + fp,
        "true_positives": tp,
        "false_positives": fp,
        "precision": tp / (tp + fp) if tp + fp else 1.0,
        "recall": tp / positives if positives else 1.0,
        "mismatch_recall": mismatch_found / mismatch_expected if mismatch_expected else 1.0,
        "confusion": {f"{e}->{p}": n for (e, p), n in sorted(confusion.items())},
        "per_kind": {kind: dict(c) for kind, c in sorted(per_kind.items())},
        "false_verifications": errors,
    }
