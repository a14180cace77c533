"""Integrity of a corpus directory: checksums of the index files, checks of every tier, repair.

Every file under ``DIR/index/`` (the FAISS index and its ids, the BM25 folder) is recorded in the
database's ``meta`` under ``index_files`` after the build that wrote it — path -> size, sha256 and
the build id — the Lucene habit of a checksum per index file, kept in a manifest entry rather than
a footer so FAISS and bm25s keep their own formats. Opening an index compares sizes (cheap, every
open); :func:`check` also compares checksums and scans every database table (DuckDB verifies its
block checksums while reading), and ``repair`` rebuilds damaged indexes from the database.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from litnav.corpus.errors import CorpusError
from litnav.corpus.schema import INDEX_DIR
from litnav.corpus.store import STAGE_KEY, get_meta, set_meta

log = logging.getLogger(__name__)

INDEX_META = "index_files"
"""meta key: ``{"build": id, "files": {relative path: {"size": bytes, "sha256": hex}}}``."""

TABLES = ("papers", "external_ids", "abstracts", "paragraphs", "chunks", "chunk_vectors", "vectors",
          "citations", "refs", "rejects", "manifest", "meta")


class IndexDamagedError(CorpusError):
    """An index file is missing, cut short or does not load; the message names it and the fix."""


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _index_files(directory: Path) -> list[Path]:
    root = directory / INDEX_DIR
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and ".tmp" not in p.name
                  and not any(part.endswith((".tmp", ".old")) for part in p.relative_to(root).parts))


def record_index_files(conn: Any, directory: Path) -> str:
    """Store size and sha256 of every index file, with a new build id (returned)."""
    files = {str(p.relative_to(directory)): {"size": p.stat().st_size, "sha256": _sha256(p)}
             for p in _index_files(directory)}
    old = get_meta(conn, INDEX_META) or {}
    build = old["build"] if old.get("files") == files else uuid.uuid4().hex[:12]
    set_meta(conn, INDEX_META, {"build": build, "files": files})
    return build


def repair_command(directory: Path) -> str:
    """The command that rebuilds a corpus's indexes from its database."""
    return f"litnav check --corpus {directory} --repair"


def index_problems(directory: Path, conn: Any, checksums: bool = False, prefix: str = "") -> list[str]:
    """One line per recorded index file (whose relative path starts with ``prefix``) that is missing,
    has another size, or (``checksums``) another sha256 than its build recorded. Corpora built
    before the record existed give no problems here."""
    record = get_meta(conn, INDEX_META) or {}
    out = []
    for rel, want in sorted((record.get("files") or {}).items()):
        if not rel.startswith(prefix):
            continue
        path = directory / rel
        if not path.is_file():
            out.append(f"{path}: missing (written by build {record.get('build')})")
        elif path.stat().st_size != want["size"]:
            out.append(f"{path}: {path.stat().st_size} bytes, build {record.get('build')} wrote {want['size']}")
        elif checksums and _sha256(path) != want["sha256"]:
            out.append(f"{path}: checksum differs from the one build {record.get('build')} recorded")
    return out


def require_index(directory: Path, conn: Any, prefix: str) -> None:
    """Cheap check before loading an index: raise :class:`IndexDamagedError` naming the first
    missing or resized file under ``index/<prefix>`` and the repair command."""
    problems = index_problems(directory, conn, prefix=f"{INDEX_DIR}/{prefix}")
    if problems:
        raise IndexDamagedError(f"damaged index: {problems[0]}; rebuild the indexes from the database with "
                                f"`{repair_command(directory)}`")


def load_error(directory: Path, what: Path, exc: BaseException) -> IndexDamagedError:
    """The one-line error for an index file that exists but does not load."""
    return IndexDamagedError(f"damaged index {what}: it does not load ({type(exc).__name__}: {exc}); rebuild the "
                             f"indexes from the database with `{repair_command(directory)}`")


@dataclass
class CheckReport:
    """What :func:`verify` (and ``maintenance.check``) found: ``problems`` (one line each; empty =
    healthy), ``checked`` (tier -> what was verified), ``found`` (the problems before a repair),
    ``repaired`` (True when a repair ran and fixed everything) and ``database_damaged`` (a table
    cannot be read: rebuilding the indexes cannot fix that)."""

    problems: list[str] = field(default_factory=list)
    found: list[str] = field(default_factory=list)
    checked: dict[str, str] = field(default_factory=dict)
    repaired: bool = False
    database_damaged: bool = False


