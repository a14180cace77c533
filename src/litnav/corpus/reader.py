"""Corpus: the read-only view of a corpus directory that every upper package uses.

Heavy parts load on first use and are shared per process (keyed by directory and fingerprint):
the encoder model, the FAISS index, the BM25 index, and an LRU of chunk vectors per paper.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from litnav.core.ids import normalise_external_id
from litnav.core.io import atomic_path
from litnav.core.records import MetadataPredicate
from litnav.core.settings import CorpusSettings
from litnav.core.text import normalise_title, surname
from litnav.corpus.chunking import ABSTRACT_SECTION
from litnav.corpus.encoder import Encoder, backend_of
from litnav.corpus.errors import CorpusError, DenseUnavailableError, ModelMismatchError, mismatch_message
from litnav.corpus.records import EXTERNAL_ID_KINDS, Chunk, Citation, Hit, Paper
from litnav.corpus.rows import PAPER_SELECT, paper_from_row
from litnav.corpus.schema import CHUNK_CACHE_DIR, EMBED_TEXT_SQL, INDEX_DIR
from litnav.corpus.store import (
    COUNT_KEYS,
    STAGE_KEY,
    UNRESOLVED_SQL,
    build_stage,
    connect,
    content_counts,
    get_meta,
)
from litnav.corpus.vectors import load_vectors

CHUNK_CACHE_PAPERS = 4096
"""Papers whose chunk vectors the process-level LRU keeps."""

_SHARED: dict[tuple[str, str], _Shared] = {}
_SHARED_LOCK = threading.Lock()


TITLE_ORDINAL = -1
"""Ordinal under which a paper's title vector sits among its cached chunk vectors (chunks count from 0)."""


def _ordinal(chunk: Chunk) -> int:
    return int(chunk.chunk_id.rsplit(":", 1)[1])


def _text_hash(text: str) -> int:
    """64-bit blake2b of a chunk's text: a cached vector is used only for the same text."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


class _Shared:
    """Per-process state of one corpus version: indexes and the chunk-vector LRU."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.faiss: tuple[Any, list[str], dict[str, int]] | None = None
        self.lexical: Any = None
        # corpus_id -> {chunk ordinal: (text hash, vector)} of lazily embedded chunks
        self.chunk_vectors: OrderedDict[str, dict[int, tuple[int, np.ndarray]]] = OrderedDict()
        self.title_index: list[tuple[str, str]] | None = None
        self.venues: dict[str, int] | None = None
        self.venue_pairs: list[tuple[str | None, str | None]] | None = None
        self.venue_kinds: list[tuple[str | None, str | None, list[str] | None]] | None = None
        # corpus_id -> chunks made on read for papers a build in stage "lexical" has not chunked yet
        self.unstored_chunks: dict[str, list[Chunk]] = {}
        self.cache_roots: list[Path] | None = None


