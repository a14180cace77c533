"""Text utilities shared by every layer: title keys, sentences with exact offsets, stop words.

* :func:`normalise_title` — the one title key used for exact title lookup, reference resolution
  and the web matcher.
* :func:`sentence_spans` — a small rule-based sentence splitter returning character spans, so
  offsets stay exact (``text[start:end]`` is the sentence). It treats as non-boundaries: periods of
  common scholarly abbreviations (``et al.``, ``e.g.``, ``i.e.``, ``Fig.``, ``Eq.``, ``Sec.``, ``cf.``,
  ``vs.`` ...), single capital initials (``J. Smith``), and decimals (``3.5`` has no space after the
  dot). A boundary is ``[.!?]`` plus optional closing quotes/brackets, whitespace, then a character
  that can open a sentence (upper-case letter, digit, quote, bracket) — or a blank line. Used for
  corpus chunking, citation contexts at ingest, and quote picking in the scorer.
* :func:`stop_words` — the English stop-word list (``bm25s.stopwords.STOPWORDS_EN_PLUS``, 179
  function words), the one list for term extraction; loaded on first use.
* :func:`bm25s_stop_list` — a stop list of ``bm25s.stopwords`` read without importing the
  ``bm25s`` package (whose ``__init__`` imports scipy: about 0.3 s of a CLI search's start-up).
"""

from __future__ import annotations

import importlib.util
import re
import sys
import unicodedata
from functools import lru_cache
from pathlib import Path

_PUNCT = re.compile(r"[^\w\s]|_", re.UNICODE)
_ASCII_PUNCT = bytes(b if chr(b).isalnum() or chr(b).isspace() else 32 for b in range(256))
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def normalise_title(s: str | None) -> str:
    """Title key: NFKD accents stripped, lower-case, punctuation removed, whitespace collapsed.

    ``normalise_title("Attention Is All You Need!")  == "attention is all you need"``;
    ``None`` or empty input gives ``""``.
    """
    if not s:
        return ""
    if s.isascii():
        return " ".join(s.lower().encode("ascii").translate(_ASCII_PUNCT).decode("ascii").split())
    s = _COMBINING.sub("", unicodedata.normalize("NFKD", s))
    return " ".join(_PUNCT.sub(" ", s.lower()).split())


_ABBREVIATIONS = frozenset(
    """al e.g i.e eg ie fig figs eq eqs sec secs tab tabs vs cf etc approx resp ref refs no nos
    vol vols pp p ch chap dept univ dr mr mrs ms prof st jr sr inc ltd co corp jan feb mar apr jun
    jul aug sep sept oct nov dec viz ca est min max avg std var incl ed eds op cit""".split()
)
_BOUNDARY = re.compile(r"""([.!?]+)(["'”’)\]]*)(\s+)(?=[*†‡]*\s*["'“‘(\[]?[A-Z0-9\u00C0-\u024F])|\n\s*\n""")
# a footnote marker after the end of a sentence begins the next one: "... SMT system. *\nThis work was done ..."


def _is_abbreviation(text: str, dot: int) -> bool:
    """True when the ``.`` at ``text[dot]`` ends an abbreviation or an initial, not a sentence."""
    # the run of word characters and dots ending at ``dot`` (what ``[\w.]+$`` matches), found by
    # walking back: a regex search from 0 would rescan the text for every period (quadratic)
    start = dot
    while start > 0 and ((c := text[start - 1]).isalnum() or c in "._"):
        start -= 1
    if start == dot:
        return False
    token = text[start:dot]
    word = token.lower().rstrip(".")
    if word in _ABBREVIATIONS:
        return True
    # single capital initial: "J. Smith", but not a sentence ending in a one-letter word like "a."
    return len(token) == 1 and token.isalpha() and token.isupper()


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences; returns ``[(start, end)]`` char spans, whitespace trimmed.

    Every non-blank character of ``text`` belongs to exactly one span; spans are in order and
    ``text[start:end]`` is a sentence without leading/trailing whitespace. Blank text gives ``[]``.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.group(1) is not None:
            if m.group(1) == "." and _is_abbreviation(text, m.start(1)):
                continue
            end = m.end(2)
        else:
            end = m.start()
        _append_trimmed(text, start, end, spans)
        start = m.end()
    _append_trimmed(text, start, len(text), spans)
    return spans


