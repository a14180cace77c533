"""The working text of an intent: normalisation, consumed spans, negation and list cues.

Extractors run in turn over one :class:`Workspace`. Each match they accept is *consumed*:
its characters are replaced by a boundary mark ``|`` and spaces (same length, so offsets
into the original intent stay valid and later extractors never see it again).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cached_property

BOUNDARY = "|"
TITLE_SHARE = 0.8
"""Share of an intent's content words that must be capitalised for it to read as a title."""
_CONTINUES_NEGATED = re.compile(re.escape(BOUNDARY) + r" *,?\s*(?:or|nor|and)\s+(?:(?:in|at|of)\s+)?(?:the\s+)?$")
"""A consumed span joined to what follows by a conjunction (a comma alone starts a new constraint:
"not surveys, ACL 2020")."""
_CONTINUES_CONSUMED = re.compile(re.escape(BOUNDARY) + r" *(?:,\s*|\s+)(?:(?:and|or|nor)\s+)?(?:(?:in|at|of)\s+)?(?:the\s+)?$")

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")
_QUOTES = {ord("\u2018"): "'", ord("\u2019"): "'", ord("\u201c"): '"', ord("\u201d"): '"'}

NEGATION = (
    r"(?:\b(?:not|no|never|nothing|none|excluding|exclude|excludes|except(?:\s+for)?|other\s+than|rather\s+than"
    r"|without|omitting|omit|ignoring|ignore|avoid(?:ing)?|leaving\s+out|minus)\b|n't\b|\bnon-)"
)
# Words allowed between a negation cue and what it negates: "not published in", "no survey", ...
_FILLER = (
    r"(?:(?:published|appearing|appeared|presented|accepted|written|authored|any|anything|everything|all|the|a|an|in|at"
    r"|from|by|about|on|papers?|articles?|ones|those|that|are|is|was|were|be|been|a|venues?"
    r"|journals?|conferences?|want|wants|need|see)\s+){0,4}"
)
_NEG_BEFORE = re.compile(NEGATION + r"\s*" + _FILLER + r"$", re.IGNORECASE)
_ONLY_BEFORE = re.compile(r"\b(?:only|just|exclusively|solely)\s+" + _FILLER + r"$", re.IGNORECASE)


MAX_INTENT_CHARS = 20_000
"""The longest intent read: ten abstracts' worth (a 100,000-character one took over a minute to parse)."""


def normalise(intent: str) -> str:
    """NFKC-normalise, map typographic dashes and quotes to ASCII, collapse whitespace.

    Raises ``ValueError`` when ``intent`` is not a string, holds no word character or is longer
    than :data:`MAX_INTENT_CHARS`.
    """
    if not isinstance(intent, str):
        raise ValueError(f"intent must be a string, got {type(intent).__name__}")
    if len(intent) > MAX_INTENT_CHARS:
        raise ValueError(f"intent is {len(intent):,} characters long, more than {MAX_INTENT_CHARS:,}: give a "
                         "request, or a passage of a paper (an abstract is about 1,500), not a whole paper")
    text = unicodedata.normalize("NFKC", intent).translate(_DASHES).translate(_QUOTES)
    text = text.replace(BOUNDARY, " ")
    text = re.sub(r"\s+", " ", text).strip()
    if not re.search(r"\w", text):
        raise ValueError(f"intent is empty: {intent!r} holds no words to search for")
    return text


