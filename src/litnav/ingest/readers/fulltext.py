"""Shared by the S2ORC JSON readers: abstract, body paragraphs and bibliography (with the
citing sentences of each entry) from a parsed full text."""

from __future__ import annotations

from litnav.core.text import sentence_at, sentence_spans
from litnav.corpus.records import BibReference, Paragraph
from litnav.ingest.schemas import BibEntryIn, ParagraphIn, ParseIn
from litnav.ingest.text import author_name, unique

DEFAULT_SECTION = "Body"
"""Section name given to body paragraphs whose source section is empty."""


def paragraphs_of(body: list[ParagraphIn]) -> list[Paragraph]:
    """Non-empty body paragraphs with their section (``DEFAULT_SECTION`` when blank)."""
    return [
        Paragraph(section=(p.section or "").strip() or DEFAULT_SECTION, text=p.text.strip())
        for p in body
        if p.text and p.text.strip()
    ]


def cite_contexts(body: list[ParagraphIn]) -> dict[str, list[str]]:
    """bib-entry key -> the sentences (in order, unique) whose text contains a cite span
    pointing at that entry."""
    out: dict[str, list[str]] = {}
    for p in body:
        if not p.cite_spans:
            continue
        spans = sentence_spans(p.text)
        for cite in p.cite_spans:
            if cite.ref_id is None:
                continue
            sent = sentence_at(p.text, cite.start, spans)  # inside the text: ParagraphIn checks it
            if sent:
                out.setdefault(cite.ref_id, []).append(sent)
    return {k: unique(v) for k, v in out.items()}


def bib_reference(entry: BibEntryIn, contexts: list[str]) -> BibReference:
    """One ``BibReference``: linked (``link``/``links``) when the source matched a corpus id."""
    return BibReference(
        cited_id=entry.link or entry.links,
        title=" ".join(entry.title.split()) if entry.title else None,
        year=entry.year,
        authors=[n for a in entry.authors if (n := author_name(a.model_dump()))],
        contexts=contexts,
    )


def from_parse(parse: ParseIn) -> tuple[str | None, list[Paragraph], list[BibReference]]:
    """``(abstract, paragraphs, references)`` of one parse; the abstract joins its paragraphs
    with a blank line (None when empty)."""
    abstract = "\n\n".join(p.text.strip() for p in parse.abstract if p.text.strip()) or None
    contexts = cite_contexts(parse.body_text)
    refs = [bib_reference(e, contexts.get(key, [])) for key, e in parse.bib_entries.items()]
    return abstract, paragraphs_of(parse.body_text), refs
