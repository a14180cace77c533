"""Content exclusions and content facets (topic / method / application / data).

Facet boundaries are concepts (``navigator.intent.keyphrases``: grammar and the corpus phrase
table); the cue phrases below only type them. The older rule of cutting at cue phrases survives
only in the exclusion extractor.

Runs on what the metadata extractors left. Exclusions first: a negation cue ("not about",
"that do not use", "which don't rely on": a relative clause negating a usage verb),
"excluding", "other than" (unless it narrows a noun: ``narrow_other_than``), "rather than",
"without", "except", "but not", "no", "avoid using/relying on/requiring": "avoiding overfitting" is
a topic) and the phrase after it, up to the next clause boundary. Doing without a resource of
supervision ("without labeled data", "with no parallel corpora": :data:`_ABSENT_RESOURCE`) is no
exclusion: the papers that qualify name the resource. It is consumed and kept in
``Workspace.absent_resources`` (``Checklist.not_judged``): a query with the resource's words
found papers that use it (b08 of bench/intents/acl-2016 lost 0.04 nDCG@10). A verb negation is content, never an exclusion:
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

from litnav.core.text import stop_words
from litnav.corpus.phrases import PhraseTable
from litnav.navigator.intent.grammar import is_acronym
from litnav.navigator.intent.keyphrases import concepts, without_generic_head
from litnav.navigator.intent.lexicon import all_lemmas
from litnav.navigator.intent.text import (  # noqa: F401
    BOUNDARY,
    LATIN_WORDS,
    Workspace,
    clean_phrase,
    document_compound,
    edge_word,
    search_compound,
    split_list,
)

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
               r"(?<!those\s)(?<!consistent\s)(?<!interaction\s)(?<!interacting\s)(?<!agree\s)(?<!help\s)(?<!helps\s)"
               r"(?<!helping\s)(?<!struggle\s)(?<!struggling\s)with"),
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
    r"(?:(?P<help>help\s+me\s+)?(?P<verb>find|show|give|get|list|search(?:\s+for)?|recommend|suggest|retrieve|fetch"
    r"|collect|gather|identify|locate)(?:\s+(?:me|us))?"
    r"|i(?:'m|\s+am)\s+(?:looking|searching)\s+for|(?:looking|searching)\s+for"
    r"|i\s+(?:want|need|would\s+like|'d\s+like)(?:\s+to\s+(?:find|read|see|know\s+about))?"
    r"|(?:are|is)\s+there\s+(?:any\s+)?|what\s+are\s+(?:the\s+)?|which\s+papers|tell\s+me\s+about"
    r"|what\s+(?:is|was|has\s+been|do\s+we|does\s+the\s+literature)\s+(?:currently\s+)?(?:known|found|know|say|said)"
    r"(?:\s+(?:about|on|regarding|of))?|(?:the\s+)?(?:current\s+)?state\s+of\s+the\s+art\s+(?:in|on|of|for)"
    r"|how\s+(?:do|does|can|could|should|did)\b|what\s+(?:is|are)\b"
    r"|where\s+(?:can|could|do|should)\s+(?:i|we|one)\s+(?:find|get|obtain))\b",
    re.I)
_QUESTION = re.compile(
    r"(?:^|(?<=[.?!;]\s)|(?<=;))\W*(?P<wh>what|which)\b(?P<object>[^.?!|]*?)\s(?P<verb>exists?|(?:are|is)\s+(?:there\s+)?available"
    r"|(?:are|is)\s+(?:commonly\s+)?used(?:\s+(?:to|for|in))?)(?=\s|[?.!]|$)", re.I)
"""A question for resources: "What datasets exist for X?", "Which benchmarks are used to evaluate Y?"."""
_GENERIC_OBJECT = re.compile(r"\s*(?:the\s+)?(?:(?:main|existing|possible|current|known|other)\s+)?(?:approaches|methods"
                             r"|techniques|solutions|options|strategies|ways|work|papers|studies)\s*", re.I)
"""The object of a question that asks for papers themselves ("What approaches exist?"): a request
word, blanked with the question, unlike a resource ("What datasets exist")."""
_DOCS = r"(?:advances|progress|developments|trends|papers?|articles?|stud(?:y|ies)|works?|research|literature|publications?|preprints?|reports?|manuscripts?|follow-?ups?)"
_QUALIFIERS = (r"(?:(?:some|any|all|the|a|an|relevant|good|key|important|seminal|influential|notable|major|main"
               r"|interesting|novel|new|related|various|top|best|more|prior|previous|existing|earlier|past|current"
               r"|foundational|classic|follow-?up)\s+)*")
_LINK = (r"(?:on|about|of|(?<=follow-ups )to|(?<=follow-up )to|(?<=followups )to|regarding|concerning|into|in|that|which|dealing\s+with|addressing|investigating"
         r"|examining|exploring|studying|describing|proposing|related\s+to|focusing\s+on|focused\s+on"
         r"|looking\s+at|discussing|in\s+the\s+(?:area|field)\s+of|covering|analy[sz]ing|presenting|where|whose"
         r"|similar\s+to|like)")
_DOC_LINK = re.compile(rf"\b{_QUALIFIERS}(?:{_DOCS})\s+(?:{_LINK}"
                       r"|(?!using\b|leveraging\b|employing\b|applying\b|including\b)[a-z]+ing)\b", re.I)

# "(CKD)", "(Th2)": an acronym-like token in parentheses (see navigator.intent.claims.is_acronym)
_PAREN_ACRONYM = re.compile(r"\(\s*(?P<a>(?=[\w+./-]*[A-Z])(?![\d.,/%-]+\s*\))[A-Za-z0-9][\w+./-]{0,14})\s*\)")

_RESOURCE_HEAD = (r"(?:data|datasets?|corpus|corpora|labels?|label+ing|annotations?|supervision|examples|pairs|samples|negatives"
                  r"|bitexts?|translations|resources|dictionar(?:y|ies)|lexicons?|gazetteers?|treebanks?"
                  r"|transcri(?:pts|ptions)|fine-?tuning|re-?training|training|pre-?training|demonstrations"
                  r"|feature\s+engineering|features|rules|references|summaries|texts|sentences"
                  r"|teachers?(?:\s+(?:networks?|models?))?)")
_RESOURCE_MODIFIER = (r"(?:label+ed|unlabel+ed|annotated|parallel|paired|aligned|training|supervised|gold(?:-standard)?"
                      r"|human(?:-\w+)?|manual(?:ly)?|hand-?\w+|expert|task-specific|in-domain|target-(?:domain|language)"
                      r"|domain-specific|bilingual|additional|extra|external|large(?:-scale)?|costly|expensive|explicit"
                      r"|much|more|new|crowdsourced|reference|ground-truth|linguistic|syntactic|sentence-level"
                      r"|word-level|token-level|document-level|negative|positive|contrastive|hard|any|the|a)")
_ABSENT_RESOURCE = re.compile(
    rf"(?:(?:the\s+)?(?:need|use)\s+(?:for|of)\s+)?(?:{_RESOURCE_MODIFIER}\s+)*{_RESOURCE_HEAD}\b"
    r"(?=\s*$|\s+(?:in|for|across|when|while)\b)", re.I)
"""What a method does without ("without labeled data", "that do not use parallel corpora", "with no
human annotations", "without fine-tuning", "without negative pairs", "without a teacher network"): a resource of supervision whose absence makes a kind
of method (unsupervised, zero-shot), so its papers name the resource ("does not require
labelled training data"). Neither an exclusion nor a query; "without Twitter data" still excludes,
and so does a resource whose source follows ("without labeled data from Twitter", "not using the
training data of SQuAD") or that a list continues ("without gazetteers or features")."""

_EXCLUSION = re.compile(
    r"(?<!whether or )(?P<cue>(?:\b(?:but\s+not|and\s+not|not|no|never|nothing|excluding|exclude|excludes"
    r"|except(?:\s+for)?|other\s+than|rather\s+than|without|omitting|omit|ignoring|ignore|outside(?:\s+of)?"
    r"|leaving\s+out|apart\s+from|minus|avoid(?:s|ing)?(?=\s+(?:using|relying\s+on|requiring|the\s+use\s+of|any)\b"
    rf"|\s+(?:{_RESOURCE_MODIFIER}\s+)*{_RESOURCE_HEAD}\b))\b(?!-)|n't\b))(?!\s+only\b)(?!\s+(?:necessarily|just|always|included)\b)\s*(?P<phrase>[^|,;:.()!?]+?)"
    r"(?=\s*(?:[|,;:.()!?]|\bbut\b|\bwhile\b|\balthough\b|\bthough\b|\bwhereas\b|\bexcept\b|\bexcluding\b"
    r"|\band\s+not\b|\bnor\b"
    r"|\b(?:for|across|within|applied\s+to|(?:evaluated|tested|trained)\s+on)\b|$))",
    re.I)
_EXCLUDED_AFTER = re.compile(r"(?:^|(?<=[|,;?!]))\s*(?P<phrase>[^\s|,;:.()!?](?:[^|,;:.()!?]*?[^\s|,;:.()!?])?)"
                             r"\s+(?:excluded|not\s+included|left\s+out)\b"
                             r"(?=\s*(?:$|[|,;:.!]|-\s))", re.I)
"""A clause that names what to leave out before the cue: "..., Twitter excluded", "...? marine species
excluded", "Twitter excluded: ...". The phrase starts
and ends with a non-blank character, so a long run of blanks (what the parser consumed) is read
in linear time (a break-it trial's "in ACL, " x 125 took 5 s)."""
_EXCLUSION_LEAD = re.compile(
    r"^(?:(?:about|on|using|use|uses|used|involving|involve|include|including|related\s+to|concerning|regarding"
    r"|based\s+on|built\s+on|(?:evaluated|tested|validated|benchmarked|trained|fine-?tuned|pre-?trained)\s+(?:on|using|with)"
    r"|that|which|rely\s+on|relies\s+on|employ|employs|require|requires"
    r"|consider|considers|need|apply"
    r"|relying\s+on|focusing\s+on|focused\s+on|with|in" + rf"(?!\s+{LATIN_WORDS}\b)" + r"|of|any|the|a|an|papers?|works?|studies|articles?|ones"
    r"|are|is|be|those)\s+)+", re.I)


@dataclass
class Facet:
    """One content facet: ``kind``, the cue that introduced it, its phrases and key terms."""

    kind: str
    cue: str
    phrases: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    position: int = 0
    salience: float = 0.0
    joiner: str = "and"
    """How the phrases were listed in the intent: "and", or "or" for alternatives ("X or Y")."""


def key_terms(phrase: str, kind: str) -> list[str]:
    """Key phrases of a facet phrase: split on lists, cleaned, a generic head dropped
    (``keyphrases.without_generic_head``: "neural network approaches" -> "neural network", so an
    exclusion of "X approaches" catches papers on X); for data facets a trailing
    "dataset"/"benchmark"/"corpus" is dropped from a named resource ("CoNLL-2003 dataset" ->
    "CoNLL-2003"); for applications a trailing "domain(s)"/"setting(s)" is dropped."""
    terms = []
    for part in split_list(phrase):
        term = without_generic_head(clean_phrase(part))
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
_RELATIVE_AUX_BEFORE = re.compile(
    r"\b(?:that|which|who|and|but)\s+(?:do|does|did|is|are|was|were|can|could|should|must|will|would)(?:n't)?"
    r"(?:\s+\w+ly)?\s*(?:\s+not)?$", re.I)
_USAGE_VERB = re.compile(r"\s*(?:use|rely\s+on|employ|involve|include|leverage|utili[sz]e|apply|consider|study"
                         r"|based\s+on|built\s+on|trained\s+on|using|relying\s+on"
                         r"|address|mention|cover|focus\s+on|deal\s+with|target)\b", re.I)
_LIST_BOUNDARY = re.compile(r"(?:^|[|,;(?!:]|\b(?:and|but|or))\s*$", re.I)
"""Where a "no" begins a clause or list item ("..., no X", "...? no X"), so it excludes."""


_QUESTION_BEFORE = re.compile(
    r"\b(?:why|how|when|whether|where|which)\s+(?:do|does|did|is|are|was|were|can|could|would|should|will|might"
    r"|may|must)\s+[^,;:.?!|]*$", re.I)
"""An inverted question's auxiliary, its subject between it and the negation: "why do some
patients not respond to ..." negates the verb (content), it excludes nothing."""
def _base_verb_after(text: str, end: int) -> bool:
    """True when the word after ``end`` is a verb's base form other than a usage verb
    (:data:`_USAGE_VERB`): "not respond" (the verb negated), not "not using X", "not on
    treebanks", "not with attention"."""
    m = re.match(r"\s+([a-z]+)\b(?!-)", text[end:], re.I)
    if m is None or _USAGE_VERB.match(text, end):
        return False
    word = m.group(1).lower()
    return word not in stop_words() and not word.endswith("ing") and word in all_lemmas(word).get("VERB", ())




_CLAUSE_END = re.compile(r"[|,;:.()!?]|\b(?:but|while|although|though|whereas|except|excluding|nor)\b", re.I)


def _absent_resource(text: str, m: re.Match[str]) -> int | None:
    """The end offset of the resource of supervision an absence cue ``m`` negates
    (:data:`_ABSENT_RESOURCE`: "without | labeled data", "that do not use | any parallel corpora in
    the target language"), read from the cue's clause after its lead words ("using", "relying
    on"); None when the clause negates something else."""
    start = m.start("phrase")
    end = _CLAUSE_END.search(text, start)
    clause = text[start:end.start() if end else len(text)].rstrip()
    if re.match(r"(?:anything\s+|papers?\s+)?(?:about|on|concerning|regarding)\b", clause, re.I):
        return None  # "not about treebanks": papers on them are left out, not methods that do without them
    lead = _EXCLUSION_LEAD.match(clause)  # "using", "relying on"; tried after the clause as it is ("the need for")
    found = _ABSENT_RESOURCE.match(clause) or (_ABSENT_RESOURCE.match(clause, lead.end()) if lead else None)
    return start + found.end() if found else None


def _verb_negation(text: str, m: re.Match[str]) -> bool:
    """A negation that belongs to the content (see module doc): "n't", "not"/"never" after an
    auxiliary or copula ("does not affect", "is not") or in an inverted question ("why do some
    patients not respond"), "no longer", and "no" anywhere but at a
    clause or list boundary ("receive no treatment")."""
    cue = re.sub(r"\s+", " ", m.group("cue").lower())
    before = text[:m.start("cue")]
    if _RELATIVE_AUX_BEFORE.search(before + (" not" if cue == "n't" else "")) and _USAGE_VERB.match(text[m.end("cue"):]):
        return False  # "methods that do not use X", "work which doesn't rely on X": an exclusion
    if cue == "n't" or (cue in ("not", "never") and _AUX_BEFORE.search(before)):
        return True
    if cue in ("not", "never") and _QUESTION_BEFORE.search(before) and _base_verb_after(text, m.end("cue")):
        return True  # "why do some patients not respond to ..."; "how do models not using X ..." still excludes
    if cue == "no":
        if re.search(r"\bwith\s+$", before, re.I):
            return False  # "with no parallel data" = "without parallel data"
        return bool(re.match(r"\s*longer\b", text[m.end("cue"):], re.I)) or not _LIST_BOUNDARY.search(before)
    return False


_POPULATION_BEFORE = re.compile(
    r"\b(?:people|persons?|patients|individuals|participants|subjects|adults|children|infants|neonates|adolescents"
    r"|men|women|mothers|pregnancies|smokers|volunteers|populations?|cohorts?|cases|those|eyes|hearts|kidneys)\s+$",
    re.I)
"""A population right before "without": "people without prior cardiovascular disease", "patients
without diabetes" say who is studied (an inclusion criterion, as in primary prevention), not
what a paper must not be about."""


def _population_without(text: str, m: re.Match[str]) -> bool:
    """True when the cue of ``m`` is "without" right after a population noun (:data:`_POPULATION_BEFORE`),
    or "no" after a population and "with" ("people with no prior cardiovascular disease")."""
    cue, before = m.group("cue").lower(), text[:m.start("cue")]
    if cue == "no" and (with_ := re.search(r"\bwith\s+$", before)):
        cue, before = "without", before[:with_.start()]
    return cue == "without" and _POPULATION_BEFORE.search(before) is not None


def _title_negation(ws: Workspace, m: re.Match[str]) -> bool:
    """In an intent written in title case (``Workspace.title_cased``, a pasted paper title), a
    capitalised negation cue that does not open a clause after a comma or semicolon is part of
    the title: "Image Recognition Without Normalization", "No Subclass Left Behind", "Quality
    Not Quantity" say what the paper is about. A lower-case cue ("Graph Neural Networks for Drug
    Discovery, not using SMILES", "Named Entity Recognition without BERT") or one after a comma
    ("…, Not Using BERT") still excludes."""
    if not ws.title_cased or not m.group("cue")[:1].isupper():
        return False
    return not re.search(r"[,;]\s*$", ws.text[:m.start("cue")])


_OTHER_THAN = re.compile(
    r"\b(?!(?:anything|something|everything|nothing|ones?|those|others?|any|all|methods?|approaches|techniques?"
    r"|models?|algorithms?|systems?|tools?)\b)"
    rf"(?!{_DOCS}\b)(?P<noun>[A-Za-z][\w-]*)\s+other\s+than\s+(?P<what>[A-Za-z][\w-]*)\b"
    r"(?!\s+(?!(?:for|in|on|at|with|using|that|which|who|and|or|but|excluding|except|from|to|of|published|since"
    r"|before|after|between|during)\b)[a-z][\w-]*)",
    re.I)


def narrow_other_than(text: str) -> str:
    """"languages other than English" -> "non-English languages": "other than" right after a
    content noun narrows that noun (the paper must address some *other* language), it does not
    exclude every paper that mentions English; the rewrite makes it the same concept as its
    paraphrase "non-English languages". After a document, pronoun or method word ("papers other
    than surveys", "anything other than X", "methods other than CRF") it stays an exclusion. Only
    a one-word capitalised object (a language, a platform, a country) is rewritten: "patients
    other than children" stays an exclusion."""
    def sub(m: re.Match[str]) -> str:
        if not m.group("what")[0].isupper():  # "patients other than children": an exclusion
            return m.group(0)
        return f"non-{m.group('what')} {m.group('noun')}"
    return _OTHER_THAN.sub(sub, text)


_ABSENCE_CUES = {"without", "not", "no", "n't", "never", "avoid", "avoids", "avoiding"}
"""Cues that can say a method does without a resource ("without", "that do not use", "with no");
"excluding", "other than" and "except" always exclude."""


_NAMED_DATA_WORD = re.compile(r"\s+(?:Treebanks?|Corpus|Corpora|Benchmarks?)$")


def _without_data_word(term: str) -> str:
    """A named source less its data word: "Twitter data" -> "Twitter", "SQuAD Dataset" -> "SQuAD";
    a capitalised treebank, corpus or benchmark is part of the name ("Penn Treebank", "Brown
    Corpus"), and a lower-case term keeps its data word ("parallel data")."""
    if not re.search(r"[A-Z0-9]\S*\s+\S+$", term) or _NAMED_DATA_WORD.search(term):
        return term
    return re.sub(rf"\s+{_DATA_WORDS}$", "", term, flags=re.I)


def extract_exclusions(ws: Workspace) -> list[tuple[str, list[str], int]]:
    """Find content exclusions, consume them; return ``(phrase, terms, offset)`` each, in order.
    A clause may name the excluded thing before its cue ("..., Twitter excluded").
    Verb negations ("does not affect X", "receive no treatment") are left to the content, and
    so are a title's own negation (:func:`_title_negation`) and a population's inclusion criterion
    ("people without prior cardiovascular disease", "adults with no history of stroke":
    :func:`_population_without`)."""
    found = []
    for m in list(_EXCLUSION.finditer(ws.text)):
        if _verb_negation(ws.text, m) or _title_negation(ws, m) or _population_without(ws.text, m):
            continue
        cue = re.sub(r"\s+", " ", m.group("cue").lower())
        if cue in _ABSENCE_CUES and (end := _absent_resource(ws.text, m)) is not None:
            ws.absent_resources.append(clean_phrase(ws.original[m.start():end]))  # (_ABSENT_RESOURCE)
            ws.consume(m.start(), end)
            continue
        phrase = _EXCLUSION_LEAD.sub("", m.group("phrase").strip())
        terms = [_without_data_word(t) for t in key_terms(phrase, "exclusion")]
        if not terms:
            continue
        ws.consume(m.start(), m.end())
        found.append((clean_phrase(phrase), terms, m.start()))
    for m in list(_EXCLUDED_AFTER.finditer(ws.text)):  # "..., Twitter excluded"
        terms = key_terms(m.group("phrase"), "exclusion")
        if terms:
            ws.consume(m.start("phrase"), m.end())
            found.append((clean_phrase(m.group("phrase")), terms, m.start("phrase")))
    return sorted(found, key=lambda f: f[2])


def _kind_of(m: re.Match[str]) -> str:
    for name, value in m.groupdict().items():
        if value is not None:
            return _CUES[int(name[1:])][0]
    raise AssertionError(m)


MAX_FACETS = 6
"""At most this many concepts become facets (the most salient ones, in order of appearance);
the whole intent stays a checkpoint, so a long abstract-like intent loses nothing."""
_VENUE_LIKE = re.compile(r"(?:\b(?:published|appearing|appeared|presented|accepted)\s+)?\b(?:in|at)\s+(?:the\s+)?$", re.I)
_LIST_GAP = re.compile(r"^(?:\s|,|/|&|\band\b|\bor\b|\bas\s+well\s+as\b)*$", re.I)


_QUALIFIER_WORDS = frozenset("prior previous existing current latest seminal key experimental theoretical".split())
"""Qualifiers of a request's document word beyond the edge words ("prior work on", "seminal studies of")."""


def _compound_before(text: str) -> bool:
    """True when ``text`` ends with a lower-case modifier that makes a compound with the "work" or
    "studies" after it ("remote work", "social work", "cohort studies", "qualitative studies"), not
    a function, edge or qualifier word ("recent work on", "prior work on", "some studies of")."""
    m = re.search(r"\b([a-z][\w-]*)\s+$", text)
    return bool(m) and not edge_word(m.group(1)) and m.group(1) not in stop_words() and m.group(1) not in _QUALIFIER_WORDS


_ASKS_BEFORE = re.compile(r"(?:^|[.;:?!,(]|\b(?:to|and|also|then|me|us|you|please|kindly))\W*$", re.I)
"""What may come before a bare request verb: the start of the intent or a clause, or words of a
request ("please find", "help me to find", "and list")."""


def _inner_verb(text: str, m: re.Match[str]) -> bool:
    """True when a :data:`_REQUEST` match is a bare request verb inside a phrase, not a request:
    "neural architecture search", "beam search for NMT", "query logs of search engines", "linked
    list", and "search" before a noun anywhere ("search engines for ...")."""
    if not m.group("verb") or m.group("help") or m.group(0).lower() != m.group("verb").lower():
        return False
    if (nxt := re.match(r"\s+([\w-]+)", text[m.end():])) and search_compound(m.group("verb"), nxt.group(1)):
        return True  # "search engines for scientific literature": a compound, wherever it stands
    return _ASKS_BEFORE.search(text, 0, m.start()) is None


def blank_framing(text: str) -> str:
    """``text`` with request words ("find me", "what is known about") and document links
    ("papers on", "studies of") blanked to boundaries (same length), and so are the question
    words of a question for resources (:data:`_QUESTION`: "What ... exist"); "work on" after a
    modifier that makes a compound ("remote work on productivity") stays."""
    text = _REQUEST.sub(lambda m: m.group(0) if _inner_verb(text, m) else BOUNDARY + " " * (len(m.group(0)) - 1), text)
    for q in list(_QUESTION.finditer(text)):  # the question's words go, its object stays: "datasets"
        generic = _GENERIC_OBJECT.fullmatch(q.group("object")) is not None  # "What approaches exist?": all go
        for group in ("wh", "object", "verb") if generic else ("wh", "verb"):
            text = text[:q.start(group)] + BOUNDARY + " " * (q.end(group) - q.start(group) - 1) + text[q.end(group):]

    def link(m: re.Match[str]) -> str:
        if re.match(r"(?:work|stud(?:y|ies))\b", m.group(0), re.I) and _compound_before(text[:m.start()]):
            return m.group(0)  # "remote work on productivity", "cohort studies of ...": a compound, not a link
        words = m.group(0).split()
        if len(words) == 2 and words[1].lower().endswith("ing") and document_compound(*words):
            return m.group(0)  # "paper reading tools": a compound, not "papers investigating"
        return BOUNDARY + " " * (len(m.group(0)) - 1)

    return _DOC_LINK.sub(link, text)


def _cue_kind(text: str, cue: re.Match[str], concept_text: str) -> str | None:
    kind = _kind_of(cue)
    if kind == "method" and cue.group(0).lower() == "with":
        # "treated with X", "trained with X", "with BERT": a method; "mice with X": no cue
        before = re.findall(r"[\w'-]+", text[max(0, cue.start() - 40):cue.start()])
        verb = bool(before) and re.search(r"(?:ed|en)$", before[-1].lower()) is not None
        if not verb and not any(is_acronym(w) for w in concept_text.split()):
            return None
    return kind


VENUE_LIKE_MAX_DOC_FRACTION = 0.002
"""An acronym in at least this fraction of a corpus's titles + abstracts is a term of its field
("ASR" 1 % of 26k ACL papers, "NLP" 11 %), not an unknown venue ("PRL", "TACL": 0)."""


def extract_facets(ws: Workspace, phrases: PhraseTable | None = None, *, passage: bool = False) -> list[Facet]:
    """The content facets of what the extractors left of the intent, in order of appearance.

    Concept boundaries come from :func:`navigator.intent.keyphrases.concepts` (grammar and the
    corpus phrase table ``phrases``); a cue word before a concept only types it (``_CUES``:
    method, application, data, topic); concepts joined by a bare list ("X, Y and Z") share the
    facet of the first. A bare acronym after "in"/"published in" at a clause end ("in PRL") is a
    venue the venue vocabulary did not know, never a concept: it is consumed from ``ws``, unless
    the corpus's own titles and abstracts use it as a word (document fraction at least
    :data:`VENUE_LIKE_MAX_DOC_FRACTION` in ``phrases``): "bias in ASR", "hallucination in MT".
    Such a venue is recorded in ``ws.unknown_venues`` for the plan to report.
    At most :data:`MAX_FACETS` facets are kept (highest salience). ``passage``: the text is running
    prose (a pasted abstract), so no verb is read as a compound noun's head (``concepts``)."""
    text = blank_framing(ws.text)
    acronyms: list[tuple[int, str]] = []
    for m in list(_PAREN_ACRONYM.finditer(text)):
        acronyms.append((m.start(), m.group("a")))
        text = text[:m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    cues = [m for m in _CUE_RE.finditer(text)]
    facets: list[Facet] = []
    previous: Facet | None = None
    prev_end = 0
    venue_list = False
    for c in concepts(text, phrases, compounds=not passage):
        gap = text[prev_end:c.start]
        venue_like = re.fullmatch(r"[A-Z][A-Z&]{1,7}", c.text) is not None and (
            _VENUE_LIKE.search(gap) or (venue_list and _LIST_GAP.match(gap))) and (
            phrases is None or phrases.doc_fraction(c.text.lower()) < VENUE_LIKE_MAX_DOC_FRACTION)
        if venue_like and re.match(r"\s*(?:$|[|,;.]|\b(?:or|and|only|since|from|before|after|in\s+\d)\b)", text[c.end:]):
            ws.consume(c.start, c.end)
            ws.unknown_venues.append((c.start, c.text))
            venue_list, prev_end = True, c.end
            continue
        venue_list = False
        cue = next((m for m in reversed(cues) if prev_end <= m.start() and m.end() <= c.start), None)
        kind = _cue_kind(text, cue, c.text) if cue else None
        term = c.text
        if kind == "data":
            bare = re.sub(rf"\s+{_DATA_WORDS}$", "", term, flags=re.I)
            term = bare if bare != term and re.search(r"[A-Z0-9]", bare) else term
        if previous is not None and kind is None and _LIST_GAP.match(gap) and re.search(r"[,/&]|\b(?:and|or)\b", gap):
            facet = previous
            if re.search(r"\bor\b", gap, re.I) and not re.search(r"\band\b", gap, re.I):
                facet.joiner = "or"
        else:
            facet = Facet(kind or "topic", re.sub(r"\s+", " ", cue.group(0).lower()) if cue else "", position=c.start)
            facet.salience = 0.0
            facets.append(facet)
        facet.phrases.append(term)
        if term.lower() not in {t.lower() for t in facet.terms}:
            facet.terms.append(term)
        facet.salience = max(facet.salience, c.salience)
        previous, prev_end = facet, c.end
    for at, acronym in acronyms:
        owner = max((f for f in facets if f.position <= at), key=lambda f: f.position, default=None)
        if owner is not None and acronym.lower() not in {t.lower() for t in owner.terms}:
            owner.terms.append(acronym)
    facets = [f for f in facets if f.terms]
    if len(facets) > MAX_FACETS:
        keep = set(sorted(range(len(facets)), key=lambda i: (-facets[i].salience, i))[:MAX_FACETS])
        facets = [f for i, f in enumerate(facets) if i in keep]
    return facets