class Workspace:
    """The intent text with the spans extractors have already consumed.

    ``original`` is the normalised intent; ``text`` is the same length with consumed spans
    blanked to ``"|   "``. Offsets are shared by both.
    """

    def __init__(self, original: str) -> None:
        self.original = original
        self.text = original
        self.unknown_venues: list[tuple[int, str]] = []
        self.negated_spans: set[int] = set()  # starts of consumed spans a negation cue led
        """``(offset, name)`` of venue-like names an extractor consumed after the venue extractor
        ran (a bare acronym after "in" at a clause end, ``facets.extract_facets``): reported as
        venues the vocabulary does not know."""
        self.absent_resources: list[str] = []
        """Negated resources of supervision ("without labeled data", ``facets.extract_exclusions``):
        consumed, neither excluded nor searched (``Checklist.not_judged``)."""

    @cached_property
    def title_cased(self) -> bool:
        """True when the intent reads as a paper title in title case (see :func:`title_cased`)."""
        return title_cased(self.original)

    def consume(self, start: int, end: int, *, negated: bool = False) -> None:
        """Blank ``[start, end)`` so no later extractor matches inside it; ``negated``: a negation
        cue led it, so an item listed on after it shares the negation (:meth:`continues_negated`)."""
        if end <= start:
            return
        self.text = self.text[:start] + BOUNDARY + " " * (end - start - 1) + self.text[end:]
        if negated:
            self.negated_spans.add(start)

    def continues_consumed(self, start: int) -> bool:
        """True when the text before ``start`` is a span an extractor consumed followed only by a
        list separator ("excluding 2017 | and 2018", "at MT Summit | or AMTA"): the item at
        ``start`` continues that list and shares its cue."""
        return _CONTINUES_CONSUMED.search(self.text[:start]) is not None

    def continues_negated(self, start: int) -> bool:
        """True when the item at ``start`` continues (:meth:`continues_consumed`) a consumed span
        that a negation led: "no conference | or workshop papers" leaves workshop papers out too."""
        return (_CONTINUES_NEGATED.search(self.text[:start]) is not None
                and self.text.rfind(BOUNDARY, 0, start) in self.negated_spans)

    def cue_before(self, start: int) -> tuple[bool, bool, int]:
        """Look at the text before ``start`` for a negation or an "only" cue.

        Returns ``(negated, only, cue_start)``: ``cue_start`` is where the cue begins (so the
        caller can consume it), or ``start`` when there is none.
        """
        prefix = self.text[:start]
        m = _NEG_BEFORE.search(prefix)
        if m:
            return True, False, m.start()
        m = _ONLY_BEFORE.search(prefix)
        if m:
            return False, True, m.start()
        return False, False, start


def title_cased(text: str) -> bool:
    """True when ``text`` is written in title case, as a pasted paper title is ("Image Recognition
    Without Normalization"): it has at least three content words (four or more letters, not a
    stop word of ``core.text.stop_words``) and at least :data:`TITLE_SHARE` of them start with a
    capital. An intent typed as a sentence ("sentiment analysis that does not use Twitter data")
    is not: there a capitalised word is a name, a venue or an acronym."""
    from litnav.core.text import stop_words

    stops = stop_words()
    words = [w for w in re.findall(r"[^\W\d_][\w'-]*", text) if len(w) >= 4 and w.lower() not in stops]
    return len(words) >= 3 and sum(w[0].isupper() for w in words) >= TITLE_SHARE * len(words)


def list_pattern(item: str, later: str | None = None) -> str:
    """A regex for one ``item`` or a list of them joined by commas, ``or``, ``and``, ``nor``
    or ``/``, each optionally preceded by ``in``/``at``/``by``: "ACL, EMNLP or at NAACL";
    ``later`` (default ``item``) is the pattern of the items after the first."""
    sep = r"(?:\s*(?:,|/)\s*(?:(?:or|and|nor)\s+)?|\s+(?:or|and|nor)\s+)(?:(?:in|at|by)\s+)?"
    return rf"(?:{item})(?:{sep}(?:{later or item}))*"


def split_list(text: str) -> list[str]:
    """Split a list phrase on commas, slashes, ``or``, ``and``, ``nor``; drop empty parts."""
    parts = re.split(r"\s*(?:,|/|;)\s*|\s+(?:or|and|nor|as well as)\s+", text, flags=re.IGNORECASE)
    parts = [re.sub(r"^(?:(?:or|and|nor|in|at|by)\s+)+", "", p.strip(), flags=re.IGNORECASE) for p in parts]
    return [p for p in parts if p]


_NOISE = re.compile(r"\b(?:for\s+example|for\s+instance|e\.g\.|i\.e\.|in\s+particular|in\s+general|etc\.?)", re.I)
_EDGE_WORDS = {
    "a", "an", "the", "and", "or", "but", "also", "as", "well", "of", "on", "in", "at", "to", "from", "by",
    "about", "that", "which", "who", "are", "is", "be", "were", "was", "me", "i", "us", "we", "you", "please", "any",
    "some", "all", "papers", "paper", "articles", "article", "publications", "publication", "works",
    "work", "research", "literature", "empirical", "recent", "novel", "new", "relevant", "good",
    "various", "several", "many", "different", "specific", "particular", "interesting", "important",
    "studies", "preprints", "published", "its", "their", "into", "only", "just", "etc", "so", "both",
    "either", "with", "for", "using", "via", "such", "those", "these", "this", "related", "focus", "do",
    "does", "find", "show", "want", "need", "looking", "search",
}
_KEEP_BEFORE_STUDIES = {"case", "user", "ablation", "clinical", "cohort", "observational", "pilot", "field"}
REQUEST_WORDS = {"find", "show", "want", "need", "looking", "search"}
"""Edge words only at the start ("search for X", "find me ..."): at the end a phrase's head ("beam search")."""

_DOCUMENT_NOUNS = {"papers", "paper", "articles", "article", "publications", "publication", "literature", "studies",
                   "work"}


