"""Teacher-labelled training data from a corpus (``litnav scorer synthesize``).

1. Seed topics: k-means (scikit-learn, seeded) over the stored abstract vectors (a seeded sample
   of at most ``sample`` papers); each cluster's ``seeds_per_topic`` papers nearest its centroid
   are its seed papers.
2. Intents: per cluster one structured teacher call writes ``intents_per_topic`` realistic
   multi-constraint search intents with their checklists (``IntentBatch``); checkpoints are
   validated like the LLM planner's (``navigator.llm_planner.to_checklist``: ids, kinds vs
   predicates, dates, venue vocabulary) plus at least two checkpoints with one content
   checkpoint; rejected replies are repaired (``litnav.llm.checked``).
3. Candidates: the retrieval pipeline runs each intent with its checklist (``SearchRun``, the
   configured student ranking, ``rounds`` rounds). From the ranked pool: the top
   ``positives`` (likely positives), ``partials`` spread over the middle (partial matches), the
   last ``hard_negatives`` (retrieved but ranked low: hard negatives), and ``random_negatives``
   papers from outside the pool (seeded).
4. Labels: the teacher (``scorer.teacher.Teacher``) grades every candidate's content and
   exclusion checkpoints on the located evidence: score 0-5, a rationale with a verbatim
   quote, and the holistic probability p. Each (paper, checkpoint) becomes a
   ``training.data.TrainingRow`` (``source="teacher"``, ``label_relevant = [p >= 0.5]``,
   ``group = "{intent_id}:{corpus_id}"``, the teacher's words in ``row.teacher``).

Resumable: rows are appended to the JSONL output one intent at a time (flushed and fsynced),
then the intent is marked done in the state file ``<out>.state.json`` (written atomically:
temp file + rename). A rerun skips done intents and drops rows of an intent that was
interrupted before its mark (and a torn last line). Cached: every teacher call goes through the
LLM client's disk cache. Costed: tokens and USD from the ``UsageMeter`` in the report.
"""

from __future__ import annotations

import json
import os
import random
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from litnav.core.io import write_json, write_text
from litnav.core.progress import progress_bar
from litnav.core.records import CONTENT_KINDS, Checklist, Usage
from litnav.core.settings import Settings
from litnav.librarians.evidence import evidence_query, locatable, locate_evidence
from litnav.llm import LLMError, UsageMeter, build_engine, engine_for
from litnav.llm.checked import structured_checked
from litnav.llm.factory import ROLES, response_cache
from litnav.navigator.llm_planner import CheckpointDraft, to_checklist

STATE_FORMAT = "litnav-distill-state/1"
ABSTRACT_CHARS = 600

SYSTEM = (
    "You are the intent synthesiser of a literature search system. You are shown a few papers "
    "from one research area of a corpus. Write realistic search intents that a researcher in this "
    "area could type, each with several constraints (a topic plus a method, application, dataset, "
    "exclusion or metadata constraint such as a year range), so that some papers of the corpus "
    "satisfy all of them, some only part. For each intent give its checklist: verifiable "
    "checkpoints with an id (c1, c2, ...), a kind (topic, method, application, data, exclusion, "
    "metadata), a short statement, a weight in [0, 1], key terms, and for kind metadata only a "
    "predicate (field year with ISO start/end dates, venue, publication_type or author). "
    "Reply with one JSON object only."
)


class IntentDraft(BaseModel):
    """One synthesised intent and its checklist."""

    model_config = ConfigDict(extra="forbid")

    intent: str = Field(min_length=1)
    checkpoints: list[CheckpointDraft]


class IntentBatch(BaseModel):
    """The teacher's reply for one seed topic."""

    model_config = ConfigDict(extra="forbid")

    intents: list[IntentDraft]


@dataclass
class DistillConfig:
    """Sizes of the synthesis (see the module docstring); part of the state file, so a rerun
    with other sizes into the same output is refused."""

    topics: int = 8
    intents_per_topic: int = 2
    seeds_per_topic: int = 3
    sample: int = 20000
    positives: int = 4
    partials: int = 4
    hard_negatives: int = 4
    random_negatives: int = 2
    rounds: int = 1
    seed: int = 0