def _append_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see :func:`sentence_spans`)."""
    return [text[a:b] for a, b in sentence_spans(text)]


def sentence_at(text: str, offset: int, spans: list[tuple[int, int]] | None = None) -> str | None:
    """The sentence of ``text`` containing character ``offset`` (``spans`` = precomputed
    :func:`sentence_spans`); None when ``offset`` falls between sentences or out of range."""
    for s, e in spans if spans is not None else sentence_spans(text):
        if s <= offset < e:
            return text[s:e]
    return None


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """English stop words (lower-case): ``bm25s.stopwords.STOPWORDS_EN_PLUS``. The one list for
    term extraction (scorer terms and key phrases, reflection's salient terms, claim terms).
    The BM25 index itself uses bm25s's shorter ``"en"`` list (see ``corpus.lexical``)."""
    return frozenset(bm25s_stop_list("STOPWORDS_EN_PLUS"))


@lru_cache(maxsize=4)
def bm25s_stop_list(name: str) -> tuple[str, ...]:
    """The tuple ``bm25s.stopwords.<name>`` (e.g. ``"STOPWORDS_EN"``, the list ``bm25s.tokenize(...,
    stopwords="en")`` drops). When ``bm25s`` is not imported yet, its ``stopwords.py`` (plain
    tuples, no imports) is executed on its own, so the package's scipy import is not paid.
    Raises ``ImportError`` when bm25s is not installed, ``AttributeError`` for an unknown name."""
    if "bm25s" in sys.modules:
        from bm25s import stopwords

        return tuple(getattr(stopwords, name))
    spec = importlib.util.find_spec("bm25s")  # locates the package without executing it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("bm25s is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "stopwords.py"
    source = importlib.util.spec_from_file_location("litnav._bm25s_stopwords", path)
    module = importlib.util.module_from_spec(source)
    source.loader.exec_module(module)
    return tuple(getattr(module, name))


_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])|\x9b[0-?]*[ -/]*[@-~]")
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


_FORMAT = re.compile("[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff]")
"""Invisible characters inside words (soft hyphen, zero-width space and joiners, word joiner, BOM),
as text pasted from a PDF or web page carries them: "trans\u200blation" is "translation"."""


def visible_text(text: str) -> str:
    """``text`` without terminal escape sequences (ANSI colours, cursor moves, window-title (OSC)
    commands with their payload), control characters, bidirectional overrides or bytes that were no
    UTF-8 (lone surrogates from the command line), each replaced by
    a space (tabs and newlines are kept), and without the invisible characters of :data:`_FORMAT`
    (removed, so the word they split is whole again): what a user typed or pasted may be echoed to
    a terminal and into checkpoints, never run there, and reads as it looks."""
    return _INVISIBLE.sub(" ", _ANSI.sub(" ", _FORMAT.sub("", text)))


