"""Venues come from the data: the corpus's own venue names and acronyms derived from them match;
an unrecognised venue-like phrase is reported, not turned into topic text; "main ACL, EMNLP or
NAACL" never admits a Findings paper."""

from __future__ import annotations

import re
from datetime import date

import pytest

from litnav.core.records import MetadataPredicate
from litnav.corpus.predicates import evaluate
from litnav.corpus.records import Paper
from litnav.navigator.intent import parse_intent
from litnav.navigator.intent.text import Workspace
from litnav.navigator.intent.venues import derived_acronyms, extract_venues

TODAY = date(2025, 11, 15)

VOCAB = {
    "ACL": 500, "EMNLP": 400, "NAACL": 300, "Findings": 250,
    "Proceedings of the 11th Global WordNet Conference": 20,
    "Proceedings of the 13th International Workshop on Spoken Language Translation: Papers": 12,
    "Proceedings of the International Conference on Recent Advances in Natural Language Processing (RANLP 2021)": 9,
    "Proceedings of the International Conference Recent Advances in Natural Language Processing, RANLP 2017": 7,
    "Proceedings of the Student Research Workshop Associated with RANLP 2017": 3,
}


@pytest.mark.parametrize("venue, acronym", [
    ("Proceedings of the 11th Global WordNet Conference", "GWC"),
    ("Proceedings of the 13th International Workshop on Spoken Language Translation: Papers", "IWSLT"),
    ("Proceedings of the International Conference on Recent Advances in Natural Language Processing (RANLP 2021)",
     "RANLP"),
    ("Proceedings of the 15th International Workshop on Semantic Evaluation (SemEval-2021)", "SemEval"),
    ("Proceedings of the International Conference Recent Advances in Natural Language Processing, RANLP 2017",
     "RANLP"),
])
def test_acronyms_are_derived_from_venue_names(venue, acronym):
    assert acronym in derived_acronyms(venue)


@pytest.mark.parametrize("intent, spelling", [
    ("wordnet construction at the Global WordNet Conference", "Proceedings of the 11th Global WordNet Conference"),
    ("wordnet construction at GWC", "Proceedings of the 11th Global WordNet Conference"),
    ("speech translation at IWSLT",
     "Proceedings of the 13th International Workshop on Spoken Language Translation: Papers"),
])
def test_corpus_venues_match_by_name_or_derived_acronym(intent, spelling):
    ws = Workspace(intent)
    (mention,) = extract_venues(ws, VOCAB)
    assert spelling in mention.values and not mention.missing and not mention.unrecognised
    assert "|" in ws.text  # consumed: not left for the topic


def test_every_edition_spelling_of_an_acronym_is_one_venue():
    # the 2017 proceedings spell the name differently and put the acronym after a comma; a
    # workshop "associated with RANLP 2017" is not the conference
    (mention,) = extract_venues(Workspace("hate speech detection at RANLP 2017"), VOCAB)
    assert sorted(mention.values) == sorted(v for v in VOCAB if v.startswith("Proceedings of the International Conf"))


def test_unrecognised_venue_phrases_are_reported_not_topic_text():
    checklist = parse_intent("dialogue systems presented at the Foo Bar Workshop on Chatbots", venues=VOCAB,
                             today=date(2024, 1, 1))
    venue = [c for c in checklist.checkpoints if c.kind == "metadata" and c.predicate.field == "venue"]
    assert venue and "Foo Bar Workshop on Chatbots" in venue[0].text and "not in the corpus" in venue[0].text
    topical = " ".join(t for c in checklist.checkpoints if c.kind != "metadata" for t in [c.text, *c.terms])
    assert "Foo Bar" not in topical