@dataclass
class DistillReport:
    """The outcome of one ``synthesize`` call. ``usage`` is this call's teacher usage (cache
    hits cost nothing); ``failed`` lists papers the teacher could not grade (skipped)."""

    out: Path
    state: Path
    intents_total: int
    intents_done: int
    intents_skipped: int
    rows_written: int
    papers_labelled: int
    usage: Usage
    failed: list[str] = field(default_factory=list)
    dropped_rows: int = 0
    ungraded: list[str] = field(default_factory=list)
    """Intents none of whose candidates the teacher graded: left not done, a rerun asks again."""


class DistillError(RuntimeError):
    """The synthesis cannot run or resume (teacher missing, state of another run, ...)."""


def state_path(out: str | Path) -> Path:
    """The progress file beside the output: ``<out>.state.json``."""
    out = Path(out)
    return out.with_name(out.name + ".state.json")


def teacher_engine(settings: Settings, teacher: str, meter: UsageMeter):
    """The teacher engine: an LLM role (``ROLES``) configured in ``settings.llm``, or an endpoint
    name of ``llm.endpoints``. Raises ``DistillError`` when neither is configured."""
    if teacher in ROLES:
        eng = engine_for(settings, teacher, meter)
        if eng is None:
            raise DistillError(f"--teacher {teacher}: llm.{teacher} names no endpoint; configure it in the settings")
        return eng
    endpoint = settings.llm.endpoints.get(teacher)
    if endpoint is None:
        raise DistillError(f"--teacher {teacher!r} is neither an LLM role {ROLES} nor an endpoint of "
                           f"llm.endpoints {sorted(settings.llm.endpoints)}")
    return build_engine(teacher, endpoint, role="scorer", meter=meter, cache=response_cache(settings.llm))


# -- 1. seed topics ------------------------------------------------------------------------------

def seed_topics(corpus, topics: int, seeds_per_topic: int, sample: int, seed: int) -> list[list[str]]:
    """Seed paper ids per topic: k-means (k = ``topics``, capped by the corpus size) over a
    seeded sample of abstract vectors, then each cluster's papers nearest its centroid,
    clusters ordered by size (largest first). Raises ``DistillError`` on an empty corpus."""
    from sklearn.cluster import KMeans

    ids, vecs = corpus.sample_abstract_vectors(sample, seed=seed)
    if not ids:
        raise DistillError("the corpus has no abstract vectors to cluster")
    k = max(1, min(topics, len(ids)))
    km = KMeans(n_clusters=k, random_state=seed, n_init=4).fit(np.asarray(vecs, dtype=np.float64))
    out = []
    for c in np.argsort(-np.bincount(km.labels_, minlength=k), kind="stable"):
        members = np.flatnonzero(km.labels_ == c)
        dist = np.linalg.norm(vecs[members] - km.cluster_centers_[c], axis=1)
        out.append([ids[i] for i in members[np.argsort(dist, kind="stable")][:seeds_per_topic]])
    return out


# -- 2. intents ----------------------------------------------------------------------------------

def intent_messages(corpus, seed_ids: list[str], n: int) -> list[dict[str, str]]:
    """The chat messages asking for ``n`` intents about the seed papers (deterministic)."""
    papers = corpus.papers(seed_ids)
    abstracts = corpus.abstracts(seed_ids)
    lines = []
    for cid in seed_ids:
        p = papers.get(cid)
        if p is None:
            continue
        meta = ", ".join(str(x) for x in (p.year, p.venue) if x)
        lines.append(f"- {p.title}" + (f" ({meta})" if meta else ""))
        if abstracts.get(cid):
            lines.append(f"  {abstracts[cid][:ABSTRACT_CHARS]}")
    user = ("Papers from one research area:\n" + "\n".join(lines) +
            f"\n\nWrite {n} different search intents for this area, each with its checklist "
            "(at least two checkpoints, at least one of kind topic, method, application or data).")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def check_batch(batch: IntentBatch, n: int, venues: dict[str, int]) -> list[str]:
    """Problems of a reply: no intent, more than ``n``, and per intent the checklist problems
    of ``to_checklist`` plus fewer than two checkpoints or no content checkpoint."""
    problems = [] if batch.intents else ["the reply has no intent"]
    if len(batch.intents) > n:
        problems.append(f"write at most {n} intents, not {len(batch.intents)}")
    for i, d in enumerate(batch.intents, 1):
        _, probs = to_checklist(d.intent, d.checkpoints, venues)
        problems += [f"intent {i}: {p}" for p in probs]
        if len(d.checkpoints) < 2:
            problems.append(f"intent {i}: give at least two checkpoints (a multi-constraint intent)")
        if not any(c.kind in CONTENT_KINDS for c in d.checkpoints):
            problems.append(f"intent {i}: needs a checkpoint of kind topic, method, application or data")
    return problems


