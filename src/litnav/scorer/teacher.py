"""The teacher scorer: an LLM grades each paper's content checkpoints from the located evidence.

One structured call per paper grades all its content and exclusion checkpoints: a score 0-5 and
a rationale per checkpoint, with a quote that must be a verbatim span of that checkpoint's
evidence (whitespace runs may differ). A quote found in no evidence chunk is sent back for
repair (``litnav.llm.checked``); when the repairs run out the paper's judgement fails with an
``LLMError`` naming the paper, checkpoint and quote. Metadata checkpoints stay exact
(``scorer.scoring``'s metadata judgement), and the final score is the student's formula
``final = (S + p) / 6`` (``scorer.scoring.final_score``).

The holistic probability p: the reply ends with ``"relevant": "yes" | "no"`` and then a stated
``relevance`` 0-5. When the endpoint returns token log-probabilities, p = P(yes) / (P(yes) +
P(no)) over the ``top_logprobs`` alternatives of the token that opens the ``relevant`` value
(prefixes such as ``"y"`` count for their word); otherwise p = relevance / 5.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from litnav.core.records import Checklist, Checkpoint, Evidence, Judgement, ScoredPaper
from litnav.corpus.records import Paper
from litnav.llm import LLMError, TokenLogprob
from litnav.llm.checked import structured_checked
from litnav.llm.fallback import FallbackRecorder
from litnav.scorer.scoring import final_score, metadata_judgement, score_papers, weighted_mean_score

ABSTRACT_CHARS = 1500
MIN_QUOTE_CHARS = 8
_QUOTE_TRIM = " \t\n\"'“”‘’«»"

SYSTEM = (
    "You are the teacher scorer of a literature search system. You grade one paper against a "
    "checklist of requirements, using only the evidence passages shown. For every checkpoint give "
    "a score from 0 (clearly not satisfied) to 5 (clearly satisfied), a quote copied verbatim from "
    "one of that checkpoint's evidence passages (an exact substring, at least a few words), and a "
    "rationale that explains the score with that quote. For an exclusion checkpoint, 5 means the "
    "paper respects the exclusion (it is NOT about the excluded subject). If a checkpoint has no "
    "evidence passage, set quote to null and judge from the title and abstract. Then answer "
    "whether the paper is relevant to the search intent overall (\"yes\" or \"no\") and state its "
    "overall relevance from 0 to 5. Reply with one JSON object only."
)


class CheckpointGrade(BaseModel):
    """The teacher's grade of one checkpoint."""

    model_config = ConfigDict(extra="forbid")

    checkpoint_id: str
    score: float = Field(ge=0.0, le=5.0)
    quote: str | None = Field(description="Verbatim substring of one of this checkpoint's evidence passages.")
    rationale: str = Field(min_length=1)


class PaperGrade(BaseModel):
    """The teacher's reply for one paper (field order matters: ``relevant`` precedes the stated
    ``relevance`` so its token is not conditioned on a number)."""

    model_config = ConfigDict(extra="forbid")

    grades: list[CheckpointGrade]
    relevant: Literal["yes", "no"]
    relevance: int = Field(ge=0, le=5)


@dataclass(frozen=True)
class QuoteSpan:
    """Where a quote lies: the evidence chunk and the span inside its text."""

    evidence: Evidence
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.evidence.text[self.start:self.end]


def find_quote(quote: str, evidence: Sequence[Evidence]) -> QuoteSpan | None:
    """The first evidence chunk containing ``quote`` verbatim, or with whitespace runs differing;
    surrounding quotation marks and a trailing ellipsis are ignored. None when absent or when
    the quote is shorter than ``MIN_QUOTE_CHARS``."""
    q = quote.strip(_QUOTE_TRIM).removesuffix("...").removesuffix("…").strip(_QUOTE_TRIM)
    if len(q) < MIN_QUOTE_CHARS:
        return None
    for ev in evidence:
        i = ev.text.find(q)
        if i >= 0:
            return QuoteSpan(ev, i, i + len(q))
    pattern = re.compile(r"\s+".join(re.escape(w) for w in q.split()))
    for ev in evidence:
        m = pattern.search(ev.text)
        if m:
            return QuoteSpan(ev, m.start(), m.end())
    return None


def _norm_token(token: str) -> str:
    return token.strip(" \t\n\"'").lower()


