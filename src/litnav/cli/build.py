"""``litnav build``: ingest dumps into a corpus directory."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from litnav.cli.common import SetOpt, SettingsOpt, clean_errors, err_console, fail, make_console, settings_from

COUNT_LABELS = {"citations": "corpus citation edges (to any paper id)",
                "corpus_citations": "corpus citation edges between corpus papers",
                "citing_sentences": "  of them with a citing sentence"}
"""Build-summary labels of ``Corpus.stats`` counts whose key alone says too little."""
MAP_TARGETS = ("id", "title", "abstract", "year", "venue", "authors", "publication_date", "publication_types",
               "fields_of_study", "doi", "arxiv", "acl", "pubmed", "pmc", "mag", "s2", "citations")
"""The ``--map`` targets as the help lists them (``ingest.readers.generic.MAPPABLE``, which loads the
ingest layer: a test keeps the two equal)."""


def register(app: typer.Typer) -> None:
    """Add the ``build`` command to ``app``."""

    @app.command("build")
    def build_command(
        sources: list[str] = typer.Argument(..., help="Files, directories or globs (plain, .gz, .zst, .bz2, .xz)."),
        corpus: Path = typer.Option(..., "--corpus", help="Corpus directory (created if absent)."),
        fmt: Optional[str] = typer.Option(None, "--format", help="Force a format (default: detect per file)."),
        map_: list[str] = typer.Option([], "--map", help="Generic JSONL field mapping target=source (repeatable); "
                                       f"targets: {', '.join(MAP_TARGETS)}."),
        set_: Optional[list[str]] = SetOpt,
        settings_file: Optional[Path] = SettingsOpt,
        no_progress: bool = typer.Option(False, "--no-progress", help="Hide the progress bars."),
        reembed: bool = typer.Option(False, "--reembed", help="Allow --set to change the corpus's model or chunk "
                                     "size: re-chunk and re-embed the whole corpus with the new settings."),
        engine: str = typer.Option("local", "--engine", help="local: this process; ray: parse, chunk and embed "
                                   "each input on a Ray cluster (needs the `ray` extra) and merge here."),
        address: Optional[str] = typer.Option(None, "--address", help="Ray cluster address (with --engine ray; "
                                              "default: start a local Ray instance)."),
    ) -> None:
        """Ingest SOURCE files into the corpus; files already ingested are skipped."""
        from rich.table import Table

        from litnav import build
        from litnav.corpus import CorpusError
        from litnav.ingest import FormatError
        from litnav.ingest.io import SourceError
        from litnav.ingest.readers.generic import MappingError, parse_mapping

        if engine not in ("local", "ray"):
            fail(f"--engine must be 'local' or 'ray', not {engine!r}")
        if address and engine != "ray":
            fail("--address needs --engine ray")
        settings = settings_from(settings_file, set_)
        with clean_errors(MappingError):
            mapping = parse_mapping(map_)
        def reached(stage: str, seconds: float) -> None:
            if stage == "lexical":
                # the corpus's stored settings may say BM25-only even where --set does not
                later = ("dense retrieval joins when the abstracts are embedded (not in a corpus built with "
                         "corpus.abstract_embeddings=false)" if settings.corpus.abstract_embeddings
                         else "no dense retrieval (corpus.abstract_embeddings=false)")
                err_console.print(f"corpus {corpus} is searchable with BM25 after {seconds:.1f} s (`litnav search` "
                                  f"works now); {later}", highlight=False)
            else:
                err_console.print(f"abstract vectors ready after {seconds:.1f} s: dense retrieval on", highlight=False)

        from litnav.ingest.ray_build import EngineError, build_on_ray

        run = build if engine == "local" else functools.partial(build_on_ray, address=address)
        with clean_errors(SourceError, FormatError, CorpusError, OSError, EngineError):
            try:
                report = run(sources, corpus, fmt=fmt, settings=settings, progress=not no_progress, mapping=mapping,
                             reembed=reembed, on_stage=reached)
            except KeyboardInterrupt:  # 130 = 128 + SIGINT, as a shell reports an interrupted command
                fail(f"interrupted; what was finished is kept: rerun the same `litnav build` to resume "
                     f"(`litnav check --corpus {corpus}` shows the corpus's state)", code=130)
        console = make_console()
        table = Table(title=f"litnav build -> {corpus}")
        table.add_column("what")
        table.add_column("count / seconds", justify="right")
        r = report.read
        rows = [
            ("files ingested", len(report.ingested_files)), ("files skipped (already ingested)", len(report.skipped_files)),
            ("files unsupported", len(report.unsupported_files)), ("papers", r.papers), ("abstracts", r.abstracts),
            ("full texts", r.full_texts), ("bibliography entries read", r.references),
            ("  of them linked to a paper id (in this corpus or not)", r.linked_references),
            ("citation records read (citations files)", r.citations), ("rejects", r.rejects),
            ("duplicate ids merged", report.duplicates), ("external id collisions", report.id_collisions),
        ]
        rows += [(f"skipped rows: {k}", v) for k, v in r.skipped_rows.items()]
        rows += [(COUNT_LABELS.get(k, f"corpus {k}"), v) for k, v in report.corpus.items() if isinstance(v, int)]
        rows += [(f"ray shards {k}", v) for k, v in report.shards.items()]
        rows += [(f"time {k} (s)", f"{v:.2f}") for k, v in report.seconds.items()]
        for name, value in rows:
            table.add_row(name, str(value))
        console.print(table)
        for pair in report.mapped_missing:
            target, source = pair.split("=", 1)
            console.print(f"[yellow]warning:[/yellow] --map {escape(pair)}: no record read in this build has the field "
                          f"{escape(source)!r}, so no paper's {escape(target)} comes from it (a typo in the field name?)")
        for path in report.unsupported_files:
            console.print(f"[yellow]warning:[/yellow] {path}: not a format litnav ingests (skipped)")
        for key in report.still_incomplete:
            console.print(f"[yellow]warning:[/yellow] {key} is still incomplete (damaged when it was ingested; "
                          "replace it with a complete copy and rerun this build to finish it)")
        if report.still_incomplete and not (report.damaged_files or report.kept_complete or report.unreadable_files):
            fail(f"{len(report.still_incomplete)} input(s) are still incomplete (see the warnings above); the corpus "
                 f"{corpus} is searchable with what they held before the damage")
        if report.duplicates:
            console.print(f"[yellow]{report.duplicates} duplicate ids were merged field by field (a later copy never "
                          f"erases a field it lacks); both locations are in `litnav stats --corpus {corpus} "
                          "--rejects 50`[/yellow]")
        if report.id_collisions:
            console.print(f"[yellow]{report.id_collisions} external ids (DOI, arXiv, ...) belong to two corpus ids; "
                          f"see `litnav stats --corpus {corpus} --rejects 50`[/yellow]")
        if r.rejects:
            console.print(f"[yellow]{r.rejects} records rejected{_reject_reasons(corpus, report.ingested_files)}; "
                          "list them with "
                          f"`litnav stats --corpus {corpus} --rejects 50`[/yellow]", highlight=False)
        problems = []  # every reason to exit 1, in one message
        if report.unreadable_files:
            problems.append(" | ".join(f"{f}: not a readable file (check its permissions)" for f in report.unreadable_files)
                            + ". Make these readable and rerun this build.")
        if report.kept_complete:
            problems.append(" | ".join(report.kept_complete.values()) + ". The complete copy ingested before is kept "
                            "unchanged (nothing of the damaged copy was written). Replace the file with a complete "
                            "copy and rerun this build.")
        if report.damaged_files:
            problems.append(" | ".join(report.damaged_files.values()) + ". Everything read before the damage was "
                            "ingested; the damaged files are marked incomplete. Replace them with complete copies and "
                            "rerun this same build: only the replaced files are read again.")
        if problems:
            fail(" ".join(problems) + f" The other inputs are in the corpus {corpus}, which is searchable.")
        if not report.ingested_files and not report.skipped_files:
            fail("nothing was ingested")
        if report.ingested_files and not (r.papers or r.abstracts or r.full_texts or r.citations or r.skipped_rows):
            names = ", ".join(report.ingested_files)
            if r.rejects:
                hint = (" (a --map field that no record has is the usual cause)" if mapping else
                        " (full texts without their metadata: name the metadata file in the same build)"
                        if r.full_texts == 0 and any("no papers record" in reason or "metadata" in reason
                                                     for *_, reason in _first_rejects(corpus)) else "")
                fail(f"every record of {names} was rejected ({r.rejects}); the reasons are in `litnav stats "
                     f"--corpus {corpus} --rejects 20`{hint}")
            fail(f"{names}: no records found (empty input)")


def _reject_reasons(corpus: Path, sources: list[str], shown: int = 3) -> str:
    """The commonest reasons among the records of ``sources`` (this build's inputs) the corpus
    rejected, the rejected record's own id masked: " (100 x abstract of <id>: no papers record in
    this build)"; "" when the corpus cannot be read. Line and column numbers stay."""
    import re
    from collections import Counter

    from rich.markup import escape

    from litnav.corpus import Corpus, CorpusError
    from litnav.corpus.writer import COLLISION_REASON, DUPLICATE_REASON

    wanted = set(sources)
    try:
        with Corpus.open(corpus) as c:
            reasons = Counter(re.sub(r"(?<=\bof )\S+(?=:)", "<id>", reason) for key, _file, _line, reason in c.rejects()
                              if key in wanted and not reason.startswith((DUPLICATE_REASON, COLLISION_REASON)))
    except (CorpusError, OSError):
        return ""
    if not reasons:
        return ""
    return " (" + "; ".join(f"{n} x {escape(why)}" for why, n in reasons.most_common(shown)) + ")"


def _first_rejects(corpus: Path, n: int = 20) -> list[tuple[str, str, int, str]]:
    """The first ``n`` rejects stored in ``corpus`` (none when it cannot be read)."""
    from litnav.corpus import Corpus, CorpusError

    try:
        with Corpus.open(corpus) as c:
            return c.rejects()[:n]
    except (CorpusError, OSError):
        return []