def test_main_venues_exclude_findings():
    ws = Workspace("neural parsing in main ACL, EMNLP or NAACL")
    (mention,) = extract_venues(ws, VOCAB)
    assert mention.values == ["ACL", "EMNLP", "NAACL"] and "main" not in ws.text
    predicate = MetadataPredicate(field="venue", values=mention.values)
    findings = Paper(corpus_id="f", title="t", venue="Findings",
                     venue_raw="Findings of the Association for Computational Linguistics: EMNLP 2020")
    main = Paper(corpus_id="m", title="t", venue="EMNLP",
                 venue_raw="Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing")
    workshop = Paper(corpus_id="w", title="t", venue="WS", venue_raw="Proceedings of the ACL Workshop on Parsing")
    assert evaluate(predicate, findings)[0] is False
    assert evaluate(predicate, main)[0] is True
    assert evaluate(predicate, workshop)[0] is False  # an ACL workshop is not main ACL
    named = MetadataPredicate(field="venue", values=["Workshop on Parsing"])
    assert evaluate(named, workshop)[0] is True  # but a named workshop is found in its raw venue


@pytest.mark.parametrize("intent", ["sentiment analysis of social media text",
                                    "misinformation on social media platforms since 2019"])
def test_mixed_case_venue_acronyms_are_not_ordinary_words(intent):
    kinds = [c.predicate.field for c in parse_intent(intent).checkpoints if c.predicate is not None]
    assert "venue" not in kinds


def test_mixed_case_venue_acronyms_still_match_in_their_own_case():
    venues = [c.predicate for c in parse_intent("segmentation papers in MedIA").checkpoints
              if c.predicate is not None and c.predicate.field == "venue"]
    assert venues and "Medical Image Analysis" in venues[0].values


def test_acronyms_of_capitalised_runs_inside_long_venue_names():
    from litnav.navigator.intent.venues import run_acronyms

    taln = "Actes de la 10ème conférence sur le Traitement Automatique des Langues Naturelles. Posters"
    assert run_acronyms(taln) == ["TALN"]
    vocab = {taln: 3, "Proceedings of ACL": 5}
    [venue] = [c.predicate for c in parse_intent("Syntactic parsing of French, presented at TALN", venues=vocab)
               .checkpoints if c.predicate is not None and c.predicate.field == "venue"]
    assert venue.values == [taln]
    assert not [c for c in parse_intent("a catalan parser", venues=vocab).checkpoints if c.predicate is not None]


def test_every_edition_that_names_an_acronym_in_any_way_answers_to_it():
    """TALN's editions spell it as initials, inside a hyphenated joint name, as a word and in
    parentheses with an edition number; "TALN" keeps them all (it kept only the initials' ones)."""
    editions = ["Actes de la 10ème conférence sur le Traitement Automatique des Langues Naturelles. Posters",
                "Actes de la conférence conjointe JEP-TALN-RECITAL 2016. volume 2 : TALN (Articles longs)",
                "Actes de la Conférence TALN. Volume 1 - Articles longs, articles courts de TALN",
                "Actes de la 6e conférence conjointe Journées d'Études sur la Parole (JEP, 33e édition), Traitement "
                "Automatique des Langues Naturelles (TALN, 27e édition)"]
    vocab = {**{e: 5 for e in editions}, "Proceedings of ACL": 50}
    [venue] = [c.predicate for c in parse_intent("French parsing, presented at TALN", venues=vocab).checkpoints
               if c.predicate is not None and c.predicate.field == "venue"]
    assert set(venue.values) == set(editions)


AMTA = "Proceedings of the 9th Conference of the Association for Machine Translation in the Americas: Research Papers"
MTS = "Proceedings of Machine Translation Summit XIII: Papers"


def test_the_body_named_after_of_gives_its_own_acronym():
    from litnav.navigator.intent.venues import run_acronyms

    assert "AMTA" in run_acronyms(AMTA)
    assert run_acronyms("Proceedings of the 11th Global WordNet Conference") == ["GWC"]


@pytest.mark.parametrize("intent", ["post-editing effort, in AMTA or MT Summit proceedings",
                                    "post-editing effort presented at MT Summit or AMTA"])
