"""Navigator: plans the checklist and workflow, drives the self-refining loop, writes sessions."""

from litnav.navigator.search import search

__all__ = ["search"]
