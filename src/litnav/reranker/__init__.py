"""Reranker: the final listwise ordering of scored candidates (it does not score checkpoints)."""

from litnav.reranker.cross_encoder import cross_encoder_rerank
from litnav.reranker.listwise import rank_scored

__all__ = ["rank_scored", "cross_encoder_rerank"]
