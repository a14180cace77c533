"""``describe``: a compact, human-readable rendering of a checklist for the CLI."""

from __future__ import annotations

from litnav.core.records import Checklist, Checkpoint, MetadataPredicate
from litnav.core.text import shown_values


def predicate_text(p: MetadataPredicate) -> str:
    """A predicate in words, the one rendering of the plan, the terminal and the report:
    ``year >= 2019-01-01``, ``year 2019-01-01 .. 2021-12-31``, ``NOT venue in [ACL]``,
    ``venue in [ACL] (main track)``, ``venue in [EMNLP] -> year 2020-01-01 .. 2020-12-31``
    (``venue_year``), ``first author in [Smith]``."""
    neg = "NOT " if p.negate else ""
    if p.start and p.end:
        period = f"year {p.start.isoformat()} .. {p.end.isoformat()}"
    else:
        period = f"year >= {p.start.isoformat()}" if p.start else f"year <= {p.end.isoformat()}" if p.end else "any year"
    if p.field == "year":
        return f"{neg}{period}"
    if p.field == "venue_year":
        return f"{neg}venue in [{shown_values(p.values)}] -> {period}"
    field = "first author" if p.first_author else p.field
    return f"{neg}{field} in [{shown_values(p.values)}]" + (" (main track)" if p.main_track else "")


def describe_checkpoint(cp: Checkpoint) -> str:
    """One line: ``id [kind] text  {terms or predicate}  (w=weight when not 1)``."""
    line = f"{cp.id:<4}[{cp.kind}] {cp.text}"
    if cp.predicate is not None:
        line += f"  {{{predicate_text(cp.predicate)}}}"
    elif cp.terms:
        line += f"  {{terms: {'; '.join(cp.terms)}}}"
    if cp.weight != 1.0:
        line += f"  (w={cp.weight:g})"
    return line


def describe(checklist: Checklist) -> str:
    """The intent on the first line, then one indented line per checkpoint, then the passage's
    source papers (``Checklist.source_ids``) when there are any."""
    lines = [f"Intent: {checklist.intent}"]
    lines += ["  " + describe_checkpoint(cp) for cp in checklist.checkpoints]
    if not checklist.checkpoints:
        lines.append("  (no checkpoints)")
    if checklist.source_ids:
        lines.append(f"  quoted from {shown_values(checklist.source_ids)}: its source, never a result")
    return "\n".join(lines)
