"""Shared test fixtures: where the real data lives, and a skip when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` beside the repository; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent (it lives beside the repository)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The hand-written fixtures committed under ``tests/fixtures``."""
    return FIXTURES


@pytest.fixture(scope="session")
def search_corpus_dir(tmp_path_factory) -> Path:
    """The search fixture corpus (``tests/fixtures/search``: fourteen papers), built once per run."""
    import sys

    if str(FIXTURES / "search") not in sys.path:
        sys.path.insert(0, str(FIXTURES / "search"))
    from search_papers import documents

    return write_corpus(tmp_path_factory.mktemp("search") / "corpus", "search", documents())


def write_corpus(path: Path, name: str, documents) -> Path:
    """Build a finalized corpus at ``path`` from ``documents`` (one source ``fixture:<name>``)."""
    import hashlib

    from litnav.corpus import CorpusWriter

    with CorpusWriter.open(path) as w:
        with w.source(f"fixture:{name}", 1, hashlib.sha256(name.encode()).hexdigest()) as tx:
            tx.add_documents(documents)
        w.finalize(progress=False)
    return path


@pytest.fixture(scope="session")
def open_corpus(tmp_path_factory):
    """``make(name, documents) -> Corpus``: a small corpus built from hand-written documents and
    opened; every one is closed at the end of the run."""
    from litnav.corpus import Corpus

    opened = []

    def make(name: str, documents) -> Corpus:
        opened.append(Corpus.open(write_corpus(tmp_path_factory.mktemp(name) / "corpus", name, documents)))
        return opened[-1]

    yield make
    for c in opened:
        c.close()


@pytest.fixture(scope="session")
def search_corpus(search_corpus_dir):
    """The search fixture corpus (:func:`search_corpus_dir`), opened once per run."""
    from litnav.corpus import Corpus

    c = Corpus.open(search_corpus_dir)
    yield c
    c.close()


@pytest.fixture(scope="session")
def export_corpus(tmp_path_factory) -> Path:
    """The export/report/server fixture corpus (``tests/fixtures/export``), built once per run."""
    import sys

    for sub in ("search", "export"):
        if str(FIXTURES / sub) not in sys.path:
            sys.path.insert(0, str(FIXTURES / sub))
    from export_papers import build_corpus

    return build_corpus(tmp_path_factory.mktemp("export") / "corpus")


@pytest.fixture(scope="session")
def export_session(export_corpus, tmp_path_factory) -> Path:
    """A session file of one real search over ``export_corpus`` (top 10), written once per run."""
    from litnav.core.settings import Settings
    from litnav.corpus import Corpus
    from litnav.navigator import search
    from litnav.session.io import write_session

    with Corpus.open(export_corpus) as c:
        session = search("dense retrieval for question answering", c, Settings(), top_k=10)
    return write_session(session, tmp_path_factory.mktemp("export-session") / "session.json")


@pytest.fixture()
def search_jsonl(tmp_path: Path) -> Path:
    """The search fixture papers (``tests/fixtures/search``) as one generic JSONL source file."""
    import json
    import sys

    if str(FIXTURES / "search") not in sys.path:
        sys.path.insert(0, str(FIXTURES / "search"))
    from search_papers import documents

    path = tmp_path / "papers.jsonl"
    with path.open("w") as fh:
        for d in documents():
            fh.write(json.dumps({"id": d.paper.corpus_id, "title": d.paper.title, "abstract": d.abstract,
                                 "year": d.paper.year, "venue": d.paper.venue}) + "\n")
    return path
