"""Full-text layout and evidence chunking.

Full text of a paper = abstract (when present) then body paragraphs, joined with ``"\\n\\n"``.
Paragraph index 0 is the abstract when there is one. Chunks never cross paragraphs:

* abstract: one chunk per sentence (section ``"Abstract"``), so abstract-only papers have evidence;
* body: consecutive sentences packed greedily while the chunk stays within ``limit`` word pieces.

A sentence longer than ``limit`` word pieces is split into windows of at most ``limit`` pieces whose
boundaries fall on word starts. For WordPiece tokenizers the piece count of whitespace-joined
sentences is the sum of their counts, so packed chunks respect the limit exactly. A chunk also
holds at most :data:`CHARS_PER_PIECE` × ``limit`` characters: WordPiece reads any word over 100
characters (a URL, base64, a formula string, a parser's run-on token) as one piece, which had made
one chunk of a 1 MB token; such a run is cut into windows of that many characters.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from litnav.core.text import sentence_spans

PARAGRAPH_SEPARATOR = "\n\n"
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+|[^\sA-Za-z0-9]")
ABSTRACT_SECTION = "Abstract"


@dataclass(frozen=True, slots=True)
class LaidOutParagraph:
    """One paragraph of the full text: index, section, char offsets ``[start, end)``, text."""

    index: int
    section: str
    start: int
    end: int
    text: str


def layout(abstract: str | None, body: Sequence[tuple[str, str]]) -> list[LaidOutParagraph]:
    """Paragraphs of the full text with offsets; ``body`` is ``[(section, text)]`` without the abstract."""
    out: list[LaidOutParagraph] = []
    pos = 0
    items = ([(ABSTRACT_SECTION, abstract)] if abstract else []) + list(body)
    for i, (section, text) in enumerate(items):
        out.append(LaidOutParagraph(i, section, pos, pos + len(text), text))
        pos += len(text) + len(PARAGRAPH_SEPARATOR)
    return out


def full_text(paragraphs: Sequence[LaidOutParagraph]) -> str:
    """The full text the chunk offsets index into."""
    return PARAGRAPH_SEPARATOR.join(p.text for p in paragraphs)


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    """A chunk before it becomes a record: paragraph index, section and full-text char offsets."""

    paragraph: int
    section: str
    start: int
    end: int


CHARS_PER_PIECE = 16
"""Characters a chunk may hold per word piece of its limit (256 pieces: 4,096 characters, about
three times what 256 pieces of prose take)."""


class Chunker:
    """Sentence-aligned chunker bounded by a tokenizer's word-piece count.

    ``tokenizer`` is a fast Hugging Face tokenizer (``Encoder.tokenizer``) or a ``tokenizers.Tokenizer``
    (:meth:`for_encoder`); ``limit`` the maximum word pieces per chunk (without special tokens).
    """

    def __init__(self, tokenizer: Any, limit: int):
        if limit < 1:
            raise ValueError(f"chunk token limit must be >= 1, got {limit}")
        self.tokenizer = tokenizer
        self.limit = limit
        self._backend: Any = None
        self._word_pieces: dict[str, int] | bool | None = None

    @classmethod
    def for_encoder(cls, encoder: Any, limit: int) -> Chunker:
        """A chunker with ``encoder``'s word pieces: its model folder's ``tokenizer.json`` read by
        ``tokenizers`` (the same pieces and offsets as the Hugging Face tokenizer, without importing
        transformers), else ``encoder.tokenizer``."""
        path = Path(encoder.path) / "tokenizer.json"
        if not path.is_file():
            return cls(encoder.tokenizer, limit)
        from tokenizers import Tokenizer

        return cls(Tokenizer.from_file(str(path)), limit)

    def _encode_fast(self, texts: list[str]) -> list[Any]:
        """One ``tokenizers.Encoding`` per text (``ids``, ``offsets``, ``word_ids``), no special tokens:
        the Rust tokenizer behind a fast Hugging Face tokenizer, without the Python-side conversion."""
        if self._backend is None:
            backend = self.tokenizer if hasattr(self.tokenizer, "encode_batch") else \
                getattr(self.tokenizer, "backend_tokenizer", None)
            if backend is None:
                raise TypeError(f"Chunker needs a fast (Rust) tokenizer, got {type(self.tokenizer).__name__}")
            from tokenizers import Tokenizer

            self._backend = Tokenizer.from_str(backend.to_str())  # own copy: no truncation, no padding
            self._backend.no_truncation()
            self._backend.no_padding()
        return self._backend.encode_batch(texts, add_special_tokens=False)

    def _ascii_counts(self, texts: list[str]) -> list[int | None]:
        """Word pieces of each ASCII text (None for the others), from a per-word cache.

        For ASCII, BERT's normaliser only lower-cases, drops control characters and turns tab/CR/LF
        into spaces, and its pre-tokeniser splits at whitespace and isolates every other
        non-alphanumeric character; WordPiece then works word by word. So a text's count is the
        sum of its words' counts, and each new word is counted once by the tokenizer itself.
        Only for BERT-style tokenizers (``BertPreTokenizer``); others give all None."""
        if self._word_pieces is None:
            self._encode_fast([])  # builds the backend
            pre = type(self._backend.pre_tokenizer).__name__ if self._backend.pre_tokenizer else ""
            norm = type(self._backend.normalizer).__name__ if self._backend.normalizer else ""
            self._word_pieces = {} if (pre, norm) == ("BertPreTokenizer", "BertNormalizer") else False
        if self._word_pieces is False:
            return [None] * len(texts)
        cache = self._word_pieces
        if len(cache) > 2_000_000:
            cache.clear()
        split = [_ASCII_WORD.findall(_ASCII_CONTROL.sub("", t)) if t.isascii() else None for t in texts]
        new = list({w for words in split if words is not None for w in words if w not in cache})
        if new:
            cache.update(zip(new, (len(e.ids) for e in self._backend.encode_batch(new, add_special_tokens=False))))
        return [None if words is None else sum(cache[w] for w in words) for words in split]

    def chunk(self, paragraphs: Sequence[LaidOutParagraph]) -> list[ChunkSpan]:
        """Chunks of one paper, in full-text order."""
        return self.chunk_many([paragraphs])[0]

    def chunk_many(self, papers: Sequence[Sequence[LaidOutParagraph]]) -> list[list[ChunkSpan]]:
        """Chunks of several papers (one tokenizer call for all their sentences).

        Abstract sentences are one chunk each, so they are tokenized only when they could exceed
        the limit (a word piece covers at least one character: a sentence of at most ``limit``
        characters fits); body sentences are counted, since packing needs their lengths."""
        sentences: list[tuple[int, LaidOutParagraph, int, int]] = []  # (paper, para, start, end)
        for k, paras in enumerate(papers):
            for p in paras:
                for a, b in sentence_spans(p.text):
                    sentences.append((k, p, a, b))
        counted = [i for i, (_, p, a, b) in enumerate(sentences)
                   if b - a > self.limit or not (p.section == ABSTRACT_SECTION and p.index == 0)]
        # ASCII sentences are counted word by word from a cache (the same count); the Rust tokenizer
        # runs on the rest and on sentences over the limit (their split needs offsets)
        sizes = self._ascii_counts([sentences[i][1].text[sentences[i][2]:sentences[i][3]] for i in counted])
        full = [i for i, n in zip(counted, sizes) if n is None or n > self.limit]
        known = {i: n for i, n in zip(counted, sizes) if n is not None and n <= self.limit}
        enc = dict(zip(full, self._encode_fast([sentences[i][1].text[sentences[i][2]:sentences[i][3]]
                                                for i in full]))) if full else {}
        result: list[list[ChunkSpan]] = [[] for _ in papers]
        # pieces per paragraph: (start, end, n_tokens) in paragraph-local chars
        pending: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        order: list[tuple[int, LaidOutParagraph]] = []
        for i, (k, p, a, b) in enumerate(sentences):
            key = (k, p.index)
            if key not in pending:
                pending[key] = []
                order.append((k, p))
            e = enc.get(i)
            if i in known:
                pending[key].append((a, b, known[i]))
            elif e is None:  # a short abstract sentence: at most b - a <= limit pieces
                pending[key].append((a, b, b - a))
            elif len(e.ids) <= self.limit:
                pending[key].append((a, b, len(e.ids)))
            else:
                pending[key].extend(self._split_long(a, e.offsets, e.word_ids))
        for k, p in order:
            result[k].extend(self._pack(p, pending[(k, p.index)]))
        return result

    def _split_long(self, base: int, offsets: list[tuple[int, int]], words: list[int | None]):
        n = len(offsets)
        s = 0
        while s < n:
            e = min(s + self.limit, n)
            if e < n:
                back = e
                while back > s + 1 and words[back] is not None and words[back] == words[back - 1]:
                    back -= 1
                e = back
            yield base + offsets[s][0], base + offsets[e - 1][1], e - s
            s = e

    def _pack(self, p: LaidOutParagraph, pieces: list[tuple[int, int, int]]) -> list[ChunkSpan]:
        most = CHARS_PER_PIECE * self.limit
        pieces = [(a + k, min(b, a + k + most), n)
                  for a, b, n in pieces for k in range(0, max(1, b - a), most)]  # a run-on token: windows
        out: list[ChunkSpan] = []
        if p.section == ABSTRACT_SECTION and p.index == 0:
            return [ChunkSpan(p.index, p.section, p.start + a, p.start + b) for a, b, _ in pieces]
        cur_a = cur_b = None
        cur_n = 0
        for a, b, n in pieces:
            if cur_a is not None and cur_n + n <= self.limit and b - cur_a <= most:
                cur_b, cur_n = b, cur_n + n
                continue
            if cur_a is not None:
                out.append(ChunkSpan(p.index, p.section, p.start + cur_a, p.start + cur_b))
            cur_a, cur_b, cur_n = a, b, n
        if cur_a is not None:
            out.append(ChunkSpan(p.index, p.section, p.start + cur_a, p.start + cur_b))
        return out


def token_counter(tokenizer: Any) -> Callable[[str], int]:
    """``text -> word pieces`` (no special tokens) for ``tokenizer``."""
    return lambda text: len(tokenizer(text, add_special_tokens=False)["input_ids"])


CHUNK_COLUMNS = ("corpus_id", "ordinal", "section", "paragraph", "char_start", "char_end", "text")
"""Columns of a chunk row (the ``chunks`` table's)."""


def chunk_rows(chunker: Chunker, ids: Sequence[str], abstracts: dict[str, str],
               body: dict[str, list[tuple[str, str]]]) -> dict[str, list]:
    """The chunk rows of papers ``ids`` as columns :data:`CHUNK_COLUMNS` (papers in the given
    order, chunks in text order; papers without text give none). ``abstracts``: id -> abstract;
    ``body``: id -> ``[(section, text)]`` of its body paragraphs in order. The build stores
    these rows; a reader makes the same ones for a paper the build has not chunked yet."""
    with_text = [cid for cid in ids if abstracts.get(cid) or body.get(cid)]
    laid = [layout(abstracts.get(c), body.get(c, [])) for c in with_text]
    cols: dict[str, list] = {k: [] for k in CHUNK_COLUMNS}
    for cid, paras, chunks in zip(with_text, laid, chunker.chunk_many(laid)):
        for ordinal, c in enumerate(chunks):
            p = paras[c.paragraph]
            cols["corpus_id"].append(cid)
            cols["ordinal"].append(ordinal)
            cols["section"].append(c.section)
            cols["paragraph"].append(c.paragraph)
            cols["char_start"].append(c.start)
            cols["char_end"].append(c.end)
            cols["text"].append(p.text[c.start - p.start:c.end - p.start])
    return cols
