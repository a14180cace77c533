"""Venue mentions in an intent, mapped onto the corpus's own venue vocabulary.

The alias table is ``navigator/data/venues.json`` (see its ``_doc``). A mention is matched
against the table's aliases and against the vocabulary's own spellings; it is then mapped to
the vocabulary (``Corpus.venues()``: normalised venue -> paper count) by, in order: exact
match of any alias after normalisation, whole-word ``contains`` rules, containment of a long
(>= 5 words) alias in a vocabulary entry, and fuzzy match (``rapidfuzz.fuzz.ratio`` >=
:data:`FUZZY_THRESHOLD`). Without a vocabulary, or when nothing matches, the canonical name
is kept and the mention is flagged as not found.

Venues come from the data: every spelling of the vocabulary is a venue name of its own, and
acronyms derived from it (``derived_acronyms``: a parenthesised acronym such as "(RANLP 2021)",
or the initials of the capitalised words, "Global WordNet Conference" -> "GWC") match it too.
"main" before a venue list ("main ACL, EMNLP or NAACL") is consumed with it and keeps the main
tracks only: Findings, demonstrations, tutorials, student research workshops, industry tracks,
shared tasks and workshops of those venues fail (``MetadataPredicate.main_track``). A venue-like phrase that
matches nothing ("presented at the Foo Bar Workshop", "at IWSLT" in a corpus without IWSLT) is
consumed and returned as a mention whose ``missing`` lists it (``unrecognised`` true), so the
plan reports it instead of turning it into topic text.

A venue name is no venue where it names data or a field: after "on", "using", "with", "over",
"of" or "via" without a venue cue ("results on CoNLL 2003"), before a data word ("SemEval data",
"SemEval 2016 Task 4", "LREC resources"), with "-style" ("EMNLP-style"), or, for an English-word
name, before a lower-case noun ("Cell biology"). Capitalised words after a one-word name make one
journal ("Nature Immunology"); "X workshops" means workshop papers ("not in ACL workshops");
"including Findings" after a list adds each venue's Findings ("Findings of EMNLP": matched on the
normalised venue "Findings" and the raw venue, ``corpus.predicates.TRACK_OF``); a trailing "only"
is a venue cue ("Nature or Science only").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz, process

from litnav.corpus.predicates import TRACK_OF
from litnav.navigator.intent.grammar import english_word
from litnav.navigator.intent.text import BOUNDARY, Workspace, list_pattern

VENUES_FILE = Path(__file__).resolve().parent.parent / "data" / "venues.json"
FUZZY_THRESHOLD = 90.0
_PUBLISHED = r"published|appearing|appeared|presented|accepted"
"""Verbs that make the next "in"/"at" a venue cue ("published in", "presented at")."""
_MAX_VOCAB_ALIASES = 5000


@dataclass(frozen=True)
class VenueEntry:
    """One venue of the alias table: canonical ``name``; ``aliases`` matched in any case;
    ``strict`` aliases matched with exact case after a venue cue; ``contains`` words."""

    name: str
    aliases: tuple[str, ...] = ()
    strict: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases, *self.strict)


@dataclass
class VenueMention:
    """A venue list in the intent ("in ACL or EMNLP"): its entries, negation, offset, phrase;
    ``main`` when "main" precedes the list (main tracks only: ``MetadataPredicate.main_track``)."""

    entries: list[VenueEntry]
    negated: bool
    position: int
    phrase: str
    values: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unrecognised: bool = False
    main: bool = False


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", s.lower())).strip()


@lru_cache(maxsize=4)
def load_table(path: Path = VENUES_FILE) -> tuple[VenueEntry, ...]:
    """Read and validate the alias table; raises ``ValueError`` naming the file and entry."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read venue table: {exc}") from exc
    entries = []
    for i, item in enumerate(raw.get("venues", [])):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"].strip():
            raise ValueError(f"{path}: venues[{i}]: needs a non-empty string field 'name'")
        extra = set(item) - {"name", "aliases", "strict", "contains"}
        if extra:
            raise ValueError(f"{path}: venues[{i}] ({item['name']}): unknown field(s) {sorted(extra)}")
        for key in ("aliases", "strict", "contains"):
            if not all(isinstance(a, str) and a.strip() for a in item.get(key, [])):
                raise ValueError(f"{path}: venues[{i}] ({item['name']}).{key}: must be non-empty strings")
        entries.append(VenueEntry(item["name"], tuple(item.get("aliases", [])),
                                  tuple(item.get("strict", [])), tuple(item.get("contains", []))))
    if not entries:
        raise ValueError(f"{path}: no 'venues' entries")
    return tuple(entries)


def _alias_re(alias: str) -> str:
    return r"\s+".join(re.escape(part) for part in alias.split())


