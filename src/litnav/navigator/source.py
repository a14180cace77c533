"""The source of a pasted passage: the corpus paper an intent is quoted from.

A researcher who pastes sentences of a paper (passage mode, ``intent.parser.reading``: an
abstract, a CSFCube-style facet of one) asks for papers *like* it; the paper the text is taken
from matches it best of all and answers nothing. When that paper is in the corpus it is the
search's source, not a result: :func:`find_source` finds it (and any duplicate record of it),
``Checklist.source_ids`` keeps it for every round and turn, and the planner's workflow drops it
after the fusion (``navigator.planner.assemble``, node ``not_source``), as an anchor-paper search
drops its anchor. ``navigator.exclude_source = false`` keeps it.

A text read as a claim (``intent.claims``) has a source only from :data:`CLAIM_SOURCE_MIN_WORDS`
words: a short claim stated verbatim in an abstract ("LDL cholesterol has a causal role in the
development of cardiovascular disease.") is that paper's finding, the evidence a claim search is
for (2 of SciFact's 564 training claim-evidence pairs; none of 20 words or more), while a long one
is a facet of a pasted abstract (67 of the 353 held-out facet queries of ``bench/citations.py``
read as claims).

A paper is the source when the passage's sentences are found in its title + abstract almost
verbatim, in any order (a CSFCube facet is the abstract's sentences of one kind, not always
adjacent ones; a pasted query may put the title first): a sentence is found when
``rapidfuzz.fuzz.partial_ratio`` (the best-aligned substring's similarity, 0-100) of the
normalised words >= :data:`SOURCE_SIMILARITY`, and the sentences found must hold
>= :data:`SOURCE_SHARE` of the passage's words. The passage may be no longer than
:data:`LENGTH_SLACK` times the paper's text (a short record quoted inside a long passage is cited
by it, not its source). Candidates are the passage's BM25 top :data:`CANDIDATES`.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from litnav.core.records import Checklist
from litnav.core.settings import Settings
from litnav.core.text import split_sentences, tokens

SOURCE_SIMILARITY = 90.0
"""Least ``partial_ratio`` (0-100) of a passage's sentence against a paper's title + abstract."""
SOURCE_SHARE = 0.8
"""Least share of the passage's words in sentences found in the paper's text."""
SOURCE_MIN_WORDS = 12
"""Words a passage needs before a paper can be its source: a shorter text may be a common phrase."""
CLAIM_SOURCE_MIN_WORDS = 20
"""Words a text read as a claim needs before a paper can be its source (module doc)."""
LENGTH_SLACK = 1.1
"""Most a passage may outgrow the source's text (in characters, normalised), for a title or
punctuation the paper's record lacks."""
CANDIDATES = 5
"""BM25 hits of the passage examined."""


def _normalised(text: str) -> str:
    return " ".join(tokens(text))


def find_source(text: str, corpus, k: int = CANDIDATES) -> list[str]:
    """Corpus ids of the papers ``text`` is quoted from (module doc), best match first; ``[]`` when
    ``text`` is a request (``intent.parser.reading``), a passage of fewer than
    :data:`SOURCE_MIN_WORDS` words or a claim of fewer than :data:`CLAIM_SOURCE_MIN_WORDS`, or the corpus has no BM25 index yet
    (``librarians.operators.base.missing_channels``). ``corpus`` needs ``lexical_search``,
    ``papers`` and ``abstracts``."""
    from litnav.librarians.operators.base import missing_channels
    from litnav.navigator.intent.parser import reading

    passage = _normalised(text)
    least = {"passage": SOURCE_MIN_WORDS, "claim": CLAIM_SOURCE_MIN_WORDS}.get(reading(text))
    if least is None or len(passage.split()) < least or "lexical" in missing_channels(corpus):
        return []
    sentences = [n for n in map(_normalised, split_sentences(" ".join(text.split()))) if n]
    ids = [h.corpus_id for h in corpus.lexical_search(text, k)]
    papers, abstracts = corpus.papers(ids), corpus.abstracts(ids)
    found = []
    for cid in ids:
        if cid not in papers:
            continue
        record = _normalised(f"{papers[cid].title}. {abstracts.get(cid) or ''}")
        if len(passage) > LENGTH_SLACK * len(record):
            continue
        share = _share_found(sentences, record)
        if share >= SOURCE_SHARE:
            found.append((share, cid))
    return [cid for _, cid in sorted(found, key=lambda x: -x[0])]


def _share_found(sentences: list[str], record: str) -> float:
    """Share of the words of ``sentences`` (normalised) in sentences found in ``record``."""
    words = sum(len(s.split()) for s in sentences)
    found = sum(len(s.split()) for s in sentences
                if len(s) <= len(record) and fuzz.partial_ratio(s, record, score_cutoff=SOURCE_SIMILARITY))
    return found / words if words else 0.0


def with_source(checklist: Checklist, corpus, settings: Settings) -> Checklist:
    """``checklist`` with ``source_ids`` set to :func:`find_source` of its intent when
    ``navigator.exclude_source`` is on and none are set yet; else ``checklist`` unchanged."""
    if not settings.navigator.exclude_source or checklist.source_ids:
        return checklist
    found = find_source(checklist.intent, corpus)
    return checklist.model_copy(update={"source_ids": found}) if found else checklist
