"""Laboratory animals named by a general word in an exclusion.

A biomedical researcher excludes animal work as "not animal models", "excluding animal studies"
or "no rodent experiments", while the papers say "mice", "murine" or "rats". An exclusion whose
term names animals in general (:data:`GENERAL`) is also violated by a paper about one of the
laboratory species (:data:`SPECIES`), so "excluding animal studies" catches "a fat-specific
PPARγ knockout mouse model". A paper that names the species only as other work ("in mice,
X was shown") is left to the verdict rules (``scorer.quote.mentions_other_work``).
"""

from __future__ import annotations

import re

GENERAL = re.compile(r"\b(?:animals?|rodents?|murine|in\s+vivo\s+(?:models?|studies|experiments))\b", re.I)
"""A term naming laboratory animals in general."""

SPECIES = ("mice", "mouse", "murine", "rats", "rat", "rodents", "rodent", "animal models", "animal model")
"""The laboratory animals (and the general phrase) a paper about animal work names."""


def species_of(term: str) -> list[str]:
    """The species an exclusion ``term`` stands for: :data:`SPECIES` when it names animals in
    general ("animal models", "animal", "rodent"), else []."""
    return list(SPECIES) if GENERAL.search(term) else []