# Mixed-case acronyms that lower-cased are English words ("MedIA": "media") are matched with their
# own case only; others ("CoNLL", "NeurIPS") in any case.
_MIXED_CASE = re.compile(r"[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*|[A-Z][a-z]+[A-Z][A-Za-z0-9]*")
_ACRONYM = re.compile(r"[A-Z][A-Za-z0-9&]*[A-Z][A-Za-z0-9&]*")
_PAREN_ACRONYM = re.compile(r"\((\*?[A-Z][A-Za-z*]*[A-Z][A-Za-z]*)(?:[\s'-]*\d{2,4})?(?:,[^(),]{1,30})?\)")
_TRAILING_ACRONYM = re.compile(r",\s*([A-Z][A-Za-z]*[A-Z][A-Za-z]*)(?:[\s'-]*\d{2,4})?\s*$")
_VENUE_WORD = r"(?:Conference|Workshop|Symposium|Journal|Meeting|Congress|Colloquium|Forum|Summit)s?"
_MINOR = {"of", "the", "on", "and", "for", "in", "at", "to", "a", "an", "&", "its", "with"}
_ORDINAL = re.compile(r"^(\d+(st|nd|rd|th)?|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                      r"eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|"
                      r"nineteenth|twentieth|annual|proceedings|volume|\d{4})$", re.IGNORECASE)


_ASSOCIATED = re.compile(r"\b(?:associated|co-?located|collocated|held)\s+with\b.*|\bin\s+conjunction\s+with\b.*", re.I)
"""The tail of a workshop's name that names its host conference, not the workshop."""


def derived_acronyms(venue: str) -> list[str]:
    """Acronyms a venue spelling answers to: parenthesised ones ("... (RANLP 2021)" -> "RANLP",
    "(SemEval-2021)" -> "SemEval"), one after a last comma ("... Processing, RANLP 2017" ->
    "RANLP") and the initials of its capitalised words after dropping
    "Proceedings", ordinals, years and minor words ("Proceedings of the 11th Global WordNet
    Conference" -> "GWC"); initials only when there are 3 to 8 of them and no word is lower-case."""
    out = [m.group(1) for m in _PAREN_ACRONYM.finditer(venue)] + [m.group(1) for m in _TRAILING_ACRONYM.finditer(venue)]
    head = re.split(r"[(:,]", venue, maxsplit=1)[0]
    words = [w for w in re.findall(r"[\w'-]+", head) if w.lower() not in _MINOR and not _ORDINAL.match(w)]
    if 3 <= len(words) <= 8 and all(w[0].isupper() for w in words):
        out.append("".join(w[0] for w in words))
        named = [w for w in words if not re.fullmatch(_VENUE_WORD, w)]  # "INLG": no C for "Conference"
        if MIN_RESOLVED <= len(named) < len(words):  # three letters would be field terms: NLI, NMT, SDP
            out.append("".join(w[0] for w in named))
    return list(dict.fromkeys(out))


_RUN_MINOR = _MINOR | {"de", "la", "le", "les", "des", "du", "et", "sur", "für", "und", "der", "die", "y", "del", "el"}


def _capitalised(word: str) -> bool:
    """A capitalised name word of a venue: "Translation", not "ACL", "of", "11th" or "Proceedings"."""
    return word[0].isupper() and word.isalpha() and not word.isupper() and not _ORDINAL.match(word)


_RUN_OF = {"of", "de", "du", "des", "der"}
"""Minor words after which a run's tail names the body itself ("Conference of the Association for
Machine Translation in the Americas": the tail "AMTA" too)."""


def run_acronyms(venue: str) -> list[str]:
    """Initials of each maximal run of 3 to 8 capitalised words inside a venue spelling (minor
    words, English or French/German/Spanish, may sit inside a run; punctuation and all-capital
    words end it), and of each tail of a run that follows an "of" ("Conference of the Association
    for Machine Translation in the Americas" -> "CAMTA" and "AMTA"): "Actes de la 10ème conférence
    sur le Traitement Automatique des Langues Naturelles" -> "TALN". Matched in upper case only."""
    out, run, tails = [], [], []
    for w in [*re.findall(r"[\w'-]+|[^\w\s]", venue), "."]:
        if w.lower() in _RUN_MINOR and run:
            if w.lower() in _RUN_OF:
                tails.append(len(run))
            continue
        if _capitalised(w):
            run.append(w[0])
            continue
        for start in [0, *tails]:
            if 3 <= len(run) - start <= 8:
                out.append("".join(run[start:]))
        run, tails = [], []
    return list(dict.fromkeys(out))


def partial_acronyms(venue: str) -> list[str]:
    """Short forms that abbreviate the leading words of a run of 3 to 8 consecutive capitalised
    words (no minor word inside) and keep the rest: "Proceedings of Machine Translation Summit IX"
    -> "MT Summit". Matched in their own case, and only after a venue cue ("in", "at", ...)."""
    out, run = [], []
    for w in [*re.findall(r"[\w'-]+|[^\w\s]", venue), "."]:
        if _capitalised(w):
            run.append(w)
            continue
        if 3 <= len(run) <= 8:
            out += ["".join(x[0] for x in run[:i]) + " " + " ".join(run[i:]) for i in range(2, len(run))]
        run = []
    return list(dict.fromkeys(out))


def _forms(vocab_key: tuple[str, ...], derive) -> dict[str, list[str]]:
    """Derived form -> the vocabulary spellings it came from (``derive(spelling) -> [form]``)."""
    out: dict[str, list[str]] = {}
    for v in vocab_key:
        for form in derive(v):
            out.setdefault(form, []).append(v)
    return out


