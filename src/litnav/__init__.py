"""litnav: agentic, checklist-driven scientific literature search over a local corpus."""

__version__ = "0.1.0"
