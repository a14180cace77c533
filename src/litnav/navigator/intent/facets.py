"""Content exclusions and content facets (topic / method / application / data).

Runs on what the metadata extractors left. Exclusions first: a negation cue ("not about",
"excluding", "other than", "rather than", "without", "except", "but not", "no") and the phrase
after it, up to the next clause boundary. A verb negation is content, never an exclusion:
"n't", "not"/"never" after an auxiliary or copula ("does not affect X", "is not Y"), "no
longer", and "no" that is not at a clause or list boundary ("receive no treatment"); "no X"
counts only at the start, after a comma/semicolon/consumed metadata or after "and"/"but"/"or". Then request and document words are removed
("find me", "papers on", "studies of") and the rest is cut at clause boundaries (commas,
semicolons, consumed metadata) and at cue phrases:

- method: "using X", "with X", "based on X", "via X", "through X", "leveraging X", "that use X"
- application: "for X", "applied to X", "across X", "within X", "in the X domain",
  "in <a known domain>" (healthcare, hospitals, finance, ...)
- data: "evaluated/tested/trained on X", "on X dataset/benchmark/corpus", "using X dataset"
- topic: the head phrase, "about X", "regarding X", "related to X"

A comma chunk without its own cue continues the facet before it ("for radiology, pathology").
A parenthesised acronym ("chronic kidney disease (CKD)") is a term of the facet it follows,
never a facet of its own.
Each facet keeps its phrase (for the readable text) and its key terms: the phrase split on
"and"/"or"/commas, stripped of generic words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from litnav.navigator.intent.text import BOUNDARY, Workspace, split_list

DOMAIN_WORDS = (
    "healthcare", "health care", "medicine", "clinical practice", "clinical settings", "hospitals?",
    "radiology", "pathology", "oncology", "biomedicine", "finance", "banking", "education",
    "law", "legal settings", "agriculture", "robotics", "manufacturing", "industry", "e-commerce",
    "social media", "the wild", "practice", "production", "low-resource settings", "cybersecurity",
    "autonomous driving", "genomics", "drug discovery", "materials science", "climate science",
)
_DATA_WORDS = r"(?:datasets?|data\s+sets?|benchmarks?|corpus|corpora|treebanks?|data)"

_CUES: list[tuple[str, str]] = [
    ("data", r"(?:evaluated|tested|trained|benchmarked|validated|fine-?tuned|pre-?trained|experiments?|results|evaluation)\s+(?:on|using|with)"),
    ("data", rf"on(?=\s+[^|,;]*?\b{_DATA_WORDS}\b)"),
    ("method", r"(?:by\s+)?using|by\s+means\s+of|with\s+the\s+(?:help|use)\s+of|based\s+on|via|through|leveraging"
               r"|employing|utili[sz]ing|built\s+(?:on|upon)|powered\s+by|relying\s+on|combined\s+with"
               r"|(?:that|which|who)\s+(?:use|uses|used|employ|employs|leverage|leverages|apply|applies|rely\s+on|relies\s+on)"),
    ("method", r"(?<!compared\s)(?<!along\s)(?<!deal\s)(?<!deals\s)(?<!dealing\s)(?<!cope\s)(?<!coping\s)"
               r"(?<!associated\s)(?<!together\s)(?<!patients\s)(?<!people\s)(?<!children\s)(?<!users\s)"
               r"(?<!adults\s)(?<!individuals\s)(?<!subjects\s)(?<!students\s)(?<!women\s)(?<!men\s)"
               r"(?<!those\s)(?<!consistent\s)(?<!interaction\s)(?<!interacting\s)(?<!agree\s)with"),
    ("application", r"applied\s+to|applications?\s+(?:to|in)|across|in\s+the\s+context\s+of"
                    r"|in\s+the\s+(?:domain|field|area)\s+of|within|targeting|aimed\s+at|tailored\s+(?:to|for)"
                    r"|for\s+use\s+in|(?<!looking\s)(?<!search\s)(?<!searching\s)for"),
    ("application", r"in(?=\s+(?:the\s+)?(?:[\w-]+\s+){0,3}(?:domains?|settings?|contexts?|environments?)\b)"),
    ("application", r"in(?=\s+(?:" + "|".join(DOMAIN_WORDS) + r")\b)"),
    ("topic", r"about|regarding|concerning|on\s+the\s+topic\s+of|related\s+to|focusing\s+on|focused\s+on"),
]
_CUE_RE = re.compile(
    "|".join(rf"(?P<k{i}>(?<![\w-])(?:{p})(?![\w-]))" for i, (_k, p) in enumerate(_CUES)), re.I)

_REQUEST = re.compile(
    r"\b(?:(?:please|kindly)\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?"
    r"(?:(?:help\s+me\s+)?(?:find|show|give|get|list|search(?:\s+for)?|recommend|suggest|retrieve|fetch"
    r"|collect|gather|identify|locate)(?:\s+(?:me|us))?"
    r"|i(?:'m|\s+am)\s+(?:looking|searching)\s+for|(?:looking|searching)\s+for"
    r"|i\s+(?:want|need|would\s+like|'d\s+like)(?:\s+to\s+(?:find|read|see|know\s+about))?"
    r"|(?:are|is)\s+there\s+(?:any\s+)?|what\s+are\s+(?:the\s+)?|which\s+papers|tell\s+me\s+about)\b",
    re.I)
_DOCS = r"(?:advances|progress|developments|trends|papers?|articles?|stud(?:y|ies)|works?|research|literature|publications?|preprints?|reports?|manuscripts?)"
_QUALIFIERS = (r"(?:(?:some|any|all|the|a|an|relevant|good|key|important|seminal|influential|notable|major|main"
               r"|interesting|novel|new|related|various|top|best|more)\s+)*")
_LINK = (r"(?:on|about|of|regarding|concerning|into|in|that|which|dealing\s+with|addressing|investigating"
         r"|examining|exploring|studying|describing|proposing|related\s+to|focusing\s+on|focused\s+on"
         r"|looking\s+at|discussing|in\s+the\s+(?:area|field)\s+of|covering|analy[sz]ing|presenting|where|whose)")
_DOC_LINK = re.compile(rf"\b{_QUALIFIERS}(?:{_DOCS})\s+(?:{_LINK})\b", re.I)
_NOISE = re.compile(r"\b(?:for\s+example|for\s+instance|e\.g\.|i\.e\.|in\s+particular|in\s+general|etc\.?)", re.I)

# "(CKD)", "(Th2)": an acronym-like token in parentheses (see navigator.intent.claims.is_acronym)
_PAREN_ACRONYM = re.compile(r"\(\s*(?P<a>(?=[\w+./-]*[A-Z])(?![\d.,/%-]+\s*\))[A-Za-z0-9][\w+./-]{0,14})\s*\)")

_EDGE_WORDS = {
    "a", "an", "the", "and", "or", "but", "also", "as", "well", "of", "on", "in", "at", "to", "from", "by",
    "about", "that", "which", "who", "are", "is", "be", "were", "was", "me", "i", "us", "please", "any",
    "some", "all", "papers", "paper", "articles", "article", "publications", "publication", "works",
    "work", "research", "literature", "empirical", "recent", "novel", "new", "relevant", "good",
    "various", "several", "many", "different", "specific", "particular", "interesting", "important",
    "studies", "preprints", "published", "its", "their", "into", "only", "just", "etc", "so", "both",
    "either", "with", "for", "using", "via", "such", "those", "these", "this", "related", "focus", "do",
    "does", "find", "show", "want", "need", "looking", "search",
}
_KEEP_BEFORE_STUDIES = {"case", "user", "ablation", "clinical", "cohort", "observational", "pilot", "field"}

_EXCLUSION = re.compile(
    r"(?<!whether or )(?P<cue>(?:\b(?:but\s+not|and\s+not|not|no|never|excluding|exclude|excludes"
    r"|except(?:\s+for)?|other\s+than|rather\s+than|without|omitting|omit|ignoring|ignore|avoid(?:ing)?"
    r"|leaving\s+out|minus)\b|n't\b))(?!\s+only\b)(?!\s+(?:necessarily|just|always)\b)\s*(?P<phrase>[^|,;.()!?]+?)"
    r"(?=\s*(?:[|,;.()!?]|\bbut\b|\bwhile\b|\balthough\b|\bthough\b|\bwhereas\b|\bexcept\b|\bexcluding\b"
    r"|\b(?:for|across|within|applied\s+to|(?:evaluated|tested|trained)\s+on)\b|$))",
    re.I)
_EXCLUSION_LEAD = re.compile(
    r"^(?:(?:about|on|using|use|uses|involving|including|related\s+to|concerning|regarding|based\s+on|that|which"
    r"|relying\s+on|focusing\s+on|focused\s+on|with|in|of|any|the|a|an|papers?|works?|studies|articles?|ones"
    r"|are|is|be|those)\s+)+", re.I)


@dataclass
class Facet:
    """One content facet: ``kind``, the cue that introduced it, its phrases and key terms."""

    kind: str
    cue: str
    phrases: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    position: int = 0


def clean_phrase(phrase: str) -> str:
    """Strip generic words and punctuation from both ends of ``phrase``; "" if nothing is left."""
    phrase = _NOISE.sub(" ", phrase)
    tokens = re.sub(r"\s+", " ", phrase.replace(BOUNDARY, " ")).strip(" \t-:'\"").split(" ")
    while tokens and (tokens[0].lower().strip(".,:;!?'\"") in _EDGE_WORDS or not re.search(r"\w", tokens[0])):
        tokens.pop(0)
    while tokens and (tokens[-1].lower().strip(".,:;!?'\"") in _EDGE_WORDS or not re.search(r"\w", tokens[-1])):
        if tokens[-1].lower() == "studies" and len(tokens) > 1 and tokens[-2].lower() in _KEEP_BEFORE_STUDIES:
            break
        tokens.pop()
    return " ".join(tokens).strip(" ,.;:!?'\"")


def key_terms(phrase: str, kind: str) -> list[str]:
    """Key phrases of a facet phrase: split on lists, cleaned; for data facets a trailing
    "dataset"/"benchmark"/"corpus" is dropped from a named resource ("CoNLL-2003 dataset" ->
    "CoNLL-2003"); for applications a trailing "domain(s)"/"setting(s)" is dropped."""
    terms = []
    for part in split_list(phrase):
        term = clean_phrase(part)
        if kind == "data":
            bare = re.sub(rf"\s+{_DATA_WORDS}$", "", term, flags=re.I)
            if bare != term and re.search(r"[A-Z0-9]", bare):
                term = bare
        elif kind == "application":
            term = re.sub(r"\s+(?:domains?|settings?|contexts?|environments?)$", "", term, flags=re.I) or term
        term = clean_phrase(term)
        if term and re.search(r"\w", term) and term.lower() not in {t.lower() for t in terms}:
            terms.append(term)
    return terms


_AUX_BEFORE = re.compile(
    r"\b(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|should|may|might|must|be|been)"
    r"(?:\s+\w+ly)?\s*$", re.I)
_LIST_BOUNDARY = re.compile(r"(?:^|[|,;(]|\b(?:and|but|or))\s*$", re.I)


def _verb_negation(text: str, m: re.Match[str]) -> bool:
    """A negation that belongs to the content (see module doc): "n't", "not"/"never" after an
    auxiliary or copula ("does not affect", "is not"), "no longer", and "no" anywhere but at a
    clause or list boundary ("receive no treatment")."""
    cue = re.sub(r"\s+", " ", m.group("cue").lower())
    before = text[:m.start("cue")]
    if cue == "n't" or (cue in ("not", "never") and _AUX_BEFORE.search(before)):
        return True
    if cue == "no":
        return bool(re.match(r"\s*longer\b", text[m.end("cue"):], re.I)) or not _LIST_BOUNDARY.search(before)
    return False


def extract_exclusions(ws: Workspace) -> list[tuple[str, list[str], int]]:
    """Find content exclusions, consume them; return ``(phrase, terms, offset)`` each.
    Verb negations ("does not affect X", "receive no treatment") are left to the content."""
    found = []
    for m in list(_EXCLUSION.finditer(ws.text)):
        if _verb_negation(ws.text, m):
            continue
        phrase = _EXCLUSION_LEAD.sub("", m.group("phrase").strip())
        terms = key_terms(phrase, "exclusion")
        if not terms:
            continue
        ws.consume(m.start(), m.end())
        found.append((clean_phrase(phrase), terms, m.start()))
    return found


def _kind_of(m: re.Match[str]) -> str:
    for name, value in m.groupdict().items():
        if value is not None:
            return _CUES[int(name[1:])][0]
    raise AssertionError(m)


def extract_facets(ws: Workspace) -> list[Facet]:
    """Cut the remaining text into content facets, in order of appearance (see module doc)."""
    text = _REQUEST.sub(lambda m: BOUNDARY + " " * (len(m.group(0)) - 1), ws.text)
    text = _DOC_LINK.sub(lambda m: BOUNDARY + " " * (len(m.group(0)) - 1), text)
    acronyms: list[tuple[int, str]] = []
    for m in list(_PAREN_ACRONYM.finditer(text)):
        acronyms.append((m.start(), m.group("a")))
        text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    facets: list[Facet] = []
    previous: Facet | None = None
    for chunk in re.finditer(r"[^|,;.!?()\[\]{}:]+|\.(?=\w)", text):
        if not chunk.group(0).strip():
            continue
        pieces: list[tuple[str | None, str, int]] = []
        last, kind = 0, None
        body = chunk.group(0)
        for m in _CUE_RE.finditer(body):
            pieces.append((kind, body[last:m.start()], chunk.start() + last))
            kind, last = _kind_of(m), m.end()
        pieces.append((kind, body[last:], chunk.start() + last))
        for i, (piece_kind, raw, offset) in enumerate(pieces):
            phrase = clean_phrase(raw)
            if not phrase:
                continue
            if piece_kind is None and i == 0 and previous is not None and _continues(text, chunk.start()):
                facet = previous
            else:
                k = piece_kind or "topic"
                if k == "method" and re.search(rf"\b{_DATA_WORDS}$", phrase, re.I):
                    k = "data"
                facet = Facet(k, _cue_of(pieces, i, body), position=offset)
                facets.append(facet)
            facet.phrases.append(phrase)
            facet.terms.extend(t for t in key_terms(phrase, facet.kind)
                               if t.lower() not in {x.lower() for x in facet.terms})
            previous = facet
    for at, acronym in acronyms:
        owner = max((f for f in facets if f.position <= at), key=lambda f: f.position, default=None)
        if owner is not None and acronym.lower() not in {t.lower() for t in owner.terms}:
            owner.terms.append(acronym)
    return [f for f in facets if f.terms]


def _continues(text: str, start: int) -> bool:
    """A chunk continues the previous facet when a plain comma (not consumed metadata or a
    sentence end) separates them."""
    before = text[:start].rstrip()
    return before.endswith(",")


def _cue_of(pieces: list[tuple[str | None, str, int]], i: int, body: str) -> str:
    """The cue word that introduced piece ``i`` (the text between piece i-1 and piece i)."""
    if i == 0:
        return ""
    prev_kind, prev_raw, prev_off = pieces[i - 1]
    _k, _raw, off = pieces[i]
    start_in_body = prev_off - pieces[0][2] + len(prev_raw)
    end_in_body = off - pieces[0][2]
    return re.sub(r"\s+", " ", body[start_in_body:end_in_body].strip().lower())
