"""Clarification without an LLM: when the top results split into distinct groups, ask which to follow.

The abstract vectors of the top results are clustered (k-means, k = 2..``max_branches``, cosine
geometry: the vectors are L2-normalised); the split is offered only when it is clear — the best
mean silhouette (Rousseeuw 1987) reaches ``min_silhouette`` and every group has ``min_size``
papers. Each group is named by its distinctive noun phrases (the keyphrases of its titles and
abstracts, :func:`name_groups`) ranked by (share of the group's papers stating it) − (share of
the other papers stating it). The question follows PaperPilot: "Which branch should I
prioritise? [a] … [b] … [all] [stop]", asked after the results are shown
(``navigator.branch_question.clarify``). Choosing a branch is an edit (a topic checkpoint on any
of the branch's phrases with its own retrieval branches, ``navigator.refine``); ``all`` and
``stop`` change nothing. Without a terminal the default (``all``) is taken and recorded, and a
later refinement can still answer it ("branch a", :func:`branch_answer`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from litnav.core.boilerplate import content_spans
from litnav.core.records import CONTENT_KINDS, Checkpoint, Clarification, Edit, Session
from litnav.core.text import stems, stop_words
from litnav.corpus.phrases import PhraseTable, corpus_phrases
from litnav.navigator.intent.grammar import ed_participle
from litnav.navigator.intent.keyphrases import concepts, generic
from litnav.scorer.text import phrase_in, phrase_key, stem_string

QUESTION = "Which branch should I prioritise?"
MAX_LABEL_WORDS = 3
_WORD = re.compile(r"[^\W\d_][\w-]+")  # any script's letters: "Política", not "tica"
LONE_WORD_FRACTION = 0.01
"""A lone lower-case word names a group only when at most this share of the corpus's papers use
it ("homeostasis"; not "transfer", "action", "estimation")."""
_FOREIGN = frozenset("de la le les des du et en un une nous vous est sont pour dans sur par avec "
                     "el los las y para con por una del und der die das ein eine mit von".split())
"""Function words of French, Spanish and German: a phrase holding one is a fragment of an
abstract in another language ("nous présentons", "de dialogue")."""
_ELIDED = re.compile(r"(?i)[cdjlmnst][’']\w")
"""A French elided article or pronoun ("d’informations", "l'analyse")."""
MIN_NAMED = 0.25
"""A phrase of two words or more, or an acronym, names a group before any lone word when its
share difference (:func:`name_groups`) reaches this."""


@dataclass
class Branch:
    """One group of the top results: its option label, naming terms and member corpus ids (rank order)."""

    label: str
    terms: list[str]
    ids: list[str] = field(default_factory=list)
    of: int = 0

    def describe(self) -> str:
        """``"[a] term, term, term (n of the top m)"`` (``"(n papers)"`` when ``of`` is unknown)."""
        return f"[{self.label}] {', '.join(self.terms)} " + (
            f"({len(self.ids)} of the top {self.of})" if self.of else f"({len(self.ids)} papers)")


def _shown(words: list[str]) -> str:
    """A label as shown: lower case, except a word with a capital inside it ("CLIP", "xRAG",
    "M2-BERT"; not "Multi-Modality")."""
    return " ".join(w if re.search(r"[^\W_][^\W\d_]*?(?<!-)[A-Z]", w) and not re.fullmatch(
        r"[A-Z][a-z]*(?:-[A-Z][a-z]*)+", w) else w.lower() for w in words)


def _candidates(text: str, table: PhraseTable | None, *, single: bool) -> dict[str, str]:
    """Noun phrases that could name a group, by their ``phrase_key``: the keyphrases of
    ``text``'s content sentences (``intent.keyphrases.concepts``: no verb such as "outperforms",
    no word generic in the corpus such as "research"), and the endings of longer ones up to
    :data:`MAX_LABEL_WORDS` words, each ending at the phrase's head ("cross-lingual dense passage
    retrieval" -> "passage retrieval", "dense passage retrieval"). A lone word only when
    ``single`` (a title's words name a topic; an abstract's lone nouns, such as "directions" or
    "limitations", seldom do) and specific in the corpus (``intent.keyphrases.generic``)."""
    content = " ".join(text[s:e] for s, e in content_spans(text))
    stop = stop_words()
    out: dict[str, str] = {}
    for concept in concepts(content, table, compounds=False):
        words = concept.text.split()
        if any(w.lower() in stop or w.lower() in _FOREIGN or _ELIDED.match(w) or w.endswith("-") for w in words) or all(
                generic(w.lower(), table) for w in words):
            continue  # "the retriever itself"; "nous présentons"; "graph- structure" at a line end; "prior work"
        if content[concept.start - 1:concept.start].isalnum() or content[concept.end:concept.end + 1].isalnum():
            continue  # a piece of a word the ASCII tokenizer cut ("tica" of "Política")
        for n in range(1, min(MAX_LABEL_WORDS, len(words)) + 1):
            tail = words[-n:]
            if not re.search(r"[^\W\d_]", tail[-1]) or ed_participle(tail[-1].lower()):
                continue  # "serum 25" of "serum 25-hydroxyvitamin D", "network based": no head noun
            if n == 1 and (not single or generic(tail[0].lower().strip(".'"), table)
                           or not re.search(r"[^\W\d_]{3}", tail[0])
                           or (tail[0].islower() and table is not None and table.doc_fraction(tail[0]) > LONE_WORD_FRACTION)):
                continue
            if key := phrase_key(" ".join(tail)):
                out.setdefault(key, _shown(tail))
    if single:  # words with letters beyond ASCII, which the keyphrase tokenizer cuts ("Política")
        for word in _WORD.findall(content):
            if not word.isascii() and word.lower() not in stop and (key := phrase_key(word)):
                out.setdefault(key, _shown([word]))
    return out


def _restates(label: str, asked_stems: list[set[str]], initials: set[str], table: PhraseTable | None) -> bool:
    """True when ``label`` is the search's own concept again: one of ``asked_stems`` (a concept's
    stems) or an acronym of one (``initials``) with nothing but generic words beside it ("OOD
    samples" for "out-of-distribution detection", "diffusion-based generative models" for
    "diffusion models", "summarization systems"), not a narrower topic ("one-shot NAS",
    "multidocument summarization")."""
    words = label.replace("-", " ").split()
    acronyms = [w for w in words if w.lower().rstrip("s") in initials]
    have = set(_parts(label))
    named = [a for a in asked_stems if a <= have]
    if not acronyms and not named:
        return False
    said = set().union(*asked_stems)
    rest = [w for w in words if w not in acronyms and not set(stems(w)) <= said]
    return all(generic(w.lower(), table) or w.lower() in stop_words() for w in rest)


def _parts(text: str) -> list[str]:
    """Stems of ``text`` with compounds split at hyphens ("diffusion-based" -> "diffus", "base")."""
    return stems(text.replace("-", " "))


def _initialisms(text: str) -> set[str]:
    """The acronyms ``text``'s words could have, lower case: the initials of each run of two or
    more of its words and hyphen parts ("out-of-distribution detection" -> "ood", "oodd", "od",
    ...; "large language models" -> "llm", "lm", ...)."""
    parts = [w for w in re.split(r"[\s-]+", text.lower()) if w and w[0].isalpha()]
    return {"".join(w[0] for w in parts[i:j]) for i in range(len(parts)) for j in range(i + 2, len(parts) + 1)}


def name_groups(texts: dict[str, tuple[str, str]], groups: list[list[str]], n_terms: int = 3,
                table: PhraseTable | None = None, asked: list[str] = ()) -> list[list[str]]:
    """Up to ``n_terms`` distinctive noun phrases per group. ``texts``: corpus id -> (title,
    abstract); ``table``: the corpus's phrase table (``corpus.phrases.corpus_phrases``), which
    cuts and filters the phrases (:func:`_candidates`); ``asked``: the search's own concepts
    (its checkpoints' terms), which every group shares: a phrase they hold ("word sense
    disambiguation", "stem cells" for "stem cell differentiation") names no group.

    A phrase scores (share of the group's papers stating it) - (share of the other papers
    stating it), stemmed (``scorer.text.phrase_in``), and must be stated by two of the group's
    papers. Phrases and acronyms whose score reaches :data:`MIN_NAMED` come first, then the rest
    by score; ties go to the phrase more of the group's titles state, then to the longer one. A
    phrase that holds or is held by one already chosen is skipped."""
    haystacks = {cid: stem_string([stems(title), stems(abstract)]) for cid, (title, abstract) in texts.items()}
    titles = {cid: stem_string([stems(title)]) for cid, (title, _) in texts.items()}
    shown: dict[str, str] = {}
    by_paper: dict[str, set[str]] = {}
    for cid, (title, abstract) in texts.items():
        cands = _candidates(title, table, single=True) | _candidates(abstract, table, single=False)
        by_paper[cid] = set(cands)
        for k, v in cands.items():
            shown.setdefault(k, v)
    said = [k.replace(" ", "") for k in map(phrase_key, asked) if k]
    asked_stems = [set(_parts(a)) for a in asked if _parts(a)]
    initials = {i for a in asked for i in _initialisms(a)}
    out: list[list[str]] = []
    for i, group in enumerate(groups):
        rest = [cid for j, g in enumerate(groups) if j != i for cid in g]
        keys = {k for cid in group for k in by_paper.get(cid, ())}
        scored = []
        for k in keys:
            if any(k.replace(" ", "") in a for a in said) or _restates(shown[k], asked_stems, initials, table):
                continue
            inside = sum(phrase_in(k, haystacks.get(cid, "")) for cid in group)
            if inside < 2:
                continue
            outside = sum(phrase_in(k, haystacks.get(cid, "")) for cid in rest)
            score = inside / len(group) - outside / max(1, len(rest))
            named = " " in k.strip() or shown[k] != shown[k].lower()  # a phrase or an acronym
            in_titles = sum(phrase_in(k, titles.get(cid, "")) for cid in group)
            scored.append((named and score >= MIN_NAMED, score, in_titles, k.count(" "), k))
        terms: list[str] = []
        for *_, k in sorted(scored, reverse=True):
            if any(k in u or u in k for u in terms):
                continue
            terms.append(k)
            if len(terms) == n_terms:
                break
        out.append([shown[k] for k in terms])
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
                  min_silhouette: float = 0.1, seed: int = 0, asked: list[str] = ()) -> list[Branch]:
    """Distinct groups among ``ids`` (the top results, best first), or ``[]`` when the split is
    not clear (see the module docstring); ``asked``: the search's own concepts, which name no
    group (:func:`name_groups`). Deterministic for a given ``seed``."""
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
    texts = {c: (papers[c].title, abstracts.get(c) or "") for c in have if c in papers}
    names = name_groups(texts, groups, table=corpus_phrases(corpus), asked=asked)
    return [Branch(label=chr(ord("a") + i), terms=n or [papers[g[0]].title], ids=g, of=len(have))
            for i, (g, n) in enumerate(zip(groups, names))]


def question(branches: list[Branch]) -> tuple[str, list[str]]:
    """The question text and its options (branch labels, ``all``, ``stop``)."""
    return (f"{QUESTION} " + " ".join(b.describe() for b in branches) + " [all] [stop]",
            [b.label for b in branches] + ["all", "stop"])


def branch_edits(branch: Branch, checkpoint_id: str) -> list[Edit]:
    """The edit a chosen branch becomes: a topic checkpoint on any of the branch's terms (they name
    one group: a paper need not state all three) whose own dense and BM25 retrieval branches join
    the fusion (``navigator.refine`` role ``focus``)."""
    query = " ".join(branch.terms)
    cp = Checkpoint(id=checkpoint_id, kind="topic", text=f"The paper is about {' or '.join(branch.terms)}",
                    terms=list(branch.terms), source="user", any_of=len(branch.terms) > 1)
    return [Edit(action="add_checkpoint", target=cp.id, reason=f"chose branch [{branch.label}]: {query}",
                 detail={"checkpoint": cp.model_dump(mode="json"), "role": "focus", "query": query})]


def latest_branches(session: Session, corpus, top: int) -> list[Branch]:
    """The branches of the latest turn's top ``top`` results (its last round's ranking; the
    search's own concepts and exclusions name none). ``session`` must have turns."""
    turn = session.turns[-1]
    last = session.rounds[turn.rounds[-1] - 1] if turn.rounds else session.rounds[-1]
    ids = [cid for cid, _ in last.ranking[:top]] or [r.corpus_id for r in turn.results]
    asked = [t for c in turn.checklist.checkpoints if c.kind in (*CONTENT_KINDS, "exclusion") for t in c.terms]
    asked += [c.text for c in turn.checklist.checkpoints if c.kind in CONTENT_KINDS]
    return find_branches(corpus, ids, asked=asked)


