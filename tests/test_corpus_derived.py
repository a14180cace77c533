"""Chunks and vectors derived away from the corpus (a distributed build's workers) are stored only
where they still describe the stored paper; finalize makes the rest (no Ray needed here)."""

from __future__ import annotations

import duckdb
import numpy as np

from litnav.core.settings import CorpusSettings
from litnav.corpus import CorpusWriter
from litnav.corpus.build import chunking_signature, vector_table
from litnav.corpus.chunking import Chunker
from litnav.corpus.derived import derive_chunks
from litnav.corpus.encoder import Encoder
from litnav.corpus.records import Document, Paper, Paragraph


def _doc(cid: str, abstract: str, body: list[str]) -> Document:
    return Document(paper=Paper(corpus_id=cid, title=f"A study of {cid}"), abstract=abstract,
                    paragraphs=[Paragraph(section="Introduction", text=t) for t in body])


def test_derived_rows_are_kept_only_for_papers_stored_as_they_were_derived(tmp_path):
    settings = CorpusSettings()
    encoder = Encoder.from_settings(settings)
    limit, signature = chunking_signature(encoder, settings)
    same = _doc("same", "We measure things. The results hold.", ["Our method is simple. It works well."])
    before = _doc("merged", "An abstract a worker saw.", [])
    derived = derive_chunks([same, before], Chunker(encoder.tokenizer, limit))
    marker = np.zeros((2, encoder.dim), dtype=np.float32)
    marker[:, 0] = 1.0  # not what the encoder makes: shows which vectors finalize kept
    derived["vectors"] = vector_table(derived["texts"].column("corpus_id").to_pylist(), marker,
                                      text_hash=derived["texts"].column("text_hash"))
    # the writer stores another version of "merged" (e.g. merged with a copy from another shard)
    after = _doc("merged", "The abstract the corpus stores after merging two copies.", ["A body paragraph."])

    corpus = tmp_path / "corpus"
    with CorpusWriter.open(corpus, settings) as writer:
        with writer.source("input.jsonl", 1, "0" * 64) as tx:
            tx.add_documents([same, after])
            stored = tx.add_derived(derived, encoder.identity(), signature)
        assert stored == {"chunked_papers": 1, "vectors": 1}
        writer.finalize(progress=False)

    conn = duckdb.connect(str(corpus / "corpus.duckdb"), read_only=True)
    chunks = conn.execute("SELECT corpus_id, ordinal, text FROM chunks ORDER BY ALL").fetchall()
    vecs = {cid: np.array(v) for cid, v in conn.execute("SELECT corpus_id, vec FROM vectors").fetchall()}
    conn.close()
    want_same = [(r["corpus_id"], r["ordinal"], r["text"]) for r in derived["chunks"].to_pylist()
                 if r["corpus_id"] == "same"]
    assert [c for c in chunks if c[0] == "same"] == want_same
    merged_texts = [t for cid, _, t in chunks if cid == "merged"]
    assert "A body paragraph." in merged_texts and "An abstract a worker saw." not in merged_texts
    np.testing.assert_array_equal(vecs["same"], marker[0])  # the worker's vector was kept
    assert vecs["merged"][0] != 1.0  # re-embedded by finalize from the stored text
    np.testing.assert_allclose(np.linalg.norm(vecs["merged"]), 1.0, atol=1e-5)


def test_a_run_on_token_is_cut_into_windows_that_cover_it_exactly():
    """WordPiece reads a 1 MB token as one piece: it had become one chunk of 1,000,000 characters."""
    from litnav.corpus.chunking import CHARS_PER_PIECE, layout

    encoder = Encoder.from_settings(CorpusSettings())
    chunker = Chunker(encoder.tokenizer, 64)
    token = "ab" * 20_000
    paragraphs = layout("We study tokens.", [("Body", f"A long token follows: {token} and the text goes on.")])
    spans = [s for s in chunker.chunk(paragraphs) if s.section == "Body"]
    text = "\n\n".join(p.text for p in paragraphs)
    assert all(s.end - s.start <= CHARS_PER_PIECE * 64 for s in spans)
    assert "".join(text[s.start:s.end] for s in spans).replace(" ", "") == paragraphs[1].text.replace(" ", "")
