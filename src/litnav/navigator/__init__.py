"""Navigator: plans the checklist and workflow, drives the self-refining loop, writes sessions,
and continues them turn by turn (``refine``)."""

from litnav.navigator.refine import refine, run_turn
from litnav.navigator.search import search

__all__ = ["refine", "run_turn", "search"]
