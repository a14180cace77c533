"""Venue mentions in an intent, mapped onto the corpus's own venue vocabulary.

The alias table is ``navigator/data/venues.json`` (see its ``_doc``). A mention is matched
against the table's aliases and against the vocabulary's own spellings; it is then mapped to
the vocabulary (``Corpus.venues()``: normalised venue -> paper count) by, in order: exact
match of any alias after normalisation, whole-word ``contains`` rules, containment of a long
(>= 5 words) alias in a vocabulary entry, and fuzzy match (``rapidfuzz.fuzz.ratio`` >=
:data:`FUZZY_THRESHOLD`). Without a vocabulary, or when nothing matches, the canonical name
is kept and the mention is flagged as not found.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz, process

from litnav.navigator.intent.text import Workspace, list_pattern

VENUES_FILE = Path(__file__).resolve().parent.parent / "data" / "venues.json"
FUZZY_THRESHOLD = 90.0
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
    """A venue list in the intent ("in ACL or EMNLP"): its entries, negation, offset, phrase."""

    entries: list[VenueEntry]
    negated: bool
    position: int
    phrase: str
    values: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


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


_ACRONYM = re.compile(r"[A-Z][A-Za-z0-9&]*[A-Z][A-Za-z0-9&]*")


@lru_cache(maxsize=16)
def _matcher(vocab_key: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str], dict[str, tuple[VenueEntry, bool]]]:
    """Compile (mention regex, item regex, lookup) for the table plus vocabulary spellings.

    ``lookup`` maps a lower-cased, space-collapsed alias to ``(entry, strict)``. Vocabulary
    spellings not in the table become entries of their own: acronyms ("SemEval", "WMT")
    match in any case, other spellings only strictly."""
    spelled: dict[str, tuple[VenueEntry, bool, str]] = {}
    for entry in load_table():
        for a in (entry.name, *entry.aliases):
            spelled.setdefault(a.lower(), (entry, False, a))
    for entry in load_table():
        for a in entry.strict:
            spelled[a.lower()] = (entry, True, a)
    for v in vocab_key:
        if v.lower() in spelled or len(v) < 2 or len(v) > 80 or len(v.split()) > 8:
            continue
        strict = not (_ACRONYM.fullmatch(v) and len(v) >= 3)
        spelled[v.lower()] = (VenueEntry(v), strict, v)
    parts = []
    for alias in sorted(spelled, key=len, reverse=True):
        _entry, strict, original = spelled[alias]
        parts.append(_alias_re(original) if strict else f"(?i:{_alias_re(original)})")
    item = r"(?<![\w-])(?:" + "|".join(parts) + r")(?![\w])(?!-\d)"
    cue = (r"(?P<cue>(?i:(?:\b(?:published|appearing|appeared|presented|accepted|papers?|articles?|work)\s+)?"
           r"(?:\b(?:in|at|from|to)\s+)(?:the\s+)?(?:(?:proceedings|journal)\s+(?:of\s+)?)?))?")
    suffix = r"(?i:\s+(?:proceedings|papers|conference|journal|main\s+conference)\b)?"
    mention = re.compile(cue + r"(?P<list>" + list_pattern(item) + r")" + suffix)
    lookup = {k: (e, s) for k, (e, s, _o) in spelled.items()}
    return mention, re.compile(item), lookup


def _vocab_tuple(vocab: dict[str, int] | None) -> tuple[str, ...]:
    if not vocab:
        return ()
    ranked = sorted(vocab, key=lambda v: (-int(vocab[v] or 0), v))
    return tuple(ranked[:_MAX_VOCAB_ALIASES])


def extract_venues(ws: Workspace, vocab: dict[str, int] | None) -> list[VenueMention]:
    """Find venue lists in ``ws``, consume them with their cue words ("published in", "not
    at") and map each to ``vocab`` (see module doc). A list made only of strict aliases
    ("Nature", "Science") counts only after a venue, negation or "only" cue."""
    mention_re, item_re, lookup = _matcher(_vocab_tuple(vocab))
    found: list[VenueMention] = []
    for m in list(mention_re.finditer(ws.text)):
        items = [lookup[re.sub(r"\s+", " ", im.group(0)).lower()] for im in item_re.finditer(m.group("list"))]
        negated, only, cue_start = ws.cue_before(m.start())
        cued = bool((m.group("cue") or "").strip()) or negated or only
        if not items or (all(strict for _e, strict in items) and not cued):
            continue
        ws.consume(cue_start, m.end())
        entries = list(dict.fromkeys(e for e, _s in items))
        found.append(VenueMention(entries, negated, cue_start, ws.original[cue_start:m.end()].strip()))
    for mention in found:
        _resolve(mention, vocab)
    return found


def _resolve(mention: VenueMention, vocab: dict[str, int] | None) -> None:
    """Fill ``mention.values`` (vocabulary spellings) and ``mention.missing`` (canonical names
    not found in the vocabulary, kept as values too)."""
    values: list[str] = []
    for entry in mention.entries:
        hits = map_to_vocabulary(entry, vocab) if vocab else []
        if not hits:
            hits = [entry.name]
            if vocab is not None:
                mention.missing.append(entry.name)
        values.extend(h for h in hits if h not in values)
    mention.values = values


def map_to_vocabulary(entry: VenueEntry, vocab: dict[str, int]) -> list[str]:
    """Vocabulary spellings for ``entry``, most papers first; [] when none matches."""
    normed = {v: _norm(v) for v in vocab}
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