def propose_intents(engine, corpus, seed_ids: list[str], n: int) -> list[Checklist]:
    """``n`` (or fewer) validated checklists about the seed papers. Raises ``LLMError``."""
    venues = corpus.venues()
    batch, _ = structured_checked(engine, intent_messages(corpus, seed_ids, n), IntentBatch,
                                  lambda b: check_batch(b, n, venues), role=engine.role,
                                  what=f"intents for seed papers {seed_ids}")
    return [to_checklist(d.intent.strip(), d.checkpoints, venues)[0] for d in batch.intents]


# -- 3. candidates -------------------------------------------------------------------------------

def pick_candidates(ranking: list[str], all_ids: list[str], cfg: DistillConfig, rng: random.Random
                    ) -> list[tuple[str, str]]:
    """``(corpus_id, bucket)`` from a ranked pool (best first): head = ``positive``, evenly
    spread middle = ``partial``, tail = ``hard_negative``, outside the pool = ``random``."""
    head = ranking[:cfg.positives]
    rest = ranking[cfg.positives:]
    tail = rest[max(0, len(rest) - cfg.hard_negatives):] if cfg.hard_negatives else []
    middle = rest[:len(rest) - len(tail)]
    if cfg.partials and middle:
        step = len(middle) / min(cfg.partials, len(middle))
        middle = [middle[int(i * step)] for i in range(min(cfg.partials, len(middle)))]
    else:
        middle = []
    seen = set(ranking)
    outside = [c for c in all_ids if c not in seen]
    rand = rng.sample(outside, min(cfg.random_negatives, len(outside)))
    return ([(c, "positive") for c in head] + [(c, "partial") for c in middle]
            + [(c, "hard_negative") for c in tail] + [(c, "random") for c in rand])


def retrieve(corpus, checklist: Checklist, settings: Settings, student, cfg: DistillConfig) -> list[str]:
    """The ranked pool (ids, best first) of the retrieval pipeline run on ``checklist``."""
    from litnav.navigator.loop import SearchRun

    run = SearchRun(checklist.intent, corpus, settings, rounds=cfg.rounds,
                    top_k=cfg.positives + cfg.partials + cfg.hard_negatives, student=student,
                    planner=lambda _i, _c, _s: (checklist, None, "distill"))
    session = run.run()
    return [cid for cid, _ in session.rounds[-1].ranking] if session.rounds else []


# -- 4. labels -----------------------------------------------------------------------------------

