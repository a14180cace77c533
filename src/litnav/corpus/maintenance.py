"""Whole-corpus maintenance built on the writer: ``reindex`` (store new settings, rebuild what
depends on them) and ``check`` (verify every tier, optionally repair the indexes).

The rules live below: ``corpus.identity`` (which settings a corpus is tied to) and
``corpus.integrity`` (what an intact corpus looks like), both used by the writer; these operations
use the writer, so they sit above it and no module imports back.
"""

from __future__ import annotations

import logging
from pathlib import Path

from litnav.core.settings import CorpusSettings
from litnav.corpus.errors import CorpusError
from litnav.corpus.integrity import CheckReport, verify
from litnav.corpus.store import set_meta

log = logging.getLogger(__name__)


def check(path: str | Path, repair: bool = False, progress: bool = False) -> CheckReport:
    """``corpus.integrity.verify`` the corpus at ``path``; with ``repair``, damaged or missing
    indexes are rebuilt from the database (FAISS, BM25, missing vectors and chunks) and the check
    runs again (a damaged database table is not repairable this way). Raises
    :class:`CorpusError` when ``path`` is not a corpus or is in use."""
    from litnav.corpus.storage import storage_errors
    from litnav.corpus.writer import CorpusWriter

    directory = Path(path)
    report = verify(directory)
    if repair and report.problems and not report.database_damaged:
        log.info("repairing %s: %s", directory, report.problems)
        with storage_errors(directory), CorpusWriter.open(directory) as w:
            set_meta(w.conn, "indexes_dirty", True)
            w.finalize(progress=progress)
        after = verify(directory)
        report.repaired = not after.problems
        report.problems = after.problems
        report.checked = after.checked
    return report


def reindex(path: str | Path, settings: CorpusSettings | None = None, progress: bool = True) -> dict[str, float]:
    """Rebuild a corpus's derived data in place from its database: store ``settings`` (explicit
    fields override the stored ones, identity changes allowed), re-chunk when the chunking changed,
    re-embed every vector when the model changed, and rebuild the FAISS and BM25 indexes.

    Returns finalize's seconds per stage. Raises :class:`CorpusError` when ``path`` is not a corpus.
    """
    from litnav.corpus.encoder import Encoder
    from litnav.corpus.schema import db_path
    from litnav.corpus.store import get_meta, set_meta
    from litnav.corpus.writer import CorpusWriter

    if not db_path(Path(path)).is_file():
        raise CorpusError(f"{path} is not a corpus directory (no {db_path(Path(path)).name} in it)")
    from litnav.corpus.storage import storage_errors

    with storage_errors(path), CorpusWriter.open(path, settings, allow_settings_change=True) as w:
        stored_model = get_meta(w.conn, "model")
        model_changed = bool(stored_model) and not Encoder.from_settings(w.settings).matches(stored_model)
        set_meta(w.conn, "indexes_dirty", True)
        log.info("reindex %s (model changed: %s)", path, model_changed)
        return w.finalize(progress=progress, reembed=model_changed)
