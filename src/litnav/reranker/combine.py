"""The final ordering: a rank fusion of the first-stage fused order and the scorer's order.

For the scored top-N candidates (the first N of the fused retrieval list):

    z(d) = w_f * k / (k + r_f(d)) + w_s * k / (k + r_s(d))

where ``r_f`` is d's 1-based rank in the fused retrieval list, ``r_s`` its rank among the scored
candidates by the scorer's final score (ties: fused rank), ``k`` the reciprocal-rank constant
(Cormack, Clarke and Büttcher, SIGIR 2009). Each *soft* metadata preference the paper fails
multiplies z by ``1 - soft_penalty * w_c`` (``w_c`` the checkpoint weight, < 1), so "recent"
re-weights instead of filtering; unknown metadata is not penalised.

Every fused candidate outside the scored set follows below, in fused order. Hence the top M of
the final list (M >= N) holds exactly the fused top M: the scorer can reorder but never lose a
candidate the first stage found, and with ``w_s = 0`` the order is the fused order (a weak scorer
falls back to the fusion). Rank fusion is scale-free: the scorer's probabilities need not be
calibrated for a new domain, only its order must be informative.

The weights live in ``reranker/models/combination.json`` (``load_combination``), fitted on
development data by ``python -m litnav.evaluation.fit_combination`` (the command that wrote the
file is stored in it). The bundled file has ``w_s = 0``: the fit keeps a scorer weight only if it
beats the fused order out of fold, and the bundled student does not, so by default this ordering
is the fused order with soft-preference and exclusion demotions.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path

from litnav.core.io import write_text
from litnav.core.records import ScoredPaper

MODEL_FILE = "combination.json"


@dataclass(frozen=True)
class Combination:
    """Weights of the final rank fusion (see the module docstring).

    ``fusion_weight``/``scorer_weight`` (>= 0) weigh the fused and the scorer's order, ``k`` is the
    reciprocal-rank constant, ``soft_penalty`` in [0, 1] the per-unit-weight penalty of a failed
    soft metadata preference. ``fitted_on``/``command`` record where the weights came from.
    """

    fusion_weight: float = 1.0
    scorer_weight: float = 1.0
    k: float = 60.0
    soft_penalty: float = 0.5
    fitted_on: str = ""
    command: str = ""
    metrics: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.fusion_weight < 0 or self.scorer_weight < 0 or self.k <= 0 or not 0 <= self.soft_penalty <= 1:
            raise ValueError(f"invalid combination weights: {self}")

    def save(self, path: str | Path) -> None:
        """Write the combination as JSON (atomically: a temporary file replaced into place)."""
        write_text(path, json.dumps(asdict(self), indent=2, sort_keys=True) + "\n")


def default_combination_path() -> Path:
    """The bundled combination file (package data)."""
    return Path(str(resources.files("litnav.reranker") / "models" / MODEL_FILE))


def load_combination(path: str | Path | None = None) -> Combination:
    """Load a combination JSON file (None = the bundled one). Raises ``ValueError`` naming the
    file for unreadable JSON or unknown/invalid fields."""
    target = Path(path) if path else default_combination_path()
    try:
        data = json.loads(target.read_text())
        return Combination(**data)
    except (OSError, json.JSONDecodeError, TypeError, ValueError) as exc:
        raise ValueError(f"{target}: not a valid combination file: {exc}") from exc


def combine(
    scored: list[ScoredPaper],
    fused_rank: dict[str, int],
    model: Combination,
    soft_failed: dict[str, float] | None = None,
) -> list[tuple[ScoredPaper, float]]:
    """Order the scored candidates by z (module docstring), best first; returns ``(paper, z)``.

    ``fused_rank[corpus_id]`` is the 1-based rank in the fused list (missing = after all);
    ``soft_failed[corpus_id]`` the summed weight of the soft metadata preferences it fails.
    Ties go to the better fused rank, then the corpus id (deterministic).
    """
    far = len(fused_rank) + len(scored) + 1
    rf = {p.corpus_id: fused_rank.get(p.corpus_id, far) for p in scored}
    by_scorer = sorted(scored, key=lambda p: (-round(p.final_score, 9), -round(p.probability, 9), rf[p.corpus_id],
                                              p.corpus_id))
    rs = {p.corpus_id: i for i, p in enumerate(by_scorer, 1)}
    soft_failed = soft_failed or {}
    out = []
    for p in scored:
        z = (model.fusion_weight * model.k / (model.k + rf[p.corpus_id])
             + model.scorer_weight * model.k / (model.k + rs[p.corpus_id]))
        z *= max(0.0, 1.0 - model.soft_penalty * soft_failed.get(p.corpus_id, 0.0))
        out.append((p, z))
    out.sort(key=lambda pz: (-round(pz[1], 12), rf[pz[0].corpus_id], pz[0].corpus_id))
    return out
