"""``build``: ingest source files into a corpus directory, then finalize it.

Flow: expand sources -> plan units (format per file, joins) -> fingerprint (size + sha256) ->
skip units the manifest already holds -> load content files of the remaining units into the
join store -> per unit, one ``CorpusWriter.source`` transaction written in batches (on a
background thread, so DuckDB's inserts overlap with parsing) -> finalize (title resolution,
chunking, embedding, indexes).

Within one build the readers merge what belongs to one paper (metadata + pdf_parse; papers +
abstracts + s2orc) before the writer sees it. Across builds the writer's upsert replaces a
paper's whole record with the newer one, so a paper's files (e.g. a Datasets API release's
papers, abstracts and s2orc shards) must come in the same build; a later build of ``papers``
alone would drop the abstract and full text stored earlier for the same corpus ids. Generic
files that give copies of one corpus id merge field by field; when one of them changes, every
committed file sharing a paper with it is read again with it, in input order
(``CorpusWriter.sharing_closure`` and ``release``), so the corpus equals a fresh build of the same files.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import os
import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from litnav.corpus.records import Citation, Document, Reject
from litnav.ingest.io import (
    Fingerprint,
    SourceError,
    TruncatedSourceError,
    combine,
    expand_sources,
    first_records,
)
from litnav.ingest.join import ContentStore
from litnav.ingest.papers import typed_by_abstract
from litnav.ingest.plan import Unit, fingerprint_units, plan
from litnav.ingest.readers import CONTENT_FORMATS, PRIMARY_FOR, FormatError, Item, ReadContext, Skipped
from litnav.ingest.readers.datasets_api import (
    read_abstract_leftovers,
    read_citations,
    read_papers,
    read_s2orc_leftovers,
)
from litnav.ingest.readers.generic import read_generic
from litnav.ingest.readers.s2orc import read_metadata, read_paper_json, read_pdf_parse_leftovers
from litnav.ingest.readers.unarxive import read_unarxive

log = logging.getLogger(__name__)

READERS: dict[str, Callable[[Path, ReadContext], Iterator[Item]]] = {
    "s2orc-metadata": read_metadata,
    "s2orc-pdf-parse": read_pdf_parse_leftovers,
    "s2orc-json": read_paper_json,
    "s2-papers": read_papers,
    "s2-abstracts": read_abstract_leftovers,
    "s2-citations": read_citations,
    "s2-s2orc": read_s2orc_leftovers,
    "jsonl": read_generic,
    "unarxive": read_unarxive,
}
"""Format -> reader. Content formats' readers yield what the join left over."""


@dataclass
class ReadStats:
    """Counts over the items of one or more readers."""

    papers: int = 0
    abstracts: int = 0
    full_texts: int = 0
    references: int = 0
    linked_references: int = 0
    citations: int = 0
    rejects: int = 0
    skipped_rows: dict[str, int] = field(default_factory=dict)

    def count(self, item: Item) -> None:
        """Add one reader item."""
        if isinstance(item, Document):
            self.papers += 1
            self.abstracts += item.abstract is not None
            self.full_texts += bool(item.paragraphs)
            self.references += len(item.references)
            self.linked_references += sum(r.cited_id is not None for r in item.references)
        elif isinstance(item, Citation):
            self.citations += 1
        elif isinstance(item, Reject):
            self.rejects += 1
        elif isinstance(item, Skipped):
            self.skipped_rows[item.reason] = self.skipped_rows.get(item.reason, 0) + 1


