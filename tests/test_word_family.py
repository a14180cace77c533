"""An exclusion catches its term's word family from the corpus vocabulary: "excluding Twitter data"
is violated by "we classify tweets", and words of a related topic ("social media") or sharing only
the first letters ("twin") do not count."""

from __future__ import annotations

import numpy as np

from litnav.corpus.phrases import PhraseTable
from litnav.navigator.intent import parse_intent
from litnav.navigator.word_family import MIN_COSINE, family, with_word_family
from litnav.scorer.features import alternatives, checkpoint_terms
from litnav.scorer.quote import states

# unit vectors at chosen cosines from "twitter" (the first axis)
COSINE = {"twitter": 1.0, "tweets": 0.80, "tweet": 0.82, "twin": 0.19, "two": 0.24, "social": 0.74, "sentiment": 0.1}


def encoder(cosine: dict[str, float]):
    """texts -> unit vectors at the given cosines from the first axis (the term's)."""
    def encode(texts):
        out = []
        for t in texts:
            c = cosine[t.lower()]
            v = np.zeros(len(cosine) + 1, dtype=np.float32)
            v[0], v[1 + sorted(cosine).index(t.lower())] = c, np.sqrt(1 - c * c)
            out.append(v)
        return np.vstack(out)
    return encode


encode = encoder(COSINE)


class _Corpus:
    encode = staticmethod(encode)

    @staticmethod
    def venues():
        return []


TABLE = PhraseTable(n_docs=100, df={w: 3 for w in COSINE})


def test_the_family_is_the_close_words_that_share_the_first_letters():
    assert MIN_COSINE > COSINE["social"]  # a related topic is no family member
    assert family("Twitter", TABLE, encode) == ["tweet", "tweets"]
    assert family("Twitter data", TABLE, encode) == []  # several words: its own phrase match


def test_an_exclusion_gains_its_family_and_is_violated_by_it():
    checklist = parse_intent("sentiment analysis, excluding Twitter data")
    widened = with_word_family(checklist, _Corpus(), TABLE)
    [x] = [c for c in widened.checkpoints if c.kind == "exclusion"]
    assert {"Twitter", "tweet", "tweets"} <= set(x.terms) and x.any_of
    sentence = "We present a system able to classify tweets into three sentiment classes."
    assert any(states(sentence, checkpoint_terms(t, ts)[1], strict=True) for t, ts in alternatives(x))
    content = [c for c in widened.checkpoints if c.kind != "exclusion"]
    assert content == [c for c in checklist.checkpoints if c.kind != "exclusion"]


def test_without_a_phrase_table_or_an_exclusion_nothing_changes():
    checklist = parse_intent("sentiment analysis, excluding Twitter data")
    assert with_word_family(checklist, _Corpus(), None) == checklist
    plain = parse_intent("sentiment analysis of tweets")
    assert with_word_family(plain, _Corpus(), TABLE) == plain


def test_a_refinement_that_drops_a_topic_excludes_its_family_too(monkeypatch):
    import litnav.navigator.feedback as feedback
    from litnav.core.records import Workflow

    monkeypatch.setattr(feedback, "corpus_phrases", lambda corpus: TABLE)
    checklist = parse_intent("sentiment analysis")
    edits = feedback.parse_feedback("drop anything about Twitter", checklist, Workflow(nodes=[], output=""), [], corpus=_Corpus())
    [add] = [e for e in edits if e.action == "add_checkpoint"]
    assert {"Twitter", "tweet", "tweets"} <= set(add.detail["terms"])


def test_a_family_word_far_more_common_than_the_term_is_left_out_but_its_spelling_kept():
    """"excluding modelling studies" must not exclude every paper that says "model"."""
    enc = encoder({"modelling": 1.0, "modeling": 0.9, "modelled": 0.85, "model": 0.84, "models": 0.83})
    table = PhraseTable(n_docs=1000, df={"modelling": 10, "modeling": 80, "modelled": 4, "model": 440, "models": 400})
    assert family("modelling", table, enc) == ["modeling", "modelled"]
    enc = encoder({"predictions": 1.0, "prediction": 0.9, "predict": 0.85})
    table = PhraseTable(n_docs=1000, df={"predictions": 10, "prediction": 300, "predict": 200})
    assert family("predictions", table, enc) == ["prediction"]  # its other number, however common
