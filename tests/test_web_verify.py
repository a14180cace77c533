"""Reference-list parsing and the ``litnav verify`` audit (in-memory corpus and a real one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from litnav.corpus.records import Document, Paper
from litnav.web import ReferenceParseError, read_references, verify_references
from litnav.web.evaluation import MemoryCorpus

WEB = Path(__file__).resolve().parent / "fixtures" / "web"


def _papers() -> list[Paper]:
    with (WEB / "corpus_papers.jsonl").open(encoding="utf-8") as fh:
        return [Paper.model_validate(json.loads(line)) for line in fh]


@pytest.fixture(scope="module")
def corpus() -> MemoryCorpus:
    return MemoryCorpus(_papers())


def test_every_format_is_read(tmp_path):
    fmt, refs = read_references(WEB / "audit.bib")
    assert fmt == "bibtex" and refs[0].key == "vaswani2017attention" and refs[0].line == 1
    assert refs[0].record.authors[:2] == ["Vaswani, Ashish", "Shazeer, Noam"]
    assert refs[1].record.external_ids["arxiv"] == "1810.04805"
    ris = tmp_path / "refs.ris"
    ris.write_text("TY  - JOUR\nTI  - Long Short-Term Memory\nAU  - Hochreiter, Sepp\nPY  - 1997\n"
                   "DO  - 10.1162/neco.1997.9.8.1735\nER  - \n\nTY  - CONF\nT1  - Pointer Networks\nER  - \n")
    fmt, refs = read_references(ris)
    assert fmt == "ris" and [r.line for r in refs] == [1, 8] and refs[0].record.year == 1997
    csl = tmp_path / "refs.json"
    csl.write_text(json.dumps([{"id": "glove", "title": "GloVe: Global Vectors for Word Representation",
                                "author": [{"family": "Pennington", "given": "Jeffrey"}],
                                "issued": {"date-parts": [[2014]]}, "DOI": "10.3115/v1/D14-1162"}]))
    fmt, refs = read_references(csl)
    assert fmt == "csl-json" and refs[0].record.authors == ["Pennington, Jeffrey"]
    titles = tmp_path / "refs"
    titles.write_text("# my list\nAttention Is All You Need\n\nLatent Dirichlet Allocation\n")
    fmt, refs = read_references(titles)
    assert fmt == "titles" and [(r.key, r.line) for r in refs] == [("line 2", 2), ("line 4", 4)]


@pytest.mark.parametrize("name,text,where", [
    ("bad.bib", "@article{ok, title={A}, year={2020}}\n\n@article{broken,\n  title = {B\n  year = 2020,\n}\n"
                "@misc{c, title={C}}\n", r"bad\.bib:3: BibTeX entry cannot be parsed"),
    ("deep.json", "[" * 100_000, r"deep\.json: invalid JSON \(nested too deeply\)"),
    ("latin1.txt", "Attention Is All You Need\nZ\xfcrich".encode("latin-1"), r"latin1\.txt:2: not UTF-8 at line 2, column 2"),
    ("bad.json", '[{"title": "A"},\n {"title": }]', r"bad\.json:2: invalid JSON"),
    ("bad.ris", "TI  - no type line\nER  - \n", r"bad\.ris:1: no RIS entries"),
    ("num.json", '[{"title": "A"}, {"id": "k", "title": 5}]', r"num\.json: CSL-JSON item 2 \(k\): field 'title' must be text"),
])
def test_parse_errors_name_file_and_line(tmp_path, name, text, where):
    p = tmp_path / name
    p.write_bytes(text) if isinstance(text, bytes) else p.write_text(text)
    with pytest.raises(ReferenceParseError, match=where):
        read_references(p)


def test_audit_finds_fabricated_and_misdated_references(corpus):
    report = verify_references(WEB / "audit.bib", corpus)
    by_key = {r.key: r for r in report.references}
    assert by_key["vaswani2017attention"].status == "verified"
    assert by_key["devlin2019bert"].method == "arxiv" and by_key["devlin2019bert"].corpus_id == "fx002"
    assert by_key["he2016resnet"].method == "title_fuzzy"  # a typo in the title
    assert by_key["lewis2020rag"].status == "verified"
    assert by_key["hochreiter2001lstm"].status == "metadata_mismatch"
    assert by_key["hochreiter2001lstm"].mismatches == ["year: 2001 vs corpus 1997"]
    assert by_key["hochreiter2001lstm"].corpus_id == "fx007"
    assert by_key["smith2019glove"].mismatches[0].startswith("authors:")
    for fake in ("zhang2021quantum", "vaswani2018attentionnot", "karpukhin2021dense"):
        assert by_key[fake].status == "not_found" and by_key[fake].corpus_id is None
    assert report.totals == {"references": 9, "verified": 4, "metadata_mismatch": 2, "not_found": 3}


def test_cli_verify_end_to_end_on_a_real_corpus(tmp_path):
    """Build a tiny real corpus (metadata only) and run ``litnav verify`` through the CLI."""
    corpus_mod = pytest.importorskip("litnav.corpus")
    if not hasattr(corpus_mod, "CorpusWriter"):
        pytest.skip("corpus.CorpusWriter is not available yet")
    from typer.testing import CliRunner

    from litnav.cli import _register, app

    papers = _papers()[:12]
    cdir = tmp_path / "corpus"
    with corpus_mod.CorpusWriter.open(cdir) as w:
        with w.source("fixture", 1, "0" * 64) as tx:
            tx.add_documents([Document(paper=p) for p in papers])
        w.finalize(progress=False)
    _register()
    out = tmp_path / "audit.json"
    res = CliRunner().invoke(app, ["verify", str(WEB / "audit.bib"), "--corpus", str(cdir), "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "not in corpus" in res.output and "metadata mismatch" in res.output
    report = json.loads(out.read_text())
    by_key = {r["key"]: r for r in report["references"]}
    assert by_key["devlin2019bert"]["corpus_id"] == "fx002" and by_key["devlin2019bert"]["status"] == "verified"
    assert by_key["hochreiter2001lstm"]["status"] == "metadata_mismatch"
    assert by_key["lewis2020rag"]["status"] == "not_found"  # not among the 12 papers built
    assert report["totals"]["references"] == 9
    marked = tmp_path / "marked.bib"
    marked.write_text("@article{m, title={A [/bold] title}, year={2020}}\n")  # shown, never read as markup
    shown = CliRunner().invoke(app, ["verify", str(marked), "--corpus", str(cdir)])
    assert shown.exit_code == 0 and "[/bold]" in shown.output
    strict = CliRunner().invoke(app, ["verify", str(WEB / "audit.bib"), "--corpus", str(cdir), "--strict"])
    assert strict.exit_code == 1 and "not verified" in strict.output
    verified = tmp_path / "verified.txt"
    verified.write_text(papers[1].title + "\n")
    assert CliRunner().invoke(app, ["verify", str(verified), "--corpus", str(cdir), "--strict"]).exit_code == 0
    bad = tmp_path / "bad.bib"
    bad.write_text("@article{broken,\n title = {x\n")
    res = CliRunner().invoke(app, ["verify", str(bad), "--corpus", str(cdir)])
    assert res.exit_code == 1 and "bad.bib:1" in res.output


def test_litnav_ids_and_latex_in_a_bibliography_decide_only_with_their_titles(tmp_path):
    """An entry with nothing but litnav's corpus id and a LaTeX-escaped title is verified; a corpus
    id beside another title is not trusted (corpus ids belong to one corpus); a foreign RIS C4
    that is no PubMed id is ignored."""
    from litnav.corpus.records import Paper

    corpus = MemoryCorpus([Paper(corpus_id="1", title="Neural Machine Translation Doesn't Translate Gender", year=2020),
                           Paper(corpus_id="2", title="Dense Passage Retrieval for Open-Domain QA", year=2020)])
    bib = tmp_path / "r.bib"
    bib.write_text("@misc{a, title = {{Neural Machine Translation Doesn{\\textquoteright}t Translate Gender}}, "
                   "corpusid = {1}}\n@misc{b, title = {{Sparse Lexical Matching for Biomedical Claims}}, corpusid = {2}}\n")
    a, b = verify_references(bib, corpus).references
    assert (a.status, a.corpus_id, a.method) == ("verified", "1", "corpus_id")
    assert b.status == "not_found" and b.corpus_id is None
    ris = tmp_path / "r.ris"
    ris.write_text("TY  - JOUR\nTI  - Unrelated Work on Coral Reefs\nC4  - Legal note 12\nER  - \n")
    [ref] = read_references(ris)[1]
    assert "pubmed" not in ref.record.external_ids


@pytest.mark.parametrize(("title", "main"), [
    ("Prevention of coronary heart disease with pravastatin in men with hypercholesterolemia. "
     "West of Scotland Coronary Prevention Study Group.",
     "Prevention of coronary heart disease with pravastatin in men with hypercholesterolemia"),
    ("BERT: Pre-training of Deep Bidirectional Transformers", "BERT"),
    ("The U.S. Army and Language Technology", None),
    ("Attention Is All You Need", None),
])
def test_the_main_title_drops_a_subtitle_or_a_group_author_sentence(title, main):
    from litnav.web.normalise import main_title

    assert main_title(title) == main


def test_huge_inputs_are_refused_or_skipped_not_decoded_for_minutes(tmp_path):
    """An abstract of 1.6 MB is never LaTeX-decoded (it is not read); a title of 30,000 characters
    and a file past the size limit are errors naming the file; a link to /dev/zero stops there."""
    from litnav.web.references import MAX_FIELD_CHARS

    big = tmp_path / "big.bib"
    big.write_text("@article{a, title={A real title}, year={2020}, abstract={" + "word \\'e " * 200_000 + "}}\n")
    assert read_references(big)[1][0].record.title == "A real title"
    long_title = tmp_path / "long.bib"
    long_title.write_text("@article{b, title={" + "x" * (MAX_FIELD_CHARS + 1) + "}}\n")
    with pytest.raises(ReferenceParseError, match=r"long.bib:1: entry 'b': field 'title' has"):
        read_references(long_title)
    atlas = tmp_path / "atlas.bib"
    names = " and ".join(f"Physicist{i}, A." for i in range(1_800))
    atlas.write_text("@article{c, title={Observation of a new particle}, year={2012}, author={" + names + "}}\n")
    [ref] = read_references(atlas)[1]
    assert ref.record.title == "Observation of a new particle" and ref.record.authors[0].startswith("Physicist0")
    one_name = tmp_path / "one-name.bib"  # no " and " to cut at: still refused, never decoded
    one_name.write_text("@article{d, title={T}, author={" + "{\\'e}" * 30_000 + "}}\n")
    with pytest.raises(ReferenceParseError, match="field 'author' has"):
        read_references(one_name)
    if Path("/dev/zero").exists():
        (tmp_path / "zero.bib").symlink_to("/dev/zero")
        with pytest.raises(ReferenceParseError, match="larger than 64 MiB"):
            read_references(tmp_path / "zero.bib")


def test_a_field_the_corpus_record_lacks_is_reported_unchecked(tmp_path):
    """A real title with invented authors passes when the corpus has no authors to compare: the
    audit says so instead of a bare "verified"."""
    from litnav.corpus.records import Paper

    bare = MemoryCorpus([Paper(corpus_id="n1", title="Neural Message Passing for Quantum Chemistry", year=2017)])
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{g, title={Neural Message Passing for Quantum Chemistry}, author={Invented, A.}, "
                   "year={2017}}\n")
    [row] = verify_references(bib, bare).references
    assert row.status == "verified" and row.unchecked == ["authors"]


def test_an_entry_without_a_title_is_matched_by_its_id_and_spoils_no_other(tmp_path, corpus):
    """One title-less entry (a DBLP crossref parent, a DOI-only record) stopped the whole audit with
    "entry 'x' has no title"; it is matched by its id, and one with no id either is not found."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{ok, title={Attention Is All You Need}, year={2017}}\n"
                   "@article{onlydoi, doi={10.18653/v1/N19-1423}}\n"
                   "@misc{onlyarxiv, eprint={1512.03385}, archivePrefix={arXiv}}\n"
                   "@proceedings{parent, booktitle={Proceedings of NAACL}}\n")
    ris = tmp_path / "refs.ris"
    ris.write_text("TY  - JOUR\nDO  - 10.18653/v1/N19-1423\nER  - \n")
    csl = tmp_path / "refs.json"
    csl.write_text(json.dumps([{"id": "f", "DOI": "10.18653/v1/N19-1423"}]))
    by_key = {r.key: r for r in verify_references(bib, corpus).references}
    assert by_key["ok"].status == by_key["onlydoi"].status == by_key["onlyarxiv"].status == "verified"
    assert by_key["onlydoi"].corpus_id == "fx002" and by_key["onlyarxiv"].corpus_id == "fx003"
    assert by_key["parent"].status == "not_found" and "no title" in by_key["parent"].reason
    for path in (ris, csl):
        [only] = verify_references(path, corpus).references
        assert only.status == "verified" and only.corpus_id == "fx002"