@lru_cache(maxsize=16)
def _matcher(vocab_key: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str], dict[str, tuple[VenueEntry, int]]]:
    """Compile (mention regex, item regex, lookup) for the table plus vocabulary spellings.

    ``lookup`` maps a lower-cased, space-collapsed alias to ``(entry, strict)``, ``strict`` one of
    :data:`LOOSE`, :data:`CUED`, :data:`MADE`. A strict alias matches in its own case and counts
    only after a venue cue ("published in", "at"), before a venue word ("... proceedings",
    "... papers"), or in a list beside a loose one; a :data:`MADE` alias (an acronym made from a
    venue's words) only after a strong cue (:data:`_STRONG_CUE`: "published in", "presented at",
    "at") or before a venue word: "gender bias in NLP models" names no venue.
    Vocabulary spellings not in the table become entries of their own: acronyms ("SemEval",
    "WMT") and the acronyms a venue states in parentheses ("(RANLP 2021)") match in any case,
    other spellings only strictly. Strict too: acronyms made from a venue's words (initials,
    "Global WordNet Conference" -> "GWC"; runs of capitalised words, "... Balto-Slavic Natural
    Language Processing" -> "NLP", which is also the field's name; an acronym among a spelling's
    words, "Proceedings of the 18th SIGMORPHON Workshop ..." -> "SIGMORPHON"), and any alias that is an
    English word ("WHAT", the initials of "Workshop on Hybrid Approaches to Translation";
    "ICON"; the table's "workshop", "Lancet", "NIPS": these in any case). So "clinical NLP for radiology reports"
    and "What models exist?" name no venue while "presented at GWC" still does."""
    spelled: dict[str, tuple[VenueEntry, int, str]] = {}
    any_case: set[str] = set()  # the table's aliases that are English words: a cue, but any case
    for entry in load_table():
        for a in (entry.name, *entry.aliases):
            word = " " not in a and english_word(a)
            if a.lower() not in spelled and word:
                any_case.add(a.lower())
            spelled.setdefault(a.lower(), (entry, CUED if word else LOOSE, a))
    for entry in load_table():
        for a in entry.strict:
            spelled[a.lower()] = (entry, CUED, a)
            any_case.discard(a.lower())
    derived: dict[str, list[str]] = {}
    stated: set[str] = set()  # acronyms a spelling states in parentheses, not made from its words
    inner: dict[str, list[str]] = {}  # acronyms among a spelling's words ("... the 18th SIGMORPHON Workshop ...")
    for v in vocab_key:
        stated.update(m.group(1) for m in _PAREN_ACRONYM.finditer(v))
        for acronym in derived_acronyms(v):
            derived.setdefault(acronym, []).append(v)
        words = re.findall(r"[A-Za-z][\w&-]*", _ASSOCIATED.sub("", v))  # "Workshop associated with RANLP": not RANLP
        for word in dict.fromkeys(words + [part for w in words if "-" in w for part in w.split("-")]):
            if len(word) >= 3 and _ACRONYM.fullmatch(word) and len(v.split()) > 1:
                inner.setdefault(word, []).append(v)
        if v.lower() in spelled or len(v) < 2 or len(v) > 80 or len(v.split()) > 8:
            continue
        strict = not (_ACRONYM.fullmatch(v) and len(v) >= 3) or english_word(v)
        spelled[v.lower()] = (VenueEntry(v), CUED if strict else LOOSE, v)
    runs, partial = _forms(vocab_key, run_acronyms), _forms(vocab_key, partial_acronyms)
    every: dict[str, list[str]] = {}  # a form -> every spelling any rule derives it from ("TALN": all editions)
    for source in (derived, runs, partial, inner):
        for form, spellings in source.items():
            if source is inner and form in every:  # "AMTA/SIG-IL First Workshop ...": a workshop, not AMTA
                spellings = [s for s in spellings if not re.search(r"\bworkshops?\b", s, re.I)]
            every.setdefault(form, []).extend(s for s in spellings if s not in every.get(form, []))
    for acronym in derived:
        if acronym.lower() not in spelled:  # the table's and the vocabulary's own names win
            strict = MADE if acronym not in stated else CUED if len(acronym) < 3 or english_word(acronym) else LOOSE
            spelled[acronym.lower()] = (VenueEntry(acronym, tuple(every[acronym])), strict, acronym)
    upper_only: set[str] = set()
    for source in (runs, partial):
        for form in source:
            if form.lower() not in spelled:
                spelled[form.lower()] = (VenueEntry(form, tuple(every[form])), MADE, form)
                if source is runs:
                    upper_only.add(form.lower())
    for acronym in inner:
        if acronym.lower() not in spelled:
            spelled[acronym.lower()] = (VenueEntry(acronym, tuple(every[acronym])), MADE, acronym)
    parts = []
    for alias in sorted(spelled, key=len, reverse=True):
        _entry, strict, original = spelled[alias]
        exact_case = ((strict and alias not in any_case) or alias in upper_only
                      or (_MIXED_CASE.fullmatch(original) is not None and english_word(original)))
        parts.append(_alias_re(original) if exact_case else f"(?i:{_alias_re(original)})")
    item = (r"(?<![\w-])(?:" + "|".join(parts) + r")(?![\w])(?!-\d)(?!-(?:style|like|based|type)\b)"
            r"(?!\s+(?i:Anthology)\b)")  # the ACL Anthology is no venue; "EMNLP-style checklists" name none
    cue = (r"(?P<cue>(?i:(?:\b(?:" + _PUBLISHED + r"|papers?|articles?|work)\s+)?"
           r"(?:\b(?:in|at|from|to)\s+)(?:the\s+)?(?:(?:proceedings|journal)\s+(?:of\s+)?)?))?")
    suffix = (r"(?P<suffix>(?i:\s+(?:proceedings|papers|journals?|venues|workshops?|symposi(?:um|a)"
              r"|(?:main\s+)?(?:conferences?|tracks?))\b))?")  # "the LoResMT workshop": one venue, not "or any workshop"
    main = r"(?P<main>(?i:\bmain\s+(?:conferences?\s+(?:of\s+)?)?))?"
    later = r"(?:(?i:the)\s+)?" + item  # "in AER or the Quarterly Journal of Economics"
    mention = re.compile(cue + main + r"(?P<list>" + list_pattern(item, later) + r")" + suffix)
    lookup = {k: (e, s) for k, (e, s, _o) in spelled.items()}
    return mention, re.compile(item), lookup