def edge_word(word: str) -> bool:
    """True for a word :func:`clean_phrase` strips from a phrase's edges: a function, request or
    document word, or a generic qualifier ("recent", "relevant", "papers")."""
    return word.lower().strip(".,:;!?'\"") in _EDGE_WORDS


def search_compound(word: str, following: str) -> bool:
    """True when ``word`` is "search" opening a compound with ``following`` ("search engines",
    "search space"), not a request ("search for", "search me", "search papers")."""
    return word.lower() == "search" and not edge_word(following)


_SINGULAR_DOCUMENT_NOUNS = {"paper", "article", "literature", "publication"}


_DOCUMENT_COMPOUND_HEADS = {"review", "reviews", "search", "searches", "survey", "surveys"}
"""Nouns that are verbs too yet make a compound after a document noun ("literature review")."""
_CONTENT_VERBS = frozenset("""using leveraging employing applying including investigating examining exploring studying
    describing proposing analysing analyzing presenting covering discussing addressing dealing focusing concerning
    regarding looking comparing evaluating reporting showing introducing""".split())
"""Verbs of what a paper does: after a document noun they link it to its subject ("paper proposing X")."""


def document_compound(word: str, following: str) -> bool:
    """True when ``word`` is a singular document noun that modifies the next word into a compound:
    a gerund ("paper reading tools"), a noun that is no verb or adjective
    ("article recommendation"), an unknown (technical) word, or a review or search ("literature
    review"); not a request's "papers on ...", a sentence's "This paper shows ...", nor a verb of
    what a paper does ("paper proposing ...": :data:`_CONTENT_VERBS`)."""
    from litnav.navigator.intent.lexicon import all_lemmas

    w = following.lower()
    if word.lower() not in _SINGULAR_DOCUMENT_NOUNS or not re.fullmatch(r"[^\W\d_][\w-]*", w):
        return False
    if w in _DOCUMENT_COMPOUND_HEADS:  # "literature search", though "search" alone asks
        return True
    if edge_word(w):
        return False
    if w in _CONTENT_VERBS:
        return False
    lemmas = all_lemmas(w)
    return w.endswith("ing") or w in _DOCUMENT_COMPOUND_HEADS or not lemmas or set(lemmas) == {"NOUN"}


def _qualifies_documents(word: str) -> bool:
    """True for an adjective that makes a kind of document of what follows ("scientific papers",
    "biomedical literature", "legal articles"), unlike a request's "recent papers" (edge words)."""
    from litnav.navigator.intent.lexicon import all_lemmas

    w = word.lower().strip(".,:;!?'\"")
    return w not in _EDGE_WORDS and "ADJ" in all_lemmas(w)


LATIN_WORDS = r"(?:vivo|vitro|silico|situ|utero|vacuo|ovo)"
"""The Latin words after "in"/"ex" that make one phrase with it ("in vivo")."""
LATIN_LOCATIVE = re.compile(rf"\b(?:in|ex)\s+{LATIN_WORDS}\b", re.I)
"""A Latin phrase whose "in"/"ex" is no preposition: "in vivo studies" keeps its "in"."""


def clean_phrase(phrase: str) -> str:
    """Strip generic words and punctuation from both ends of ``phrase``; "" if nothing is left
    ("in vivo" keeps its "in": :data:`LATIN_LOCATIVE`)."""
    phrase = _NOISE.sub(" ", phrase)
    tokens = re.sub(r"\s+", " ", phrase.replace(BOUNDARY, " ")).strip(" \t-:'\"").split(" ")
    while tokens and (tokens[0].lower().strip(".,:;!?'\"") in _EDGE_WORDS or not re.search(r"\w", tokens[0])):
        if LATIN_LOCATIVE.match(" ".join(tokens[:2])):
            break
        if len(tokens) > 1 and (search_compound(tokens[0], tokens[1]) or document_compound(tokens[0], tokens[1])):
            break
        tokens.pop(0)
    while tokens and ((tokens[-1].lower().strip(".,:;!?'\"") in _EDGE_WORDS - REQUEST_WORDS)
                      or not re.search(r"\w", tokens[-1])):
        if tokens[-1].lower() == "studies" and len(tokens) > 1 and tokens[-2].lower() in _KEEP_BEFORE_STUDIES:
            break
        if (tokens[-1].lower().strip(".,:;!?'\"") in _DOCUMENT_NOUNS and len(tokens) > 1
                and _qualifies_documents(tokens[-2])):
            break  # "summarization of scientific papers": the documents are the topic's object
        tokens.pop()
    return " ".join(tokens).strip(" ,.;:!?'\"")