def test_short_forms_of_venue_names_match(intent):
    vocab = {AMTA: 30, MTS: 20, "ACL": 500}
    [venue] = [c for c in parse_intent(intent, venues=vocab, today=date(2024, 1, 1)).checkpoints
               if c.predicate is not None and c.predicate.field == "venue"]
    assert set(venue.predicate.values) == {AMTA, MTS} and "not in the corpus" not in venue.text
    topical = " ".join(t for c in parse_intent(intent, venues=vocab).checkpoints if c.kind != "metadata"
                       for t in [c.text, *c.terms])
    assert "Summit" not in topical and "AMTA" not in topical


def test_a_workshop_filed_under_a_generic_venue_is_known_by_its_own_name(tmp_path):
    from litnav.corpus import Corpus, CorpusWriter
    from litnav.corpus.records import Document

    raw = "Proceedings of the Fourth International Workshop on Spoken Language Translation"
    docs = [Document(paper=Paper(corpus_id="w1", title="Punctuation prediction for speech translation", year=2007,
                                 venue="WS", venue_raw=raw), abstract="We predict punctuation."),
            Document(paper=Paper(corpus_id="w2", title="Punctuation in written text", year=2007,
                                 venue="WS", venue_raw="Proceedings of the Workshop on Punctuation"),
                     abstract="We study punctuation."),
            Document(paper=Paper(corpus_id="a1", title="Punctuation for parsing", year=2007, venue="ACL",
                                 venue_raw="ACL"), abstract="Punctuation helps parsing.")]
    with CorpusWriter.open(tmp_path / "c") as w:
        with w.source("fixture:ws", 1, "0" * 64) as tx:
            tx.add_documents(docs)
        w.finalize(progress=False)
    with Corpus.open(tmp_path / "c") as c:
        assert raw in c.venues() and "WS" in c.venues()
        checklist = parse_intent("punctuation prediction, in IWSLT proceedings", venues=c.venues())
        [venue] = [cp for cp in checklist.checkpoints if cp.predicate is not None and cp.predicate.field == "venue"]
        assert venue.predicate.values == [raw]
        assert c.ids_matching([venue.predicate]) == {"w1"}


def test_a_venue_with_many_spellings_is_named_as_the_user_named_it():
    vocab = {f"Actes de la {n}e conférence sur le Traitement Automatique des Langues Naturelles": 5 for n in range(10, 16)}
    [venue] = [c for c in parse_intent("French parsing, presented at TALN", venues=vocab).checkpoints
               if c.predicate is not None and c.predicate.field == "venue"]
    assert venue.text == "Published in TALN (6 venue spellings of the corpus)" and len(venue.predicate.values) == 6


@pytest.mark.parametrize("intent", [
    "dialogue state tracking in main ACL, EMNLP or NAACL conferences",
    "dialogue state tracking in ACL or EMNLP main track papers",
    "dialogue state tracking in the ACL, EMNLP or NAACL proceedings",
])
def test_venue_kind_words_after_a_venue_list_are_not_topic_text(intent):
    checklist = parse_intent(intent, venues=VOCAB)
    terms = {t.lower() for c in checklist.checkpoints if c.kind != "metadata" for t in c.terms}
    assert terms == {"dialogue state tracking"}, terms
    assert any(c.predicate is not None and c.predicate.field == "venue" for c in checklist.checkpoints)


ACL_RAW = "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics"
SATELLITES = [f"{ACL_RAW}: System Demonstrations", f"{ACL_RAW}: Tutorial Abstracts",
              f"{ACL_RAW}: Student Research Workshop",
              "Proceedings of the 2021 Conference of the North American Chapter of the Association for "
              "Computational Linguistics: Human Language Technologies: Industry Papers"]


@pytest.mark.parametrize("intent", ["neural parsing in main ACL, EMNLP or NAACL",
                                    "neural parsing in ACL, EMNLP or NAACL main track papers"])