def label_rows(teacher, corpus, checklist: Checklist, intent_id: str, candidates: list[tuple[str, str]],
               evidence_k: int, failed: list[str]) -> tuple[list, int]:
    """Teacher-labelled ``TrainingRow``s of the candidates, and how many papers were graded.
    A paper whose grading fails (``LLMError``) is skipped and named in ``failed``."""
    from litnav.training.data import RowCheckpoint, RowEvidence, RowPaper, TeacherLabel, TrainingRow

    cps = locatable(checklist.checkpoints)
    ids = [c for c, _ in candidates]
    papers = corpus.papers(ids)
    ids = [c for c in ids if c in papers]
    bucket = dict(candidates)
    queries = list(dict.fromkeys(evidence_query(c) for c in cps))
    qvec = dict(zip(queries, corpus.encode(queries))) if queries else {}
    evidence = locate_evidence(corpus, ids, checklist.checkpoints, qvec, evidence_k)
    abstracts = corpus.abstracts(ids)
    tvec = dict(zip(ids, corpus.encode([papers[c].title for c in ids]))) if ids else {}

    def grade(cid: str):
        try:
            return teacher.score_paper(papers[cid], checklist, evidence.get(cid, {}))
        except LLMError as exc:
            failed.append(f"{intent_id}:{cid}: {exc}")
            return None

    with ThreadPoolExecutor(max_workers=max(1, min(teacher.max_workers, len(ids) or 1))) as pool:
        graded = list(pool.map(grade, ids))
    rows, n = [], 0
    for cid, sp in zip(ids, graded):
        if sp is None:
            continue
        n += 1
        by_id = {j.checkpoint_id: j for j in sp.judgements}
        for c in cps:
            j = by_id[c.id]
            evs = evidence.get(cid, {}).get(c.id, [])
            qv = qvec.get(evidence_query(c))
            rows.append(TrainingRow(
                checkpoint=RowCheckpoint(kind=c.kind, text=c.text, terms=list(c.terms)),
                paper=RowPaper(corpus_id=cid, title=papers[cid].title, abstract=abstracts.get(cid),
                               title_similarity=float(np.dot(qv, tvec[cid])) if qv is not None else None),
                evidence=[RowEvidence(text=e.text, similarity=e.similarity, section=e.section) for e in evs],
                label_score=j.score, label_relevant=int(sp.probability >= 0.5), source="teacher",
                group=f"{intent_id}:{cid}", rationale=[j.quote] if j.quote else [],
                teacher=TeacherLabel(rationale=j.rationale, quote=j.quote, probability=sp.probability,
                                     engine=j.engine, bucket=bucket[cid], intent=checklist.intent)))
    return rows, n


# -- state and resumption ------------------------------------------------------------------------

_OWN_GROUP = re.compile(r"t\d{3}-i\d+")
"""The intent id that begins the ``group`` of every row :func:`synthesize` writes ("t003-i1:...")."""


def _recover(out: Path, done: set[str]) -> tuple[int, int]:
    """Keep only valid rows of done intents in ``out`` (rewritten atomically when anything is
    dropped); returns (rows kept, rows dropped). A row of an intent that is not done was written
    by an interrupted run and is dropped; a row synthesize does not write (human labels appended
    by hand, a file of ``scorer convert``) raises ``DistillError`` naming its line, and nothing is
    dropped: the output is synthesize's own file."""
    from litnav.training.data import TrainingRow

    if not out.exists():
        return 0, 0
    keep, dropped = [], 0
    with out.open(encoding="utf-8") as fh:
        lines = fh.readlines()
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = TrainingRow.model_validate_json(line)
        except ValidationError:
            if i < len(lines):
                raise DistillError(f"{out}:{i}: not a training row; synthesize appends only to its own output, "
                                   "so give another --out") from None
            dropped += 1  # a torn last line
            continue
        intent = (row.group or "").split(":", 1)[0]
        if not _OWN_GROUP.fullmatch(intent):
            raise DistillError(f"{out}:{i}: a row synthesize did not write (group {row.group!r}); it appends only to "
                               "its own output: give another --out, and join the files for training "
                               "(`cat a.jsonl b.jsonl > all.jsonl`)")
        if intent in done:
            keep.append(line if line.endswith("\n") else line + "\n")
        else:
            dropped += 1
    if dropped:
        write_text(out, "".join(keep))
    return len(keep), dropped