def _vocab_tuple(vocab: dict[str, int] | None) -> tuple[str, ...]:
    if not vocab:
        return ()
    ranked = sorted(vocab, key=lambda v: (-int(vocab[v] or 0), v))
    return tuple(ranked[:_MAX_VOCAB_ALIASES])


_WITH_FINDINGS = re.compile(
    r"[\s|]*(?:,\s*|\(\s*)?(?:including|incl\.|plus|and\s+(?:its|their|the)|with(?:\s+the)?)\s+Findings"
    r"(?:\s+(?:papers|track|volumes?))?\s*\)?|\s*\(\s*(?:and\s+|\+\s*)?Findings(?:\s+included)?\s*\)", re.I)
"""After a venue list: its Findings too ("EMNLP, including Findings", "ACL (Findings included)")."""

_DATA_BEFORE = re.compile(r"\b(?:on|using|with|over|of|via)\s+(?:the\s+)?$", re.I)
"""Before a venue name without a venue cue: the name is a data set or a topic ("on CoNLL 2003")."""
_DATA_AFTER = re.compile(r"(?:\s+(?:19|20)\d\d)?\s+(?:data(?:sets?)?|corpus|corpora|resources?|benchmarks?|treebanks?"
                         r"|test\s+sets?|tasks?\s+\d+|annotations?|guidelines|checklists?)\b", re.I)
"""After a venue name: a data set or resource named after the venue ("SemEval 2016 Task 4", "WMT data")."""
_NOUN_AFTER = re.compile(r"\s+(?!(?:papers?|articles?|journals?|proceedings|venues?|or|and|nor|since|from|before|after"
                         r"|until|between|in|on|of|for|with|about|only|published|that|which|who)\b)[a-z][a-z-]{2,}\b")
"""A lower-case noun after an English-word venue name ("Cell biology"): a field, not the journal."""

_TITLE_TAIL = re.compile(r"\s+((?:[A-Z][a-z]+)(?:\s+(?:of\s+|and\s+|&\s+)?[A-Z][a-z]+)*)\b")
"""Capitalised words after a one-word venue name ("Nature Immunology", "Science Advances"): one
journal's name, not the venue plus a topic."""

MIN_RESOLVED = 4
"""The shortest acronym made from a venue's words that a plain "in" (beside a known venue, or
through :func:`resolve_name`) takes for that venue: "IJCNLP", "INLG"; "NLI", "NMT", "SDP" are task
names first, venues ("Workshop on Natural Language Interfaces") only after a strong cue."""

LOOSE, CUED, MADE = 0, 1, 2
"""How much context a venue alias needs: none; a venue cue ("in", "at", a venue word after it);
a strong cue (an acronym made from the venue's words)."""
_STRONG_CUE = re.compile(r"\b(?:" + _PUBLISHED + r"|papers?|articles?|work)\s+"
                         r"(?:in|at|to|from)\b|\bat\b", re.I)


def names_a_venue(text: str) -> bool:
    """True when a clause of ``text`` ends in a venue of the alias table after a venue cue or in
    parentheses ("CRISPR base editing in PNAS", "... in Nature, Science or PRL", "(PNAS)"), or in an
    ISO 4 abbreviated journal name after "in" ("... in Phys. Rev. Lett."): a request for papers of
    that venue, never a claim about the world."""
    mention_re, _item, _lookup = _matcher(())
    if re.fullmatch(r"\(\s*(?:the\s+)?" + _JOURNAL_NAME + r"\s*\)", text):  # "(Geophysical Research Letters)"
        return True
    if any((m.group("cue") or text[:m.start()].rstrip().endswith("("))
           and re.match(r"\s*(?:$|[,;.)!?])", text[m.end():]) for m in mention_re.finditer(text)):
        return True
    return any(re.search(r"\b(?:in|at)\s+$|\(\s*$", text[:m.start()], re.I) and re.search(r"[A-Z][a-z]+\.", m.group(0))
               and re.match(r"\s*(?:$|[,;)!?])", text[m.end():]) for m in _ABBREVIATED.finditer(text))