def _database_problems(conn: Any, checked: dict[str, str]) -> list[str]:
    out = []
    for table in TABLES:
        try:
            n, _ = conn.execute(f"SELECT count(*), sum(hash(t)) FROM {table} t").fetchone()
            checked[f"table {table}"] = f"{n} rows read"
        except Exception as exc:  # DuckDB raises its own error kinds for a damaged block
            out.append(f"table {table}: unreadable ({type(exc).__name__}: {exc}); the database is damaged: "
                       "rebuild the corpus from its sources into a new directory")
    return out


def _consistency_problems(directory: Path, conn: Any, checked: dict[str, str]) -> list[str]:
    """Counts that must agree between the tables and the indexes built from them."""
    out = []
    if get_meta(conn, "indexes_dirty", True):
        out.append(f"{directory}: indexes are not built for the current content (an interrupted build)")
        return out
    papers = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    # dense parts are checked only where the corpus has them: not in build stage 'lexical' (a build
    # is embedding the abstracts, or was interrupted: a rerun finishes) nor in a corpus built with
    # corpus.abstract_embeddings=false (meta faiss None); both are healthy BM25-searchable corpora
    lexical_only = get_meta(conn, STAGE_KEY) == "lexical"
    dense = not lexical_only and get_meta(conn, "faiss") is not None
    previous = (get_meta(conn, "faiss") or {}) if lexical_only else {}  # the last complete build's, still serving
    if lexical_only and previous:
        checked["dense"] = (f"the last complete build's FAISS index ({previous.get('n')} papers) serves until the "
                            "build embedding the new papers publishes (rerun the same `litnav build` to finish)")
    elif lexical_only:
        checked["dense"] = ("not built yet (build stage 'lexical': searchable with BM25 only); rerun the same "
                            "`litnav build` to finish embedding")
    elif not dense:
        checked["dense"] = "none (built with corpus.abstract_embeddings=false: BM25 and citations only)"
    else:
        vectors = conn.execute("SELECT count(*) FROM vectors").fetchone()[0]
        if vectors != papers:
            out.append(f"{directory}: {vectors} abstract vectors for {papers} papers")
        faiss = get_meta(conn, "faiss") or {}
        if faiss.get("n", papers) != papers:
            out.append(f"{directory / INDEX_DIR}: FAISS index holds {faiss.get('n')} papers, the database {papers}")
    import numpy as np

    from litnav.corpus.lexical import BM25_DIR
    from litnav.corpus.lexical import IDS_FILE as BM25_IDS
    from litnav.corpus.vectors import IDS_FILE

    checks = ([(Path(IDS_FILE), "FAISS ids", papers)] if dense else []) + [(Path(BM25_DIR) / BM25_IDS, "BM25 ids", papers)]
    if previous.get("n") is not None:
        checks.append((Path(IDS_FILE), "FAISS ids", previous["n"]))
    for rel, what, want in checks:
        path = directory / INDEX_DIR / rel
        if not papers and not path.exists():
            continue
        try:
            n = len(np.load(path, allow_pickle=False))
        except Exception as exc:
            out.append(f"{path}: does not load ({type(exc).__name__}: {exc})")
            continue
        checked[what] = f"{n} ids"
        if n != want:
            out.append(f"{path}: {n} ids for {want} papers")
    if get_meta(conn, "chunk_vectors_mode") == "eager" and not lexical_only:
        missing = conn.execute("SELECT count(*) FROM chunks c ANTI JOIN chunk_vectors v "
                               "ON c.corpus_id = v.corpus_id AND c.ordinal = v.ordinal").fetchone()[0]
        if missing:
            out.append(f"{directory}: {missing} chunks without a vector (eager mode)")
    return out


def verify(path: str | Path) -> CheckReport:
    """Verify every tier of the corpus at ``path``: every table is read in full, every index file's
    size and checksum is compared with its record, and counts are compared across tiers (read-only;
    ``corpus.maintenance.check`` adds the repair). Raises :class:`CorpusError` when ``path`` is not
    a corpus or is in use."""
    from litnav.corpus.schema import db_path
    from litnav.corpus.store import connect

    directory = Path(path)
    if not db_path(directory).is_file():
        raise CorpusError(f"{directory} is not a corpus directory (no {db_path(directory).name} in it)")
    report = CheckReport()
    conn = connect(directory, read_only=True)
    try:
        report.problems += _database_problems(conn, report.checked)
        files = index_problems(directory, conn, checksums=True)
        n_files = len((get_meta(conn, INDEX_META) or {}).get("files") or {})
        report.checked["index files"] = f"{n_files} checksums compared"
        report.problems += files
        report.problems += _consistency_problems(directory, conn, report.checked)
        db_damaged = any(p.startswith("table ") for p in report.problems)
        report.found = list(report.problems)
    finally:
        conn.close()
    report.database_damaged = db_damaged
    return report
