"""Reciprocal rank fusion for the ``hybrid`` baseline: the same function the librarians' ``union``
operator uses (``librarians.operators.fusion``), so baseline and system fuse identically."""

from litnav.librarians.operators.fusion import reciprocal_rank_fusion

__all__ = ["reciprocal_rank_fusion"]
