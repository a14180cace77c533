"""Exact decisions of metadata checkpoints: the shared rules of ``corpus.predicates``
(re-exported here so the scorer's judgements and the librarians' filter never disagree)."""

from litnav.corpus.predicates import check, evaluate, is_review, surname

__all__ = ["check", "evaluate", "is_review", "surname"]