@dataclass
class BuildReport:
    """What a build did. Counts are over the records ingested by this build (skipped files
    excluded); ``corpus`` holds ``Corpus.stats()``-style totals after finalize; ``seconds``
    is wall time per stage (plan, fingerprint, join, ingest, then finalize's stages)."""

    files: int = 0
    ingested_files: list[str] = field(default_factory=list)
    skipped_files: list[str] = field(default_factory=list)
    unsupported_files: list[str] = field(default_factory=list)
    unreadable_files: list[str] = field(default_factory=list)
    """Inputs this process may not read (permissions): left out, the others ingested."""
    damaged_files: dict[str, str] = field(default_factory=dict)
    """Inputs found cut short or damaged in this build: source key -> error. Their records before
    the damage were committed and the file is marked incomplete in the manifest (a file damaged
    before its first record, whose format could not be detected, is not ingested at all)."""
    still_incomplete: list[str] = field(default_factory=list)
    """Inputs marked incomplete by an earlier build and skipped now (same bytes): replace them."""
    mapped_missing: list[str] = field(default_factory=list)
    """``--map`` targets whose source field no record of the generic JSONL read in this build has."""
    kept_complete: dict[str, str] = field(default_factory=dict)
    """Inputs committed complete before and found damaged now (a half-finished download over the
    file): source key -> error. Nothing of them was written; their complete records stay."""
    formats: dict[str, int] = field(default_factory=dict)
    read: ReadStats = field(default_factory=ReadStats)
    duplicates: int = 0
    id_collisions: int = 0
    """External ids (normalised DOI, arXiv, ...) that two corpus ids share; listed in the rejects table."""
    """Records whose corpus id was already stored or met earlier: merged field by field, and listed
    in the rejects table with both locations."""
    corpus: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    shards: dict[str, int] = field(default_factory=dict)
    """Distributed builds (``ray_build.build_on_ray``): input units parsed, chunked and embedded on
    the cluster in this build (``computed``), staged results of an interrupted build used as they
    were (``reused``), and the papers whose chunks and abstract vectors came from the cluster
    (``papers_chunked``, ``vectors``; finalize made the others)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def iter_unit(unit: Unit, ctx: ReadContext) -> Iterator[Item]:
    """The items of one unit's file; a paper whose source gives no publication types is a
    ``Review`` when its abstract says so (``ingest.papers.typed_by_abstract``)."""
    for item in READERS[unit.fmt](unit.path, ctx):
        yield typed_by_abstract(item) if isinstance(item, Document) else item


def _until_damage(items: Iterator[Item], damage: list[TruncatedSourceError]) -> Iterator[Item]:
    """``items`` up to a damaged input (the error goes to ``damage``; the items before it count)."""
    try:
        yield from items
    except TruncatedSourceError as exc:
        damage.append(exc)


def read_file(path: str | Path, fmt: str | None = None, mapping: dict[str, str] | None = None) -> Iterator[Item]:
    """Read one file on its own (no corpus): detect its format and yield its items.
    S2ORC 2020 pdf_parses and Datasets API abstracts/s2orc go through a join store holding
    only this file, so they yield what they yield without their metadata. Raises
    ``FormatError`` when the format is unsupported."""
    units, unsupported = plan([Path(path).resolve()], fmt or ("jsonl" if mapping else None))
    if unsupported:
        raise FormatError(f"{path}: not a format litnav ingests")
    with ContentStore() as store:
        for u in units:
            if u.fmt in CONTENT_FORMATS:
                store.add_file(u.path, u.fmt)
        ctx = ReadContext(content=store, mapping=mapping or {})
        for u in units:
            yield from iter_unit(u, ctx)


@contextlib.contextmanager
def _fewer_gc_passes(gen0: int = 50_000) -> Iterator[None]:
    """Raise the garbage collector's generation-0 threshold while ingesting, restoring it after.

    Parsing allocates millions of short-lived, acyclic objects; with the default threshold
    (700) CPython's collector runs so often over the batches in flight that it took about a
    quarter of the ingest CPU time on the ACL Anthology file. Reference counting still frees
    everything; only cycle detection runs less often.
    """
    old = gc.get_threshold()
    gc.set_threshold(max(gen0, old[0]), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


class _BackgroundWriter:
    """Runs a source transaction's writes on one background thread, so DuckDB's inserts
    (which release the GIL) overlap with parsing the next batch on the calling thread.

    Batches go through a bounded queue (``depth`` batches in flight, so memory stays bounded);
    the transaction is used by the worker thread only, and ``close`` joins it before the
    caller commits. An exception on the worker is re-raised on the calling thread at the next
    ``put`` or at ``close``.
    """

    def __init__(self, tx: Any, depth: int = 2) -> None:
        self._tx = tx
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._cancelled = False
        self._thread = threading.Thread(target=self._run, name="litnav-ingest-writer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (job := self._queue.get()) is not None:
            if self._error is None and not self._cancelled:
                try:
                    getattr(self._tx, job[0])(job[1])
                except BaseException as exc:  # handed to the calling thread
                    self._error = exc

    def put(self, method: str, batch: list) -> None:
        """Queue ``tx.<method>(batch)``; blocks while ``depth`` batches are waiting."""
        if self._error is not None:
            self.close()
        self._queue.put((method, batch))

    def close(self, cancel: bool = False) -> None:
        """Wait for the queued writes (``cancel``: drop those not started, raise nothing, for
        when the caller is already failing); re-raise the worker's exception, if any. A Ctrl-C
        while waiting drops the writes not started, waits for the one in flight (DuckDB's
        connection is not to be used by two threads) and is then raised."""
        self._cancelled = self._cancelled or cancel
        interrupted: BaseException | None = None
        sent = False
        while self._thread.is_alive():  # the write in flight ends before anything uses the connection again
            try:
                if not sent:
                    self._queue.put(None)
                    sent = True
                self._thread.join()
            except KeyboardInterrupt as exc:  # Ctrl-C: drop the queued writes, still wait for this one
                interrupted, self._cancelled = exc, True
        if interrupted is not None:
            raise interrupted
        if self._error is not None and not cancel:
            raise self._error


def _release_shared(writer: Any, units: list[Unit], complete: set[str], report: BuildReport) -> None:
    """Before changed inputs are read again, un-commit with them the committed inputs that share
    papers with them (``CorpusWriter.sharing_closure``/``release``), so the merged papers come out
    as a fresh build of the same files makes them. A changed input committed complete before is
    first read through: a damaged copy is refused then (``report.kept_complete``), before anything
    is released. Raises ``CorpusError`` naming a sharing input that this build does not name, or an
    input an earlier, interrupted release left to be read again."""
    from litnav.corpus.errors import CorpusError

    named = {u.key for u in units}
    if left := [k for k in writer.released_sources() if k not in named]:
        raise CorpusError(f"an earlier build un-committed {', '.join(left)} to read it again with the files sharing "
                          "papers with it and stopped before it did: add it to this build (its papers are not in the "
                          "corpus until then)")
    changed = _changed(writer, units)
    extra = writer.sharing_closure([u.key for u in changed]) if changed else []
    if not extra:
        return
    if missing := [k for k in extra if k not in named]:
        raise CorpusError(f"{', '.join(u.key for u in changed)} changed and shares papers with {', '.join(missing)}, "
                          "which this build does not name: add it to the build so the shared papers are merged "
                          "again (nothing was changed)")
    for u in changed:
        if u.key in complete and (damage := _damage_of(u)):
            report.kept_complete[u.key] = damage
    if report.kept_complete:  # the refused copies keep their papers: only the others' groups are released
        changed = [u for u in changed if u.key not in report.kept_complete]
        extra = writer.sharing_closure([u.key for u in changed]) if changed else []
    if extra:
        writer.release([u.key for u in changed] + extra)
        log.info("%d unchanged input(s) share papers with the changed ones and are read again: %s",
                 len(extra), ", ".join(extra))


def _changed(writer: Any, units: list[Unit]) -> list[Unit]:
    """The units committed before whose files changed since (their fingerprint differs)."""
    return [u for u in units if writer.is_committed(u.key) and not writer.is_ingested(u.key, u.print.size, u.print.sha256)]


def _refuse_lost_joins(writer: Any, units: list[Unit]) -> None:
    """Raise ``CorpusError`` when a changed input is read again without a content file that an
    earlier build joined into its papers and that still exists (a Datasets API ``papers`` shard
    without its ``abstracts``/``s2orc`` shards, S2ORC metadata without its ``pdf_parses``): read
    alone, its papers would be written again without the abstracts and full texts that file gave.
    Nothing is changed. A joined file deleted since is no longer asked for."""
    from litnav.corpus.errors import CorpusError

    joined = writer.joined_sources()
    for u in _changed(writer, units):
        now = {str(p) for p in u.covers}
        if missing := [k for k in joined.get(u.key, []) if k not in now and Path(k).exists()]:
            raise CorpusError(f"{u.key} changed and was built with {', '.join(missing)} joined into its papers "
                              "(abstracts, full texts), which this build does not name: add them to the build, or its "
                              "papers are written again without what they gave (nothing was changed)")


def _damage_of(unit: Unit) -> str | None:
    """Why a file of ``unit`` is damaged or cut short (read through once), or None."""
    from litnav.ingest.io import iter_records

    for path in unit.covers:
        try:
            for _ in iter_records(path):
                pass
        except TruncatedSourceError as exc:
            return str(exc)
    return None


class _KeepComplete(Exception):
    """Rolls back the transaction of a damaged copy of an input committed complete before."""


def mark_damage(tx: Any, report: BuildReport, key: str, damage: list[str]) -> None:
    """Record a unit whose source was damaged part-way (``damage``: one message per damaged file):
    the transaction keeps the papers read before it and is marked incomplete in the manifest."""
    if damage:
        tx.incomplete = f"{'; '.join(damage)}; the {tx.counts['documents']} papers read before the damage were kept"
        report.damaged_files[key] = tx.incomplete


def count_unit(tx: Any, report: BuildReport, key: str) -> None:
    """Add a committed unit's duplicate and id-collision counts to ``report`` and list it as ingested."""
    report.duplicates += tx.counts.get("duplicates", 0)
    report.id_collisions += tx.counts.get("id_collisions", 0)
    report.ingested_files.append(key)