def test_main_keeps_the_main_tracks_only(intent):
    (venue,) = [c.predicate for c in parse_intent(intent, venues=VOCAB).checkpoints
                if c.predicate is not None and c.predicate.field == "venue"]
    assert venue.main_track
    main = Paper(corpus_id="m", title="t", venue="ACL", venue_raw=f"{ACL_RAW} (Volume 1: Long Papers)")
    assert evaluate(venue, main)[0] is True
    for raw in SATELLITES:
        verdict, why = evaluate(venue, Paper(corpus_id="s", title="t", venue="ACL", venue_raw=raw))
        assert verdict is False and "satellite track" in why
    plain = MetadataPredicate(field="venue", values=venue.values)  # without "main" they count
    assert all(evaluate(plain, Paper(corpus_id="s", title="t", venue="ACL", venue_raw=raw))[0] for raw in SATELLITES)


def test_not_main_admits_satellite_tracks():
    (venue,) = [c.predicate for c in parse_intent("neural parsing, not in main ACL", venues=VOCAB).checkpoints
                if c.predicate is not None and c.predicate.field == "venue"]
    assert venue.negate and venue.main_track
    assert evaluate(venue, Paper(corpus_id="s", title="t", venue="ACL", venue_raw=SATELLITES[0]))[0] is True
    assert evaluate(venue, Paper(corpus_id="m", title="t", venue="ACL", venue_raw=ACL_RAW))[0] is False


HYTRA = {**VOCAB, "Proceedings of the Sixth Workshop on Hybrid Approaches to Translation (HyTra6)": 9,
         "ICON": 30}


@pytest.mark.parametrize("intent", [
    "I need to detect sarcasm or irony in online comments and posts. What models and datasets exist?",
    "what models exist for sarcasm detection",
    "icon design for mobile interfaces",
])
def test_acronyms_that_are_english_words_name_no_venue_without_a_cue(intent):
    # "WHAT" = the initials of "Workshop on Hybrid Approaches to Translation"
    assert not [c for c in parse_intent(intent, venues=HYTRA).checkpoints if c.predicate is not None]


@pytest.mark.parametrize("intent, spelling", [
    ("hybrid machine translation papers at WHAT",
     "Proceedings of the Sixth Workshop on Hybrid Approaches to Translation (HyTra6)"),
    ("morphological analysers presented at ICON", "ICON"),
])
def test_acronyms_that_are_english_words_still_match_after_a_venue_cue(intent, spelling):
    (venue,) = [c.predicate for c in parse_intent(intent, venues=HYTRA).checkpoints if c.predicate is not None]
    assert spelling in venue.values


BALTO = {**VOCAB, "Proceedings of the 8th Workshop on Balto-Slavic Natural Language Processing": 12}


@pytest.mark.parametrize("intent", [
    "clinical NLP for radiology reports",          # "NLP": initials of a run inside a workshop's name
    "interactive workshop exercises for teaching parsing",
    "nips and tucks: predicting plastic surgery outcomes",
])
def test_field_terms_and_words_that_name_venues_need_a_venue_cue(intent):
    assert not [c for c in parse_intent(intent, venues=BALTO).checkpoints if c.predicate is not None]


@pytest.mark.parametrize("intent, negate", [("parsing, excluding workshops", True),
                                            ("named entity recognition presented at NLP workshops", False)])
def test_cued_venue_words_still_count(intent, negate):
    (venue,) = [c.predicate for c in parse_intent(intent, venues=BALTO).checkpoints if c.predicate is not None]
    assert venue.field == "venue" and venue.negate is negate


IWSLT = {"Proceedings of the 19th International Conference on Spoken Language Translation (IWSLT 2022)": 35,
         "Proceedings of the 16th International Conference on Spoken Language Translation": 33,
         "Proceedings of the 13th International Conference on Spoken Language Translation": 26,
         "Proceedings of the Workshop on Speech Translation": 4}


