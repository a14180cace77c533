"""Reranker: the final listwise ordering of scored candidates (it does not score checkpoints)."""

from reranker.cross_encoder import cross_encoder_rerank
from reranker.listwise import rank_scored

__all__ = ["rank_scored", "cross_encoder_rerank"]