def _write(tx: Any, items: Iterator[Item], stats: ReadStats, batch_size: int) -> None:
    docs: list[Document] = []
    cites: list[Citation] = []
    rejects: list[Reject] = []
    out = _BackgroundWriter(tx)
    try:
        for item in items:
            stats.count(item)
            if isinstance(item, Document):
                docs.append(item)
                if len(docs) >= batch_size:
                    out.put("add_documents", docs)
                    docs = []
            elif isinstance(item, Citation):
                cites.append(item)
                if len(cites) >= batch_size:
                    out.put("add_citations", cites)
                    cites = []
            elif isinstance(item, Reject):
                rejects.append(item)
        for method, batch in (("add_documents", docs), ("add_citations", cites), ("add_rejects", rejects)):
            if batch:
                out.put(method, batch)
        out.close()
    except BaseException:
        out.close(cancel=True)
        raise


def build(
    sources: list[str | Path] | str | Path,
    corpus_dir: str | Path,
    fmt: str | None = None,
    settings: Any = None,
    progress: bool = True,
    mapping: dict[str, str] | None = None,
    batch_size: int = 2000,
    finalize: bool = True,
    reembed: bool = False,
    stop_after: str | None = None,
    on_stage: Callable[[str, float], None] | None = None,
    ingest_units: Callable[..., None] | None = None,
) -> BuildReport:
    """Ingest ``sources`` (files, directories, globs; plain, .gz, .zst, .bz2, .xz; one path or a list) into
    ``corpus_dir``.

    ``fmt`` forces one format for every file (else detected per file; a ``mapping`` implies
    the generic ``jsonl`` format); ``settings`` is a
    ``CorpusSettings`` or a root ``Settings`` (its ``corpus`` group is used); ``mapping`` is the
    generic reader's ``target -> source field``. Units already in the manifest (same key, size
    and sha256) are skipped (a ``mapping`` is part of a file's fingerprint, so a changed mapping re-reads it);
    each other unit is written in one transaction, so an interrupted
    build leaves whole units only and a re-run completes it. ``finalize=False`` stops before
    finalize (benchmarks time it apart). Explicit ``settings`` fields override the corpus's stored
    settings; one that changes the model or the chunk size raises ``SettingsChangeError`` before
    anything is stored unless ``reembed`` (then every chunk and vector is remade with the new
    settings). ``ingest_units`` ingests the units the manifest lacks in place of this process's
    loop, called as ``ingest_units(writer, units, todo, report, mapping=, batch_size=, progress=)``
    (a distributed engine: :func:`litnav.ingest.ray_build.build_on_ray`). Raises
    ``SourceError``/``FormatError`` for bad sources, ``MappingError`` for a ``mapping`` target the
    generic reader does not know.

    Finalize publishes the corpus searchable with BM25 before it embeds the abstracts (see
    ``CorpusWriter.finalize``): ``on_stage(name, seconds)`` is called with ``"lexical"`` at that
    moment and with ``"dense"`` when the abstract vectors are in, ``seconds`` counted from the
    start of this call (also recorded as ``seconds["searchable"]`` and ``seconds["dense"]``).
    ``stop_after="lexical"`` leaves the corpus at the lexical stage (a rerun finishes it).
    """
    from litnav.core.progress import progress_bar
    from litnav.corpus import CorpusWriter
    from litnav.ingest.readers.generic import MAPPABLE, MappingError

    if isinstance(sources, (str, Path)):
        sources = [sources]
    for target in mapping or {}:
        if target not in MAPPABLE:
            raise MappingError(f"mapping: unknown target {target!r} (known: {', '.join(MAPPABLE)})")
    corpus_settings = getattr(settings, "corpus", settings)
    report = BuildReport()
    t0 = started = time.perf_counter()
    paths = expand_sources(list(sources))
    report.unreadable_files = [str(p) for p in paths if not os.access(p, os.R_OK)]
    if report.unreadable_files and len(report.unreadable_files) == len(paths):
        raise SourceError(f"{report.unreadable_files[0]}: not a readable file (check its permissions)")
    paths = [p for p in paths if str(p) not in report.unreadable_files]
    undetected: list[TruncatedSourceError] = []
    units, unsupported = plan(paths, fmt or ("jsonl" if mapping else None), damaged=undetected)
    report.files = len(paths)
    report.unsupported_files = [str(p) for p in unsupported]
    report.damaged_files = {str(e.path): str(e) for e in undetected}
    report.formats = dict(Counter(u.fmt for u in units))
    if not units:
        if undetected:
            raise undetected[0]
        raise FormatError("no input file is in a format litnav ingests: " + ", ".join(
            f"{p} (empty: no JSON record)" if not first_records(p, 1) else str(p) for p in unsupported))
    report.seconds["plan"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    fingerprint_units(units)
    if mapping:  # a file read with another mapping is another input: a corrected --map re-reads it
        how = Fingerprint(0, hashlib.sha256(json.dumps(mapping, sort_keys=True).encode()).hexdigest())
        for u in units:
            u.print = combine([u.print, how])
    report.seconds["fingerprint"] = time.perf_counter() - t0

    from litnav.corpus.storage import storage_errors

    with storage_errors(corpus_dir), CorpusWriter.open(corpus_dir, corpus_settings,
                                                       allow_settings_change=reembed) as writer:
        incomplete = writer.incomplete_sources()
        complete = {u.key for u in units if u.key not in incomplete and writer.is_committed(u.key)}
        _refuse_lost_joins(writer, units)
        _release_shared(writer, units, complete, report)
        todo = [u for u in units if u.key not in report.kept_complete
                and not writer.is_ingested(u.key, u.print.size, u.print.sha256)]
        report.skipped_files = [u.key for u in units if u not in todo]
        if report.skipped_files:
            log.info("%d input(s) already in the corpus unchanged, skipped", len(report.skipped_files))
        report.still_incomplete = sorted(set(report.skipped_files) & set(writer.incomplete_sources()))
        if ingest_units is not None:  # e.g. on a Ray cluster; nothing is left to read below
            ingest_units(writer, units, todo, report, mapping=mapping or {}, batch_size=batch_size, progress=progress)
            todo = []
        with ContentStore(workdir=None) as store:
            t0 = time.perf_counter()
            needed = {p for u in todo for p in u.covers}
            for u in units:
                if u.fmt in CONTENT_FORMATS and u.path in needed:
                    store.add_file(u.path, u.fmt)
            ctx = ReadContext(content=store, mapping=mapping or {})
            for u in units:
                # A metadata unit committed by an earlier (interrupted) build still owns the content
                # records it joined: read it again without writing, so that they are taken and not
                # handed back as leftovers (rejects, or s2orc rows stored alone over its papers).
                if u not in todo and u.fmt in PRIMARY_FOR and needed.intersection(u.covers):
                    for _ in iter_unit(u, ctx):
                        pass
            report.seconds["join"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            bar = progress_bar(todo, desc="ingest", unit="file", progress=progress)
            with _fewer_gc_passes():
                for u in bar:
                    bar.set_postfix_str(u.path.name)
                    damage: list[TruncatedSourceError] = []
                    refused = ""
                    try:
                        with writer.source(u.key, u.print.size, u.print.sha256) as tx:
                            tx.joined = [str(p) for p in u.covers if p != u.path]
                            _write(tx, _until_damage(iter_unit(u, ctx), damage), report.read, batch_size)
                            damage += [store.damaged[str(p)] for p in u.covers if str(p) in store.damaged]
                            refused = "; ".join(str(d) for d in damage)
                            if damage and u.key in complete:
                                raise _KeepComplete
                            if (u.key in complete and u.fmt not in CONTENT_FORMATS  # content rows join other units
                                    and not (tx.counts["documents"] or tx.counts["citations"])):
                                # emptied, or every record rejected (a --map typo): never wipe what it held
                                refused = (f"{u.key}: no record of it was accepted now ({tx.counts['rejects']} "
                                           "rejected: an emptied file, or a --map field that no record has?)")
                                raise _KeepComplete
                            for p in u.covers:  # content rows rejected alone earlier, joined now
                                if p != u.path and tx.has_foreign_rejects(str(p)):  # a scan of the store: skip it
                                    tx.drop_rejects(str(p), store.taken_lines(p))
                            mark_damage(tx, report, u.key, [str(d) for d in damage])
                    except _KeepComplete:
                        report.kept_complete[u.key] = refused
                        continue
                    count_unit(tx, report, u.key)
            report.seconds["ingest"] = time.perf_counter() - t0
            if any(u.fmt == "jsonl" for u in todo):
                report.mapped_missing = [f"{t}={src}" for t, src in (mapping or {}).items()
                                         if t != "id" and not ctx.mapped[t]]
        if finalize:
            t0 = time.perf_counter()
            def reached(stage: str) -> None:
                at = time.perf_counter() - started
                report.seconds["searchable" if stage == "lexical" else stage] = at
                r = report.read
                read_nothing = report.ingested_files and not (r.papers or r.abstracts or r.full_texts or r.citations
                                                              or r.skipped_rows)
                if on_stage is not None and not read_nothing:  # every record rejected: the caller says that instead
                    on_stage(stage, at)

            stages = writer.finalize(progress=progress, reembed=reembed, stop_after=stop_after,
                                     on_stage=reached) or {}
            report.seconds.update({f"finalize.{k}": float(v) for k, v in stages.items()})
            report.seconds["finalize"] = time.perf_counter() - t0
    if finalize:
        from litnav.corpus import Corpus

        c = Corpus.open(corpus_dir)
        try:
            report.corpus = c.stats()
        finally:
            c.close()
    return report