def _defines(acronym: str, before: str) -> bool:
    """True when ``acronym`` is the initials of the words right before its parenthesis, so it
    defines them ("density functional theory (DFT)") and names no venue."""
    if not re.fullmatch(r"[A-Z][A-Za-z]*[A-Z][A-Za-z]*", acronym):
        return False
    words = [w for w in re.findall(r"[A-Za-z][\w-]*", before) if w.lower() not in _MINOR]
    initials = "".join(part[0] for w in words[-len(acronym):] for part in w.split("-") if part).upper()
    return initials.endswith(acronym.upper())


def extract_venues(ws: Workspace, vocab: dict[str, int] | None) -> list[VenueMention]:
    """Find venue lists in ``ws``, consume them with their cue words ("published in", "not
    at") and map each to ``vocab`` (see module doc). A list made only of strict aliases
    ("Nature", "Science") counts only after a venue, negation or "only" cue."""
    found: list[VenueMention] = _named_venues(ws, vocab)
    mention_re, item_re, lookup = _matcher(_vocab_tuple(vocab))
    table: list[VenueMention] = []
    taken = 0
    for m in list(mention_re.finditer(ws.text)):
        if m.start() < taken:  # inside a list's "including Findings"
            continue
        items = [lookup[re.sub(r"\s+", " ", im.group(0)).lower()] for im in item_re.finditer(m.group("list"))]
        negated, only, cue_start = ws.cue_before(m.start())
        listed_on = ws.continues_consumed(m.start())  # "at MT Summit or AMTA"
        negated = negated or ws.continues_negated(m.start())  # "no conference or workshop papers"
        cue = (m.group("cue") or "").strip()
        only_after = re.match(r"\s+only\b", ws.text[m.end():], re.I)  # "Nature or Science only"
        enclosed = (ws.text[:m.start()].rstrip().endswith("(") and re.match(r"\s*\)", ws.text[m.end():])  # "(Nature, Science)"
                    and not _defines(m.group("list").strip(), ws.text[:m.start()]))
        strong = (bool(_STRONG_CUE.search(cue) or m.group("suffix")) or negated or only or listed_on or bool(only_after)
                  or bool(enclosed))
        beside_loose = bool(cue) and any(strict == LOOSE for _e, strict in items)  # "in IJCNLP or EMNLP"
        beside_venue = bool(cue) and any(strict < MADE for _e, strict in items)  # "in Nature, Science or PRL"
        items = [(e, strict) for e, strict in items
                 if strict < MADE or strong or (beside_loose and len(e.name) >= MIN_RESOLVED)
                 or (beside_venue and len(e.name) >= 3)]
        if not items or (all(strict for _e, strict in items) and not (cue or strong)):
            continue
        end = m.end() + (only_after.end() if only_after else 0)
        if not cue and not listed_on and _DATA_BEFORE.search(ws.text[:m.start()]):
            continue  # "NER results on CoNLL 2003", "trained on WMT data", "the history of COLING": data or topic
        if _DATA_AFTER.match(ws.text, m.end()) or (
                all(strict for _e, strict in items) and _NOUN_AFTER.match(ws.text, m.end())):
            continue  # "SemEval data", "LREC resources"; "Cell biology", "Science education"
        entries = list(dict.fromkeys(e for e, _s in items))
        if re.search(r"workshops?\b", m.group("suffix") or "", re.I) and not any(
                "workshop" in n.lower() for e in entries for n in e.names):
            entries = [e for e in load_table() if e.name == "Workshops"]  # "ACL workshops": workshop papers, not ACL
        if len(items) == 1 and items[0][1] and (tail := _TITLE_TAIL.match(ws.text, end)):
            entries, end = [VenueEntry(f"{m.group('list').strip()} {tail.group(1)}")], tail.end()  # "Nature Immunology"
        if (findings := _WITH_FINDINGS.match(ws.text, end)) and not negated:
            entries += [VenueEntry(f"Findings of {e.name}") for e in entries]
            end = taken = findings.end()
        ws.consume(cue_start, end)
        table.append(VenueMention(entries, negated, cue_start, ws.original[cue_start:end].strip(),
                                  main=bool(m.group("main")) or "main" in (m.group("suffix") or "").lower()))
    for mention in table:
        _resolve(mention, vocab)
    found += table
    found += _unrecognised_acronyms(ws, vocab)
    found += _journal_names(ws, vocab)
    found += _abbreviations(ws, vocab)
    return sorted(found, key=lambda m: m.position)


def _resolve(mention: VenueMention, vocab: dict[str, int] | None) -> None:
    """Fill ``mention.values`` (vocabulary spellings) and ``mention.missing`` (canonical names
    not found in the vocabulary, kept as values too)."""
    values: list[str] = []
    for entry in mention.entries:
        hits = map_to_vocabulary(entry, vocab) if vocab else []
        if not hits:
            hits = [entry.name]
            if vocab:  # an empty vocabulary: the corpus names no venue at all, which the plan says once
                mention.missing.append(entry.name)
        values.extend(h for h in hits if h not in values)
    mention.values = with_editions(values, vocab)


_PARENTHESISED = re.compile(r"\([^)]*\)")
_EDITION = re.compile(r"\b(?:\d+(?:st|nd|rd|th)?|[ivxlc]{2,}|first|second|third|fourth|fifth|sixth|"
                      r"seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|"
                      r"seventeenth|eighteenth|nineteenth|twentieth)\b")