def test_an_acronym_reaches_every_edition_of_its_venue():
    (venue,) = [c.predicate for c in parse_intent("punctuation prediction presented at IWSLT", venues=IWSLT).checkpoints
                if c.predicate is not None]
    assert set(venue.values) == set(IWSLT) - {"Proceedings of the Workshop on Speech Translation"}


def test_the_acl_anthology_is_not_the_acl_and_transactions_of_the_acl_is_tacl():
    anthology = parse_intent("papers in the ACL Anthology about sign language translation", venues=VOCAB)
    assert not [c for c in anthology.checkpoints if c.predicate is not None]
    (tacl,) = [c.predicate for c in parse_intent("question generation in Transactions of the ACL").checkpoints
               if c.predicate is not None]
    assert tacl.values == ["TACL"]


INNER = {**VOCAB, "Proceedings of the 17th SIGMORPHON Workshop on Computational Research in Phonetics": 40,
         "Proceedings of the BioNLP 2018 workshop": 30, "Proceedings of the Fifth Conference on Machine Translation": 140,
         "Proceedings of the First Workshop on NLP for Conversational AI": 20}


@pytest.mark.parametrize("intent, spelling", [
    ("morphological inflection presented at SIGMORPHON",
     "Proceedings of the 17th SIGMORPHON Workshop on Computational Research in Phonetics"),
    ("biomedical NER at BioNLP", "Proceedings of the BioNLP 2018 workshop"),
    ("quality estimation at WMT", "Proceedings of the Fifth Conference on Machine Translation"),
])
def test_an_acronym_among_a_venues_words_names_it_after_a_strong_cue(intent, spelling):
    (venue,) = [c.predicate for c in parse_intent(intent, venues=INNER).checkpoints if c.predicate is not None]
    assert spelling in venue.values


def test_an_inner_acronym_that_is_a_field_term_is_no_venue_after_in():
    assert not [c for c in parse_intent("dialogue act tagging in NLP models", venues=INNER).checkpoints
                if c.predicate is not None]


def test_a_named_workshop_is_that_workshop_not_any_workshop():
    vocab = {**VOCAB, "WS": 7000,
             "Proceedings of the 4th Workshop on Technologies for MT of Low Resource Languages (LoResMT2021)": 20}
    (venue,) = [c.predicate for c in parse_intent("low-resource NMT in the LoResMT workshop", venues=vocab).checkpoints
                if c.predicate is not None]
    assert venue.values == ["Proceedings of the 4th Workshop on Technologies for MT of Low Resource Languages (LoResMT2021)"]


FINDINGS_EMNLP = Paper(corpus_id="fe", title="t", venue="Findings",
                       venue_raw="Findings of the Association for Computational Linguistics: EMNLP 2020")
FINDINGS_ACL = Paper(corpus_id="fa", title="t", venue="Findings",
                     venue_raw="Findings of the Association for Computational Linguistics: ACL 2022")
EMNLP_MAIN = Paper(corpus_id="em", title="t", venue="EMNLP",
                   venue_raw="Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing")


def _venue_verdicts(intent: str) -> dict[str, bool]:
    checklist = parse_intent(intent, VOCAB, TODAY)
    predicates = [c.predicate for c in checklist.checkpoints if c.predicate is not None and c.predicate.field == "venue"]
    return {p.corpus_id: all(evaluate(q, p)[0] is True for q in predicates)
            for p in (FINDINGS_EMNLP, FINDINGS_ACL, EMNLP_MAIN)}


