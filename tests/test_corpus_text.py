"""corpus.text: title normalisation, id normalisation, sentence splitting."""

from litnav.corpus.text import normalise_external_id, normalise_title, sentence_spans, split_sentences


def test_normalise_title():
    assert normalise_title("Attention Is All You Need!") == "attention is all you need"
    assert normalise_title("  Déjà-vu:   BERT’s (re)visit ") == "deja vu bert s re visit"
    assert normalise_title(None) == "" and normalise_title("") == ""
    assert normalise_title("中文 标题") == "中文 标题"


def test_normalise_external_id():
    assert normalise_external_id("doi", "https://doi.org/10.18653/V1/P19-1001") == "10.18653/v1/p19-1001"
    assert normalise_external_id("doi", "doi:10.1/X") == "10.1/x"
    assert normalise_external_id("arxiv", "arXiv:1706.03762v5") == "1706.03762"
    assert normalise_external_id("arxiv", "https://arxiv.org/abs/hep-th/9901001v2") == "hep-th/9901001"
    assert normalise_external_id("acl", " P19-1001 ") == "P19-1001"


def test_sentences_keep_abbreviations_and_decimals():
    text = ("Smith et al. (2019) used e.g. BERT. Accuracy rose to 93.5% in Fig. 2 and Eq. 3. "
            "J. Doe disagrees! Why? \"Quoted\" works.\n\nNew paragraph")
    assert split_sentences(text) == [
        "Smith et al. (2019) used e.g. BERT.", "Accuracy rose to 93.5% in Fig. 2 and Eq. 3.",
        "J. Doe disagrees!", "Why?", "\"Quoted\" works.", "New paragraph"]


def test_sentence_spans_are_exact_offsets():
    text = "  First one.  Second one.   "
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["First one.", "Second one."]
    assert sentence_spans("   ") == []
