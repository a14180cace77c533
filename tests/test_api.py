"""The public API at ``litnav``: names resolve lazily to the functions the CLI uses, and
``import litnav`` alone loads nothing heavy."""

import subprocess
import sys

import pytest

import litnav


def test_import_litnav_loads_no_heavy_library():
    code = ("import sys, litnav; heavy = ('torch', 'numpy', 'duckdb', 'pydantic', 'faiss', 'typer'); "
            "print(','.join(m for m in heavy if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_names_are_the_layer_functions():
    from litnav.core.records import Session
    from litnav.core.settings import Settings, load_settings
    from litnav.corpus import Corpus
    from litnav.ingest import build
    from litnav.navigator import refine, search
    from litnav.session.io import read_session, write_session

    assert (litnav.build, litnav.Corpus, litnav.search, litnav.refine) == (build, Corpus, search, refine)
    assert (litnav.Settings, litnav.load_settings, litnav.Session) == (Settings, load_settings, Session)
    assert (litnav.read_session, litnav.write_session) == (read_session, write_session)
    assert set(litnav.__all__) <= set(dir(litnav))


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'serch'"):
        litnav.serch  # noqa: B018


def test_session_files_round_trip_through_the_api(tmp_path):
    session = litnav.Session(intent="graph neural networks", corpus="c")
    path = litnav.write_session(session, tmp_path / "s.json")
    assert litnav.read_session(path).intent == "graph neural networks"


def test_search_and_refine_take_a_corpus_directory(search_corpus_dir):
    session = litnav.search("graph neural networks for molecules", str(search_corpus_dir), top_k=5)
    assert session.results and all(r.corpus_id for r in session.results)
    with litnav.Corpus.open(search_corpus_dir) as corpus:  # the same results through an open corpus
        again = litnav.search("graph neural networks for molecules", corpus, top_k=5)
    assert [r.corpus_id for r in again.results] == [r.corpus_id for r in session.results]
    refined = litnav.refine(session, "only papers after 2018", search_corpus_dir)
    assert len(refined.turns) == 2
    with pytest.raises(Exception, match="nowhere"):
        litnav.search("graph neural networks", "/nowhere/corpus")


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda c: litnav.search(5, c), TypeError, "intent must be a string"),
    (lambda c: litnav.search("x", None), TypeError, "corpus must be an open Corpus or a corpus directory"),
    (lambda c: litnav.search("x", c, {}), TypeError, "Settings.model_validate"),
    (lambda c: litnav.search("x", c, workflow="wf.json"), TypeError, "load_workflow"),
    (lambda c: litnav.search("x", c, top_k=0), ValueError, "top_k must be an integer >= 1, got 0"),
    (lambda c: litnav.search("x", c, rounds=-2), ValueError, "rounds must be an integer >= 1"),
    (lambda c: litnav.search("x", c, rounds=True), ValueError, "rounds must be an integer >= 1"),
    (lambda c: litnav.refine("s.json", "more", c), TypeError, "read_session"),
    (lambda c: litnav.write_session({}, "s.json"), TypeError, "session must be a Session"),
    (lambda c: litnav.build([], c, mapping={"bogus": "x"}), ValueError, "unknown target 'bogus'"),
    (lambda c: litnav.load_settings(None, "navigator.rounds=1"), ValueError, "overrides must be a list"),
    (lambda c: litnav.Corpus.open(None), TypeError, "opened from its directory"),
    (lambda c: litnav.Corpus.open(["corpus"]), TypeError, "opened from its directory"),
    (lambda c: litnav.Corpus.open(c, settings="x"), TypeError, "settings must be a CorpusSettings"),
])
def test_a_wrong_argument_is_named_before_any_work(search_corpus_dir, tmp_path, monkeypatch, call, error, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error, match=message):
        call(str(search_corpus_dir))
    assert not (tmp_path / "s.json").exists()


def test_terminal_escapes_in_an_intent_never_reach_the_session(search_corpus_dir):
    session = litnav.search("\x1b]0;pwned\x07\x1b[31mgraph neural networks\x1b[0m for \udc9bmolecules\x07",
                            str(search_corpus_dir), top_k=3)
    texts = [session.intent, *(c.text for c in session.rounds[0].checklist.checkpoints)]
    assert not any(ch in t for t in texts for ch in "\x1b\x07\udc9b")
    assert not any("31m" in t or "pwned" in t for t in texts)
    assert session.results