@pytest.mark.parametrize("intent, admitted", [
    ("dialogue act tagging in Findings of EMNLP", {"fe"}),
    ("dialogue act tagging in EMNLP Findings", {"fe"}),
    ("dialogue act tagging in EMNLP, including Findings", {"fe", "em"}),
    ("dialogue act tagging at EMNLP (Findings included)", {"fe", "em"}),
    ("dialogue act tagging in Findings", {"fe", "fa"}),
    ("dialogue act tagging in EMNLP, not Findings", {"em"}),
])
def test_findings_of_a_venue_is_that_venues_findings(intent, admitted):
    """Every Findings paper has the normalised venue "Findings"; which conference's Findings it is
    stands in the raw venue only."""
    verdicts = _venue_verdicts(intent)
    assert {cid for cid, ok in verdicts.items() if ok} == admitted
    checklist = parse_intent(intent, VOCAB, TODAY)
    assert "Findings" not in checklist.checkpoints[0].text  # the track is no topic
    assert not any("not in the corpus venue list" in c.text for c in checklist.checkpoints)


@pytest.mark.parametrize("intent, admitted", [
    ("summarization in EMNLP 2020 including Findings papers", {"fe", "em"}),
])
def test_findings_after_a_venue_edition(intent, admitted):
    assert {cid for cid, ok in _venue_verdicts(intent).items() if ok} == admitted


@pytest.mark.parametrize("intent, negate", [("summarization not in ACL workshops", True),
                                            ("summarization in ACL workshops", False)])
def test_a_conferences_workshops_are_workshop_papers_not_the_conference(intent, negate):
    """"not in ACL workshops" once excluded the ACL main conference and kept its workshops."""
    checklist = parse_intent(intent, {"ACL": 500, "WS": 300}, TODAY)
    (cp,) = [c for c in checklist.checkpoints if c.predicate is not None and c.predicate.field == "venue"]
    main = Paper(corpus_id="m", title="t", venue="ACL", venue_raw="Proceedings of the 58th Annual Meeting of the ACL")
    workshop = Paper(corpus_id="w", title="t", venue="WS", venue_raw="Proceedings of the Workshop on Summarization")
    assert cp.predicate.negate is negate
    assert evaluate(cp.predicate, workshop)[0] is not negate and evaluate(cp.predicate, main)[0] is negate


def test_a_trailing_only_is_a_venue_cue():
    checklist = parse_intent("topological insulators, Nature or Science only", {"Nature": 9, "Science": 8}, TODAY)
    assert [c.predicate.values for c in checklist.checkpoints if c.predicate is not None] == [["Nature", "Science"]]
    assert checklist.checkpoints[0].text == "topological insulators"


def test_ccl_and_iwslt_are_known_by_their_usual_acronyms_only_as_venues():
    """Neither acronym is made from its venue's words ("Chinese National Conference on
    Computational Linguistics", IWSLT's "International Conference on ..." editions)."""
    ccl = "Proceedings of the 20th Chinese National Conference on Computational Linguistics"
    iwslt = "Proceedings of the 17th International Conference on Spoken Language Translation"
    vocab = {ccl: 100, iwslt: 30, "ACL": 500}

    def venues(intent: str) -> list[str]:
        return [v for c in parse_intent(intent, venues=vocab).checkpoints
                if c.predicate is not None and c.predicate.field == "venue" for v in c.predicate.values]

    assert venues("relation extraction surveys in CCL") == [ccl]
    assert venues("speech translation at IWSLT") == [iwslt]
    assert venues("a CCL model for parsing") == [] and venues("results on IWSLT14 De-En") == []


ACL_EDITIONS = {
    "EMNLP": 400,
    "Proceedings of the Eighth International Joint Conference on Natural Language Processing (Volume 1: Long Papers)": 103,
    "Proceedings of the IJCNLP 2017, Tutorial Abstracts": 6,
    "Proceedings of the 12th International Conference on Natural Language Generation": 73,
    "Proceedings of the 20th Annual SIGdial Meeting on Discourse and Dialogue": 51,
    "Proceedings of the 22nd Annual Meeting of the Special Interest Group on Discourse and Dialogue": 58,
    "Proceedings of the 1st Workshop on NLP for COVID-19 at ACL 2020": 10,
}