def yes_probability(logprobs: Sequence[TokenLogprob] | None, field: str = "relevant") -> float | None:
    """P(yes) / (P(yes) + P(no)) at the token opening the string value of ``field`` in a JSON
    reply, from that token's ``top`` alternatives (or the token alone when no alternatives were
    returned). None when there are no log-probabilities, the field is not found, or neither
    word has any mass."""
    if not logprobs:
        return None
    text = "".join(t.token for t in logprobs)
    m = re.search(rf'"{re.escape(field)}"\s*:\s*"', text)
    if m is None:
        return None
    pos = 0
    for tok in logprobs:
        end = pos + len(tok.token)
        if end > m.end() and _norm_token(tok.token[max(0, m.end() - pos):]):
            alts = tok.top or [(tok.token, tok.logprob)]
            p_yes = p_no = 0.0
            for alt, lp in alts:
                a = _norm_token(alt)
                if a and "yes".startswith(a):
                    p_yes += math.exp(lp)
                elif a and "no".startswith(a):
                    p_no += math.exp(lp)
            return p_yes / (p_yes + p_no) if p_yes + p_no > 0 else None
        pos = end
    return None


def _gradable(checklist: Checklist) -> list[Checkpoint]:
    return [c for c in checklist.checkpoints if c.kind != "metadata"]


def paper_prompt(paper: Paper, abstract: str | None, checklist: Checklist,
                 evidence: Mapping[str, list[Evidence]]) -> list[dict[str, str]]:
    """The chat messages grading one paper (deterministic, so replies cache)."""
    head = [f"Search intent: {checklist.intent}", "",
            f"Paper {paper.corpus_id}: {paper.title}"
            + (f" ({', '.join(str(x) for x in (paper.year, paper.venue) if x)})" if paper.year or paper.venue else "")]
    if abstract:
        head.append(f"Abstract: {abstract[:ABSTRACT_CHARS]}")
    lines = ["", "Checkpoints to grade:"]
    for c in _gradable(checklist):
        note = " (5 = the paper is NOT about this)" if c.kind == "exclusion" else ""
        lines.append(f"[{c.id}] {c.kind}{note}: {c.text}")
        evs = evidence.get(c.id, [])
        if not evs:
            lines.append("  evidence: none located")
        for i, e in enumerate(evs, 1):
            lines.append(f"  E{i} ({e.section}, similarity {e.similarity:.2f}): {e.text}")
    lines += ["", f"Grade every checkpoint id exactly once: {', '.join(c.id for c in _gradable(checklist))}."]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(head + lines)}]


def check_grade(grade: PaperGrade, checklist: Checklist, evidence: Mapping[str, list[Evidence]]) -> list[str]:
    """Problems of a reply: checkpoints missing, unknown or graded twice, and quotes that are
    missing (when evidence exists) or not found in that checkpoint's evidence."""
    wanted = {c.id: c for c in _gradable(checklist)}
    problems: list[str] = []
    seen: set[str] = set()
    for g in grade.grades:
        if g.checkpoint_id not in wanted:
            problems.append(f"checkpoint {g.checkpoint_id!r} is not in the checklist; grade only {sorted(wanted)}")
            continue
        if g.checkpoint_id in seen:
            problems.append(f"checkpoint {g.checkpoint_id!r} is graded twice")
        seen.add(g.checkpoint_id)
        evs = evidence.get(g.checkpoint_id, [])
        if g.quote is None:
            if evs and wanted[g.checkpoint_id].kind != "exclusion":
                problems.append(f"checkpoint {g.checkpoint_id!r}: quote is null but evidence passages exist; "
                                "quote one of them verbatim")
        elif not evs:
            problems.append(f"checkpoint {g.checkpoint_id!r}: has no evidence passage, so quote must be null")
        elif find_quote(g.quote, evs) is None:
            problems.append(f"checkpoint {g.checkpoint_id!r}: the quote {g.quote!r} is not in its evidence passages; "
                            "copy an exact substring of one passage")
    missing = [cid for cid in wanted if cid not in seen]
    if missing:
        problems.append(f"checkpoints not graded: {missing}")
    return problems


MAX_RATIONALE_CHARS = 2_000
"""The longest rationale kept of a grade: a model that runs on (a trial's 1 MB per grade) must not
fill the terminal and the session file."""


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_RATIONALE_CHARS else text[:MAX_RATIONALE_CHARS].rstrip() + " [...]"