def test_plain_lists_take_numbers_bullets_and_bare_ids(tmp_path, corpus):
    """Numbered lines ("1. Title", "[2] Title") were not found, and a bare DOI or arXiv line was read
    as a title: real papers reported as possibly fabricated."""
    txt = tmp_path / "refs.txt"
    txt.write_text("1. Attention Is All You Need\n[2] Deep Residual Learning for Image Recognition\n"
                   "https://doi.org/10.18653/v1/N19-1423\narXiv:1706.03762\n• Attention Is All You Need\n")
    report = verify_references(txt, corpus)
    assert report.format == "titles" and [r.status for r in report.references] == ["verified"] * 5


def test_a_bibtex_or_ris_file_named_txt_is_read_as_what_it_holds(tmp_path, corpus):
    """A BibTeX file saved as refs.txt was read one line per title: every "@article{" and "}" line
    became a "possibly fabricated" reference."""
    txt = tmp_path / "refs.txt"
    txt.write_text((WEB / "audit.bib").read_text())
    fmt, refs = read_references(txt)
    assert fmt == "bibtex" and len(refs) == len(read_references(WEB / "audit.bib")[1])


def test_latex_greek_concatenation_and_utf16_read_as_the_corpus_writes_them(tmp_path):
    """"$\\epsilon$" in a reference did not meet the corpus's "$ε$", a "#"-joined BibTeX title kept its
    quotes, and a UTF-16 export (Windows, EndNote) was refused."""
    from litnav.core.text import normalise_title

    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title={Robust $\\phi$-Divergence and $\\varepsilon$-insensitive Losses}}\n"
                   '@article{b, title="Coach: A Coarse-to-Fine Approach for " # "Cross-domain Slot Filling"}\n'
                   "@article{c, title={Child\\-directed Speech\\footnote{A note.}}}\n")
    a, b, c = (r.record.title for r in read_references(bib)[1])
    assert normalise_title(a) == normalise_title("Robust $ϕ$-Divergence and $ε$-insensitive Losses")
    assert b == "Coach: A Coarse-to-Fine Approach for Cross-domain Slot Filling"
    assert c == "Child-directed Speech" or normalise_title(c) == normalise_title("Childdirected Speech")
    utf16 = tmp_path / "refs16.txt"
    utf16.write_bytes("Attention Is All You Need\n".encode("utf-16"))
    assert [r.record.title for r in read_references(utf16)[1]] == ["Attention Is All You Need"]