def edition_key(spelling: str) -> str:
    """A venue spelling without its edition: ordinals, years, roman numerals and parenthesised
    parts removed ("Proceedings of the 13th International Conference on Spoken Language
    Translation" and "... 18th ... (IWSLT 2021)" share one key)."""
    return " ".join(_EDITION.sub(" ", _norm(_PARENTHESISED.sub(" ", spelling))).split())


def with_editions(values: list[str], vocab: dict[str, int] | None) -> list[str]:
    """``values`` plus every vocabulary spelling of another edition of the same venue (same
    :func:`edition_key`, of at least five words, so "Proceedings of the Workshop" links nothing),
    most papers first after the given ones."""
    if not vocab or not values:
        return values
    keys = {k for k in map(edition_key, values) if len(k.split()) >= 5}
    more = sorted((v for v in vocab if v not in values and edition_key(v) in keys), key=lambda v: -int(vocab.get(v) or 0))
    return [*values, *more]


def map_to_vocabulary(entry: VenueEntry, vocab: dict[str, int]) -> list[str]:
    """Vocabulary spellings for ``entry``, most papers first; [] when none matches. A track of a
    venue that the vocabulary keeps as one normalised venue ("Findings of EMNLP", where every
    Findings paper has venue "Findings" and the raw "Findings of the ACL: EMNLP 2020") is its own
    value: ``corpus.predicates`` matches it on the venue and the raw string."""
    normed = {v: _norm(v) for v in vocab}
    if (track := TRACK_OF.fullmatch(entry.name)) and _norm(track.group(1)) in normed.values():
        return [entry.name]
    names = {_norm(n) for n in entry.names}
    hits = [v for v, n in normed.items() if n in names]
    for word in entry.contains:
        w = re.compile(rf"\b{re.escape(_norm(word))}\b")
        hits += [v for v, n in normed.items() if w.search(n) and v not in hits]
    if not hits:
        long_names = [n for n in names if len(n.split()) >= 5]
        hits = [v for v, n in normed.items() if any(f" {ln} " in f" {n} " for ln in long_names)]
    if not hits:
        choices = list(normed.values())
        keys = list(normed)
        for name in names:
            if len(name) < 4:
                continue
            for _choice, _score, idx in process.extract(name, choices, scorer=fuzz.ratio,
                                                        score_cutoff=FUZZY_THRESHOLD, limit=5):
                if keys[idx] not in hits:
                    hits.append(keys[idx])
    return sorted(hits, key=lambda v: -int(vocab.get(v) or 0))


_CAP = r"[A-Z][\w'&*-]*"
_UNKNOWN = re.compile(
    r"(?P<cue>\b(?i:(?:(?:" + _PUBLISHED + r")\s+)?(?:in|at|from)\s+(?:the\s+)?"
    r"(?:(?:proceedings|journal)\s+of\s+(?:the\s+)?)?))"
    r"(?P<name>(?:(?:" + _CAP + r"\s+){0,6}" + _VENUE_WORD + r"(?:\s+(?:on|of|for)(?:\s+(?:the|and|" + _CAP + r"))+)?"
    r"|(?:" + _VENUE_WORD + r")\s+(?:on|of|for)(?:\s+(?:the|and|" + _CAP + r"))+))"
)
_JOURNAL_WORD = r"(?:Letters|Transactions|Annals|Bulletin|Reviews?|Proceedings|Reports|Advances|Magazine)"
_JOURNAL_NAME = r"(?:" + _CAP + r"\s+(?:(?:of|on|for|and|&|in)\s+(?:the\s+)?)?){0,5}" + _JOURNAL_WORD + r"(?:\s+[A-Z]\b)?"
"""A name headed by a journal word ("Geophysical Research Letters", "Physical Review B")."""
_UNKNOWN_JOURNAL = re.compile(
    r"(?P<cue>\b(?i:(?:(?:" + _PUBLISHED + r")\s+)?in\s+(?:the\s+)?))"
    r"(?P<name>(?:" + _CAP + r"\s+(?:(?:of|on|for|and|&|in)\s+(?:the\s+)?)?){0,5}" + _JOURNAL_WORD
    + r"(?:\s+(?:of|on|in)(?:\s+(?:the|and|" + _CAP + r"))+|\s+[A-Z]\b)?)(?![\w-])")
"""A journal name the vocabulary lacks, named by its journal word: "in Geophysical Research Letters",
"in the American Economic Review", "in Annals of Statistics", "published in Physical Review B"."""
_MORE_JOURNALS = re.compile(
    r"(?:\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+)(?:the\s+)?(?P<name>(?:" + _CAP + r"\s+){0,5}" + _JOURNAL_WORD
    + r"(?:\s+[A-Z]\b)?|(?:" + _CAP + r"\s+){1,4}[A-Z]|[A-Z][A-Za-z]*[A-Z][A-Za-z]*)(?=\s*(?:$|[,;.)]|\b(?:or|and)\b))")
"""A further journal of a list a journal name began: "... or Physical Review B", "..., or QJE"."""
_NOT_VENUE = (r"(?:English|Chinese|German|French|Spanish|Japanese|Korean|Russian|Portuguese|Italian|Arabic|Dutch"
              r"|January|February|March|April|May|June|July|August|September|October|November|December"
              r"|Spring|Summer|Autumn|Fall|Winter|Europe|Asia|Africa|America|China|India|Open\s+Access)\b")