class Teacher(FallbackRecorder):
    """LLM grading plugged into the scoring stage (``ScoringStage(teacher=...)``).

    ``engine`` is the ``llm.scorer`` engine; ``abstract`` maps a corpus_id to its abstract (e.g.
    ``Corpus.abstract``) for the prompt. When a paper's grading fails with ``LLMError``:
    with ``fallback`` and a ``student`` that paper is scored by the student (recorded in
    ``fallbacks`` and ``engine``), otherwise the error propagates naming the paper.
    ``logprobs=False`` never asks for log-probabilities (for endpoints that reject them).
    """

    fallback_unit = "paper"

    def __init__(self, engine, *, abstract: Callable[[str], str | None] | None = None, student=None,
                 fallback: bool = False, logprobs: bool = True, top_logprobs: int = 5,
                 max_workers: int | None = None):
        self.llm = engine
        self.abstract = abstract or (lambda _cid: None)
        self.student = student
        self.fallback = fallback
        self.logprobs = logprobs
        self.top_logprobs = top_logprobs
        self.max_workers = max_workers or engine.endpoint.max_concurrency
        self.fallbacks: list[str] = []

    @property
    def name(self) -> str:
        return self.llm.name

    def fallback_target(self) -> str:
        """The student that graded the papers the LLM failed on."""
        return self.student.name if self.student is not None else "the student"

    def score_papers(self, papers: Sequence[Paper], checklist: Checklist,
                     evidence: Mapping[str, Mapping[str, list[Evidence]]]) -> list[ScoredPaper]:
        """Grade ``papers`` (same order); ``evidence[corpus_id][checkpoint_id]`` as located.
        Raises ``LLMError`` when a paper cannot be graded and no fallback applies."""
        if not papers:
            return []
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(papers))) as pool:
            return list(pool.map(lambda p: self._one(p, checklist, dict(evidence.get(p.corpus_id, {}))), papers))

    def _one(self, paper: Paper, checklist: Checklist, evidence: dict[str, list[Evidence]]) -> ScoredPaper:
        try:
            return self.score_paper(paper, checklist, evidence)
        except LLMError as exc:
            if not (self.fallback and self.student is not None):
                raise LLMError(f"teacher grading of paper {paper.corpus_id!r} failed: {getattr(exc, 'cause', exc)}",
                               role="scorer", model=self.llm.model) from exc
            self.record_fallback(f"paper {paper.corpus_id}: {exc}")
            return score_papers([paper], checklist, {paper.corpus_id: evidence}, self.student)[0]

    def score_paper(self, paper: Paper, checklist: Checklist, evidence: Mapping[str, list[Evidence]]) -> ScoredPaper:
        """Grade one paper (no fallback). Raises ``LLMError``."""
        metas = {c.id: metadata_judgement(c, paper) for c in checklist.checkpoints if c.kind == "metadata"}
        judged: dict[str, Judgement] = dict(metas)
        probability, prob_engine = None, "metadata only"
        if _gradable(checklist):
            messages = paper_prompt(paper, self.abstract(paper.corpus_id), checklist, evidence)
            kw = {"logprobs": True, "top_logprobs": self.top_logprobs} if self.logprobs else {}
            grade, records = structured_checked(
                self.llm, messages, PaperGrade, lambda g: check_grade(g, checklist, evidence),
                role="scorer", what=f"grades of paper {paper.corpus_id!r}", **kw)
            for g in grade.grades:
                judged[g.checkpoint_id] = self._judgement(checklist.get(g.checkpoint_id), g, evidence)
            probability = yes_probability(records[-1].logprobs)
            prob_engine = f"{self.llm.name}:logprobs"
            if probability is None:
                probability, prob_engine = grade.relevance / 5.0, f"{self.llm.name}:stated"
        judgements = [judged[c.id] for c in checklist.checkpoints]
        if probability is None:  # metadata-only checklist: p is the share of constraints met
            probability = sum(j.score >= 2.5 for j in judgements) / len(judgements) if judgements else 0.0
        return ScoredPaper(corpus_id=paper.corpus_id, judgements=judgements, probability=probability,
                           final_score=final_score(weighted_mean_score(judgements, checklist), probability),
                           probability_engine=prob_engine)

    def _judgement(self, cp: Checkpoint, g: CheckpointGrade, evidence: Mapping[str, list[Evidence]]) -> Judgement:
        """The judgement of grade ``g`` (its rationale cut to :data:`MAX_RATIONALE_CHARS`)."""
        evs = sorted(evidence.get(cp.id, []), key=lambda e: -e.similarity)
        span = find_quote(g.quote, evs) if g.quote else None
        return Judgement(
            checkpoint_id=cp.id, kind=cp.kind, text=cp.text, score=g.score, rationale=_bounded(g.rationale),
            quote=span.text if span else None, quote_chunk_id=span.evidence.chunk_id if span else None,
            quote_start=span.evidence.char_start + span.start if span else None,
            quote_end=span.evidence.char_start + span.end if span else None,
            evidence=evs, engine=self.llm.name)
