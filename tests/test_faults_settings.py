"""Fault injection: corpus settings are part of the corpus identity (issue 12, case 1)."""

from __future__ import annotations

import json
import shlex

import pytest
from typer.testing import CliRunner

from litnav.cli import _register, app
from litnav.corpus import Corpus
from litnav.corpus.encoder import bundled_model_path

PAPERS = [
    {"id": f"p{i}", "title": f"Paper {i} on dense retrieval of passages", "abstract":
     "We study dense passage retrieval for open-domain question answering. " * 3}
    for i in range(3)
]


@pytest.fixture(scope="module")
def runner():
    _register()
    return CliRunner()


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _text(path, text):
    path.write_text(text)
    return path


def _build(runner, *args):
    return runner.invoke(app, ["build", *map(str, args), "--format", "jsonl", "--no-progress"])


def _stored(corpus):
    with Corpus.open(corpus) as c:
        return c.settings


def test_plain_build_keeps_the_stored_settings(runner, tmp_path):
    corpus = tmp_path / "c"
    res = _build(runner, _jsonl(tmp_path / "a.jsonl", PAPERS[:2]), "--corpus", corpus,
                 "--set", "corpus.chunk_tokens=128", "--set", "corpus.chunk_embeddings=lazy")
    assert res.exit_code == 0, res.output
    with Corpus.open(corpus) as c:
        chunks_before = c.stats()["chunks"]
    res = _build(runner, _jsonl(tmp_path / "b.jsonl", PAPERS[2:]), "--corpus", corpus)
    assert res.exit_code == 0, res.output
    assert _stored(corpus).chunk_tokens == 128
    assert _stored(corpus).chunk_embeddings == "lazy"
    with Corpus.open(corpus) as c:
        assert c.stats()["chunks"] > chunks_before  # only the new paper's chunks were added


def test_changing_chunk_size_is_refused_with_a_command_that_works(runner, tmp_path):
    corpus = tmp_path / "c"
    src = _jsonl(tmp_path / "a.jsonl", PAPERS)
    assert _build(runner, src, "--corpus", corpus, "--set", "corpus.chunk_embeddings=lazy").exit_code == 0
    res = _build(runner, _jsonl(tmp_path / "b.jsonl", [dict(PAPERS[0], id="q1")]), "--corpus", corpus,
                 "--set", "corpus.chunk_tokens=64")
    assert res.exit_code != 0
    assert "Traceback" not in res.output
    assert "corpus.chunk_tokens=256" in res.output and "nothing was changed" in res.output
    assert _stored(corpus).chunk_tokens == 256  # nothing stored before the check
    with Corpus.open(corpus) as c:
        assert "q1" not in c.all_ids()
    command = res.output.split("`")[1]
    assert command.startswith("litnav reindex --corpus")
    res = runner.invoke(app, shlex.split(command)[1:] + ["--no-progress"])
    assert res.exit_code == 0, res.output
    assert _stored(corpus).chunk_tokens == 64
    with Corpus.open(corpus) as c:
        assert not c.stats()["indexes_dirty"] and c.lexical_search("dense retrieval", 3)


def test_build_reembed_applies_a_new_chunk_size(runner, tmp_path):
    corpus = tmp_path / "c"
    src = _jsonl(tmp_path / "a.jsonl", PAPERS)
    assert _build(runner, src, "--corpus", corpus, "--set", "corpus.chunk_embeddings=lazy").exit_code == 0
    res = _build(runner, src, "--corpus", corpus, "--set", "corpus.chunk_tokens=64", "--reembed")
    assert res.exit_code == 0, res.output
    assert _stored(corpus).chunk_tokens == 64


@pytest.fixture(scope="module")
def other_model(tmp_path_factory):
    """A model folder with the bundled weights under another name: another model identity."""
    folder = tmp_path_factory.mktemp("models") / "other-minilm"
    src = bundled_model_path()
    for p in src.rglob("*"):
        if p.is_file():
            dest = folder / p.relative_to(src)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.symlink_to(p)
    return folder


def test_another_model_is_refused_before_it_is_stored_and_search_still_works(runner, tmp_path, other_model):
    corpus = tmp_path / "c"
    src = _jsonl(tmp_path / "a.jsonl", PAPERS)
    assert _build(runner, src, "--corpus", corpus, "--set", "corpus.chunk_embeddings=lazy").exit_code == 0
    res = _build(runner, _jsonl(tmp_path / "b.jsonl", [dict(PAPERS[0], id="q1")]), "--corpus", corpus,
                 "--set", f"corpus.model_path={other_model}")
    assert res.exit_code != 0 and "litnav reindex --corpus" in res.output
    assert _stored(corpus).model_path is None
    # a plain search still works: the refused build stored nothing
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(corpus), "--json",
                              str(tmp_path / "s.json"), "--rounds", "1"])
    assert res.exit_code == 0, res.output