def _venue_values(intent: str) -> set[str]:
    (venue,) = [c.predicate for c in parse_intent(intent, venues=ACL_EDITIONS, today=TODAY).checkpoints
                if c.predicate is not None and c.predicate.field == "venue"]
    return set(venue.values)


@pytest.mark.parametrize("venue, spellings", [
    ("IJCNLP", {"Proceedings of the Eighth International Joint Conference on Natural Language Processing (Volume 1: "
                "Long Papers)", "Proceedings of the IJCNLP 2017, Tutorial Abstracts"}),
    ("SIGDIAL", {"Proceedings of the 20th Annual SIGdial Meeting on Discourse and Dialogue",
                 "Proceedings of the 22nd Annual Meeting of the Special Interest Group on Discourse and Dialogue"}),
    ("INLG", {"Proceedings of the 12th International Conference on Natural Language Generation"}),
])
@pytest.mark.parametrize("template", ["cross-lingual parsing, in {}", "cross-lingual parsing at {}",
                                      "cross-lingual parsing published in {}", "cross-lingual parsing in {} papers"])
def test_a_venue_acronym_reaches_every_spelling_of_its_venue_however_it_is_cued(venue, spellings, template):
    """The long papers of IJCNLP 2017 are IJCNLP papers whether the intent says "in", "at" or
    "published in"; SIGDIAL is every SIGdial meeting, also the edition spelled out in words; INLG
    is the International Conference on Natural Language Generation (no C for "Conference")."""
    assert _venue_values(template.format(venue)) == spellings
    assert not any(m.missing for m in extract_venues(Workspace(template.format(venue)), ACL_EDITIONS))


def test_a_made_acronym_beside_a_known_venue_in_one_list_is_kept():
    values = _venue_values("parsing in IJCNLP or EMNLP")
    assert "EMNLP" in values and "Proceedings of the IJCNLP 2017, Tutorial Abstracts" in values


def test_a_workshop_topic_is_not_the_workshop():
    checklist = parse_intent("misinformation in COVID", venues=ACL_EDITIONS, today=TODAY)
    assert not any(c.predicate is not None and "Proceedings of the 1st Workshop on NLP for COVID-19 at ACL 2020"
                   in c.predicate.values for c in checklist.checkpoints)


@pytest.mark.parametrize(("intent", "named"), [
    ("ARPES of topological insulators published in Physical Review Letters", ["Physical Review Letters"]),
    ("ice sheet loss in Geophysical Research Letters", ["Geophysical Research Letters"]),
    ("instrumental variables published in Econometrica", ["Econometrica"]),
    ("bootstrap methods in the Annals of Statistics", ["Annals of Statistics"]),
    ("ARPES in Physical Review Letters or Physical Review B", ["Physical Review Letters", "Physical Review B"]),
    ("nudges for retirement savings in the American Economic Review or QJE", ["American Economic Review", "QJE"]),
    ("ocean heat content trends (GRL, 2015-2020)", ["GRL"]),
    ("ocean heat content trends (2015-2020, GRL)", ["GRL"]),
    ("ocean heat content trends (Geophysical Research Letters, 2019)", ["Geophysical Research Letters"]),
])
def test_a_journal_the_corpus_lacks_is_reported_as_a_venue_not_searched_as_words(intent, named):
    checklist = parse_intent(intent, venues=VOCAB, today=TODAY)
    (venue,) = [c for c in checklist.checkpoints if c.predicate is not None and c.predicate.field == "venue"]
    assert venue.predicate.values == named and "not in the corpus venue list" in venue.text
    topical = " ".join(t for c in checklist.checkpoints if c.kind != "metadata" for t in [c.text, *c.terms])
    assert not any(word in topical for n in named for word in n.split() if word[0].isupper() and len(word) > 2)


@pytest.mark.parametrize("intent", ["papers published in English on sentiment analysis",
                                    "density functional theory (DFT) calculations of band gaps",
                                    "density functional theory (DFT) since 2019"])