def _append(out: Path, rows: list) -> None:
    with out.open("a", encoding="utf-8") as fh:
        for r in rows:
            fh.write(r.model_dump_json(exclude_none=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def synthesize(corpus, settings: Settings, teacher: str, out: str | Path, config: DistillConfig | None = None, *,
               meter: UsageMeter | None = None, progress: bool = False) -> DistillReport:
    """Run the synthesis (module docstring) into ``out`` (JSONL) and ``state_path(out)``.

    ``teacher`` names an LLM role or endpoint (``teacher_engine``). Candidates are ranked with
    the student of ``settings``/the corpus (``navigator.students.student_path``). Raises
    ``DistillError`` when the teacher is not configured or the state file belongs to another
    corpus, teacher or configuration; ``LLMError`` when an intent proposal fails.
    """
    from litnav.navigator.students import student_path
    from litnav.scorer import load_student
    from litnav.scorer.teacher import Teacher

    cfg = config or DistillConfig()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meter = meter or UsageMeter()
    engine = teacher_engine(settings, teacher, meter)
    spath = state_path(out)
    ident = {"corpus_fingerprint": corpus.fingerprint(), "teacher": engine.name, "config": asdict(cfg)}
    if spath.exists():
        state = json.loads(spath.read_text(encoding="utf-8"))
        if state.get("format") != STATE_FORMAT:
            raise DistillError(f"{spath}: format {state.get('format')!r}, expected {STATE_FORMAT!r}")
        for key, value in ident.items():
            if state.get(key) != value:
                raise DistillError(f"{spath}: {key} differs from this run ({state.get(key)!r} vs {value!r}); "
                                   "write to another --out or remove the output and its state file")
    else:
        if out.exists() and out.stat().st_size:
            raise DistillError(f"{out} exists and has no state file {spath.name}, so synthesize did not write it; "
                               "give another --out (join the files for training: `cat a.jsonl b.jsonl > all.jsonl`)")
        state = {"format": STATE_FORMAT, **ident, "topics": None, "done": {}}
    _, dropped = _recover(out, set(state["done"]))
    if state["topics"] is None:
        state["topics"] = [{"seed_ids": s, "checklists": None}
                           for s in seed_topics(corpus, cfg.topics, cfg.seeds_per_topic, cfg.sample, cfg.seed)]
        write_json(spath, state, indent=1)

    student = load_student(student_path(settings, corpus))
    grader = Teacher(engine, abstract=corpus.abstract, max_workers=engine.endpoint.max_concurrency,
                     logprobs=settings.scorer.teacher_logprobs)
    all_ids = corpus.all_ids()
    failed: list[str] = []
    ungraded: list[str] = []
    done_now = skipped = rows_written = labelled = 0
    bar = progress_bar(total=len(state["topics"]) * cfg.intents_per_topic, desc="synthesize", unit="intent",
                       progress=progress)
    try:
        for ti, topic in enumerate(state["topics"]):
            if topic["checklists"] is None:
                lists = propose_intents(engine, corpus, topic["seed_ids"], cfg.intents_per_topic)
                topic["checklists"] = [c.model_dump(mode="json") for c in lists]
                write_json(spath, state, indent=1)
            for ii, doc in enumerate(topic["checklists"]):
                intent_id = f"t{ti:03d}-i{ii}"
                if intent_id in state["done"]:
                    skipped += 1
                    bar.update(1)
                    continue
                checklist = Checklist.model_validate(doc)
                ranking = retrieve(corpus, checklist, settings, student, cfg)
                rng = random.Random(f"{cfg.seed}:{intent_id}")
                cands = pick_candidates(ranking, all_ids, cfg, rng)
                rows, n = label_rows(grader, corpus, checklist, intent_id, cands,
                                     settings.librarians.evidence_k, failed)
                if cands and not n:  # the teacher graded none: not done, so a rerun asks again
                    ungraded.append(intent_id)
                    bar.update(1)
                    continue
                _append(out, rows)
                state["done"][intent_id] = {"intent": checklist.intent, "rows": len(rows), "papers": n}
                write_json(spath, state, indent=1)
                done_now += 1
                rows_written += len(rows)
                labelled += n
                bar.update(1)
            bar.total = max(bar.total, bar.n)
    finally:
        bar.close()
    total = sum(len(t["checklists"] or []) for t in state["topics"])
    return DistillReport(out=out, state=spath, intents_total=total, intents_done=done_now, intents_skipped=skipped,
                         rows_written=rows_written, papers_labelled=labelled, usage=meter.total(),
                         failed=failed, dropped_rows=dropped, ungraded=ungraded)


def usage_line(usage: Usage) -> str:
    """``calls, tokens (prompt + completion), cache hits, USD`` of a report, one line."""
    return (f"{usage.calls} teacher calls, {usage.prompt_tokens + usage.completion_tokens} tokens "
            f"({usage.prompt_tokens} prompt + {usage.completion_tokens} completion), "
            f"{usage.cache_hits} cache hits, ${usage.cost_usd:.4f}")


__all__: list[Any] = ["DistillConfig", "DistillError", "DistillReport", "IntentBatch", "check_batch",
                      "pick_candidates", "propose_intents", "seed_topics", "state_path", "synthesize",
                      "teacher_engine", "usage_line"]