def test_a_duplicate_bibtex_key_is_audited_not_fatal(tmp_path, capsys):
    """A reference list with one key twice stopped with "Duplicate entry key"; BibTeX warns and goes on,
    and so does the audit, marking the copy. The parser's own log lines no longer precede ours."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{k, title={Attention Is All You Need}}\n@article{k, title={Deep Residual Learning}}\n")
    refs = read_references(bib)[1]
    assert [(r.key, r.line) for r in refs] == [("k", 1), ("k (duplicate key)", 2)]
    bad = tmp_path / "bad.bib"
    bad.write_text("@article{x, title = {A\n")
    with pytest.raises(ReferenceParseError):
        read_references(bad)
    assert "aborted" not in capsys.readouterr().err


@pytest.mark.parametrize("field", ["eprint={arXiv:1512.03385v1}", "url={https://arxiv.org/abs/1512.03385}",
                                   "arxiv={1512.03385}", "url={https://doi.org/10.1109/cvpr.2016.90}",
                                   "doi={10.1109/cvpr.2016.90, 10.1/xyz}"])
def test_ids_in_the_usual_bibtex_places_are_read(tmp_path, corpus, field):
    """Ids in an arXiv: prefix, an arxiv.org or doi.org address, an arxiv field or a DOI list were
    ignored, so a reference with a wrong title was not matched by its id."""
    bib = tmp_path / "refs.bib"
    bib.write_text(f"@article{{x, title={{Some Unrelated Title Here}}, {field}}}\n")
    [ref] = verify_references(bib, corpus).references
    assert ref.corpus_id == "fx003" and ref.method in ("arxiv", "doi"), ref


def test_an_unreadable_year_is_named_as_not_checked(tmp_path, corpus):
    """"year = {twenty twenty}" was dropped silently and the entry verified; biblatex's date field
    was not read at all."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title={Attention Is All You Need}, year={twenty twenty}}\n"
                   "@article{b, title={Attention Is All You Need}, date={2017-06-12}}\n")
    csl = tmp_path / "refs.json"
    csl.write_text('[{"id": "c", "title": "Attention Is All You Need", "issued": {"date-parts": [[1e400]]}}]')
    by_key = {r.key: r for r in verify_references(bib, corpus).references}
    assert by_key["a"].unchecked == ["year 'twenty twenty' (not a year)"]
    assert by_key["b"].year == 2017 and not by_key["b"].unchecked
    [c] = verify_references(csl, corpus).references
    assert c.unchecked and "not a year" in c.unchecked[0]


def test_author_fields_of_odd_shapes(tmp_path):
    """"author={and and and}" gave the authors 'and', 'and' (a first-author mismatch 'and'); a CSL
    author written as a string was dropped."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title={T}, author={and and and}}\n@article{b, title={T}, author={Anderson, B and Sand, C}}\n")
    a, b = read_references(bib)[1]
    assert a.record.authors == [] and b.record.authors == ["Anderson, B", "Sand, C"]
    csl = tmp_path / "refs.json"
    csl.write_text('[{"id": "c", "title": "T", "author": "Gelderloos"}]')
    assert read_references(csl)[1][0].record.authors == ["Gelderloos"]


def test_utf16_without_its_bom_is_read_too(tmp_path):
    """A UTF-16 file saved without a byte-order mark gave ten garbled "references" and no error."""
    path = tmp_path / "refs.txt"
    path.write_bytes("Attention Is All You Need\nDeep Residual Learning for Image Recognition\n".encode("utf-16-le"))
    assert [r.record.title for r in read_references(path)[1]] == [
        "Attention Is All You Need", "Deep Residual Learning for Image Recognition"]
