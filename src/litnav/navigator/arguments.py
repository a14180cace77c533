"""Argument checks shared by the public search calls (``search``, ``refine``, ``anchor_search``)."""

from __future__ import annotations

from litnav.core.records import Workflow
from litnav.core.settings import Settings


def check_arguments(*, intent: object = "", settings: object = None, workflow: object = None,
                    rounds: object = None, top_k: object = None) -> None:
    """Check the arguments of the public search calls: ``intent`` a string (``TypeError``),
    ``settings`` a ``Settings`` or None and ``workflow`` a ``Workflow`` or None (``TypeError``
    saying how to make one), ``rounds`` and ``top_k`` None or an integer >= 1 (``ValueError``)."""
    if not isinstance(intent, str):
        raise TypeError(f"intent must be a string, got {type(intent).__name__}")
    if settings is not None and not isinstance(settings, Settings):
        raise TypeError(f"settings must be a litnav Settings, got {type(settings).__name__} "
                        "(Settings.model_validate(a_dict) or litnav.core.settings.load_settings(path) makes one)")
    if workflow is not None and not isinstance(workflow, Workflow):
        raise TypeError(f"workflow must be a Workflow, got {type(workflow).__name__} "
                        "(litnav.librarians.load_workflow(path) reads a workflow file)")
    for name, value in (("rounds", rounds), ("top_k", top_k)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
