"""``build_on_ray``: parse, chunk and embed input units on a Ray cluster; merge them like a local build.

Flow (the *driver* is the process running the build; it holds the corpus's writer lock throughout):

1. The units the manifest lacks go to the cluster in two waves, in the local build's order: units
   of metadata-bearing and standalone formats first, then the content files' own units (which store
   or reject the rows no metadata row joined, so they need the first wave's joins).
2. A wave is one Ray Data pipeline over one row per unit. A *task* per unit reads it with the ingest
   readers (joining the content files the unit covers, ``ingest.plan``), writes its items
   (documents, citations, rejects, skipped rows) to Parquet and chunks its documents
   (:func:`litnav.corpus.derived.derive_chunks`). A pool of *actors* embeds the title + abstract
   texts (and the chunks, when ``corpus.chunk_embeddings`` is ``eager``) with the corpus's encoder
   (same identity: backend and precision included), on one GPU per actor when the cluster has GPUs
   and the backend runs there (``torch``, ``torch-bf16``), on CPUs otherwise; it writes the vectors to
   Parquet and publishes the shard: ``<corpus>/staging/<shard>/`` appears by one rename, with
   ``shard.json`` recording the unit's fingerprint and the settings its results were made with.
3. The driver merges published shards into the corpus in plan order, each in one
   ``CorpusWriter.source`` transaction that also writes the manifest row (as a local build does)
   and stores the shard's chunks and vectors where they still match the stored papers
   (``SourceTransaction.add_derived``). Finalize then makes whatever is missing (e.g. for a paper
   whose copies came from two shards) and builds the indexes, so the corpus equals a local build's.

Resume: a unit in the manifest is skipped as in a local build; a shard published by an interrupted
build (same unit fingerprint, same settings) is merged without being recomputed; a shard whose task
or actor died has no published folder and is recomputed. The staging folder is removed once every
shard is merged.

On a multi-node cluster every node must import the same litnav and see the input files and the
corpus directory at the same paths (a shared file system): workers read the inputs and write
``<corpus>/staging``. Joins of the Datasets API load every content file into each ``papers`` unit's
task (the plan makes each ``papers`` file cover all ``abstracts``/``s2orc`` files); S2ORC 2020 shards
pair ``metadata_N`` with ``pdf_parses_N`` and parallelise fully.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from litnav.core.io import write_json
from litnav.corpus.records import Citation, Document, Reject
from litnav.corpus.schema import STAGING_DIR
from litnav.ingest.build import BuildReport, _until_damage, _write, build, count_unit, iter_unit, mark_damage
from litnav.ingest.join import ContentStore
from litnav.ingest.plan import Unit
from litnav.ingest.readers import CONTENT_FORMATS, PRIMARY_FOR, Item, ReadContext, Skipped

log = logging.getLogger(__name__)

TMP_PREFIX = ".tmp-"
"""Staging folders being written (a task's or actor's work in progress); removed at the next start."""
SHARD_FILE = "shard.json"
ITEM_SCHEMA = pa.schema([("kind", pa.string()), ("payload", pa.string())])
"""``items.parquet``: the reader's items in order; payload is the record's JSON (a skip's reason)."""
_KINDS: dict[type, str] = {Document: "document", Citation: "citation", Reject: "reject", Skipped: "skipped"}
EMBED_ACTOR_MEMORY = 2 << 30
"""Bytes of memory each embedding actor reserves (the model, one batch of texts and its vectors)."""
EMBED_BATCH = 2048
"""Texts per encoder call in the actors (as in a local finalize)."""


class EngineError(RuntimeError):
    """The Ray engine cannot run (Ray not installed, or the cluster cannot be reached)."""


# ---------------------------------------------------------------- shards: identity and staging


def shard_id(key: str) -> str:
    """The staging folder name of the unit with manifest key ``key``: its file name plus a hash of the key."""
    name = re.sub(r"[^\w.-]", "_", Path(key).name)[:60]
    return f"{name}-{hashlib.sha1(key.encode()).hexdigest()[:12]}"


def _signature(u: Unit, mapping: dict[str, str], model: dict, chunking: dict, eager: bool,
               primaries: list[Unit]) -> dict[str, Any]:
    """What a shard's results depend on: the unit's fingerprint, the reader mapping, the encoder
    identity and chunking signature, the chunk-vector mode, and (for a content file's unit) the
    fingerprints of the metadata units that join its rows."""
    return {"key": u.key, "fmt": u.fmt, "size": u.print.size, "sha256": u.print.sha256, "mapping": mapping,
            "model": model, "chunking": chunking, "eager": eager,
            "primaries": sorted([p.key, p.print.sha256] for p in primaries)}


def _published(staging: Path, sid: str, signature: dict) -> dict | None:
    """The ``shard.json`` of a published shard made with ``signature``, else None."""
    try:
        info = json.loads((staging / sid / SHARD_FILE).read_text())
    except (OSError, ValueError):
        return None
    return info if info.get("signature") == signature else None


# ---------------------------------------------------------------- worker side


def _encoder(settings_json: str, device: str | None = None, threads: int | None = None):
    from litnav.core.settings import CorpusSettings
    from litnav.corpus.encoder import Encoder

    s = CorpusSettings.model_validate_json(settings_json)
    return s, Encoder(s.model_path, device or s.device, s.batch_size, s.encoder_backend, threads=threads)


def _stage_items(items: Iterator[Item], folder: Path, chunker: Any, batch_size: int) -> dict[str, Any]:
    """Write ``items`` to ``folder/items.parquet`` and their documents' chunks, content hashes
    and embedding texts (``chunks``/``hashes``/``texts.parquet``). A corpus id met twice in the
    unit is merged by the writer, so its derived rows are left out (finalize makes them)."""
    from litnav.corpus.build import CHUNK_SCHEMA
    from litnav.corpus.derived import HASH_SCHEMA, TEXT_SCHEMA, derive_chunks

    counts = {k: 0 for k in _KINDS.values()}
    seen: set[str] = set()
    twice: set[str] = set()
    hashes: list[pa.Table] = []
    texts: list[pa.Table] = []
    kinds: list[str] = []
    payloads: list[str] = []
    docs: list[Document] = []
    with pq.ParquetWriter(folder / "items.parquet", ITEM_SCHEMA) as item_out, \
            pq.ParquetWriter(folder / "chunks.parquet", CHUNK_SCHEMA) as chunk_out:

        def flush_items() -> None:
            if kinds:
                item_out.write_table(pa.table({"kind": kinds, "payload": payloads}, schema=ITEM_SCHEMA))
                kinds.clear()
                payloads.clear()

        def flush_docs() -> None:
            if docs:
                d = derive_chunks(docs, chunker)
                chunk_out.write_table(d["chunks"])
                hashes.append(d["hashes"])
                texts.append(d["texts"])
                docs.clear()

        for item in items:
            kind = _KINDS[type(item)]
            counts[kind] += 1
            kinds.append(kind)
            payloads.append(item.reason if isinstance(item, Skipped) else item.model_dump_json())
            if isinstance(item, Document):
                cid = item.paper.corpus_id
                if cid in seen:
                    twice.add(cid)
                else:
                    seen.add(cid)
                    docs.append(item)
            if len(kinds) >= batch_size:
                flush_items()
            if len(docs) >= batch_size:
                flush_docs()
        flush_items()
        flush_docs()

    def keep(tables: list[pa.Table], schema: pa.Schema) -> pa.Table:
        t = pa.concat_tables(tables) if tables else schema.empty_table()
        if twice:
            import pyarrow.compute as pc

            t = t.filter(pc.invert(pc.is_in(t.column("corpus_id"), pa.array(sorted(twice), pa.string()))))
        return t

    pq.write_table(keep(hashes, HASH_SCHEMA), folder / "hashes.parquet")
    pq.write_table(keep(texts, TEXT_SCHEMA), folder / "texts.parquet")
    counts["ids_met_twice"] = len(twice)
    return counts


def parse_shard(row: dict[str, Any]) -> dict[str, Any]:
    """Ray Data task: read one unit (``row["spec"]``, JSON made by the driver) and stage its items
    and derived chunks in a fresh temporary folder of the staging folder; returns the spec and
    that folder. Raises what the readers raise for an unreadable input."""
    from litnav.corpus.build import chunking_signature
    from litnav.corpus.chunking import Chunker

    spec = json.loads(row["spec"])
    tmp = Path(spec["staging"]) / f"{TMP_PREFIX}{spec['shard']}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir(parents=True)
    t0 = time.perf_counter()
    settings, encoder = _encoder(spec["settings"])
    chunker = Chunker.for_encoder(encoder, chunking_signature(encoder, settings)[0])  # as a local finalize
    unit = Unit(Path(spec["path"]), spec["fmt"], [Path(p) for p, _ in spec["covers"]])
    with ContentStore() as store:
        ctx = ReadContext(content=store, mapping=spec["mapping"])
        for p, fmt in spec["covers"]:
            if fmt in CONTENT_FORMATS:
                store.add_file(Path(p), fmt)
        if unit.fmt in CONTENT_FORMATS:
            store.mark_taken(unit.path, spec["taken"])
            for p, fmt in spec["reread"]:  # metadata units whose joins were not staged: read them again
                for _ in _until_damage(iter_unit(Unit(Path(p), fmt), ctx), []):
                    pass
        damage: list = []
        counts = _stage_items(_until_damage(iter_unit(unit, ctx), damage), tmp, chunker, spec["batch_size"])
        damage += [store.damaged[str(p)] for p in unit.covers if str(p) in store.damaged]
        taken = {str(p): store.taken_lines(p) for p in unit.covers if p != unit.path}
    write_json(tmp / "parse.json", {"damage": [str(e) for e in damage], "taken": taken, "counts": counts,
                                    "parse_seconds": round(time.perf_counter() - t0, 3), "node": os.uname().nodename})
    return {"spec": row["spec"], "tmp": str(tmp)}


class ShardEmbedder:
    """Ray Data actor: embeds staged shards' texts (and chunks when eager) with the corpus's encoder,
    then publishes each shard folder by one rename."""

    def __init__(self, settings_json: str, device: str | None, threads: int | None):
        self.settings, self.encoder = _encoder(settings_json, device, threads)

    def _embed(self, source: Path, target: Path, key: str) -> None:
        from litnav.corpus.build import vector_table

        data = pq.ParquetFile(source)
        schema = None
        writer = None
        try:
            for batch in data.iter_batches(batch_size=EMBED_BATCH):
                ids = batch.column("corpus_id").to_pylist()
                vecs = self.encoder.encode(batch.column("text").to_pylist())
                table = vector_table(ids, vecs, **{key: batch.column(key)})
                if writer is None:
                    schema = table.schema
                    writer = pq.ParquetWriter(target, schema)
                writer.write_table(table)
        finally:
            if writer is not None:
                writer.close()
        if writer is None:  # no rows: an empty file with the table's columns
            empty = vector_table([], self.encoder.encode([]), **{key: pa.array([], data.schema_arrow.field(key).type)})
            pq.write_table(empty, target)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        """Embed and publish the shards of ``batch`` (columns ``spec``, ``tmp``); returns their ids."""
        done = []
        for spec_json, tmp_name in zip(batch["spec"], batch["tmp"]):
            spec = json.loads(spec_json)
            tmp = Path(tmp_name)
            t0 = time.perf_counter()
            if self.settings.abstract_embeddings:  # a BM25-only corpus stores no abstract vectors
                self._embed(tmp / "texts.parquet", tmp / "vectors.parquet", "text_hash")
            if spec["signature"]["eager"]:
                self._embed(tmp / "chunks.parquet", tmp / "chunk_vectors.parquet", "ordinal")
            info = json.loads((tmp / "parse.json").read_text())
            info.update(signature=spec["signature"], embed_seconds=round(time.perf_counter() - t0, 3),
                        embed_device=self.encoder.device)
            write_json(tmp / SHARD_FILE, info)
            final = Path(spec["staging"]) / spec["shard"]
            if final.exists():  # a stale shard made with other settings or inputs
                shutil.rmtree(final)
            os.rename(tmp, final)
            done.append(spec["shard"])
        return {"shard": done}


# ---------------------------------------------------------------- driver side


def _staged_items(path: Path) -> Iterator[Item]:
    """The items of a staged ``items.parquet``, in the order the reader yielded them."""
    types = {v: k for k, v in _KINDS.items()}
    for batch in pq.ParquetFile(path).iter_batches(batch_size=1000):
        for kind, payload in zip(batch.column("kind").to_pylist(), batch.column("payload").to_pylist()):
            cls = types[kind]
            yield Skipped(payload) if cls is Skipped else cls.model_validate_json(payload)


def _merge(writer: Any, u: Unit, folder: Path, report: Any, batch_size: int, model: dict, chunking: dict) -> None:
    """Commit one published shard into the corpus: one source transaction with its manifest row,
    like a local build's unit, plus the shard's derived chunks and vectors; a damaged copy of an
    input committed whole before is not committed (``report.kept_complete``), as in a local build."""
    import pyarrow.dataset as pads

    info = json.loads((folder / SHARD_FILE).read_text())
    derived = {name: pads.dataset(folder / f"{name}.parquet") for name in
               ("chunks", "hashes", "vectors", "chunk_vectors") if (folder / f"{name}.parquet").exists()}
    complete = writer.is_committed(u.key) and u.key not in writer.incomplete_sources()
    if info["damage"] and complete:  # a damaged copy of an input committed whole: keep the whole one
        report.kept_complete[u.key] = "; ".join(info["damage"])
        return
    with writer.source(u.key, u.print.size, u.print.sha256) as tx:
        tx.joined = [str(p) for p in u.covers if p != u.path]
        _write(tx, _staged_items(folder / "items.parquet"), report.read, batch_size)
        for p, lines in info["taken"].items():  # content rows rejected alone earlier, joined now
            tx.drop_rejects(p, lines)
        stored = tx.add_derived(derived, model, chunking)
        mark_damage(tx, report, u.key, list(info["damage"]))
    count_unit(tx, report, u.key)
    report.shards["papers_chunked"] += stored["chunked_papers"]
    report.shards["vectors"] += stored["vectors"]


def _failure(error: BaseException) -> str:
    """One line for a unit that failed on the cluster: the worker's own exception (Ray wraps it, with its
    traceback, in the text of its task error) and what to do."""
    text = "\n".join(str(e) for e in (error, error.__cause__) if e is not None)
    raised = [m.group(1, 2) for m in re.finditer(r"^([\w.]*(?:Error|Exception)): (.+)$", text, re.M)
              if not m.group(1).startswith("ray.")]
    what = f"{raised[0][0].rpartition('.')[2]}: {raised[0][1]}" if raised else text.strip().splitlines()[-1]
    return (f"a unit failed on the Ray cluster: {what}; the units finished before it are kept: fix the cause "
            "and rerun the same build to resume")


def _connect_check() -> None:
    """Raise :class:`EngineError` when Ray (with Ray Data) is not installed."""
    try:
        import ray.data  # noqa: F401
    except ImportError as e:
        raise EngineError("the Ray engine needs Ray Data: pip install 'litnav[ray]' (or 'ray[data]')") from e


def _connect(address: str | None) -> bool:
    """Join the cluster at ``address`` (None: a local instance), unless this process already has
    Ray initialised. Returns True when this call started the connection (and must shut it down)."""
    _connect_check()
    import ray

    if ray.is_initialized():
        return False
    try:
        ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise EngineError(f"cannot reach the Ray cluster at {address or 'a new local instance'}: {e}") from e
    return True


def _embed_placement(backend: str) -> tuple[str | None, float, int]:
    """``(device, GPUs per actor, actors)`` for the embedding pool: one actor per GPU when the cluster
    has GPUs and the backend runs on them, else CPU actors on half the cluster's CPUs (the other
    half parses)."""
    import ray

    res = ray.cluster_resources()
    gpus, cpus = int(res.get("GPU", 0)), int(res.get("CPU", 1))
    if gpus and backend in ("torch", "torch-bf16"):
        return "cuda", 1.0, gpus
    if gpus:
        log.warning("the cluster has %d GPUs but encoder backend %s runs on CPUs; set "
                    "corpus.encoder_backend=torch to embed on them (a different model identity)", gpus, backend)
    return None, 0.0, max(1, cpus // 2)


def build_on_ray(sources: list[str | Path], corpus_dir: str | Path, *, address: str | None = None,
                 **kwargs: Any) -> BuildReport:
    """``ingest.build(sources, corpus_dir, **kwargs)`` with parsing, chunking and embedding on the
    Ray cluster at ``address`` (None: this process's Ray if initialised, else a new local instance);
    see the module docstring. Returns the same ``BuildReport``, with ``shards`` filled. Raises
    :class:`EngineError` when Ray is missing or unreachable, and what ``build`` raises."""
    _connect_check()
    return build(sources, corpus_dir, ingest_units=functools.partial(ingest_on_ray, address=address), **kwargs)


def ingest_on_ray(writer: Any, units: list[Unit], todo: list[Unit], report: BuildReport, *,
                  mapping: dict[str, str], batch_size: int, progress: bool, address: str | None) -> None:
    """Ingest the ``todo`` units of the plan ``units`` into the open ``writer`` on a Ray cluster
    (``build``'s ``ingest_units`` hook); fills ``report`` as a local build does, plus ``report.shards``.
    Raises :class:`EngineError` when Ray is missing or unreachable, and what a unit's reading raises."""
    import ray

    from litnav.core.progress import progress_bar
    from litnav.corpus.build import chunking_signature
    from litnav.corpus.encoder import Encoder

    t_start = time.perf_counter()
    report.shards = {"computed": 0, "reused": 0, "papers_chunked": 0, "vectors": 0}
    staging = writer.directory / STAGING_DIR
    if not todo:  # every unit is in the manifest: no cluster needed
        shutil.rmtree(staging, ignore_errors=True)
        return
    settings = writer.settings
    settings_json = settings.model_dump_json()
    encoder = Encoder.from_settings(settings)
    model = encoder.identity()
    chunking = chunking_signature(encoder, settings)[1]
    eager = settings.chunk_embeddings == "eager"
    staging.mkdir(exist_ok=True)
    for stale in staging.glob(f"{TMP_PREFIX}*"):  # work in progress of a killed build
        shutil.rmtree(stale, ignore_errors=True)
    content_fmt = {u.path: u.fmt for u in units if u.fmt in CONTENT_FORMATS}
    primaries = {u.key: [m for m in units if m.fmt in PRIMARY_FOR and u.path in m.covers]
                 for u in units if u.fmt in CONTENT_FORMATS}
    signatures = {u.key: _signature(u, mapping, model, chunking, eager, primaries.get(u.key, [])) for u in units}
    bar = progress_bar(total=len(todo), desc="ray shards", unit="shard", progress=progress)

    def merge_ready(pending: list[tuple[Unit, dict]], ready: set[str]) -> None:
        """Merge the published shards at the head of ``pending`` (plan order, as a local build commits)."""
        while pending and pending[0][1]["shard"] in ready:
            u, spec = pending.pop(0)
            _merge(writer, u, staging / spec["shard"], report, batch_size, model, chunking)
            bar.update(1)

    data_log = logging.getLogger("ray.data")
    log_level = data_log.level
    if not progress:  # Ray Data logs its progress at INFO where there is no terminal
        data_log.setLevel(logging.WARNING)
    started = False
    try:
        started = _connect(address)
        device, gpus, actors = _embed_placement(settings.encoder_backend)
        for wave in ([u for u in todo if u.fmt not in CONTENT_FORMATS], [u for u in todo if u.fmt in CONTENT_FORMATS]):
            if not wave:
                continue
            specs = []
            for u in wave:
                taken: list[int] = []
                reread: list[list[str]] = []
                for m in primaries.get(u.key, []):
                    info = _published(staging, shard_id(m.key), signatures[m.key])
                    if info is not None and str(u.path) in info["taken"]:
                        taken += info["taken"][str(u.path)]
                    else:
                        reread.append([str(m.path), m.fmt])
                specs.append({"shard": shard_id(u.key), "staging": str(staging), "path": str(u.path), "fmt": u.fmt,
                              "covers": [[str(p), content_fmt.get(p, u.fmt)] for p in u.covers],
                              "mapping": mapping, "settings": settings_json, "batch_size": batch_size,
                              "signature": signatures[u.key], "taken": sorted(set(taken)), "reread": reread})
            ready = {s["shard"] for s in specs if _published(staging, s["shard"], s["signature"])}
            report.shards["reused"] += len(ready)
            pending = list(zip(wave, specs))
            merge_ready(pending, ready)
            run = [s for s in specs if s["shard"] not in ready]
            if run:
                ds = ray.data.from_items([{"spec": json.dumps(s)} for s in run], override_num_blocks=len(run))
                # Ray Data reruns a task or actor call lost with its worker or node. The actors' memory
                # reservation also keeps the stages apart (equal resources would fuse parsing into the
                # actor pool): parsing stays one task per unit on every CPU.
                ds = ds.map(parse_shard, num_cpus=1)
                ds = ds.map_batches(ShardEmbedder, batch_size=1, num_cpus=1, num_gpus=gpus or None,
                                    memory=EMBED_ACTOR_MEMORY,
                                    compute=ray.data.ActorPoolStrategy(min_size=1, max_size=actors),
                                    fn_constructor_kwargs={"settings_json": settings_json, "device": device,
                                                           "threads": None if device else 1})
                rows = iter(ds.iter_rows())
                while True:
                    try:
                        row = next(rows)
                    except StopIteration:
                        break
                    except Exception as e:  # a unit's task or actor call failed (lost workers are retried)
                        raise EngineError(_failure(e)) from e
                    report.shards["computed"] += 1
                    ready.add(row["shard"])
                    merge_ready(pending, ready)
            if pending:
                raise EngineError(f"the Ray pipeline ended without {len(pending)} shard(s), e.g. {pending[0][0].key}")
    finally:
        bar.close()
        data_log.setLevel(log_level)
        if started:
            ray.shutdown()
    shutil.rmtree(staging, ignore_errors=True)
    report.seconds["ray"] = round(time.perf_counter() - t_start, 3)