_UNKNOWN_BARE = re.compile(
    r"(?:(?<=[,(;])|^)(?P<cue>\s*)(?P<name>(?:Journal|Proceedings|Transactions|Annals|Bulletin)\s+(?:of|on)"
    r"(?:\s+(?:the|and|&|of|on|in|" + _CAP + r"))+?)(?=\s*(?:$|[,;.)]))")
"""A journal named as a clause of its own ("..., Journal of the American Chemical Society, 2018
onwards"): its name says it is one."""
_DATED_NAME = r"(?:" + _JOURNAL_NAME + r"|[A-Z][A-Z&]{2,7})"
_UNKNOWN_DATED = re.compile(r"\((?P<cue>\s*)(?P<name>" + _DATED_NAME + r")(?=\s*,?\s*\|[\s|,]*\))")
"""A journal in parentheses before the dates an earlier rule consumed ("(GRL, 2015-2020)",
"(Geophysical Research Letters, 2019)"): a citation's journal and years."""
_UNKNOWN_DATED_AFTER = re.compile(r"\((?P<cue>[\s|]*\|[\s|]*,?\s*)(?P<name>" + _DATED_NAME + r")(?=\s*\))")
"""The same with the dates first: "(2015-2020, GRL)"."""
_UNKNOWN_PUBLISHED = re.compile(
    r"(?P<cue>\b(?i:(?:" + _PUBLISHED + r")\s+in\s+(?:the\s+)?))"
    r"(?P<name>(?!" + _NOT_VENUE + r")" + _CAP + r"(?:\s+(?:(?:of|on|for|and|&)\s+(?:the\s+)?)?" + _CAP
    + r"){0,6})(?![\w-])")
"""Any capitalised name after "published in" ("published in Econometrica"): a venue, the cue says so."""
_UNKNOWN_ACRONYM = re.compile(
    r"(?P<cue>\b(?i:(?:" + _PUBLISHED + r")\s+(?:in|at)|at)\s+(?:the\s+)?)"
    r"(?P<name>[A-Z][A-Z0-9]{2,}(?:-[A-Z0-9]+)?)(?:\s+(?:19|20)\d{2})?\b(?!\s+(?:model|method|data))"
)


def _mention(ws: Workspace, m: re.Match, values: list[str], unrecognised: bool) -> VenueMention:
    name = m.group("name").strip()
    negated, _only, cue_start = ws.cue_before(m.start())
    ws.consume(cue_start, m.end())
    return VenueMention([VenueEntry(name)], negated, cue_start, ws.original[cue_start:m.end()].strip(),
                        values=values or [name], missing=[name] if unrecognised else [], unrecognised=unrecognised)


def _named_venues(ws: Workspace, vocab: dict[str, int] | None) -> list[VenueMention]:
    """Named venues ("at the Global WordNet Conference", "in the Workshop on Asian Translation"):
    the vocabulary spellings that contain the name as whole words, most papers first; a name
    none contains is unrecognised (module docstring)."""
    out: list[VenueMention] = []
    normed = {v: f" {_norm(v)} " for v in vocab or {}}
    for m in list(_UNKNOWN.finditer(ws.text)):
        if BOUNDARY in m.group(0):
            continue
        key = f" {_norm(m.group('name'))} "
        hits = sorted((v for v, n in normed.items() if key in n), key=lambda v: -int((vocab or {}).get(v) or 0))
        hits = with_editions(hits, vocab) or resolve_name(m.group("name"), vocab)  # a short form: "MT Summit"
        out.append(_mention(ws, m, hits, unrecognised=not hits))
    return out


def _journal_names(ws: Workspace, vocab: dict[str, int] | None) -> list[VenueMention]:
    """Journal names no alias matched, read after the known venues (:data:`_UNKNOWN_JOURNAL`,
    :data:`_UNKNOWN_PUBLISHED`): the vocabulary spellings :func:`resolve_name` finds, else
    unrecognised, so the plan reports them instead of searching for their words."""
    out: list[VenueMention] = []
    for rx in (_UNKNOWN_JOURNAL, _UNKNOWN_PUBLISHED, _UNKNOWN_BARE, _UNKNOWN_DATED, _UNKNOWN_DATED_AFTER):
        for m in list(rx.finditer(ws.text)):
            if BOUNDARY in m.group("name"):  # consumed by an earlier match
                continue
            named = _norm(m.group("name"))
            hits = with_editions([v for v in vocab or {} if _norm(v) == named], vocab) or resolve_name(m.group("name"), vocab)
            first = _mention(ws, m, hits, unrecognised=not hits)
            end = m.end()
            while more := _MORE_JOURNALS.match(ws.text, end):  # "... Letters or Physical Review B", "... or QJE"
                name = more.group("name")
                found = resolve_name(name, vocab, taken=True)
                first.entries.append(VenueEntry(name))
                first.values += [v for v in found or [name] if v not in first.values]
                first.missing += [] if found else [name]
                ws.consume(end, more.end())
                first.phrase, end = ws.original[first.position:more.end()].strip(), more.end()
            first.unrecognised = len(first.missing) == len(first.entries)
            out.append(first)
    return out