_COMMANDS = re.compile(r"\x1b(?!\[[0-9;]*m)(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])?"
                       r"|\x9b[0-?]*[ -/]*[@-~]|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """``text`` as a console may send it to a terminal: every escape sequence but a colour (SGR)
    one, and every control character but tab, newline and carriage return, removed (no screen
    clears, OSC 52 clipboard writes or window renames from a corpus title). The colours a console
    draws itself stay; data should pass :func:`visible_text` before it is styled."""
    return _COMMANDS.sub("", text)


_TOKEN = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")  # letters and digits of any script, inner - and '


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens of ``text`` (letters and digits of any script, inner hyphens and
    apostrophes kept; stop words kept, not stemmed): "Straße" and "naïve" stay whole words."""
    return _TOKEN.findall(text.lower())


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


_AGENT = re.compile(r"(?:er|or)s?$")


@lru_cache(maxsize=1)
def _american() -> dict[str, str]:
    from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

    return BRITISH_ENGLISH_SPELLINGS


_BRITISH_IS = re.compile(r"([a-z]{3,})is(e|es|ed|ing|er|ers|ation|ations|able)")
"""The British "-ise" family the table lacks ("summarisation", "tokeniser", "randomisation"): a
rewrite to "-ize" is harmless where both spellings use "-ise" ("advertise"), since every text
is rewritten alike."""


def american_spelling(word: str) -> str:
    """The American spelling of a lower-case British word ("randomised" -> "randomized",
    "haemoglobin" -> "hemoglobin", "colour" -> "color"; each part of a hyphenated word), from the
    1,730 pairs of the ``breame`` package, else "-is(e|ation|er...)" -> "-iz..."
    (:data:`_BRITISH_IS`); any other word as it is."""
    if "-" in word:
        return "-".join(map(american_spelling, word.split("-")))
    table = _american()
    if word in table:
        return table[word]
    m = _BRITISH_IS.fullmatch(word)
    return f"{m.group(1)}iz{m.group(2)}" if m else word


@lru_cache(maxsize=1)
def _british() -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for british, american in _american().items():
        out.setdefault(american, []).append(british)
    return {american: tuple(forms) for american, forms in out.items()}


_ISE_ALWAYS = frozenset({
    "adv", "advert", "chast", "comprom", "compr", "conc", "desp", "dev", "disgu", "enterpr", "exc",
    "exerc", "expert", "franch", "improv", "inc", "merchand", "otherw", "prec", "prem", "prom",
    "rev", "superv", "surm", "surpr", "telev",
})
"""Stems before "-ise" of words spelt "-ise" in American English too ("expertise", "advise",
"supervise"), whose "-ize" form would stem to another word ("expertize" -> "expert")."""

_AMERICAN_IZ = re.compile(r"([a-z]{3,})iz(e|es|ed|ing|er|ers|ation|ations|able)")


_MEDICAL_SPELLINGS = (("haem", "hem"), ("aemi", "emi"), ("paed", "ped"), ("oesophag", "esophag"), ("oedem", "edem"),
                      ("oestr", "estr"), ("aetiol", "etiol"), ("faec", "fec"), ("foet", "fet"), ("coeli", "celi"),
                      ("gynaec", "gynec"), ("anaesth", "anesth"), ("amoeb", "ameb"), ("noea", "nea"), ("rhoea", "rhea"),
                      ("caesar", "cesar"), ("dyspnoe", "dyspne"))
"""British and American stems of medical words the ``breame`` table lacks ("ischaemic", "oesophageal",
"coeliac", "oedema", "dyspnoea"): each way round, a word's other spelling when it holds one of them.
Used only for the words a BM25 query matches (:func:`spelling_variants`), where a form the
index does not hold drops out ("speed" gives "spaed", which no text has)."""


def _medical_forms(word: str) -> list[str]:
    """Other spellings of ``word`` by :data:`_MEDICAL_SPELLINGS`, either way round; none for a word
    under five letters ("sped" is no "spaed")."""
    out: list[str] = []
    if len(word) < 5:
        return out
    for british, american in _MEDICAL_SPELLINGS:
        if british in word:
            out.append(word.replace(british, american, 1))
        elif american in word and british not in word:
            out.append(word.replace(american, british, 1))
    return out


@lru_cache(maxsize=65536)
def spelling_variants(word: str) -> tuple[str, ...]:
    """``word`` (lower case) and its other spellings, ``word`` first: its American spelling
    (:func:`american_spelling`) and that word's British forms from the same ``breame`` table, or
    "-iz..." -> "-is..." (:data:`_BRITISH_IS` read backwards), or else by the medical stems of
    :data:`_MEDICAL_SPELLINGS`: "tumor" -> ("tumor", "tumour"), "randomised" -> ("randomised",
    "randomized"), "ischemic" -> ("ischemic", "ischaemic"), "model" -> ("model",). A form may be no
    word at all ("theme" -> "thaeme"): these are the words BM25 matches for one query word, and an
    index, which holds each text's words as written, simply lacks such a form."""
    m = _BRITISH_IS.fullmatch(word)
    american = word if m and m.group(1) in _ISE_ALWAYS else american_spelling(word)
    if "-" in word:
        return tuple(dict.fromkeys((word, american)))
    m = _AMERICAN_IZ.fullmatch(american)
    british = _british().get(american, ()) + ((f"{m.group(1)}is{m.group(2)}",) if m else ())
    medical = _medical_forms(word) if american == word else []
    return tuple(dict.fromkeys((word, american, *british, *medical)))


def _stem_words(words: list[str]) -> list[str]:
    """Snowball English stems of the words in American spelling (:func:`american_spelling`: Snowball
    stems "randomized" to "random" but "randomised" to "randomis"), except that an agent noun keeps
    its "-er"/"-or" where Snowball strips it: "transformers" -> "transformer", not "transform" (so
    "we transform the input" does not state "transformers"), "encoder" -> "encoder", not "encod"
    ("encoding")."""
    words = [american_spelling(w) for w in words]
    out = _stemmer().stemWords(words)
    for i, (word, stem) in enumerate(zip(words, out)):
        if (m := _AGENT.search(word)) and not stem.endswith(("er", "or")) and len(word) > 5:
            out[i] = stem + m.group(0)[:2]
        elif _ACRONYM_PLURAL.fullmatch(stem):
            out[i] = stem[:-1]
    return out


_ACRONYM_PLURAL = re.compile(r"[b-df-hj-np-tv-xz]{2,}[b-df-hj-np-tv-xz0-9]*s")
"""The plural of an acronym, which has no vowel and which Snowball keeps whole: "lstms", "cnns",
"llms", "hmms", "crfs" (stemmed to "lstm", ... so "uses LSTMs" is stated by "an LSTM network")."""


@lru_cache(maxsize=16384)
def _stems(text: str) -> tuple[str, ...]:
    stop = stop_words()
    return tuple(_stem_words([t for t in tokens(text) if t not in stop]))


def stems(text: str) -> list[str]:
    """Stemmed content tokens of ``text`` in order: :func:`tokens` minus :func:`stop_words`, in
    American spelling, Snowball English stems (PyStemmer) that keep an agent noun's "-er"
    (:func:`_stem_words`). The terms of the scorer and of evidence pre-selection;
    cached (LRU, 16k texts) by text, since the same chunks are read again in later rounds."""
    return list(_stems(text))


def stem_offsets(text: str) -> tuple[list[str], list[int]]:
    """``stems(text)`` together with the character offset in ``text`` where each token starts."""
    stop = stop_words()
    kept = [(m.group(0).lower(), m.start()) for m in _TOKEN.finditer(text)]
    kept = [(t, i) for t, i in kept if t not in stop]
    return _stem_words([t for t, _ in kept]), [i for _, i in kept]


def stem_set(text: str) -> frozenset[str]:
    """The set of stemmed content terms of ``text``."""
    return frozenset(stems(text))


VALUES_SHOWN = 8
"""Values a one-line listing shows (:func:`shown_values`); the rest are counted: a venue matched
against the corpus vocabulary can stand for hundreds of spellings."""


def shown_values(values: list[str]) -> str:
    """``values`` joined by ", ": the first :data:`VALUES_SHOWN` and a count of the rest
    ("a, b, …, h, … and 396 more"). For display only; the records keep every value."""
    shown = ", ".join(values[:VALUES_SHOWN])
    if len(values) > VALUES_SHOWN:
        shown += f", … and {len(values) - VALUES_SHOWN} more"
    return shown


_NAME_SUFFIX = re.compile(r"(?:,\s*|\s+)(Jr\.?|Sr\.?|II|III|IV)$|,\s*(V)$")
"""A generational suffix at the end of a name ("Robert L. Logan IV", "Ann Smith, Jr."); a bare
"V" only after a comma (without one it is an initial: "Anand Kumar V")."""


NAME_PARTICLES = frozenset("""
van von de der den del della dei degli di da das dos du des le la ter ten zu zum zur vom op bin ibn al el
""".split())
"""Lower-case particles that open a family name ("Ludwig van Beethoven" -> "van Beethoven"); the
capitalised forms of :data:`_CAPITAL_PARTICLES` do so only right before the last word."""
_CAPITAL_PARTICLES = frozenset("De Der Den Del Della Di Da Dos Du Van Von Ter Ten Le La".split())
_EAST_ASIAN_FAMILY = frozenset("""
Nguyen Tran Le Pham Hoang Huynh Phan Vu Vo Dang Bui Do Ho Ngo Duong Ly Dinh Trinh Truong Mai Lam
Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin Luo Gao Zheng Liang Xie Song Tang
""".split())
"""Family names after which a capitalised "Van", "Le", "Da" or "Di" is a given name ("Quang Van
Nguyen", "Yu Da Wang"), not a particle."""


def _family_start(words: list[str]) -> int:
    """Index of the first word of the family name of a "Given ... Family" name: the last word,
    with the particles before it ("Maarten De Rijke", "Sam Van Der Meer", "Ludwig van
    Beethoven"); the first word always stays given."""
    i = len(words) - 1
    while i > 1:
        w = words[i - 1]
        lower = w in NAME_PARTICLES
        capital = (w in _CAPITAL_PARTICLES and i == len(words) - 1 and words[-1] not in _EAST_ASIAN_FAMILY)
        if not (lower or capital or (w in _CAPITAL_PARTICLES and words[i] in _CAPITAL_PARTICLES)):
            break
        i -= 1
    return i


def split_name(name: str) -> tuple[str, str, str]:
    """``(family, given, suffix)`` of an author's display name: "Ashish Vaswani" -> ("Vaswani",
    "Ashish", ""); "Vaswani, Ashish" the same; "Robert L. Logan IV" and "Logan, Robert L., IV" ->
    ("Logan", "Robert L.", "IV"); "Ann Smith, Jr." -> ("Smith", "Ann", "Jr."); a family name keeps
    its particles ("Maarten De Rijke" -> "De Rijke", "Ludwig van Beethoven" -> "van Beethoven",
    :data:`NAME_PARTICLES`); a one-word name is its family name alone. Whitespace is collapsed."""
    name = " ".join(name.split()).strip(", ")
    suffix = ""
    m = _NAME_SUFFIX.search(name)
    if m and name[:m.start()].strip(", "):  # "Daumé III", "Smith Jr.": a family name and its suffix
        suffix, name = m.group(1) or m.group(2), name[:m.start()].strip(", ")
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return family, given, suffix
    words = name.split(" ")
    at = _family_start(words)
    return " ".join(words[at:]), " ".join(words[:at]), suffix


def surname(name: str) -> str:
    """The normalised family name of a display name (:func:`split_name`: "Vaswani, Ashish",
    "Ashish Vaswani", "Robert L. Logan IV" -> "logan"); lower-case, no accents, no punctuation,
    without its leading particles ("Maarten De Rijke", "de Rijke, M." and "Rijke, M. de" ->
    "rijke"), so names match however a bibliography places the particle."""
    words = split_name(name)[0].split(" ")
    while len(words) > 1 and (words[0].lower() in NAME_PARTICLES):
        words = words[1:]
    fam = " ".join(words)
    return " ".join(_PUNCT.sub("", _COMBINING.sub("", unicodedata.normalize("NFKD", fam)).lower()).split())


_PARADIGM = re.compile(r"([^\W\d_][\w-]*[^\W_])[ -]learning", re.I)
_NO_PARADIGM = frozenset({"machine", "deep", "meta", "statistical", "human", "language", "online"})
"""Words before "learning" whose "<word> approach" names no paradigm ("machine approach", "meta
methods", "language approach", "online methods")."""


def paradigm_variants(phrase: str) -> list[str]:
    """The other names of a learning paradigm "M learning" ("imitation learning" ->
    ["imitation approach", "imitation approaches", "imitation methods", "imitation-style"]): an
    exclusion of imitation learning is violated by "A Policy-Guided Imitation Approach for Offline
    RL". [] for any other phrase, or one of more words before "learning" ("deep reinforcement
    learning" is excluded by its own name). Judged (``scorer.features.alternatives``), never
    filtered on: "outperforms contrastive approaches" names a baseline, not the paper's method."""
    m = _PARADIGM.fullmatch(phrase.strip())
    if not m or m.group(1).lower() in _NO_PARADIGM:
        return []
    head = m.group(1)
    return [f"{head} approach", f"{head} approaches", f"{head} methods", f"{head}-style"]
