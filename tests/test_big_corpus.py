"""Big-corpus behaviour on small corpora: opening runs no full-table statement, the IVF-PQ index
past the size threshold (memory-mapped, real ids, recall against the exact index), corpora built
without abstract vectors, and the blocked title matcher."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from fixtures.corpus.docs import citations, documents

from litnav.corpus import Corpus, CorpusSettings, CorpusWriter
from litnav.corpus.records import Author, Document, Paper

WORDS = ("graph neural network attention transformer protein folding coral reef bleaching ocean "
         "temperature language model translation speech recognition image segmentation robot grasping "
         "reinforcement learning policy gradient quantum error correction qubit climate rainfall drought "
         "crop yield vaccine antibody immune response galaxy cluster dark matter survey battery cathode "
         "lithium catalyst hydrogen enzyme kinetics soil carbon forest fire seismic fault earthquake").split()


def synthetic(n: int, seed: int = 0) -> list[Document]:
    """``n`` papers whose titles and abstracts are seeded word salads over a few topics."""
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        topic = WORDS[(i * 7) % len(WORDS):(i * 7) % len(WORDS) + 6] or WORDS[:6]
        title = " ".join(rng.choice(topic + WORDS) for _ in range(rng.randint(5, 10)))
        abstract = ". ".join(" ".join(rng.choice(topic + WORDS) for _ in range(12)) for _ in range(3)) + "."
        docs.append(Document(paper=Paper(corpus_id=f"s{i:04d}", title=title.capitalize(), year=2000 + i % 20,
                                         authors=[Author(name=f"Author {i % 37}")]),
                             abstract=abstract))
    return docs


def write(path, docs, settings: CorpusSettings, cites=()) -> dict:
    with CorpusWriter.open(path, settings) as w:
        with w.source("in/x.jsonl", 1, "0" * 64) as tx:
            tx.add_documents(docs)
            if cites:
                tx.add_citations(list(cites))
        return w.finalize(progress=False)


class Recording:
    """A DuckDB connection that records the SQL run through it."""

    def __init__(self, conn):
        self._conn = conn
        self.statements: list[str] = []

    def execute(self, sql, *args, **kw):
        self.statements.append(sql)
        return self._conn.execute(sql, *args, **kw)

    def sql(self, sql, *args, **kw):
        self.statements.append(sql)
        return self._conn.sql(sql, *args, **kw)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def _open_statements(path, stats: bool = True) -> list[str]:
    """The SQL that opening ``path`` runs (plus ``stats()`` when asked)."""
    from litnav.corpus.store import connect

    rec = Recording(connect(path, read_only=True))
    corpus = Corpus(path, rec, None)
    corpus.fingerprint()
    if stats:
        corpus.stats()
    corpus.close()
    return rec.statements


@pytest.fixture(scope="module")
def two_sizes(tmp_path_factory):
    base = tmp_path_factory.mktemp("open")
    small, big = base / "small", base / "big"
    settings = CorpusSettings(abstract_embeddings=False)
    write(small, documents(), settings, citations())
    write(big, documents() + synthetic(120), settings, citations())
    return small, big


def test_open_reads_only_meta_and_manifest(two_sizes):
    small, big = two_sizes
    statements = _open_statements(big)
    tables = {t.lower() for s in statements for t in re.findall(r"\bFROM\s+([\w.]+)", s, flags=re.I)}
    assert tables <= {"meta", "manifest", "information_schema.tables"}, statements
    assert not any(re.search(r"count\s*\(|distinct", s, flags=re.I) for s in statements), statements
    # the same statements whatever the corpus size
    assert _open_statements(small) == statements


def test_open_of_unfinished_corpus_does_not_count(tmp_path):
    path = tmp_path / "c"
    with CorpusWriter.open(path, CorpusSettings(abstract_embeddings=False)) as w:
        with w.source("in/x.jsonl", 1, "0" * 64) as tx:
            tx.add_documents(synthetic(10))
    statements = _open_statements(path, stats=False)
    tables = {t.lower() for s in statements for t in re.findall(r"\bFROM\s+([\w.]+)", s, flags=re.I)}
    assert tables <= {"meta", "manifest", "information_schema.tables"}, statements
    with Corpus.open(path) as c:  # counts are computed when asked for (no finalize stored them)
        assert c.stats()["papers"] == 10


def test_build_without_abstract_embeddings(two_sizes):
    _, big = two_sizes
    with Corpus.open(big) as c:
        stats = c.stats()
        assert stats["vectors"] == 0 and stats["faiss"] is None and stats["papers"] == 125
        assert not c.dense_available()
        assert c.semantic_search("coral reef bleaching", 5) == []
        assert c.lexical_search("coral reef bleaching", 5)
        ids, vecs = c.abstract_vectors(["p2", "s0001"])  # none: scoring goes without them
        assert ids == [] and vecs.shape == (0, 384)
        assert c.evidence_chunks(["p1"], ["attention"], 2)["p1"][1].shape[1] == 384  # evidence still embeds


@pytest.fixture(scope="module")
def ivf_corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("ivf") / "c"
    write(path, synthetic(400, seed=1), CorpusSettings(ivf_threshold=100, ivf_nprobe=8))
    return path


def test_ivf_index_past_threshold(ivf_corpus):
    import faiss

    from litnav.corpus.schema import INDEX_DIR
    from litnav.corpus.vectors import load_index

    with Corpus.open(ivf_corpus) as c:
        assert c.stats()["faiss"] == {"kind": "ivf", "n": 400}
        index, ids = load_index(ivf_corpus / INDEX_DIR)
        assert isinstance(index, faiss.IndexIVFPQ) and index.ntotal == 400 and len(ids) == 400
        all_ids, exact = c.stored_abstract_vectors()
        rng = random.Random(3)
        recalls = []
        for _ in range(20):
            q = c.encode([" ".join(rng.choice(WORDS) for _ in range(4))])[0]
            truth = [all_ids[i] for i in np.argsort(-(exact @ q), kind="stable")[:10]]
            hits = c.semantic_search(q, 10)
            assert all(h.corpus_id in set(all_ids) for h in hits)
            recalls.append(len({h.corpus_id for h in hits} & set(truth)) / 10)
        recall = float(np.mean(recalls))
        print(f"IVF-PQ recall@10 vs exact over 20 queries: {recall:.3f}")
        assert recall >= 0.8
        # vectors handed to scoring are the exact stored ones, not the PQ codes
        found, vecs = c.abstract_vectors(all_ids[:3])
        assert found == all_ids[:3] and np.allclose(vecs, exact[:3], atol=1e-6)
        restricted = c.semantic_search(q, 5, ids=set(all_ids[:7]))
        assert len(restricted) == 5 and {h.corpus_id for h in restricted} <= set(all_ids[:7])


def test_below_threshold_stays_flat(tmp_path):
    import faiss

    from litnav.corpus.schema import INDEX_DIR
    from litnav.corpus.vectors import load_index

    path = tmp_path / "c"
    write(path, synthetic(120), CorpusSettings(ivf_threshold=1000))
    index, _ = load_index(path / INDEX_DIR)
    assert isinstance(index, faiss.IndexFlatIP)


def test_blocked_title_matcher_finds_what_the_full_scan_finds():
    from litnav.web.matcher import TitleIndex

    rng = random.Random(5)
    docs = synthetic(600, seed=2)
    from litnav.core.text import normalise_title

    entries = [(d.paper.corpus_id, normalise_title(d.paper.title)) for d in docs]
    full = TitleIndex(entries)
    blocked = TitleIndex(entries, block_from=0)
    queries = []
    for _, title in rng.sample(entries, 60):
        words = title.split()
        i = rng.randrange(len(words))
        typo = words[i][:-1] + "x" if len(words[i]) > 3 else words[i]
        queries += [title, " ".join(words[:i] + [typo] + words[i + 1:]), " ".join(words[:-1])]
    queries += ["completely unrelated words here", "coral"]
    for q in queries:
        assert blocked.fuzzy(q, 80.0) == full.fuzzy(q, 80.0), q
    assert len(blocked.candidates("coral reef")) < len(blocked.titles)


def test_word_cache_counts_match_the_tokenizer():
    from litnav.corpus.chunking import Chunker
    from litnav.corpus.encoder import Encoder

    chunker = Chunker.for_encoder(Encoder.from_settings(CorpusSettings()), 256)
    rng = random.Random(11)
    alphabet = "".join(chr(i) for i in range(128))
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 200))) for _ in range(2000)]
    texts += [" ".join(rng.choice(WORDS) for _ in range(30)) + "." for _ in range(200)]
    texts += ["Unbelievably-long-hyphenated_tokens, e.g. 3.5x (p<0.05)!", "x" * 150, "Café déjà vu"]
    fast = chunker._ascii_counts(texts)
    exact = [len(e.ids) for e in chunker._encode_fast(texts)]
    assert fast[-1] is None  # non-ASCII goes to the tokenizer
    assert [f for f in fast if f is not None] == [x for f, x in zip(fast, exact) if f is not None]


def test_plain_citation_rows_read_as_pydantic_reads_them():
    import itertools

    from pydantic import ValidationError

    from litnav.ingest.readers.datasets_api import _citation, _plain_citation
    from litnav.ingest.schemas import CitationIn

    ids = [None, 0, 5, "7", " 8 ", "", True, 1.5, ["a"]]
    contexts = [None, [], ["a", "a", ""], ["b", None], "s", ["c", "d"]]
    intents = [None, [], ["m", ["b", "m"]], [["x"], None], [["x", 1]], "r", [None, "z", ["z"]]]
    fast_rows = 0
    for a, b, c, d in itertools.product(ids, ids, contexts, intents):
        row = {"citingcorpusid": a, "citedcorpusid": b, "contexts": c, "intents": d}
        fast = _plain_citation(row)
        if fast is None:
            continue
        fast_rows += 1
        try:
            slow = _citation(CitationIn.model_validate(row))
        except ValidationError:
            pytest.fail(f"fast path accepted a row pydantic rejects: {row}")
        assert type(fast) is type(slow) and fast.__dict__ == slow.__dict__, row
    assert fast_rows > 100
