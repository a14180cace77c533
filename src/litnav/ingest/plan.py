"""Build planning: which format each input file has, and which files form one build unit.

A *unit* is what one ``CorpusWriter.source(...)`` transaction ingests and what the manifest
records (key, size, sha256). Most files are their own unit. A metadata-bearing file (S2ORC
``metadata_*``, Datasets API ``papers``) is joined with content files (``pdf_parses_*``;
``abstracts`` and ``s2orc``), so its fingerprint also covers those content files: a changed
content file re-ingests the metadata that merges it. S2ORC 2020 shards pair by shard name
(``metadata_7`` with ``pdf_parses_7``) when the build holds both; otherwise every content file of
the build belongs to every metadata unit of the matching format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from litnav.ingest.io import (
    Fingerprint,
    TruncatedSourceError,
    base_name,
    combine,
    fingerprint,
    first_records,
    single_object_problem,
    single_object_sample,
)
from litnav.ingest.readers import CONTENT_FORMATS, FORMATS, PRIMARY_FOR, FormatError, detect_format

_SHARD = re.compile(r"^(?:metadata|pdf_parses)_(\w+)$")


@dataclass
class Unit:
    """One build unit: the file whose records it ingests, its format, and the files whose
    bytes its fingerprint covers (itself plus joined content files)."""

    path: Path
    fmt: str
    covers: list[Path] = field(default_factory=list)
    print: Fingerprint | None = None

    @property
    def key(self) -> str:
        """The manifest key: the absolute path of the unit's file."""
        return str(self.path)


DETECT_RECORDS = 50
"""Records read to detect a file's format: a first record missing a field does not hide the rest."""


def detect(path: Path, fmt: str | None = None) -> str | None:
    """The format of ``path``: ``fmt`` when given (validated), else that of the first of its first
    :data:`DETECT_RECORDS` records whose format is known (None when none is). Raises ``FormatError`` for an unknown ``fmt`` and
    ``TruncatedSourceError`` for a single-object ``.json`` file that is not valid JSON (cut short)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise FormatError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
        return fmt
    sample = first_records(path, DETECT_RECORDS)
    if not sample and (lenient := single_object_sample(path)) is not None:
        sample = [lenient]  # one paper's file with a byte that is not UTF-8: its reading rejects it
    if not (sample and isinstance(sample[0], dict)) and (problem := single_object_problem(path)):
        raise TruncatedSourceError(path, 0, problem)  # a cut per-paper JSON is damage, not a foreign format
    # a first record that lacks a field (a paper without its title) is a reject, not a foreign format
    return next((f for f in map(detect_format, sample) if f), None)


def plan(paths: list[Path], fmt: str | None = None,
         damaged: list[TruncatedSourceError] | None = None) -> tuple[list[Unit], list[Path]]:
    """Units in build order (content files' units last, so joins happen first) and the files
    whose format litnav does not ingest. A file too damaged to detect its format raises
    ``TruncatedSourceError``, or, when a ``damaged`` list is given, is appended to it and left out."""
    typed: list[tuple[Path, str]] = []
    unsupported: list[Path] = []
    for p in paths:
        try:
            f = detect(p, fmt)
        except TruncatedSourceError as exc:
            if damaged is None:
                raise
            damaged.append(exc)
            continue
        (typed.append((p, f)) if f else unsupported.append(p))
    content = {f: [p for p, g in typed if g == f] for f in CONTENT_FORMATS}
    shard_of = {base: p for p in content["s2orc-pdf-parse"] if (m := _SHARD.match(base := base_name(p)))}
    units: list[Unit] = []
    for p, f in typed:
        if f in CONTENT_FORMATS:
            continue
        covers = [p]
        if f == "s2orc-metadata" and (m := _SHARD.match(base_name(p))) and f"pdf_parses_{m.group(1)}" in shard_of:
            covers.append(shard_of[f"pdf_parses_{m.group(1)}"])
        else:
            paired = set(shard_of.values()) if f == "s2orc-metadata" else set()
            for cf in PRIMARY_FOR.get(f, ()):
                covers.extend(c for c in content[cf] if c not in paired)
        units.append(Unit(p, f, covers))
    for f in CONTENT_FORMATS:
        units.extend(Unit(p, f, [p]) for p in content[f])
    return units, unsupported


def fingerprint_units(units: list[Unit]) -> None:
    """Fill each unit's fingerprint (sha256 of each file computed once)."""
    cache: dict[Path, Fingerprint] = {}
    for u in units:
        u.print = combine([cache.setdefault(p, fingerprint(p)) for p in u.covers])
