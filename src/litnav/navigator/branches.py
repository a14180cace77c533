"""Clarification without an LLM: when the top results split into distinct groups, ask which to follow.

The abstract vectors of the top results are clustered (k-means, k = 2..``max_branches``, cosine
geometry: the vectors are L2-normalised); the split is offered only when it is clear — the best
mean silhouette (Rousseeuw 1987) reaches ``min_silhouette`` and every group has ``min_size``
papers. Each group is named by its distinctive terms: words and two-word phrases of its titles
and abstracts ranked by (share of the group's papers using it) − (share of the other papers
using it). The question follows PaperPilot: "Which branch should I prioritise? [a] … [b] …
[all] [stop]". Choosing a branch is an edit (a topic checkpoint with the branch's terms and its
own retrieval branches, ``navigator.refine``); ``all`` and ``stop`` change nothing. Without a
terminal the default (``all``) is taken and recorded.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from litnav.core.boilerplate import content_spans
from litnav.core.records import Checkpoint, Clarification, Edit, Session
from litnav.core.settings import Settings
from litnav.core.text import stop_words

QUESTION = "Which branch should I prioritise?"
_WORD = re.compile(r"[^\W\d_][\w-]+")  # any script's letters: "Política", not "tica"
_GENERIC = frozenset({
    "paper", "papers", "propose", "proposed", "proposes", "method", "methods", "approach", "approaches", "results",
    "show", "shows", "model", "models", "based", "using", "use", "used", "new", "task", "tasks", "work", "also",
    "present", "study", "performance", "state-of-the-art", "art", "state", "data", "learning", "existing", "well",
    "however", "problem", "problems", "set", "two", "one", "three", "different", "large", "significantly",
    "demonstrate", "experiments", "experimental", "framework", "novel", "improve", "improves", "improved",
    "much", "many", "several", "various", "previous", "prior", "specific", "tested", "test", "first", "better",
    "best", "recent", "within", "across", "including", "provide", "provides", "given", "able", "effective",
    "achieve", "achieves", "obtain", "obtained", "introduce", "introduces", "evaluate", "evaluated",
    "generated", "simple", "general", "high", "low", "number", "way", "ways", "certain", "scratch", "need",
    "needs", "due", "allow", "allows", "enable", "enables", "often", "typically", "usually", "still", "even",
})


@dataclass
class Branch:
    """One group of the top results: its option label, naming terms and member corpus ids (rank order)."""

    label: str
    terms: list[str]
    ids: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """``"[a] term, term, term (n papers)"``."""
        return f"[{self.label}] {', '.join(self.terms)} ({len(self.ids)} papers)"


def _tokens(text: str) -> set[str]:
    """Words and two-word phrases of ``text``'s content sentences (no URL or availability note:
    ``core.boilerplate.content_spans``, so "https" and "github" never name a branch)."""
    stops = stop_words() | _GENERIC
    words = [w for s, e in content_spans(text) for w in _WORD.findall(text[s:e].lower())]
    grams = {w for w in words if w not in stops and len(w) > 2}
    grams |= {f"{a} {b}" for a, b in zip(words, words[1:]) if a not in stops and b not in stops
              and len(a) > 2 and len(b) > 2}
    return grams


def name_groups(texts: dict[str, str], groups: list[list[str]], n_terms: int = 3) -> list[list[str]]:
    """Distinctive terms per group (see the module docstring); a phrase beats its own words
    when it scores as high. ``texts``: corpus id -> title + abstract."""
    docs = {cid: _tokens(t) for cid, t in texts.items()}
    out: list[list[str]] = []
    for i, group in enumerate(groups):
        inside = Counter(t for cid in group for t in docs.get(cid, ()))
        rest = [cid for j, g in enumerate(groups) if j != i for cid in g]
        outside = Counter(t for cid in rest for t in docs.get(cid, ()))
        scored = sorted(((inside[t] / max(1, len(group)) - outside[t] / max(1, len(rest)), " " in t, t)
                         for t in inside if inside[t] >= 2), reverse=True)
        terms: list[str] = []
        for _, _, t in scored:
            if any(t in u.split() or u in t.split() for u in terms):
                continue
            terms.append(t)
            if len(terms) == n_terms:
                break
        out.append(terms)
    return out


def _kmeans(x: np.ndarray, k: int, *, seed: int, n_init: int = 10, max_iter: int = 100) -> np.ndarray:
    """Labels ``[n]`` of the lowest-inertia of ``n_init`` k-means runs over the rows of ``x``
    (Lloyd 1982 with k-means++ seeding, Arthur & Vassilvitskii 2007), deterministic for a given
    ``seed``. Plain numpy on the 20-odd result vectors: scipy's k-means adds ~0.4 s of imports to
    every search, and faiss's OpenMP threads stall for ~1 s on busy shared cores."""
    rng = np.random.default_rng(seed)
    x = np.asarray(x, dtype=np.float64)
    sq = (x * x).sum(axis=1)

    def dist2(centroids: np.ndarray) -> np.ndarray:  # [n, len(centroids)]
        return np.maximum(sq[:, None] - 2 * x @ centroids.T + (centroids * centroids).sum(axis=1)[None, :], 0.0)

    best: tuple[float, np.ndarray] | None = None
    for _ in range(n_init):
        centroids = x[[rng.integers(len(x))]]
        while len(centroids) < k:
            d = dist2(centroids).min(axis=1)
            pick = rng.choice(len(x), p=d / d.sum()) if d.sum() > 0 else rng.integers(len(x))
            centroids = np.vstack([centroids, x[pick]])
        labels = dist2(centroids).argmin(axis=1)
        for _ in range(max_iter):
            centroids = np.stack([x[labels == j].mean(axis=0) if (labels == j).any() else centroids[j]
                                  for j in range(k)])
            new = dist2(centroids).argmin(axis=1)
            if np.array_equal(new, labels):
                break
            labels = new
        inertia = float(dist2(centroids)[np.arange(len(x)), labels].sum())
        if best is None or inertia < best[0]:
            best = (inertia, labels)
    return best[1]