class Corpus:
    """Read-only access to a corpus directory built by :class:`corpus.CorpusWriter`."""

    def __init__(self, directory: Path, conn: Any, encoder: Encoder | None):
        self.directory = directory
        self._conn = conn
        self._lock = threading.RLock()
        self.settings = CorpusSettings.model_validate(get_meta(conn, "settings") or {})
        self.model_info: dict[str, Any] | None = get_meta(conn, "model")
        self._encoder = encoder
        self._encoder_checked = False
        self._fingerprint = self._compute_fingerprint()
        with _SHARED_LOCK:
            self._shared = _SHARED.setdefault((str(directory.resolve()), self._fingerprint), _Shared())

    @classmethod
    def open(cls, path: str | Path, encoder: Encoder | None = None,
             settings: CorpusSettings | None = None) -> Corpus:
        """Open the corpus at ``path`` read-only.

        ``encoder`` None = the model recorded in the corpus settings, checked on first use, unless
        ``settings`` asks for one (:meth:`requested_encoder`: a ``model_path``, or an
        ``encoder_backend`` set explicitly). Raises :class:`CorpusError` naming ``path`` when it is
        missing or not a corpus, :class:`ModelMismatchError` when the encoder is not the model
        that made the corpus's vectors, and ``TypeError`` for a ``path`` or ``settings`` of another type.
        """
        if not isinstance(path, (str, Path)):
            raise TypeError(f"a corpus is opened from its directory (a str or Path), got {type(path).__name__}")
        if settings is not None and not isinstance(settings, CorpusSettings):
            raise TypeError(f"settings must be a CorpusSettings (Settings().corpus), got {type(settings).__name__}")
        directory = Path(path)
        if not directory.is_dir():
            raise CorpusError(f"{directory} is a file, not a corpus directory" if directory.exists()
                              else f"corpus directory {directory} does not exist")
        corpus = cls(directory, connect(directory, read_only=True), encoder)
        try:
            if encoder is None and settings is not None:
                encoder = corpus._encoder = corpus.requested_encoder(settings)
            if encoder is not None:
                corpus._check_encoder(encoder)
        except ModelMismatchError:
            corpus.close()
            raise
        return corpus

    def requested_encoder(self, settings: CorpusSettings) -> Encoder | None:
        """The encoder ``settings`` ask for on this corpus, or None when they ask for none (the
        corpus's recorded model then serves). A ``model_path`` asks for that model and an explicitly
        set ``encoder_backend`` (``--set``, a settings file) for that backend; an unset backend is
        the one that made this corpus's vectors, not the current default, so a corpus built with an
        earlier default keeps opening with a model path in the settings. Raises
        :class:`ModelMismatchError` when that encoder is not the model of this corpus's vectors."""
        explicit = "encoder_backend" in settings.model_fields_set
        if not (settings.model_path or explicit):
            return None
        backend = settings.encoder_backend if explicit else (
            backend_of(self.model_info) if self.model_info else settings.encoder_backend)
        encoder = Encoder.from_settings(settings, backend=backend)
        self._refuse_other_model(encoder)
        return encoder

    @property
    def encoder_backend(self) -> str:
        """The encoder backend this corpus's searches use (``corpus.encoder_backend`` values), without
        loading the model."""
        if self._encoder is not None:
            return self._encoder.backend
        return backend_of(self.model_info) if self.model_info else self.settings.encoder_backend

    def __enter__(self) -> Corpus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection (process-level caches stay for the next open)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- helpers -------------------------------------------------------------------------------
    def _q(self, sql: str, params: list | None = None) -> list[tuple]:
        if self._conn is None:
            raise CorpusError(f"corpus {self.directory} is closed")
        with self._lock:
            return self._conn.execute(sql, params or []).fetchall()

    _IDS_CTE = "WITH _ids AS (SELECT unnest(?::VARCHAR[]) AS corpus_id) "
    """``_ids(corpus_id)`` from a list parameter (registering an Arrow table would import pandas)."""

    def _q_ids(self, sql: str, ids: Iterable[str]) -> list[tuple]:
        """Run the SELECT ``sql``, which reads the id list as a table ``_ids(corpus_id)``."""
        with self._lock:
            self._conn.complete()  # a pending result (e.g. of a relation) would refuse new work
            return self._conn.execute(self._IDS_CTE + sql, [list(ids)]).fetchall()

    def _arrow_ids(self, sql: str, ids: list[str]) -> pa.Table:
        """:meth:`_q_ids` as an Arrow table."""
        with self._lock:
            self._conn.complete()
            return self._conn.sql(self._IDS_CTE + sql, params=[ids]).to_arrow_table()

    def _refuse_other_model(self, encoder: Encoder) -> None:
        """Raise :class:`ModelMismatchError` when ``encoder`` is not the model of this corpus's vectors."""
        if self.model_info and not encoder.matches(self.model_info):
            raise ModelMismatchError(mismatch_message(self.directory, self.model_info, encoder.identity()))

    def _check_encoder(self, encoder: Encoder) -> None:
        self._refuse_other_model(encoder)
        self._encoder_checked = True

    @property
    def encoder(self) -> Encoder:
        """The encoder of this corpus's vectors (loads lazily; checked against the recorded model)."""
        if self._encoder is None:
            # the backend that made the stored vectors (torch for corpora older than backends)
            self._encoder = Encoder.from_settings(self.settings, backend=backend_of(self.model_info))
        if not self._encoder_checked:
            self._check_encoder(self._encoder)
        return self._encoder

    def _meta(self, key: str, default: Any = None) -> Any:
        """``meta[key]`` read under the connection lock (one DuckDB connection serves every thread)."""
        if self._conn is None:
            raise CorpusError(f"corpus {self.directory} is closed")
        with self._lock:
            return get_meta(self._conn, key, default)

    def _require_indexes(self) -> None:
        if self._meta("indexes_dirty", True):
            raise CorpusError(
                f"corpus {self.directory}: indexes are not built for the current content; "
                "run the build to completion (CorpusWriter.finalize)")

    # -- counts and identity ----------------------------------------------------------------------
    def _counts(self) -> dict[str, int]:
        """Content counts: those finalize stored with the finished indexes (no table scan on open;
        a corpus finalized by an older litnav lacks the newer keys until its next build), else
        computed (:func:`store.content_counts`)."""
        if self._conn is None:
            raise CorpusError(f"corpus {self.directory} is closed")
        with self._lock:
            stored = self._meta("counts")
            if stored and set(stored) <= set(COUNT_KEYS) and not self._meta("indexes_dirty", True):
                return {k: int(stored[k]) for k in COUNT_KEYS if k in stored}
            return content_counts(self._conn)

    def stats(self) -> dict[str, Any]:
        """Integer counts (papers, abstracts, full_texts, chunks, citations, rejects, unresolved_refs,
        vectors) plus ``model`` (name, dim, weights_hash), ``faiss``, ``chunk_vectors_mode``, ``indexes_dirty``."""
        out: dict[str, Any] = self._counts()
        out["model"] = self.model_info
        out["faiss"] = self._meta("faiss")
        out["chunk_vectors_mode"] = self._meta("chunk_vectors_mode")
        out["indexes_dirty"] = bool(self._meta("indexes_dirty", True))
        out["build_stage"] = self.build_stage()
        return out

    def build_stage(self) -> str:
        """``"complete"``; ``"lexical"`` when BM25 is current but the abstract vectors are not built
        yet (a build is embedding them, or was interrupted while it did: rerunning it resumes); or
        ``"ingest"`` when content was written after the last index build (not searchable)."""
        with self._lock:
            if self._conn is None:
                raise CorpusError(f"corpus {self.directory} is closed")
            return build_stage(self._conn)

    def missing_channels(self) -> dict[str, str]:
        """Retrieval channels this corpus cannot serve -> why (empty for a complete corpus with
        abstract vectors). ``{"semantic": ...}`` (dense retrieval and abstract vectors absent; BM25
        and citations work) in two cases: build stage ``lexical`` (a build is embedding the
        abstracts, or was interrupted while it did: rerunning it finishes), or a corpus built with
        ``corpus.abstract_embeddings=false`` (no abstract vectors by choice: meta ``faiss`` is None)."""
        stage = self.build_stage()
        if stage == "lexical" and not self._previous_dense():
            return {"semantic": f"abstract vectors of {self.directory} are not built yet (build stage 'lexical': "
                                "a build is embedding them, or was interrupted; rerun the same `litnav build` to "
                                "finish); searching with BM25 only"}
        if stage == "complete" and self._meta("faiss") is None:
            return {"semantic": f"{self.directory} was built without abstract vectors "
                                "(corpus.abstract_embeddings=false); searching with BM25 and citations only; "
                                "rebuild with `--set corpus.abstract_embeddings=true` to add dense retrieval"}
        return {}

    def partial_channels(self) -> dict[str, str]:
        """Retrieval channels this corpus serves over part of its papers -> why (empty for a complete
        corpus). ``{"semantic": ...}`` in build stage ``lexical`` after papers were added to or changed
        in a complete corpus: dense retrieval searches the FAISS index of the last complete build
        until the running (or interrupted) build publishes the new one, so the papers added or
        changed since are found by BM25 and citations only (never a changed paper by its old
        vector: ``semantic_search`` drops it)."""
        previous = self._previous_dense()
        if not previous:
            return {}
        papers = self._counts()["papers"]
        return {"semantic": f"dense retrieval searches the abstract vectors of the last complete build of "
                            f"{self.directory} ({previous.get('n')} papers; the corpus now holds {papers}): "
                            "papers added or changed since are found by BM25 and citations until the build "
                            "that embeds them finishes (rerun the same `litnav build` if it was interrupted)"}

    def _previous_dense(self) -> dict | None:
        """The FAISS meta of the last complete build while a later build embeds (build stage
        ``lexical`` over a corpus that was complete with abstract vectors, index files in place), else
        None. A build that drops the stored vectors (another model, ``--reembed``) clears it."""
        if self.build_stage() != "lexical":
            return None
        from litnav.corpus.vectors import index_files_present

        meta = self._meta("faiss")
        return meta if meta and index_files_present(self.directory / INDEX_DIR) else None

    def _compute_fingerprint(self) -> str:
        manifest = self._q("SELECT source_key, size, sha256 FROM manifest ORDER BY source_key")
        # meta only (no table scan): content changes through a source transaction change the manifest,
        # finalize changes the stored counts and the index files' build id
        payload = {"manifest": manifest, "counts": self._meta("counts"),
                   "index_build": (self._meta("index_files") or {}).get("build"), "model": self.model_info,
                   "settings": self.settings.model_dump(mode="json"),
                   "dirty": self._meta("indexes_dirty", True)}
        if self._meta(STAGE_KEY) == "lexical":  # dense joins later: a new version for the caches
            payload["stage"] = "lexical"
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def fingerprint(self) -> str:
        """16 hex chars over the manifest, counts, model and settings; changes when content changes."""
        return self._fingerprint

    # -- tier 1 ---------------------------------------------------------------------------------
    def paper(self, corpus_id: str) -> Paper | None:
        """Metadata of one paper, or None."""
        rows = self._q(f"SELECT {PAPER_SELECT} FROM papers WHERE corpus_id = ?", [corpus_id])
        return paper_from_row(rows[0]) if rows else None

    def papers(self, ids: Iterable[str]) -> dict[str, Paper]:
        """Metadata of the given ids that exist (missing ids are absent from the result)."""
        rows = self._q_ids(f"SELECT {PAPER_SELECT} FROM papers WHERE corpus_id IN (SELECT corpus_id FROM _ids)", ids)
        return {r[0]: paper_from_row(r) for r in rows}

    def all_ids(self) -> list[str]:
        """Every corpus id, sorted."""
        return [r[0] for r in self._q("SELECT corpus_id FROM papers ORDER BY corpus_id")]

    def find_by_external_id(self, kind: str, value: str) -> str | None:
        """Corpus id with external id ``kind`` = ``value`` (normalised like the stored ids), or None.

        Raises ValueError for a ``kind`` outside ``EXTERNAL_ID_KINDS``.
        """
        kind = kind.lower()
        if kind not in EXTERNAL_ID_KINDS:
            raise ValueError(f"unknown external id kind {kind!r}; expected one of {EXTERNAL_ID_KINDS}")
        if kind == "s2":
            rows = self._q("SELECT corpus_id FROM papers WHERE corpus_id = ?", [value.strip()])
            if rows:
                return rows[0][0]
        rows = self._q("SELECT corpus_id FROM external_ids WHERE value = ? AND kind = ? ORDER BY corpus_id",
                       [normalise_external_id(kind, value), kind])
        return rows[0][0] if rows else None

    def lists_authors(self) -> bool:
        """Whether any paper of the corpus lists an author."""
        return bool(self._q("SELECT 1 FROM papers WHERE len(authors) > 0 LIMIT 1"))

    def has_author(self, name: str, full: bool = False) -> bool:
        """Whether any paper lists an author whose name contains ``name``'s surname
        (``core.text.surname``; case-insensitive substring, so a coarse test: False means that no
        paper can satisfy an author constraint on ``name``); with ``full``, the whole of ``name``
        (words joined by single spaces), which tells a person's name from a capitalised topic."""
        key = (" ".join(name.split()) if full else surname(name)).lower().replace("%", "").replace("_", "")
        if not key:
            return False
        return bool(self._q("SELECT 1 FROM papers WHERE lower(CAST(authors AS VARCHAR)) LIKE ? LIMIT 1", [f"%{key}%"]))

    def find_by_title(self, title: str, year: int | None = None) -> list[str]:
        """Ids whose normalised title equals ``normalise_title(title)``; with ``year``, only papers
        whose year is unknown or within +-1 of it. Sorted."""
        norm = normalise_title(title)
        if not norm:
            return []
        if year is None:
            rows = self._q("SELECT corpus_id FROM papers WHERE norm_title = ? ORDER BY corpus_id", [norm])
        else:
            rows = self._q("SELECT corpus_id FROM papers WHERE norm_title = ? AND (year IS NULL OR abs(year - ?) <= 1) "
                           "ORDER BY corpus_id", [norm, year])
        return [r[0] for r in rows]

    def find_by_short_title(self, name: str) -> list[str]:
        """Ids of the papers whose title is ``name`` and a subtitle after a colon ("Soft
        Actor-Critic" for "Soft Actor-Critic: Off-Policy Maximum Entropy ..."), the two compared as
        normalised titles (``normalise_title``); sorted, ``[]`` for a blank name."""
        norm = normalise_title(name)
        if not norm:
            return []
        key = norm.replace("%", "").replace("_", "")
        rows = self._q("SELECT corpus_id, title FROM papers WHERE norm_title LIKE ? ORDER BY corpus_id", [f"{key} %"])
        return [cid for cid, title in rows if ":" in title and normalise_title(title.split(":", 1)[0]) == norm]

    def count_titles_with(self, phrase: str) -> int:
        """How many titles hold ``phrase`` as whole words (normalised as titles are): a topic
        ("Statistical Machine Translation") is in many, a method's name in few."""
        norm = normalise_title(phrase).replace("%", "").replace("_", "")
        if not norm:
            return 0
        return self._q("SELECT count(*) FROM papers WHERE ' ' || norm_title || ' ' LIKE ?", [f"% {norm} %"])[0][0]

    def find_by_acronym(self, acronym: str) -> list[str]:
        """Ids of the papers an acronym of 3-12 letters or digits names, sorted: those whose title
        is the acronym and a subtitle ("BERT: Pre-training of ..."), else those whose title words,
        up to the first stop word, have the acronym as initials ("DDPM": "Denoising Diffusion
        Probabilistic Models"; "MAML": "Model-Agnostic Meta-Learning for Fast Adaptation ...").
        ``[]`` for anything else."""
        from litnav.core.text import stop_words

        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9-]{2,11}", acronym or ""):
            return []
        named = self._q("SELECT corpus_id FROM papers WHERE lower(title) LIKE ? ORDER BY corpus_id",
                        [f"{acronym.lower()}:%"])
        if named:
            return [r[0] for r in named]
        key, stops = acronym.lower().replace("-", ""), stop_words()
        found = []
        for cid, norm in self.title_index():
            initials = []
            for word in norm.split():
                if word in stops:
                    break
                initials.append(word[0])
            if "".join(initials) == key:
                found.append(cid)
        return found

    def title_index(self) -> list[tuple[str, str]]:
        """``[(corpus_id, normalised title)]`` for all papers, sorted by id (cached per process)."""
        if self._shared.title_index is None:
            self._shared.title_index = [
                (r[0], r[1]) for r in self._q("SELECT corpus_id, norm_title FROM papers ORDER BY corpus_id")]
        return list(self._shared.title_index)

    def papers_per_year(self) -> dict[int, int]:
        """Publication year -> number of papers, ascending (papers without a year are not counted)."""
        return {int(y): int(n) for y, n in self._q(
            "SELECT year, count(*) FROM papers WHERE year IS NOT NULL GROUP BY year ORDER BY year")}

    def newest_date(self) -> date | None:
        """The newest publication date of the corpus: its latest ``publication_date``, or 31
        December of its latest ``year`` when that year is later than every known date; None when
        no paper has a year or a date."""
        (latest, year), = self._q("SELECT max(publication_date), max(year) FROM papers")
        if year is not None and (latest is None or int(year) > latest.year):
            return date(int(year), 12, 31)
        return latest

    def venues(self) -> dict[str, int]:
        """The venue vocabulary: normalised venue -> number of papers (papers without a venue are
        not counted), plus, for papers whose normalised venue is a kind rather than a name
        (``corpus.predicates.GENERIC_VENUES``: "WS"), their raw venue string -> number of papers, so
        a workshop is known by its own name ("International Workshop on Spoken Language
        Translation", hence "IWSLT"). Computed on first use and kept per process for this corpus
        version (one scan of the papers table)."""
        if self._shared.venues is None:
            from litnav.corpus.predicates import GENERIC_VENUES

            generic = sorted(GENERIC_VENUES)
            vocab = {r[0]: int(r[1]) for r in self._q(
                "SELECT venue, count(*) FROM papers WHERE venue IS NOT NULL GROUP BY venue ORDER BY venue")}
            for raw, n in self._q(
                    "SELECT venue_raw, count(*) FROM papers WHERE lower(venue) IN (SELECT unnest(?::VARCHAR[])) "
                    "AND venue_raw IS NOT NULL GROUP BY venue_raw ORDER BY venue_raw", [generic]):
                vocab.setdefault(raw, int(n))
            self._shared.venues = vocab
        return dict(self._shared.venues)

    MATCHING_LIMIT = 50_000
    """:meth:`ids_matching` gives up (None) above this many candidate papers."""

    def ids_matching(self, predicates: list[MetadataPredicate], limit: int | None = None) -> set[str] | None:
        """The corpus ids of every paper for which each predicate holds (``corpus.predicates.evaluate``
        is True: unknown metadata fails), or None when the set cannot be bounded cheaply.

        Used to search *within* hard metadata constraints (an exact filter applied before ranking,
        not after a depth cut). ``year`` and ``venue`` predicates are decided in SQL with
        ``evaluate``'s rules (a venue predicate is decided once per distinct (venue, venue_raw)
        pair, a kind of venue, "journal", once per distinct (venue, venue_raw, publication types));
        any other predicate is then decided by ``evaluate`` on the survivors. None when no
        year or venue predicate narrows the table, or when more than ``limit`` (default
        :attr:`MATCHING_LIMIT`) papers survive the SQL step: the caller then searches the whole
        corpus and filters afterwards.
        """
        from litnav.corpus.predicates import evaluate, names_venue_kind

        limit = self.MATCHING_LIMIT if limit is None else limit
        where: list[str] = []
        params: list[Any] = []
        rest: list[MetadataPredicate] = []
        for p in predicates:
            if p.field == "year":
                lo, hi = p.start or date.min, p.end or date.max
                test = ("(CASE WHEN publication_date IS NOT NULL THEN publication_date BETWEEN ? AND ? "
                        "ELSE year BETWEEN ? AND ? END)")
                where.append(f"NOT {test}" if p.negate else test)  # unknown stays NULL: fails either way
                params += [lo, hi, lo.year, hi.year]
            elif p.field == "venue":
                if self._shared.venue_pairs is None:  # one scan per process and corpus version
                    self._shared.venue_pairs = self._q("SELECT DISTINCT venue, venue_raw FROM papers")
                pairs = self._shared.venue_pairs
                keep = [f"{v or ''}\x1f{r or ''}" for v, r in pairs
                        if evaluate(p, Paper(corpus_id="", title="", venue=v, venue_raw=r))[0] is True]
                where.append("coalesce(venue, '') || chr(31) || coalesce(venue_raw, '') IN (SELECT unnest(?::VARCHAR[]))")
                params.append(keep)
            elif names_venue_kind(p):
                if self._shared.venue_kinds is None:  # a kind of venue: decided once per (venue, raw venue, types)
                    self._shared.venue_kinds = self._q(
                        "SELECT DISTINCT venue, venue_raw, publication_types FROM papers")
                keep = [_kind_key(v, r, t) for v, r, t in self._shared.venue_kinds if evaluate(
                    p, Paper(corpus_id="", title="", venue=v, venue_raw=r, publication_types=list(t or [])))[0] is True]
                where.append("coalesce(venue, '') || chr(31) || coalesce(venue_raw, '') || chr(31) || "
                             "array_to_string(coalesce(publication_types, []::VARCHAR[]), chr(30)) "
                             "IN (SELECT unnest(?::VARCHAR[]))")
                params.append(keep)
            else:
                rest.append(p)
        if not where:
            return None
        rows = self._q(f"SELECT corpus_id FROM papers WHERE {' AND '.join(where)} LIMIT ?", [*params, limit + 1])
        if len(rows) > limit:
            return None
        ids = {r[0] for r in rows}
        if rest:
            papers = self.papers(ids)
            ids = {cid for cid, paper in papers.items() if all(evaluate(p, paper)[0] is True for p in rest)}
        return ids

    def _edges(self, rows: list[tuple]) -> list[Citation]:
        merged: dict[tuple[str, str], Citation] = {}
        for citing, cited, contexts, intents, method in rows:
            key = (citing, cited)
            if key not in merged:
                merged[key] = Citation(citing_id=citing, cited_id=cited, contexts=list(contexts or []),
                                       intents=list(intents or []), method=method)
                continue
            c = merged[key]
            c.contexts.extend(x for x in contexts or [] if x not in c.contexts)
            c.intents.extend(x for x in intents or [] if x not in c.intents)
            if method != "title":
                c.method = method
        return list(merged.values())

    _EDGE_SELECT = ("SELECT citing_id, cited_id, contexts, intents, method FROM citations WHERE {} "
                    "ORDER BY citing_id, cited_id, CASE origin WHEN 'dump' THEN 0 WHEN 'doc' THEN 1 ELSE 2 END")

    def references(self, corpus_id: str) -> list[Citation]:
        """Edges from ``corpus_id`` to the papers it cites (one per cited id, contexts merged)."""
        return self._edges(self._q(self._EDGE_SELECT.format("citing_id = ?"), [corpus_id]))

    def citations(self, corpus_id: str) -> list[Citation]:
        """Edges from papers citing ``corpus_id`` (one per citing id, contexts merged)."""
        return self._edges(self._q(self._EDGE_SELECT.format("cited_id = ?"), [corpus_id]))

    def unresolved_references(self, corpus_id: str) -> list[dict[str, Any]]:
        """Bibliography entries of ``corpus_id`` that matched no corpus paper, in bibliography
        order: ``{"title", "year", "authors", "contexts"}`` each (what the source gave). An entry
        that finalize resolved to a corpus paper by its title (a ``citations`` edge of origin
        ``title``) is an edge, not listed here."""
        rows = self._q(UNRESOLVED_SQL + " AND r.citing_id = ? ORDER BY r.ordinal", [corpus_id])
        return [{"title": t, "year": y, "authors": list(a or []), "contexts": list(c or [])} for t, y, a, c in rows]

    def rejects(self) -> list[tuple[str, str, int, str]]:
        """``[(source_key, source_file, line, reason)]`` of rejected input records."""
        return self._q("SELECT source_key, source_file, line, reason FROM rejects ORDER BY source_key, source_file, line")

    def manifest(self) -> list[dict[str, Any]]:
        """Committed input files: source_key, size, sha256, ingested_at, documents, citations, rejects,
        plus ``incomplete``: None, or why the file was damaged part-way (its records before the damage
        are stored; a rebuild with a repaired file replaces them)."""
        cols = ("source_key", "size", "sha256", "ingested_at", "documents", "citations", "rejects")
        damaged = self._meta("incomplete_sources") or {}
        return [dict(zip(cols, r), incomplete=damaged.get(r[0]))
                for r in self._q(f"SELECT {', '.join(cols)} FROM manifest ORDER BY source_key")]

    def dump(self) -> dict[str, list[tuple]]:
        """Every table's rows, sorted, without timestamps: a content snapshot for comparing builds
        (vectors rounded to 5 decimals). Meant for small corpora (tests, audits)."""
        out: dict[str, list[tuple]] = {}
        for table in ("papers", "external_ids", "abstracts", "paragraphs", "chunks", "citations", "refs",
                      "rejects", "vectors", "chunk_vectors"):
            rows = self._q(f"SELECT * FROM {table}")
            if table in ("vectors", "chunk_vectors"):
                rows = [tuple(r[:-1]) + (tuple(round(float(x), 5) for x in r[-1]),) for r in rows]
            out[table] = sorted(rows, key=repr)
        out["manifest"] = sorted(self._q("SELECT source_key, size, sha256, documents, citations, rejects FROM manifest"))
        out["meta"] = sorted(self._q("SELECT key, value FROM meta WHERE key NOT IN ('settings', 'index_files')"))
        return out

    # -- tier 2/3 text -----------------------------------------------------------------------------
    def abstract(self, corpus_id: str) -> str | None:
        """The abstract, or None."""
        rows = self._q("SELECT abstract FROM abstracts WHERE corpus_id = ?", [corpus_id])
        return rows[0][0] if rows else None

    def abstracts(self, ids: Iterable[str]) -> dict[str, str]:
        """Abstracts of the given ids in one query (ids without an abstract are absent)."""
        rows = self._q_ids("SELECT corpus_id, abstract FROM abstracts WHERE corpus_id IN (SELECT corpus_id FROM _ids)",
                           ids)
        return {cid: text for cid, text in rows if text}

    def full_text(self, corpus_id: str) -> str | None:
        """Abstract then body paragraphs joined by a blank line (what chunk offsets index into); None when no text."""
        abstract = self.abstract(corpus_id)
        body = [r[0] for r in self._q("SELECT text FROM paragraphs WHERE corpus_id = ? ORDER BY idx", [corpus_id])]
        parts = ([abstract] if abstract else []) + body
        return "\n\n".join(parts) if parts else None

    def paragraphs(self, corpus_id: str) -> list[tuple[int, str, int, int]]:
        """Body paragraphs as ``[(index, section, char_start, char_end)]`` into the full text."""
        return self._q("SELECT idx, section, char_start, char_end FROM paragraphs WHERE corpus_id = ? ORDER BY idx",
                       [corpus_id])

    _CHUNK_SELECT = "SELECT corpus_id, ordinal, section, paragraph, char_start, char_end, text FROM chunks"

    @staticmethod
    def _chunk(row: tuple) -> Chunk:
        cid, ordinal, section, paragraph, a, b, text = row
        return Chunk.model_construct(chunk_id=f"{cid}:{ordinal}", corpus_id=cid, section=section,
                                     paragraph=paragraph, char_start=a, char_end=b, text=text)

    def chunks(self, corpus_id: str) -> list[Chunk]:
        """Evidence chunks of a paper in text order (empty before finalize or without text; made
        now, as the build will store them, while the build has not chunked the paper yet)."""
        return self._chunks_many([corpus_id])[corpus_id]

    def chunks_many(self, ids: Iterable[str]) -> dict[str, list[Chunk]]:
        """:meth:`chunks` of several papers in one query: every id is a key (``[]`` for a paper
        without chunks or not in the corpus)."""
        return self._chunks_many(list(dict.fromkeys(ids)))

    def chunk_vectors(self, corpus_id: str) -> tuple[list[Chunk], np.ndarray]:
        """``(chunks, float32 [n, dim] L2-normalised)`` of a paper; computed and cached on first use
        when the corpus's chunk vectors are lazy."""
        return self.chunk_vectors_many([corpus_id])[corpus_id]

    def chunk_vectors_many(self, ids: Iterable[str]) -> dict[str, tuple[list[Chunk], np.ndarray]]:
        """:meth:`chunk_vectors` for several papers: every id is a key; chunk vectors missing from the
        corpus and the caches are embedded in one batch across all papers."""
        ids = list(dict.fromkeys(ids))
        chunks = self._chunks_many(ids)
        vecs = self._vectors_for(chunks, self._stored_chunk_vectors(ids, chunks))
        return {cid: (chunks[cid], vecs[cid]) for cid in ids}

    def title_vectors(self, titles: dict[str, str]) -> dict[str, np.ndarray]:
        """Encoded titles, corpus_id -> float32 ``[dim]`` (L2-normalised). Kept with the paper's lazy
        chunk vectors (LRU and ``DIR/chunk_cache``, under ordinal :data:`TITLE_ORDINAL`, checked
        against the title's hash), so later searches and processes do not re-encode them."""
        wanted = {cid: [Chunk.model_construct(chunk_id=f"{cid}:{TITLE_ORDINAL}", corpus_id=cid, section="Title",
                                              paragraph=0, char_start=0, char_end=len(t), text=t)]
                  for cid, t in titles.items()}
        return {cid: vecs[0] for cid, vecs in self._vectors_for(wanted, {}).items()}

    def vectors_of(self, wanted: dict[str, list[Chunk]]) -> dict[str, np.ndarray]:
        """Vectors of chosen chunks: corpus_id -> float32 ``[len(chunks), dim]`` (L2-normalised, in the
        given order). From the stored table on eager corpora; otherwise through the same process LRU
        and on-disk chunk cache as :meth:`evidence_chunks`, embedding only what neither holds."""
        ids = [cid for cid, cs in wanted.items() if cs]
        stored: dict[str, np.ndarray] = {}
        if self._meta("chunk_vectors_mode") != "lazy":  # a lazy corpus stores none: skip reading every chunk
            every = self._chunks_many(ids)
            stored = self._stored_chunk_vectors(ids, every)
        out: dict[str, np.ndarray] = {}
        for cid in stored:
            pos = {c.chunk_id: i for i, c in enumerate(every[cid])}
            out[cid] = stored[cid][[pos[c.chunk_id] for c in wanted[cid]]]
        out.update(self._vectors_for({cid: cs for cid, cs in wanted.items() if cid not in stored}, {}))
        return out

    def evidence_chunks(self, ids: Iterable[str], queries: list[str], per_query: int,
                        usable: Callable[[Chunk], bool] | None = None) -> dict[str, tuple[list[Chunk], np.ndarray]]:
        """The chunks evidence location compares with the checkpoint ``queries``, with their vectors.

        Papers whose chunk vectors are stored (eager corpora) give all their chunks. Otherwise the
        candidates are pre-selected lexically, so only they are embedded: per paper the top
        ``per_query`` chunks by BM25 (:func:`lexical.passage_scores` over the given papers' chunks) for
        each query, plus every abstract sentence (all chunks when that selects nothing); ``usable``
        (when given) drops chunks before anything else (e.g. boilerplate). Vectors come
        from the stored table, the process LRU or ``DIR/chunk_cache``; the rest are embedded in one
        batch for all papers and cached. Every id is a key; chunks stay in text order.
        """
        ids = list(dict.fromkeys(ids))
        chunks = self._chunks_many(ids)
        stored = self._stored_chunk_vectors(ids, chunks)
        ok = usable or (lambda c: True)
        for cid in stored:  # eager papers: every usable chunk
            keep = [i for i, c in enumerate(chunks[cid]) if ok(c)]
            stored[cid], chunks[cid] = stored[cid][keep], [chunks[cid][i] for i in keep]
        lazy = [cid for cid in ids if cid not in stored and chunks[cid]]
        chosen: dict[str, list[Chunk]] = {cid: chunks[cid] for cid in ids if cid not in lazy}
        if lazy and queries:
            from litnav.corpus.lexical import passage_scores

            flat = [c for cid in lazy for c in chunks[cid]]
            scores = passage_scores([c.text for c in flat], queries)
            pos = 0
            for cid in lazy:
                cs = chunks[cid]
                block = scores[pos:pos + len(cs)]
                pos += len(cs)
                checked: dict[int, bool] = {}  # `usable` runs only on candidates (it can be slow)

                def fits(i: int, checked: dict[int, bool] = checked, cs: list[Chunk] = cs) -> bool:
                    if i not in checked:
                        checked[i] = ok(cs[i])
                    return checked[i]

                keep = {i for i, c in enumerate(cs) if c.section == ABSTRACT_SECTION and c.paragraph == 0 and fits(i)}
                for j in range(block.shape[1]):
                    col, taken = block[:, j], 0
                    for i in np.argsort(-col, kind="stable"):
                        if taken >= per_query or col[i] <= 0:
                            break
                        if fits(int(i)):
                            keep.add(int(i))
                            taken += 1
                if not keep:
                    keep = {i for i in range(len(cs)) if fits(i)}
                chosen[cid] = [cs[i] for i in sorted(keep)]
        elif lazy:
            chosen.update({cid: [c for c in chunks[cid] if ok(c)] for cid in lazy})
        vecs = self._vectors_for(chosen, stored)
        return {cid: (chosen[cid], vecs[cid]) for cid in ids}

    def _chunks_many(self, ids: list[str]) -> dict[str, list[Chunk]]:
        chunks: dict[str, list[Chunk]] = {c: [] for c in ids}
        if ids:
            for r in self._q_ids(self._CHUNK_SELECT + " WHERE corpus_id IN (SELECT corpus_id FROM _ids) "
                                 "ORDER BY corpus_id, ordinal", ids):
                chunks[r[0]].append(self._chunk(r))
            empty = [cid for cid in ids if not chunks[cid]]
            if empty and self.build_stage() == "lexical":
                chunks.update(self._unstored_chunks(empty))
        return chunks

    def _unstored_chunks(self, ids: list[str]) -> dict[str, list[Chunk]]:
        """Chunks of papers the build has not chunked yet (build stage ``lexical``), made as the
        build will store them (same chunker, limit and ordinals) and kept per process."""
        from litnav.corpus.chunking import Chunker, chunk_rows

        todo = [r[0] for r in self._q_ids("SELECT corpus_id FROM papers WHERE NOT chunked AND corpus_id IN "
                                          "(SELECT corpus_id FROM _ids)", ids)]
        made = self._shared.unstored_chunks
        todo = [cid for cid in todo if cid not in made]
        if todo:
            abstracts = dict(self._q_ids("SELECT corpus_id, abstract FROM abstracts WHERE corpus_id IN "
                                         "(SELECT corpus_id FROM _ids)", todo))
            body: dict[str, list[tuple[str, str]]] = {}
            for cid, section, text in self._q_ids("SELECT corpus_id, section, text FROM paragraphs WHERE corpus_id "
                                                  "IN (SELECT corpus_id FROM _ids) ORDER BY corpus_id, idx", todo):
                body.setdefault(cid, []).append((section, text))
            limit = (self._meta("chunking") or {}).get("limit") or min(self.settings.chunk_tokens,
                                                                      self.encoder.max_tokens)
            cols = chunk_rows(Chunker.for_encoder(self.encoder, int(limit)), todo, abstracts, body)
            fresh: dict[str, list[Chunk]] = {cid: [] for cid in todo}
            for row in zip(*(cols[k] for k in cols)):
                fresh[row[0]].append(self._chunk(row))
            with self._shared.lock:
                made.update(fresh)
        return {cid: list(made.get(cid, [])) for cid in ids}

    def _stored_chunk_vectors(self, ids: list[str], chunks: dict[str, list[Chunk]]) -> dict[str, np.ndarray]:
        """Vectors of the chunk_vectors table for papers whose every chunk has one (eager corpora)."""
        if not ids:
            return {}
        stored: dict[str, list[np.ndarray]] = {}
        t = self._arrow_ids("SELECT corpus_id, vec FROM chunk_vectors WHERE corpus_id IN "
                            "(SELECT corpus_id FROM _ids) ORDER BY corpus_id, ordinal", ids)
        if t.num_rows:
            flat = t.column("vec").combine_chunks().flatten().to_numpy(zero_copy_only=False)
            mat = flat.reshape(t.num_rows, -1).astype(np.float32, copy=False)
            for cid, v in zip(t.column("corpus_id").to_pylist(), mat):
                stored.setdefault(cid, []).append(v)
        return {cid: np.stack(v) for cid, v in stored.items() if chunks[cid] and len(v) == len(chunks[cid])}

    def _cache_roots(self) -> list[Path]:
        """Where lazy chunk vectors are cached, the one written first: ``DIR/chunk_cache``, or for a
        corpus directory this process cannot write (a read-only mount) a user cache folder keyed
        by the corpus identity, ``core.cache.cache_root("chunk_vectors", <id>)``
        (``DIR/chunk_cache`` is still read)."""
        if self._shared.cache_roots is None:
            own = self.directory / CHUNK_CACHE_DIR
            target = own if own.is_dir() else self.directory
            if os.access(target, os.W_OK):
                self._shared.cache_roots = [own]
            else:
                from litnav.core.cache import cache_root

                ident = hashlib.sha1(str(self.directory.resolve()).encode()).hexdigest()[:16]
                user = cache_root("chunk_vectors", ident)
                logging.getLogger(__name__).info(
                    "corpus %s is read-only: lazy chunk vectors are cached in %s", self.directory, user)
                self._shared.cache_roots = [user, own]
        return self._shared.cache_roots

    def _cache_path(self, corpus_id: str, root: Path | None = None) -> Path:
        ident = hashlib.sha1(json.dumps(self.encoder.identity(), sort_keys=True).encode()).hexdigest()[:16]
        key = hashlib.sha1(corpus_id.encode()).hexdigest()
        return (root or self._cache_roots()[0]) / ident / key[:2] / f"{key}.npz"

    def _vectors_for(self, wanted: dict[str, list[Chunk]], stored: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """float32 ``[len(chunks), dim]`` per paper for the given chunks (all of a paper's, or a subset).

        ``stored`` holds the table's vectors of papers whose chunks are all stored (then ``wanted``
        names all of them). Other papers' vectors come from the process LRU, then
        ``DIR/chunk_cache/<model>/`` (one ``.npz`` per paper: ordinal, text hash, vector), then one
        :meth:`encode` call for everything still missing, written back to both caches (a read-only
        corpus directory keeps only the LRU)."""
        dim = (self.model_info or {}).get("dim") or self.encoder.dim
        out: dict[str, np.ndarray] = {}
        rows: dict[str, dict[int, tuple[int, np.ndarray]]] = {}
        todo: list[tuple[str, Chunk]] = []
        lru = self._shared.chunk_vectors
        for cid, cs in wanted.items():
            if not cs:
                out[cid] = np.zeros((0, dim), dtype=np.float32)
                continue
            if cid in stored:
                out[cid] = stored[cid]
                continue
            with self._shared.lock:
                have = lru.get(cid)
                if have is not None:
                    lru.move_to_end(cid)
            if have is None:
                have = self._read_cache(cid)
            rows[cid] = dict(have or {})
            todo.extend((cid, c) for c in cs if _ordinal(c) not in rows[cid]
                        or rows[cid][_ordinal(c)][0] != _text_hash(c.text))
        if todo:
            vecs = self.encode([c.text for _, c in todo])
            for (cid, c), v in zip(todo, vecs):
                rows[cid][_ordinal(c)] = (_text_hash(c.text), v)
            for cid in dict.fromkeys(cid for cid, _ in todo):
                self._write_cache(cid, rows[cid])
        for cid, have in rows.items():
            out[cid] = np.stack([have[_ordinal(c)][1] for c in wanted[cid]]).astype(np.float32, copy=False)
            with self._shared.lock:
                lru[cid] = have
                lru.move_to_end(cid)
                while len(lru) > CHUNK_CACHE_PAPERS:
                    lru.popitem(last=False)
        return out

    def _read_cache(self, corpus_id: str) -> dict[int, tuple[int, np.ndarray]] | None:
        path = next((p for p in (self._cache_path(corpus_id, r) for r in self._cache_roots()) if p.is_file()), None)
        if path is None:
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                ordinals, hashes, vecs = z["ordinal"], z["text_hash"], z["vec"]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return None  # damaged cache file: re-embedded and rewritten
        if vecs.ndim != 2 or vecs.shape[1] != self.encoder.dim:
            return None
        return {int(o): (int(h), v) for o, h, v in zip(ordinals, hashes, vecs)}

    def _write_cache(self, corpus_id: str, rows: dict[int, tuple[int, np.ndarray]]) -> None:
        order = sorted(rows)
        try:
            with atomic_path(self._cache_path(corpus_id), suffix=".npz") as tmp:
                with open(tmp, "wb") as f:
                    np.savez(f, ordinal=np.array(order, dtype=np.int32),
                             text_hash=np.array([rows[o][0] for o in order], dtype=np.uint64),
                             vec=np.stack([rows[o][1] for o in order]).astype(np.float32))
        except OSError:
            pass  # read-only corpus directory: the in-memory LRU still holds them

    # -- vectors and search ------------------------------------------------------------------------
    def warm_encoder(self) -> None:
        """Start loading the query encoder in the background when dense retrieval will need it
        (:meth:`Encoder.warm`); a no-op for a corpus without abstract vectors. Best effort: a
        corpus error here (e.g. a model that does not match the stored vectors) is left to the
        search that needs the encoder, which raises it."""
        try:
            if self.dense_available():
                self.encoder.warm()
        except CorpusError:
            pass

    def encode(self, texts: list[str]) -> np.ndarray:
        """Embed texts with the corpus's model: float32 ``[n, dim]``, L2-normalised."""
        return self.encoder.encode(texts)

    def dense_available(self) -> bool:
        """True when dense retrieval can run: ``"semantic"`` is not in :meth:`missing_channels`
        (False in build stage ``lexical`` and for a corpus built with ``corpus.abstract_embeddings=false``)."""
        return "semantic" not in self.missing_channels()

    def _faiss(self) -> tuple[Any, list[str], dict[str, int]] | None:
        """``(index, ids, row of id)``, loaded once per process; None for a corpus built without
        abstract vectors. Raises :class:`DenseUnavailableError` in build stage ``lexical``."""
        with self._shared.lock:
            if self._shared.faiss is None:
                self._require_indexes()
                missing = self.missing_channels().get("semantic")
                if missing and self.build_stage() == "lexical":  # dense is on its way: say so
                    raise DenseUnavailableError(f"dense retrieval unavailable: {missing}")
                if missing:  # BM25-only by setting
                    return None
                from litnav.corpus.integrity import load_error, require_index
                from litnav.corpus.vectors import INDEX_FILE, load_index

                with self._lock:
                    require_index(self.directory, self._conn, "abstracts")
                try:
                    index, ids = load_index(self.directory / INDEX_DIR, self.settings.ivf_nprobe)
                    if index.ntotal != len(ids):
                        raise ValueError(f"{index.ntotal} vectors but {len(ids)} ids")
                except (RuntimeError, ValueError, OSError, EOFError) as exc:
                    raise load_error(self.directory, self.directory / INDEX_DIR / INDEX_FILE, exc) from exc
                self._shared.faiss = (index, ids, {c: i for i, c in enumerate(ids)})
            return self._shared.faiss

    def _exact(self, index: Any) -> bool:
        """True when ``index`` holds the exact vectors (flat); IVF-PQ codes are lossy."""
        import faiss
        return not isinstance(index, faiss.IndexIVF)

    def _stored_vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Exact title+abstract vectors of the given ids from the ``vectors`` table."""
        if not ids:
            return {}
        t = self._arrow_ids("SELECT corpus_id, vec FROM vectors WHERE corpus_id IN (SELECT corpus_id FROM _ids)", ids)
        if not t.num_rows:
            return {}
        flat = t.column("vec").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        mat = flat.reshape(t.num_rows, -1).astype(np.float32, copy=False)
        return dict(zip(t.column("corpus_id").to_pylist(), mat))

    def _query_vector(self, query: str | np.ndarray) -> np.ndarray:
        if isinstance(query, str):
            return self.encode([query])[0]
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        dim = (self.model_info or {}).get("dim")
        if dim and q.shape[0] != dim:
            raise ValueError(f"query vector has dimension {q.shape[0]}, corpus vectors have {dim}")
        norm = float(np.linalg.norm(q))
        return q / norm if norm > 0 else q

    RERANK_FACTOR = 4
    """An IVF-PQ search takes this many times ``k`` candidates, re-scored with the exact vectors."""

    def semantic_search(self, query: str | np.ndarray, k: int, ids: set[str] | None = None) -> list[Hit]:
        """Top ``k`` papers by cosine between the query and title+abstract vectors, best first.

        ``ids`` restricts the search to those papers (exact scores over their stored vectors).
        Over an IVF-PQ index (big corpora) the ``RERANK_FACTOR * k`` approximate best are re-scored
        with their exact stored vectors. A corpus built without abstract vectors
        (``corpus.abstract_embeddings=false``) gives ``[]``. Raises :class:`CorpusError` when the
        indexes are not built, and :class:`DenseUnavailableError` when only BM25 is built yet (build
        stage ``lexical``). Either way :meth:`missing_channels` names ``semantic`` beforehand.
        """
        loaded = self._faiss()
        if loaded is None:
            return []
        index, all_ids, row_of = loaded
        q = self._query_vector(query)
        if k <= 0 or not all_ids:
            return []
        if ids is None and self._previous_dense():  # the last build's index may hold papers removed since
            depth = k + 50
            while True:
                hits = self._present(self._semantic_hits(index, all_ids, q, depth))
                if len(hits) >= k or depth >= len(all_ids):
                    return hits[:k]
                depth *= 4
        if ids is not None:
            found, vecs = self.abstract_vectors(sorted(i for i in ids if i in row_of))
            if not found:
                return []
            scores = vecs @ q
            order = sorted(range(len(found)), key=lambda j: (-scores[j], found[j]))[:k]
            return [Hit(corpus_id=found[j], score=float(scores[j])) for j in order]
        return self._semantic_hits(index, all_ids, q, k)

    def _semantic_hits(self, index: Any, all_ids: list[str], q: np.ndarray, k: int) -> list[Hit]:
        """Top ``k`` of the whole index for the unit query vector ``q``, best first."""
        exact = self._exact(index)
        depth = min(len(all_ids), k if exact else max(self.RERANK_FACTOR * k, k + 50))
        scores, found = index.search(q[None, :], depth)
        hits = [(all_ids[r], float(s)) for r, s in zip(found[0], scores[0]) if r >= 0]
        if not exact:
            vecs = self._stored_vectors([c for c, _ in hits])
            hits = [(c, float(vecs[c] @ q)) for c, _ in hits if c in vecs]
        hits.sort(key=lambda h: (-h[1], h[0]))
        return [Hit(corpus_id=c, score=s) for c, s in hits[:k]]

    def _present(self, hits: list[Hit]) -> list[Hit]:
        """``hits`` of the last complete build's index whose paper is in the corpus with the title and
        abstract its vector was made from (a paper changed since waits for its new vector, as a new
        one does: BM25 finds it meanwhile), in order."""
        present = set(self._arrow_ids(
            f"SELECT p.corpus_id FROM papers p LEFT JOIN abstracts a USING (corpus_id) JOIN vectors v USING (corpus_id) "
            f"WHERE p.corpus_id IN (SELECT corpus_id FROM _ids) AND v.text_hash = md5({EMBED_TEXT_SQL})",
            [h.corpus_id for h in hits]).column("corpus_id").to_pylist())
        return [h for h in hits if h.corpus_id in present]

    def _lexical(self):
        with self._shared.lock:
            if self._shared.lexical is None:
                if not self._q("SELECT count(*) FROM papers")[0][0]:
                    raise CorpusError(f"corpus {self.directory} holds no papers (no build has ingested a record "
                                      f"into it): build it from input with records, `litnav build FILE --corpus "
                                      f"{self.directory}`")
                self._require_indexes()
                from litnav.corpus.integrity import load_error, require_index
                from litnav.corpus.lexical import BM25_DIR, Lexical

                with self._lock:
                    require_index(self.directory, self._conn, BM25_DIR + "/")
                try:
                    self._shared.lexical = Lexical(self.directory / INDEX_DIR)
                except Exception as exc:  # bm25s/numpy/json raise many kinds for a damaged file
                    raise load_error(self.directory, self.directory / INDEX_DIR / BM25_DIR, exc) from exc
        return self._shared.lexical

    def lexical_search(self, query: str, k: int, ids: set[str] | None = None) -> list[Hit]:
        """Top ``k`` papers by BM25 over title + abstract (positive scores only), best first;
        ``ids`` restricts the search to those papers (scores stay corpus-wide BM25)."""
        lexical = self._lexical()
        with self._damaged_bm25():
            return [Hit(corpus_id=c, score=s) for c, s in lexical.search(query, k, ids)]

    def lexical_relative(self, query: str, ids: Iterable[str]) -> dict[str, float]:
        """BM25 score of each paper for ``query`` over the corpus's best score: [0, 1] per id."""
        lexical = self._lexical()
        with self._damaged_bm25():
            return lexical.relative_scores(query, list(ids))

    @contextlib.contextmanager
    def _damaged_bm25(self) -> Iterator[None]:
        """A BM25 file damaged in place (same size: the load checks pass) fails inside a query
        with an index or type error: raised as the load error that names it and the repair."""
        from litnav.corpus.integrity import load_error
        from litnav.corpus.lexical import BM25_DIR

        try:
            yield
        except (IndexError, TypeError, OverflowError) as exc:
            raise load_error(self.directory, self.directory / INDEX_DIR / BM25_DIR, exc) from exc

    def abstract_vectors(self, ids: Iterable[str]) -> tuple[list[str], np.ndarray]:
        """``(ids found, float32 [n, dim])`` title+abstract vectors of the given papers, in the given order.

        Exact vectors: from the flat index, else from the ``vectors`` table. None are found without
        dense retrieval (:meth:`dense_available` False: build stage ``lexical``, or a corpus built
        without abstract vectors, where embedding a search's whole candidate pool on demand would
        cost more than the search: scoring then goes without the document-vector feature)."""
        ids = list(ids)
        loaded = self._faiss() if self.dense_available() else None
        if loaded is None:
            dim = (self.model_info or {}).get("dim") or 0
            return [], np.zeros((0, dim), dtype=np.float32)
        index, _, row_of = loaded
        found = [i for i in ids if i in row_of]
        if not found:
            return [], np.zeros((0, index.d), dtype=np.float32)
        if self._exact(index):
            return found, index.reconstruct_batch(np.array([row_of[i] for i in found], dtype=np.int64))
        vecs = self._stored_vectors(found)
        found = [i for i in found if i in vecs]
        return found, (np.stack([vecs[i] for i in found]) if found else np.zeros((0, index.d), dtype=np.float32))

    def sample_abstract_vectors(self, n: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
        """A reproducible random sample of ``n`` papers' vectors (all when ``n`` >= corpus size).
        Raises :class:`DenseUnavailableError` when the corpus has no abstract vectors (see
        :meth:`missing_channels`)."""
        missing = self.missing_channels().get("semantic")
        loaded = None if missing else self._faiss()
        if loaded is None:
            raise DenseUnavailableError(f"corpus {self.directory} has no abstract vectors: {missing}")
        all_ids = loaded[1]
        rng = np.random.default_rng(seed)
        pick = sorted(rng.choice(len(all_ids), size=min(n, len(all_ids)), replace=False).tolist())
        return self.abstract_vectors([all_ids[i] for i in pick])

    def stored_abstract_vectors(self) -> tuple[list[str], np.ndarray]:
        """All rows of the vectors table (ids sorted) — the source the FAISS index is built from."""
        with self._lock:
            return load_vectors(self._conn)


@contextlib.contextmanager
def opened(corpus: Corpus | str | Path, settings: CorpusSettings | None = None) -> Iterator[Corpus]:
    """``corpus`` itself when it is an open corpus (left open; :class:`ModelMismatchError` when
    ``settings`` ask for an encoder other than its model), else ``Corpus.open(corpus,
    settings=settings)`` for a path, closed on exit. Errors as :meth:`Corpus.open`; ``TypeError``
    for None or another type."""
    if corpus is None or isinstance(corpus, (bytes, int, float, dict, list)):
        raise TypeError(f"corpus must be an open Corpus or a corpus directory, got {type(corpus).__name__}")
    if isinstance(corpus, (str, Path)):
        with Corpus.open(corpus, settings=settings) as c:
            yield c
    else:
        ask = getattr(corpus, "requested_encoder", None)  # test doubles have no model to check
        if ask is not None and settings is not None:
            ask(settings)  # raises on another model
        yield corpus


def _kind_key(venue: str | None, venue_raw: str | None, types) -> str:
    """The SQL key of a (venue, raw venue, publication types) row in :meth:`Corpus.ids_matching`."""
    return f"{venue or ''}\x1f{venue_raw or ''}\x1f" + "\x1e".join(types or [])