_ABBREVIATED = re.compile(r"(?<![\w.])(?P<name>(?:[A-Z][a-z]{0,7}\.\s*){2,6}(?:[A-Z](?:[a-z]+)?\b(?!\.))?)")
"""A journal name in ISO 4 abbreviation: "Phys. Rev. Lett.", "J. Am. Chem. Soc.", "Phys. Rev. B"
(two or more abbreviated words, each capitalised and ending in a full stop)."""


def _expands(abbreviation: str, spelling: str) -> bool:
    """True when each word of ``abbreviation`` abbreviates (:func:`_abbreviates`) the next word of
    ``spelling`` that is not a minor word ("Phys. Rev. Lett." -> "Physical Review Letters"; "J. Am. Chem. Soc." -> "Journal
    of the American Chemical Society"), and no word of either is left over."""
    short = re.findall(r"[A-Za-z]+", abbreviation)
    full = [w for w in re.findall(r"[A-Za-z]+", spelling) if w.lower() not in _MINOR]
    return len(short) == len(full) and all(_abbreviates(a.lower(), f.lower()) for a, f in zip(short, full))


def _abbreviates(short: str, word: str) -> bool:
    """True when ``short`` is ``word``'s first letter then some of its other letters in order, as
    ISO 4 shortens ("phys" physical, "natl" national, "lett" letters)."""
    if not short or not word.startswith(short[0]):
        return False
    rest = iter(word[1:])
    return all(ch in rest for ch in short[1:])


def _abbreviations(ws: Workspace, vocab: dict[str, int] | None) -> list[VenueMention]:
    """ISO 4 abbreviated journal names (:data:`_ABBREVIATED`): the vocabulary spellings they
    abbreviate (:func:`_expands`), else unrecognised, so the plan reports them rather than
    searching for "Phys" and "Lett"."""
    out = []
    for m in list(_ABBREVIATED.finditer(ws.text)):
        if (BOUNDARY in m.group(0) or not re.search(r"[A-Z][a-z]+\.", m.group("name"))
                or re.search(r"\bby\s+$", ws.text[:m.start()], re.I)):
            continue  # consumed, or a person's initials ("by J. R. R. Tolkien")
        hits = sorted((v for v in vocab or {} if _expands(m.group("name"), v)), key=lambda v: -int(vocab[v] or 0))
        cue = re.search(r"(?i:(?:\b(?:" + _PUBLISHED + r")\s+)?\b(?:in|at)\s+(?:the\s+)?)$", ws.text[:m.start()])
        start = cue.start() if cue else m.start()
        negated, _only, cue_start = ws.cue_before(start)
        end = m.start() + len(m.group(0).rstrip())
        ws.consume(cue_start, end)
        name = " ".join(m.group("name").split())
        out.append(VenueMention([VenueEntry(name)], negated, cue_start, ws.original[cue_start:end].strip(),
                                values=with_editions(hits, vocab) or [name], missing=[] if hits else [name],
                                unrecognised=not hits))
    return out


def resolve_name(name: str, vocab: dict[str, int] | None, *, taken: bool = False) -> list[str]:
    """The vocabulary spellings (every edition, most papers first) of a venue-like ``name`` that
    some rule already took for a venue, looked up in any case among every name the table and the
    vocabulary answer to ("at SIGDIAL" -> the "... SIGdial Meeting ..." spellings; "in IJCNLP"
    -> "... International Joint Conference on Natural Language Processing ..."); [] when none, and for
    an acronym made from a venue's words shorter than :data:`MIN_RESOLVED` ("NLI") unless ``taken``:
    the caller already read the name as a venue (an acronym the corpus's text never uses, after
    "in" at a clause end: "in PRL" -> "Physical Review Letters")."""
    if not vocab:
        return []
    known = _matcher(_vocab_tuple(vocab))[2].get(re.sub(r"\s+", " ", name.strip()).lower())
    if known is None or (known[1] == MADE and len(name.strip()) < MIN_RESOLVED and not taken):  # "at NLI": a task
        return []
    return with_editions([v for v in map_to_vocabulary(known[0], vocab) if _names_venue(name, v)], vocab)


def _names_venue(name: str, spelling: str) -> bool:
    """False when ``name`` appears in ``spelling`` only after its venue word, as the topic of a
    workshop ("COVID" in "Workshop on NLP for COVID-19"), not its name ("Annual SIGdial Meeting",
    "IJCNLP 2017, Shared Tasks", "(RANLP 2021)"); True when the spelling answers to it otherwise
    (initials: "IJCNLP" for "International Joint Conference on ...")."""
    at = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w])", spelling, re.I)
    if at is None:
        return True
    venue_word = re.search(rf"\b{_VENUE_WORD}\b", spelling)
    parenthesised = spelling.rfind("(", 0, at.start()) > spelling.rfind(")", 0, at.start())
    return venue_word is None or at.start() < venue_word.start() or parenthesised


def _unrecognised_acronyms(ws: Workspace, vocab: dict[str, int] | None) -> list[VenueMention]:
    """Acronyms after a publication cue ("presented at IWSLT") that no alias in their own case
    matched: mentions of the spellings :func:`resolve_name` finds ("at SIGDIAL"), else unrecognised."""
    out = []
    for m in list(_UNKNOWN_ACRONYM.finditer(ws.text)):
        if BOUNDARY not in m.group(0):
            hits = resolve_name(m.group("name"), vocab)
            out.append(_mention(ws, m, hits, unrecognised=not hits))
    return out