def branch_checkpoint_id(session: Session) -> str:
    """The first free id ``b1``, ``b2``, ... for a chosen branch's checkpoint."""
    used = {c.id for c in session.turns[-1].checklist.checkpoints}
    n = 1
    while f"b{n}" in used:
        n += 1
    return f"b{n}"


_ANSWER = re.compile(r"\s*(?:(?:follow|choose|take|pick|go\s+with|prioriti[sz]e|prefer)\s+)?"
                     r"(?:(?:the\s+)?(?:branch|option)\s+)?[\[(]?(?P<label>[a-z]|all|stop)[\])]?\s*(?:please)?"
                     r"(?:\s*[.!]?\s*$|\s*[,;]\s*(?:and\s+)?(?P<rest>\S.*))", re.I | re.S)
"""An answer to the branch question, maybe followed by more feedback ("branch a, only after 2005")."""
_LEAVE = re.compile(r"\s*(?:not|no|drop|skip|remove|exclude|without|ignore|avoid)\s+(?:the\s+)?(?:branch|option)\s+"
                    r"[\[(]?([a-z])[\])]?\s*[.!]?\s*$", re.I)


def branch_answer(session: Session, feedback: str, corpus, top: int = 20
                  ) -> tuple[list[Edit], Clarification, str] | None:
    """When ``feedback`` answers the branch question of the latest turn later ("a", "[b]",
    "branch c", "prioritise b", "follow branch a"), the chosen branch's edits
    (:func:`branch_edits`), the answer's record and the rest of the feedback after it ("branch a,
    only after 2005": "only after 2005", else ""); ``None`` when ``feedback`` is no such answer. The
    branches are found again from the latest turn's results (deterministic, :func:`find_branches`).
    Raises ``ValueError`` when the latest turn asked no branch question, the letter is none of its
    branches, or the feedback would leave a branch out ("not branch a": say what to drop)."""
    if _LEAVE.fullmatch(feedback) and session.turns:
        asked = session.turns[-1].clarification
        offered = asked.question if asked is not None and asked.question.startswith(QUESTION) else ""
        raise ValueError(f"{feedback.strip()!r}: a branch cannot be left out by its letter; follow another "
                         "('branch b') or leave out its topic ('drop anything about X')"
                         + (f" — the question was: {offered}" if offered else ""))
    m = _ANSWER.fullmatch(feedback)
    if not m or not session.turns:
        return None
    label = m.group("label").lower()
    turn = session.turns[-1]
    asked = turn.clarification
    if asked is None or not asked.question.startswith(QUESTION) or asked.answer not in ("all", "stop"):
        why = (f"turn {turn.index} followed branch [{asked.answer}]" if asked is not None and asked.answer not in
               ("all", "stop") else f"turn {turn.index} was the refinement {turn.feedback!r}" if turn.feedback
               else f"an anchor search ({turn.direction} of {turn.anchor}) asks none" if turn.anchor
               else "the search's results did not split into distinct groups")
        raise ValueError(f"{feedback.strip()!r} answers a branch question, but the latest turn asked none ({why}); "
                         "'focus on X' follows a topic at any turn")
    if label in ("all", "stop"):
        raise ValueError(f"nothing to change: {label!r} keeps the results as they are (every branch)")
    branches = latest_branches(session, corpus, top)
    branch = next((b for b in branches if b.label == label), None)
    if branch is None or question(branches)[0] != asked.question:
        raise ValueError(f"{feedback.strip()!r} is none of the branches the latest turn offered: {asked.question}")
    record = Clarification(question=asked.question, options=asked.options, answer=label, interactive=True)
    return branch_edits(branch, branch_checkpoint_id(session)), record, (m.group("rest") or "").strip()