def cosine_silhouette(x: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette (Rousseeuw 1987) of ``labels`` over the rows of ``x`` (L2-normalised,
    ``[n, dim]``) with cosine distance ``1 - x_i . x_j``; a point alone in its cluster scores 0
    (as in scikit-learn's ``silhouette_score``). Needs >= 2 clusters."""
    dist = 1.0 - x @ x.T
    groups = np.unique(labels)
    sums = np.stack([dist[:, labels == g].sum(axis=1) for g in groups], axis=1)  # [n, k]
    sizes = np.array([(labels == g).sum() for g in groups], dtype=np.float64)
    own = np.searchsorted(groups, labels)
    n_own = sizes[own] - 1
    a = np.where(n_own > 0, sums[np.arange(len(x)), own] / np.maximum(n_own, 1), 0.0)
    other = sums / sizes
    other[np.arange(len(x)), own] = np.inf
    b = other.min(axis=1)
    s = np.where(n_own > 0, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(s.mean())


def find_branches(corpus, ids: list[str], *, max_branches: int = 3, min_size: int = 3,
                  min_silhouette: float = 0.1, seed: int = 0) -> list[Branch]:
    """Distinct groups among ``ids`` (the top results, best first), or ``[]`` when the split is
    not clear (see the module docstring). Deterministic for a given ``seed``."""
    have, vecs = corpus.abstract_vectors(ids)
    if len(have) < 2 * min_size:
        return []
    x = np.asarray(vecs, dtype=np.float64)
    x /= np.linalg.norm(x, axis=1, keepdims=True).clip(1e-12)
    best: tuple[float, np.ndarray] | None = None
    for k in range(2, min(max_branches, len(have) // min_size) + 1):
        labels = _kmeans(x, k, seed=seed)
        if np.bincount(labels, minlength=k).min() < min_size:
            continue
        sil = cosine_silhouette(x, labels)
        if best is None or sil > best[0]:
            best = (sil, labels)
    if best is None or best[0] < min_silhouette:
        return []
    rank = {cid: i for i, cid in enumerate(ids)}
    labels = best[1]
    groups = [[c for c, lab in zip(have, labels) if lab == g] for g in sorted(set(labels.tolist()))]
    groups = [sorted(g, key=rank.get) for g in groups]
    groups.sort(key=lambda g: rank[g[0]])  # the group holding the best result is [a]
    papers = corpus.papers(have)
    abstracts = corpus.abstracts(have)
    texts = {c: f"{papers[c].title}. {abstracts.get(c) or ''}" for c in have if c in papers}
    names = name_groups(texts, groups)
    return [Branch(label=chr(ord("a") + i), terms=n or [papers[g[0]].title], ids=g)
            for i, (g, n) in enumerate(zip(groups, names))]


def question(branches: list[Branch]) -> tuple[str, list[str]]:
    """The question text and its options (branch labels, ``all``, ``stop``)."""
    return (f"{QUESTION} " + " ".join(b.describe() for b in branches) + " [all] [stop]",
            [b.label for b in branches] + ["all", "stop"])


def branch_edits(branch: Branch, checkpoint_id: str) -> list[Edit]:
    """The edit a chosen branch becomes: a topic checkpoint with the branch's terms whose own
    dense and BM25 retrieval branches join the fusion (``navigator.refine`` role ``focus``)."""
    query = " ".join(branch.terms)
    cp = Checkpoint(id=checkpoint_id, kind="topic", text=f"The paper is about {', '.join(branch.terms)}",
                    terms=list(branch.terms), source="user")
    return [Edit(action="add_checkpoint", target=cp.id, reason=f"chose branch [{branch.label}]: {query}",
                 detail={"checkpoint": cp.model_dump(mode="json"), "role": "focus", "query": query})]


def clarify(
    session: Session,
    corpus,
    settings: Settings | None = None,
    *,
    ask: Callable[[str, list[str], str], str] | None = None,
    answer: str | None = None,
    top: int = 20,
    default: str = "all",
) -> tuple[Session, list[Branch]]:
    """Offer the branch question on the latest turn of ``session`` when its top ``top`` results
    split clearly; returns the session (with a new turn when a branch was chosen) and the branches.

    The answer is ``answer`` when given, else ``ask(question, options, default)`` when given,
    else ``default`` (non-interactive); it is recorded in ``session.clarifications`` and on the
    turn it created (or the latest turn). Raises ``ValueError`` for an answer that is not an option.
    """
    from litnav.navigator.refine import ensure_turns, run_turn

    settings = settings or Settings()
    ensure_turns(session)
    turn = session.turns[-1]
    last = session.rounds[turn.rounds[-1] - 1] if turn.rounds else session.rounds[-1]
    ids = [cid for cid, _ in last.ranking[:top]] or [r.corpus_id for r in turn.results]
    branches = find_branches(corpus, ids)
    if not branches:
        return session, []
    text, options = question(branches)
    interactive = answer is None and ask is not None
    chosen = answer if answer is not None else ask(text, options, default) if ask is not None else default
    if chosen not in options:
        raise ValueError(f"answer {chosen!r} is not one of {options}")
    record = Clarification(question=text, options=options, answer=chosen, interactive=interactive)
    session.clarifications.append(record)
    branch = next((b for b in branches if b.label == chosen), None)
    if branch is None:
        turn.clarification = record
        return session, branches
    used = {c.id for c in turn.checklist.checkpoints}
    n = 1
    while f"b{n}" in used:
        n += 1
    session = run_turn(session, branch_edits(branch, f"b{n}"), corpus, settings,
                       feedback=f"[{chosen}] {', '.join(branch.terms)}", clarification=record)
    return session, branches
