"""Laboratory animals named by a general word in an exclusion, and studies asked for "in humans".

A biomedical researcher excludes animal work as "not animal models", "excluding animal studies"
or "no rodent experiments", while the papers say "mice", "murine" or "rats". An exclusion whose
term names animals in general (:data:`GENERAL`) is also violated by a paper about one of the
laboratory species (:data:`SPECIES`), so "excluding animal studies" catches "a fat-specific
PPARγ knockout mouse model". An intent that asks for work "in humans" (:data:`HUMANS`) states
the same exclusion as a preference (``parser.parse_intent``). A paper that names the species only as other work ("in mice,
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


HUMANS = re.compile(r"(?:humans?|human (?:beings|subjects|participants|volunteers|populations?|studies)|people)", re.I)
"""A concept that only says the work is on people ("in humans", "in human subjects"): not a topic
a paper states in those words, but the exclusion of animal work."""


def only_humans(terms: list[str]) -> bool:
    """True when every one of a facet's ``terms`` just says "humans" (:data:`HUMANS`)."""
    return bool(terms) and all(HUMANS.fullmatch(t.strip()) for t in terms)


def in_humans(text: str, phrases: list[str]) -> bool:
    """True when one of a facet's ``phrases`` follows "in" or "among" in ``text`` ("... in
    humans", "among human participants"): the population the work is on, not its subject ("how
    people use search engines")."""
    return any(re.search(rf"\b(?:in|among)\s+(?:the\s+)?{re.escape(p)}\b", text, re.I) for p in phrases)


_IN_HUMANS = re.compile(rf"\b(?:in|among)\s+(?:the\s+)?{HUMANS.pattern}(?!['’\w-])", re.I)


def says_in_humans(text: str) -> bool:
    """True when ``text`` asks for work "in humans" or "among human participants" (:data:`HUMANS`
    after "in" or "among"), whether or not the corpus makes "humans" a concept of its own (a corpus
    where most papers say "humans" reads the word as generic and drops it)."""
    return _IN_HUMANS.search(text) is not None


def names_animals(terms: list[str]) -> bool:
    """True when an exclusion's ``terms`` name laboratory animals, in general or by species."""
    return any(species_of(t) or t.lower() in SPECIES for t in terms)