def test_a_language_or_an_acronym_that_defines_its_words_is_no_venue(intent):
    vocab = {**VOCAB, "Actes de TALN 2019. Défi Fouille de Textes (atelier TALN-RECITAL)": 2}
    checklist = parse_intent(intent, venues=vocab, today=TODAY)
    assert not [c for c in checklist.checkpoints if c.predicate is not None and c.predicate.field == "venue"]


@pytest.mark.parametrize(("intent", "spelling"), [
    ("ARPES of topological insulators in Phys. Rev. Lett.", "Physical Review Letters"),
    ("ARPES of topological insulators in Phys. Rev. B", "Physical Review B"),
    ("MOFs for carbon capture (J. Am. Chem. Soc., since 2018)", "Journal of the American Chemical Society"),
])
def test_an_iso4_abbreviated_journal_is_its_venue(intent, spelling):
    vocab = {**VOCAB, "Physical Review Letters": 5, "Physical Review B": 5, "Journal of the American Chemical Society": 5}
    checklist = parse_intent(intent, venues=vocab, today=TODAY)
    venue = [c for c in checklist.checkpoints if c.predicate is not None and c.predicate.field == "venue"]
    assert [c.predicate.values for c in venue] == [[spelling]]
    assert not re.search(r"\b(?:Phys|Rev|Lett|Chem|Soc)\b", " ".join(t for c in checklist.checkpoints for t in c.terms))
    unknown = parse_intent(intent, venues=VOCAB, today=TODAY)  # a corpus without it: reported, not searched
    assert [c for c in unknown.checkpoints if c.predicate is not None and c.predicate.field == "venue"
            and "not in the corpus venue list" in c.text]


def test_a_person_s_initials_are_no_journal():
    checklist = parse_intent("fantasy linguistics by J. R. R. Tolkien", venues=VOCAB, today=TODAY)
    assert not [c for c in checklist.checkpoints if c.predicate is not None and c.predicate.field == "venue"]


def test_a_journal_named_as_a_clause_of_its_own_is_a_venue():
    intent = "machine-learning-driven materials discovery, Journal of the American Chemical Society, 2018 onwards"
    for vocab, reported in ((VOCAB, True), ({**VOCAB, "Journal of the American Chemical Society": 5}, False)):
        checklist = parse_intent(intent, venues=vocab, today=TODAY)
        (venue,) = [c for c in checklist.checkpoints if c.predicate is not None and c.predicate.field == "venue"]
        assert venue.predicate.values == ["Journal of the American Chemical Society"]
        assert ("not in the corpus venue list" in venue.text) is reported
        assert checklist.checkpoints[0].text == "machine-learning-driven materials discovery"


@pytest.mark.parametrize("intent", ["parsing papers, excluding EMNLP 2019", "parsing, not at EMNLP 2019"])
def test_a_left_out_edition_leaves_out_that_venues_papers_of_that_year_only(intent):
    """It had left out EMNLP in every year and kept only the papers of 2019."""
    from datetime import date as d

    [cp] = [c for c in parse_intent(intent, venues=ACL_EDITIONS, today=TODAY).checkpoints if c.predicate is not None]
    assert (cp.predicate.field, cp.predicate.negate, cp.predicate.start, cp.predicate.end) == (
        "venue_year", True, d(2019, 1, 1), d(2019, 12, 31))
    emnlp = [v for v in cp.predicate.values if "EMNLP" in v or "Empirical" in v][0]
    assert evaluate(cp.predicate, Paper(corpus_id="a", title="t", venue=emnlp, year=2019))[0] is False
    assert evaluate(cp.predicate, Paper(corpus_id="b", title="t", venue=emnlp, year=2018))[0] is True
    assert evaluate(cp.predicate, Paper(corpus_id="c", title="t", venue="ACL", year=2019))[0] is True
