"""The general English lexicon (``lemminflect``) with its lookup tables loaded from a pickle cache.

lemminflect parses its gzipped CSV tables line by line on first use (about 0.5 s for the lemma
table and 0.6 s for the inflection table on one core), which every ``litnav search`` process paid
while parsing its intent. The parsed dictionaries are pickled once under
``$XDG_CACHE_HOME/litnav/lexicon/`` (keyed by the table file's name, size and mtime, so an upgraded
lemminflect re-parses) and later processes unpickle them (about 0.15 s each). An unreadable cache
file is re-parsed and rewritten; an unwritable cache directory only costs the parse.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from litnav.core.cache import cache_root
from litnav.core.io import write_bytes


def _cached_table(source: str, parse: Callable[[str], Any], kind: str = "table") -> Any:
    src = Path(source)
    st = src.stat()
    target = cache_root("lexicon") / f"{src.name}.{kind}.{st.st_size}.{st.st_mtime_ns}.pickle"
    try:
        with target.open("rb") as f:
            table = pickle.load(f)
        if isinstance(table, (dict, frozenset)) and table:
            return table
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
        pass
    table = parse(source)
    try:
        write_bytes(target, pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass
    return table


@lru_cache(maxsize=1)
def _lemmatizer() -> Any:
    from lemminflect.codecs.LemmaLUCodec import LemmaLUCodec
    from lemminflect.core.Lemmatizer import Lemmatizer

    lem = Lemmatizer()  # a process-wide singleton, shared with lemminflect's own functions
    if not hasattr(lem, "lemma_dict"):
        lem.lemma_dict = _cached_table(lem.lemma_lu_fn, LemmaLUCodec.load)
    return lem


@lru_cache(maxsize=1)
def _inflections() -> Any:
    from lemminflect.codecs.InflectionLUCodec import InflectionLUCodec
    from lemminflect.core.Inflections import Inflections

    inf = Inflections()
    if not hasattr(inf, "infl_dict"):
        inf.infl_dict = _cached_table(inf.infl_lu_fn, InflectionLUCodec.load)
    return inf


@lru_cache(maxsize=1)
def _known_words() -> frozenset[str]:
    from lemminflect.core.Lemmatizer import Lemmatizer

    lem = Lemmatizer()

    def parse(_source: str) -> frozenset[str]:
        return frozenset(_lemmatizer().lemma_dict) | frozenset(lem._getOverridesDict())

    return _cached_table(lem.lemma_lu_fn, parse, kind="words")


def known_word(word: str) -> bool:
    """True when the lexicon has ``word`` (lower-cased) at all, i.e. ``all_lemmas(word)`` is not
    empty; reads a cached word set (~20 ms) instead of the whole lemma table."""
    return word.lower() in _known_words()


def all_lemmas(word: str, upos: str | None = None) -> dict[str, tuple[str, ...]]:
    """``lemminflect.getAllLemmas``: universal POS tag -> lemmas of ``word`` ({} for an unknown word)."""
    return _lemmatizer().getAllLemmas(word, upos)


def all_inflections(lemma: str, upos: str | None = None) -> dict[str, tuple[str, ...]]:
    """``lemminflect.getAllInflections``: Penn tag -> inflected forms of ``lemma``."""
    return _inflections().getAllInflections(lemma, upos)
