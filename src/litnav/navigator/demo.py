"""The embedded demo: the 250 real ACL papers of the ``aclsum`` package and a few intents."""

from __future__ import annotations

DEMO_INTENTS: tuple[str, ...] = (
    "neural machine translation or speech translation with knowledge distillation, since 2018, "
    "in ACL or NAACL, not surveys",
    "unsupervised dependency parsing or word sense disambiguation before 2012",
    "detecting abusive or offensive language with graph neural networks",
)
"""Example intents: content facets with year, venue, type constraints and an exclusion."""
