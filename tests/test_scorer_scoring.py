"""score_paper / score_papers with the bundled default student: quotes are verbatim with
full-text offsets, exclusions invert, the final score follows (S + p) / 6."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from litnav.core.records import Checklist, Checkpoint, Evidence, MetadataPredicate
from litnav.core.text import sentence_spans
from litnav.corpus.records import Author, Paper
from litnav.scorer import final_score, load_student, metadata_failed, score_paper, score_papers, weighted_mean_score
from litnav.scorer.text import key_phrases

ABSTRACT = ("Dense retrieval has become popular. We propose a graph neural network for citation "
            "recommendation that encodes the citation graph. Experiments on ACL Anthology show large gains.")
BODY = "Pottery kilns in the Bronze Age reached high temperatures. Glazes were analysed by X-ray."
FULL = ABSTRACT + "\n\n" + BODY


def ev(cid: str, text: str, sim: float, section: str = "Abstract", i: int = 0) -> Evidence:
    start = FULL.index(text)
    return Evidence(chunk_id=f"{cid}:{i}", corpus_id=cid, section=section, char_start=start,
                    char_end=start + len(text), text=text, similarity=sim)


PAPER = Paper(corpus_id="7", title="Graph neural networks for citation recommendation", year=2021,
              venue="ACL", authors=[Author(name="Ada Lovelace")])
TOPIC = Checkpoint(id="c1", kind="topic", text="citation recommendation with graph neural networks",
                   terms=["citation recommendation", "graph neural network"], weight=2.0)
EXCL = Checkpoint(id="c2", kind="exclusion", text="pottery kilns", terms=["pottery kilns"])
YEAR = Checkpoint(id="c3", kind="metadata", text="published 2019-2022",
                  predicate=MetadataPredicate(field="year", start=date(2019, 1, 1), end=date(2022, 12, 31)))
CHECKLIST = Checklist(intent="GNN citation recommendation, 2019-2022, no pottery", checkpoints=[TOPIC, EXCL, YEAR])
RELEVANT = [ev("7", ABSTRACT, 0.72), ev("7", "Experiments on ACL Anthology show large gains.", 0.31, i=1)]
IRRELEVANT = [ev("7", BODY, 0.05, section="Results", i=2)]


@pytest.fixture(scope="module")
def student():
    return load_student()


def test_default_student_loads_and_ranks_relevant_evidence_higher(student):
    assert student.name == "student:logreg-scifact-v1"
    assert student.training["heldout"]["auc"] > 0.8
    good = score_paper(PAPER, CHECKLIST, {"c1": RELEVANT}, student).judgements[0]
    pottery = PAPER.model_copy(update={"title": "Kiln temperatures of Bronze Age pottery"})
    bad = score_paper(pottery, CHECKLIST, {"c1": IRRELEVANT}, student).judgements[0]
    assert good.score > 2.5 > bad.score + 1.0
    assert good.engine == student.name


def test_quote_is_verbatim_with_full_text_offsets(student):
    j = score_paper(PAPER, CHECKLIST, {"c1": RELEVANT}, student).judgements[0]
    best = RELEVANT[0]
    assert j.quote_chunk_id == best.chunk_id
    assert j.quote in best.text
    assert FULL[j.quote_start:j.quote_end] == j.quote
    # the sentence naming the checkpoint's terms, not the first sentence of the chunk
    assert j.quote.startswith("We propose a graph neural network for citation recommendation")
    assert f'"{j.quote}"' in j.rationale
    assert j.evidence == RELEVANT


def test_exclusion_score_is_inverted_satisfaction(student):
    as_topic = Checkpoint(id="c2", kind="topic", text=EXCL.text, terms=EXCL.terms)
    checklists = [Checklist(intent="x", checkpoints=[c]) for c in (as_topic, EXCL)]
    for evidence, verdict in (([ev("7", BODY, 0.8, "Body", 3)], "violated"), (RELEVANT, "respected")):
        t, e = (score_paper(PAPER, c, {"c2": evidence}, student).judgements[0] for c in checklists)
        assert t.score + e.score == pytest.approx(5.0)
        assert e.rationale.startswith(f"exclusion 'pottery kilns' {verdict}")
        assert "inverted" in e.rationale


def test_metadata_judgement_is_exact(student):
    s = score_paper(PAPER, CHECKLIST, {}, student)
    meta = s.judgements[2]
    assert (meta.score, meta.engine, meta.quote) == (5.0, "metadata", None)
    assert meta.rationale == "year: year 2021 is within 2019-01-01 to 2022-12-31"
    old = score_paper(PAPER.model_copy(update={"year": 2015}), CHECKLIST, {}, student)
    assert old.judgements[2].score == 0.0 and metadata_failed(old) == ["c3"]
    # metadata is reported but stays out of the content score S that thresholds use
    assert weighted_mean_score(old.judgements, CHECKLIST) == pytest.approx(weighted_mean_score(s.judgements, CHECKLIST))
    # a year the record lacks is unknown, shown "?": neither met nor a failure
    undated = score_paper(PAPER.model_copy(update={"year": None}), CHECKLIST, {}, student)
    assert undated.judgements[2].unknown and not metadata_failed(undated)
    assert not s.judgements[2].unknown and not old.judgements[2].unknown
    from litnav.session.render import score_text

    assert score_text(undated.judgements[2]) == "?" and score_text(old.judgements[2]) == "0.0"


def test_final_score_formula(student):
    s = score_paper(PAPER, CHECKLIST, {"c1": RELEVANT, "c2": RELEVANT}, student)
    scores = [j.score for j in s.judgements]
    mean = scores[0] * scores[1] / 5.0  # the topic, gated by the exclusion; metadata c3 is not content
    assert weighted_mean_score(s.judgements, CHECKLIST) == pytest.approx(mean)
    assert s.final_score == pytest.approx((mean + s.probability) / 6.0)
    assert 0.0 <= s.final_score <= 1.0 and s.probability_engine == student.name
    assert final_score(5.0, 1.0) == 1.0 and final_score(0.0, 0.0) == 0.0
    assert final_score(None, 0.4) == pytest.approx(0.4)


def test_an_off_topic_paper_earns_nothing_for_respecting_an_exclusion(student):
    """Every paper off the topic respects an exclusion of something else: that is no merit."""
    pottery = PAPER.model_copy(update={"title": "Kiln temperatures of Bronze Age pottery"})
    topic_only = Checklist(intent="GNN citation recommendation", checkpoints=[TOPIC])
    with_exclusion = Checklist(intent="GNN citation recommendation, not about X", checkpoints=[
        TOPIC, Checkpoint(id="c2", kind="exclusion", text="speech synthesis", terms=["speech synthesis"])])
    for paper, evidence in ((pottery, IRRELEVANT), (PAPER, RELEVANT)):
        alone = score_paper(paper, topic_only, {"c1": evidence}, student)
        gated = score_paper(paper, with_exclusion, {"c1": evidence, "c2": evidence}, student)
        assert gated.judgements[1].score > 2.5  # respected
        assert weighted_mean_score(gated.judgements, with_exclusion) <= weighted_mean_score(alone.judgements, topic_only)
    violated = score_paper(PAPER, Checklist(intent="x", checkpoints=[TOPIC, EXCL]),
                           {"c1": RELEVANT, "c2": [ev("7", BODY, 0.8, "Body", 3)]}, student)
    assert violated.judgements[1].score < 2.5
    assert weighted_mean_score(violated.judgements, CHECKLIST) < violated.judgements[0].score / 2


def test_batch_equals_single_and_relevance_orders(student):
    other = Paper(corpus_id="8", title="Bronze Age pottery", year=2020)
    body8 = Evidence(chunk_id="8:0", corpus_id="8", section="Body", char_start=0, char_end=len(BODY),
                     text=BODY, similarity=0.04)
    batch = score_papers([PAPER, other], CHECKLIST, {"7": {"c1": RELEVANT}, "8": {"c1": [body8], "c2": [body8]}},
                         student)
    single = score_paper(PAPER, CHECKLIST, {"c1": RELEVANT}, student)
    assert [j.quote for j in batch[0].judgements] == [j.quote for j in single.judgements]
    assert [j.score for j in batch[0].judgements] == pytest.approx([j.score for j in single.judgements])
    assert batch[0].final_score == pytest.approx(single.final_score)
    assert batch[0].probability > batch[1].probability
    assert batch[0].final_score > batch[1].final_score
    assert [j.checkpoint_id for j in batch[1].judgements] == ["c1", "c2", "c3"]


def test_no_evidence_and_foreign_evidence(student):
    j = score_paper(PAPER, CHECKLIST, {}, student).judgements[0]
    assert j.quote is None and j.quote_start is None and "no evidence chunk" in j.rationale
    foreign = RELEVANT[0].model_copy(update={"corpus_id": "9"})
    with pytest.raises(ValueError, match="belongs to '9'"):
        score_paper(PAPER, CHECKLIST, {"c1": [foreign]}, student)
    bare = Checklist(intent="x", checkpoints=[Checkpoint(id="m", kind="metadata", text="recent")])
    with pytest.raises(ValueError, match="'m': kind 'metadata' needs a predicate"):
        score_paper(PAPER, bare, {}, student)


def test_key_phrases_split_on_stop_words():
    assert key_phrases("1 in 5 million in UK have abnormal PrP positivity.") == [
        "1", "5 million", "uk", "abnormal prp positivity"]


def test_title_vectors_feed_title_similarity(student):
    v = np.ones(4) / 2.0
    a = score_paper(PAPER, CHECKLIST, {"c1": RELEVANT}, student, {"c1": v}, {"title_vector": v})
    b = score_paper(PAPER, CHECKLIST, {"c1": RELEVANT}, student, {"c1": v}, {"title_vector": -v})
    assert a.judgements[0].score > b.judgements[0].score


def test_sentence_spans_are_verbatim():
    text = '  First one. "Second (e.g. this) one." Third?  '
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == ["First one.", '"Second (e.g. this) one."', "Third?"]
