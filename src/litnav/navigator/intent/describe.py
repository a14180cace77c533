"""``describe``: a compact, human-readable rendering of a checklist for the CLI."""

from __future__ import annotations

from litnav.core.records import Checklist, Checkpoint, MetadataPredicate

VALUES_SHOWN = 8
"""Predicate values shown per checkpoint line; the rest are counted ("… and 396 more"): a venue
matched against the corpus vocabulary can stand for hundreds of spellings (the checklist in the
session file keeps them all)."""


def _predicate(p: MetadataPredicate) -> str:
    neg = "NOT " if p.negate else ""
    if p.field == "year":
        lo = p.start.isoformat() if p.start else "..."
        hi = p.end.isoformat() if p.end else "..."
        return f"{neg}year {lo} .. {hi}"
    shown = ", ".join(p.values[:VALUES_SHOWN])
    if len(p.values) > VALUES_SHOWN:
        shown += f", … and {len(p.values) - VALUES_SHOWN} more"
    return f"{neg}{p.field} in [{shown}]"


def describe_checkpoint(cp: Checkpoint) -> str:
    """One line: ``id [kind] text  {terms or predicate}  (w=weight when not 1)``."""
    line = f"{cp.id:<4}[{cp.kind}] {cp.text}"
    if cp.predicate is not None:
        line += f"  {{{_predicate(cp.predicate)}}}"
    elif cp.terms:
        line += f"  {{terms: {'; '.join(cp.terms)}}}"
    if cp.weight != 1.0:
        line += f"  (w={cp.weight:g})"
    return line


def describe(checklist: Checklist) -> str:
    """The intent on the first line, then one indented line per checkpoint."""
    lines = [f"Intent: {checklist.intent}"]
    lines += ["  " + describe_checkpoint(cp) for cp in checklist.checkpoints]
    if not checklist.checkpoints:
        lines.append("  (no checkpoints)")
    return "\n".join(lines)