def test_search_and_verify_with_a_model_path_do_not_crash(runner, tmp_path, other_model):
    corpus = tmp_path / "c"
    assert _build(runner, _jsonl(tmp_path / "a.jsonl", PAPERS), "--corpus", corpus,
                  "--set", "corpus.chunk_embeddings=lazy").exit_code == 0
    # the corpus's own model, named by path: works
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(corpus), "--rounds", "1", "--json",
                              str(tmp_path / "s.json"), "--set", f"corpus.model_path={bundled_model_path()}"])
    assert res.exit_code == 0, res.output
    # another model: one clear line, no traceback
    for cmd in (["search", "dense retrieval", "--json", str(tmp_path / "t.json")],
                ["verify", str(_text(tmp_path / "refs.txt", "Paper 1 on dense retrieval of passages\n"))]):
        res = runner.invoke(app, cmd + ["--corpus", str(corpus), "--set", f"corpus.model_path={other_model}"])
        assert res.exit_code != 0
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
        assert "other-minilm" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize(("name", "content", "message"), [
    ("data.csv", "a,b\n1,2\n", "TOML (.toml) or JSON (.json), not .csv"),
    ("s.json", "[1, 2]", "table of groups, not list"),
    ("s.toml", "navigator = [", "not valid TOML"),
    ("s.json", "{'navigator': 1}", "not valid JSON"),
    ("s.toml", "[navigator]\nrounds = 0\n", "navigator.rounds"),
    ("s.toml", "[librarians]\ncitation_weight = inf\n", "librarians.citation_weight"),
    ("s.toml", "[librarians]\nfacet_weight = nan\n", "librarians.facet_weight"),
    ("s.json", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "not a usable JSON settings file"),
    ("s.json", '{"navigator": {"rounds": ' + "9" * 5000 + "}}", "not a usable JSON settings file"),
])
def test_a_bad_settings_file_is_named_with_what_is_wrong(tmp_path, name, content, message):
    from litnav.core.settings import SettingsError, load_settings

    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(SettingsError, match=str(path).replace(".", r"\.")) as err:
        load_settings(path)
    assert message in str(err.value)
    with pytest.raises(SettingsError, match="cannot read"):
        load_settings(tmp_path / "missing.toml")


@pytest.mark.parametrize(("override", "message"), [
    ("navigator.roundz=3", "unknown setting navigator.roundz (navigator has: rounds,"),
    ("navigatr.rounds=3", "unknown settings group navigatr (groups: corpus,"),
    ("=3", "expected group.field=value"),
    ("navigator.rounds=" + "9" * 5000, "--set navigator.rounds: not a usable value"),
])
def test_a_misspelt_override_names_the_settings_that_exist(override, message):
    from litnav.core.settings import SettingsError, load_settings

    with pytest.raises(SettingsError) as err:
        load_settings(None, [override])
    assert message in str(err.value)


def test_a_file_given_as_the_corpus_is_named_as_a_file(runner, tmp_path):
    path = tmp_path / "queries.txt"
    path.write_text("parsing\n")
    res = runner.invoke(app, ["search", "parsing", "--corpus", str(path)])
    assert res.exit_code != 0 and "is a file, not a corpus directory" in " ".join(res.output.split())


def test_a_session_file_nested_too_deeply_or_with_a_huge_number_is_named_not_a_traceback(tmp_path):
    from litnav.session.io import SessionFileError, read_session

    for name, text in (("deep.json", '{"intent": "x", "rounds": ' + "[" * 100_000 + "]" * 100_000 + "}"),
                       ("big.json", '{"intent": "x", "rounds": [], "version": ' + "9" * 5000 + "}")):
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(SessionFileError, match=f"{name}: not a litnav session file"):
            read_session(path)


def test_a_session_saved_with_a_byte_order_mark_can_be_refined_in_place(tmp_path):
    from litnav.session.io import check_output, is_session_file

    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({"intent": "x", "rounds": []}).encode())
    assert is_session_file(path) and check_output(path, "session") == path


def test_a_student_folder_without_its_document_is_a_clear_error(runner, tmp_path, search_corpus_dir):
    res = runner.invoke(app, ["search", "dense retrieval", "--corpus", str(search_corpus_dir),
                              "--set", f"scorer.student={tmp_path}"])
    assert res.exit_code == 1 and "a student folder needs student.json" in res.output


@pytest.mark.parametrize("field, value", [("librarians.semantic_k", 20000), ("librarians.lexical_k", 10001),
                                          ("librarians.citation_k", 6000)])
def test_a_retrieval_depth_above_what_a_search_returns_is_refused_at_the_setting(field, value):
    """librarians.semantic_k=20000 was accepted and failed later in node 'semantic_intent', a node
    the user never wrote; the setting itself now names its bound."""
    from litnav.core.settings import load_settings

    with pytest.raises(ValueError, match=field.split(".")[1]):
        load_settings(None, [f"{field}={value}"])
