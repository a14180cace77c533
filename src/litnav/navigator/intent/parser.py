"""``parse_intent``: a natural-language intent -> a typed :class:`~litnav.core.records.Checklist`,
without an LLM (regular expressions and the small tables of this package).

Claim mode: an intent that is a declarative claim ("Aspirin inhibits the production of PGE2.",
rule in :mod:`navigator.intent.claims`) becomes ONE topic checkpoint whose text is the claim
itself and whose terms are its 2-5 salient noun phrases (with parenthesised acronyms); verb
negations stay in the claim (no exclusion), and only an explicit date phrase ("published in
2020", "since 2019", "between 2019 and 2021") becomes a year predicate -- a bare "in 2001"
describes the study. Venues, authors and publication types are not extracted from a claim.

Passage mode: an intent that reads as a paper's own text (an abstract pasted as a query by
example, rule in :mod:`navigator.intent.passage`) becomes ``c1`` = the whole text plus its
concept facets; its dates, venues, authors, types and "without ..." phrases describe the paper,
so no metadata or exclusion checkpoint is read from it.

Checkpoint ids: content facets ``c1, c2, ...`` (topic/method/application/data, in order of
appearance), metadata ``m1, m2, ...`` (in order of appearance), exclusions ``x1, x2, ...``.

Metadata predicates (one per field and polarity):

- ``year``: every positive date phrase is intersected ("since 2020 ... before 2023"); when the
  intersection is empty ("in 2019 or 2021") their hull is used. Negated bounded ranges
  ("excluding 2020") stay separate negated predicates.
- ``venue``: positive venue lists are merged into one predicate (any of them), negated ones
  into one negated predicate. Values are the corpus's spellings when ``venues`` is given.
- ``publication_type``: positive types merged, negated types merged.
- ``author``: positive names merged, negated names merged.

Weights: 1.0 except two soft preferences, :data:`~navigator.intent.dates.RECENT_WEIGHT`
(0.5) for "recent" without explicit dates, and :data:`EMPIRICAL_WEIGHT` (0.5) for a positive
publication type ("empirical studies of ...", "surveys of ..."): a paper's metadata rarely
says whether it is empirical or a survey (the title rule finds only surveys that say so), so
it is a preference that re-weights the ranking rather than a filter. "only surveys" / "only
empirical studies" make it weight 1.0; excluded types ("not surveys") are always 1.0.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Literal

from litnav.core.records import Checklist, Checkpoint, MetadataPredicate
from litnav.core.text import stems
from litnav.corpus.phrases import PhraseTable
from litnav.corpus.predicates import NON_META_REVIEW, VENUE_KINDS
from litnav.navigator.intent.anchor_request import request_reference
from litnav.navigator.intent.authors import extract_authors
from litnav.navigator.intent.claims import claim_terms, is_claim
from litnav.navigator.intent.dates import RECENT_WEIGHT, DateConstraint, extract_dates, unglue_years
from litnav.navigator.intent.facets import (
    Facet,
    blank_framing,
    clean_phrase,
    extract_exclusions,
    extract_facets,
    narrow_other_than,
)
from litnav.navigator.intent.grammar import number_variants
from litnav.navigator.intent.organisms import in_humans, names_animals, only_humans, says_in_humans, species_of
from litnav.navigator.intent.passage import asks_for_papers, is_markup, is_passage, is_prose
from litnav.navigator.intent.pubtypes import extract_types
from litnav.navigator.intent.text import BOUNDARY, Workspace, normalise
from litnav.navigator.intent.venues import VenueEntry, VenueMention, extract_venues, names_a_venue, resolve_name
from litnav.navigator.intent.wishes import restate_wishes

EMPIRICAL_WEIGHT = 0.5
FACET_WEIGHT = 0.5
"""Weight of a facet checkpoint beside the whole-intent checkpoint ``c1`` (weight 1.0)."""
_NEGATION_WORDS = frozenset({"without", "never", "except", "exclud", "neither"})
"""Stems of negation words that are not stop words: an intent of these alone names nothing."""


def _names_something(text: str) -> bool:
    """True when ``text`` holds a word other than stop words and :data:`_NEGATION_WORDS`."""
    return any(t not in _NEGATION_WORDS for t in stems(text))


HUMANS_WEIGHT = 0.5
"""Weight of the exclusion of animal studies that "in humans" states: a preference (a paper judged
to be animal work is demoted, not dropped; an intent's own "not animal studies" weighs 1)."""
PREFERRED_EXCLUSION_WEIGHT = 0.5
"""Weight of an exclusion stated as a preference ("preferably not X", ``wishes.restate_wishes``):
a paper judged to be about X is demoted, not dropped."""


def _weighed(cp: Checkpoint, preference: bool) -> Checkpoint:
    """``cp`` as stated: an exclusion that is a preference weighs :data:`PREFERRED_EXCLUSION_WEIGHT`."""
    if not preference:
        return cp
    return cp.model_copy(update={"weight": PREFERRED_EXCLUSION_WEIGHT, "text": f"{cp.text} (preference)"})

_PREFERRED_AUTHOR = re.compile(r"\b(?:preferably|ideally|prefer(?:ring)?|if\s+possible)\s*,?\s*(?:(?:papers?|work|ones)\s+)?$",
                               re.I)
"""A cue that makes the author list after it a preference: "ideally by X", "prefer papers by X"."""


class ContradictoryDates(ValueError):
    """Date constraints that no publication date satisfies ("since 2020 before 2010"); the message
    names both phrases."""


_TYPE_NAMES = {
    "survey": "a survey or review", "meta-analysis": "a meta-analysis", "tutorial": "a tutorial",
    "empirical": "an empirical study", "benchmark": "a benchmark paper", "position": "a position paper",
    "dataset": "a dataset or resource paper", "theoretical": "a theoretical paper", "trial": "a clinical trial",
    NON_META_REVIEW: "a survey or review other than a meta-analysis",
    "journal": "a journal article", "conference": "a conference paper",
}


MAX_SPELLINGS_SHOWN = 3
"""A venue checkpoint's text lists at most this many corpus spellings; beyond, it names the venues
as the user did ("Published in IWSLT (14 venue spellings of the corpus)")."""


def parse_intent(intent: str, venues: dict[str, int] | None = None, today: date | None = None,
                 phrases: PhraseTable | None = None, newest: date | None = None) -> Checklist:
    """Turn ``intent`` into a checklist of typed checkpoints.

    ``c1`` is always the whole intent less its consumed metadata and exclusion spans and its
    request words (:func:`whole_intent`); it is the retrieval query too. The concepts of the
    intent (``navigator.intent.keyphrases``, boundaries from the corpus phrase table
    ``phrases``, ``corpus.phrases.corpus_phrases``) follow as facets ``c2, c3, ...`` of weight
    :data:`FACET_WEIGHT`, typed by the cue word before them; an intent that is one concept has
    no facet beside ``c1``.

    ``venues`` is the corpus venue vocabulary (``Corpus.venues()``: normalised venue -> paper
    count); venue predicates then use its spellings. ``today`` anchors relative periods ("in
    the last five years"); default ``date.today()``. ``newest`` is the corpus's newest publication
    date (``Corpus.newest_date``): "recent" counts back from it when it is before ``today``
    (``dates.extract_dates``). Deterministic for fixed arguments.
    ``Checklist.intent`` is the intent as typed (whitespace collapsed only: the baseline searches,
    ``planner.baseline_nodes``, must equal plain hybrid retrieval of it); the analysis reads its
    normalised form (``text.normalise``: typographic dashes and quotes, "|").

    Raises ``ValueError`` when ``intent`` is not a string, is empty, or yields no checkpoint.
    """
    typed = normalise(intent)
    as_typed = " ".join(intent.split())  # Checklist.intent: the baseline searches read it as the user typed it
    mode = reading(typed)
    if mode == "passage":
        return _parse_passage(typed, phrases, as_typed)
    today = today or date.today()
    asked = request_reference(typed)  # "what builds on X", "siblings of X": X is what the intent is about
    text = unglue_years(narrow_other_than(asked or typed), today)
    if mode == "claim":  # the checklist keeps the intent as typed (the planner's baseline searches read it)
        return _parse_claim(text, today).model_copy(update={"intent": as_typed})
    restated = restate_wishes(text)  # "I'm not interested in surveys" -> "not surveys"
    text = restated.text
    ws = Workspace(text)
    dates = extract_dates(ws, today, newest=newest)
    for d in dates:
        if restated.is_soft(d.position):  # "preferably not before 2015": a preference, as "recent" is
            d.weight = min(d.weight, RECENT_WEIGHT)
    types = extract_types(ws)
    venue_mentions = extract_venues(ws, venues)
    authors = extract_authors(ws, cited=asked is not None)
    soft_authors = set()  # "ideally by X": a preference, its cue consumed with it
    for a in authors:
        if cue := _PREFERRED_AUTHOR.search(ws.text[:a.position]):
            ws.consume(cue.start(), cue.end())
            soft_authors.add(a.position)
    exclusions = extract_exclusions(ws)
    facets = extract_facets(ws, phrases)
    humans = [f for f in facets if only_humans(f.terms) and in_humans(ws.text, f.phrases)]  # no concept: says_in_humans below
    facets = [f for f in facets if f not in humans]
    whole = whole_intent(ws.text)
    if not _names_something(whole):
        whole = ""  # "not", "without": a negation with nothing to negate names no topic
    facets = [f for f in facets if any(map(_names_something, f.terms))]
    venue_mentions += _unknown_venue_mentions(ws, venues)
    excluded_editions = _excluded_editions(dates, venue_mentions, ws.original)  # "excluding EMNLP 2020"
    dates = [d for d in dates if all(d is not e for e, _m in excluded_editions)]
    venue_mentions = [m for m in venue_mentions if all(m is not v for _e, v in excluded_editions)]

    metadata: list[tuple[int, Checkpoint]] = []
    own, every = _venue_years(dates, venue_mentions, text)
    metadata += _year_checkpoints([d for d in dates if all(d is not o for o, _m in own)], text,
                                  newest if newest is not None and newest < today else None)
    metadata += _venue_year_checkpoints(own, every)
    for d, m in excluded_editions:
        named = " or ".join(dict.fromkeys(e.name for e in m.entries))
        metadata.append((m.position, _meta(f"Not published in {named} {period_text(d.start, d.end)}", MetadataPredicate(
            field="venue_year", values=list(m.values), start=d.start, end=d.end, negate=True))))
    for negated in (False, True):
        vs = [v for v in venue_mentions if v.negated == negated]
        if vs:
            values = list(dict.fromkeys(x for v in vs for x in v.values))
            missing = list(dict.fromkeys(x for v in vs for x in v.missing))
            named = values if len(values) <= MAX_SPELLINGS_SHOWN else [
                *dict.fromkeys(e.name for v in vs for e in v.entries)]
            main = any(v.main for v in vs)
            say = ("Not published in " if negated else "Published in ") + ("the main track of " if main else "") + " or ".join(named)
            if named is not values:
                say += f" ({len(values)} venue spellings of the corpus)"
            if missing:
                say += f" (not in the corpus venue list: {', '.join(missing)})"
            soft = all(restated.is_soft(v.position) for v in vs)  # "preferably (not) in Nature"
            metadata.append((vs[0].position, _meta(say + (" (preference)" if soft else ""), MetadataPredicate(
                field="venue", values=values, negate=negated, main_track=main), EMPIRICAL_WEIGHT if soft else 1.0)))
        for kind_of_venue in (False, True):  # a kind of venue ("journal") is no kind of paper ("survey"): both hold
            ts = [t for t in types if t.negated == negated and any((v in VENUE_KINDS) == kind_of_venue for v in t.values)]
            if ts:
                metadata.append(_type_checkpoint(ts, types, negated, kind_of_venue, restated))
        aus = [a for a in authors if a.negated == negated]
        if aus:
            names = list(dict.fromkeys(n for a in aus for n in a.names))
            first = all(a.first_author for a in aus)
            say = ("Not " if negated else "") + ("first-authored by " if first else "authored by ") + " or ".join(names)
            soft = all(a.position in soft_authors for a in aus)  # "ideally by X": ranks, filters nothing
            metadata.append((aus[0].position, _meta(say[0].upper() + say[1:] + (" (preference)" if soft else ""),
                                                    MetadataPredicate(field="author", values=names, negate=negated,
                                                                      first_author=first),
                                                    EMPIRICAL_WEIGHT if soft else 1.0)))
    metadata.sort(key=lambda pair: pair[0])

    checkpoints = _content_checkpoints(whole, facets)
    checkpoints += [cp.model_copy(update={"id": f"m{i}"}) for i, (_p, cp) in enumerate(metadata, 1)]
    checkpoints += [_weighed(exclusion_checkpoint(f"x{i}", phrase, terms), restated.is_soft(at))
                    for i, (phrase, terms, at) in enumerate(exclusions, 1)]
    if says_in_humans(ws.text) and not any(names_animals(ts) for _p, ts, _ in exclusions):
        checkpoints.append(exclusion_checkpoint(f"x{len(exclusions) + 1}", "animal studies", ["animal studies"])
                           .model_copy(update={"weight": HUMANS_WEIGHT}))
    if not checkpoints:
        raise ValueError(f"intent {intent!r} yields no checkpoint: it names no topic, method, "
                         "application, data set, venue, date, author or publication type")
    return Checklist(intent=as_typed, checkpoints=checkpoints, not_judged=ws.absent_resources)


def reading(intent: str) -> Literal["passage", "claim", "request"]:
    """How :func:`parse_intent` reads ``intent``: ``"passage"`` for a paper's own text (an abstract,
    ``passage.is_passage``; or a sentence or two of one, ``passage.is_prose``), ``"claim"`` for a
    declarative claim that asks for nothing (``claims.is_claim``, no ``passage.asks_for_papers``
    words), else ``"request"`` (also for an intent without words: an anchor paper's title "???"
    names its session, and a session file may hold any text). Passages and claims state no search
    constraints."""
    try:
        typed = normalise(intent)
    except ValueError:
        return "request"
    if is_passage(typed):
        return "passage"
    if is_claim(narrow_other_than(typed)) and not asks_for_papers(typed) and not names_a_venue(typed):
        return "claim"
    return "passage" if is_prose(typed) else "request"


def whole_intent(text: str) -> str:
    """What is left of a workspace text (``Workspace.text``) once metadata, exclusions and
    request words are taken out: its pieces between consumed spans, cleaned and joined by
    ", "; "" when nothing is left."""
    pieces = [clean_phrase(p) for p in blank_framing(text).split(BOUNDARY)]
    return re.sub(r"\s+", " ", ", ".join(p for p in pieces if p)).strip()


def _parse_passage(text: str, phrases: PhraseTable | None, as_typed: str) -> Checklist:
    """Passage mode (:mod:`navigator.intent.passage`): ``c1`` is the whole text as typed (so its
    searches are the hybrid's own), its concepts (read from the normalised ``text``) the facets
    beside it; no metadata and no exclusion checkpoint."""
    facets = [f for f in extract_facets(Workspace(text), phrases, passage=True)
              if not any(is_markup(p) for p in (*f.phrases, *f.terms))]  # URLs and TeX are not concepts
    return Checklist(intent=as_typed, checkpoints=_content_checkpoints(as_typed, facets))


def _content_checkpoints(whole: str, facets: list[Facet]) -> list[Checkpoint]:
    """``c1`` = ``whole`` (when not empty; its terms are the facets' terms), then the facets as
    ``c2, c3, ...`` of weight :data:`FACET_WEIGHT` (a facet with the terms of an earlier one is
    dropped) — none when there is only one: c1 is it (and, for a facet of alternatives, satisfied
    by either: ``any_of``)."""
    checkpoints = []
    seen: set[tuple[str, ...]] = set()  # a concept stated twice is one facet
    facets = [f for f in facets if (key := tuple(t.lower() for t in f.terms)) not in seen and not seen.add(key)]
    if whole:
        terms = list(dict.fromkeys(t for f in facets for t in f.terms)) or [whole]
        either = len(facets) == 1 and facets[0].joiner == "or" and len(terms) > 1  # "NMT or speech translation"
        checkpoints.append(Checkpoint(id="c1", kind="topic", text=whole, terms=terms, any_of=either))
        if len(facets) == 1:
            facets = []
    return checkpoints + [_content(f"c{i}", f).model_copy(update={"weight": FACET_WEIGHT})
                          for i, f in enumerate(facets, len(checkpoints) + 1)]


def _parse_claim(text: str, today: date) -> Checklist:
    """Claim mode (see :mod:`navigator.intent.claims`): one topic checkpoint whose text is the
    claim itself (as in the scorer's SciFact training rows) and whose terms are the claim's
    salient noun phrases, plus a year predicate only for an explicit publication-date phrase
    ("published since 2019"); other dates in a claim ("doubled between 1990 and 2010") describe
    the finding and stay in its text."""
    ws = Workspace(text)
    dates = extract_dates(ws, today, explicit_only=True) if re.search(r"\bpublish", text, re.I) else []
    claim = text
    if dates:
        claim = re.sub(r"\s+([.,;])", r"\1", re.sub(r"\s+", " ", ws.text.replace(BOUNDARY, " "))).strip(" ,;")
    terms = claim_terms(claim) or [claim]
    checkpoints = [Checkpoint(id="c1", kind="topic", text=claim, terms=terms)]
    checkpoints += [cp.model_copy(update={"id": f"m{i}"}) for i, (_p, cp) in enumerate(_year_checkpoints(dates, text), 1)]
    return Checklist(intent=text, checkpoints=checkpoints)


def _meta(text: str, predicate: MetadataPredicate, weight: float = 1.0, terms: list[str] | None = None) -> Checkpoint:
    return Checkpoint(id="m", kind="metadata", text=text, weight=weight, predicate=predicate, terms=terms or [])


def period_text(start: date | None, end: date | None) -> str:
    """The words of a year checkpoint's period ("between 2019-01-01 and 2021-12-31", "on or after
    2019-01-01"), after "Published"."""
    if start and end:
        return f"between {start.isoformat()} and {end.isoformat()}"
    if start:
        return f"on or after {start.isoformat()}"
    return f"on or before {end.isoformat()}" if end else "at any time"


def _gaps(periods: list[DateConstraint]) -> list[DateConstraint]:
    """The periods between closed ``periods`` that no one of them covers, negated: "2018 or 2020"
    is 2018-2020 less 2019 (a paper must lie in one of the periods, not between them)."""
    merged: list[list] = []
    for d in sorted(periods, key=lambda d: d.start):
        if merged and d.start <= merged[-1][1] + timedelta(days=1):
            merged[-1][1] = max(merged[-1][1], d.end)
        else:
            merged.append([d.start, d.end, d])
    return [DateConstraint(start=a[1] + timedelta(days=1), end=b[0] - timedelta(days=1), negated=True,
                           position=b[2].position, weight=min(a[2].weight, b[2].weight),
                           phrase=f"{a[2].phrase} or {b[2].phrase}")
            for a, b in zip(merged, merged[1:])]


def _either_end(chosen: list[DateConstraint], text: str) -> DateConstraint | None:
    """"before 2000 or after 2020": an open-ended "before" and an open-ended "after" joined by
    "or" whose periods do not meet are one negated period (not 2000-2020), not a contradiction."""
    if len(chosen) != 2:
        return None
    early, late = sorted(chosen, key=lambda d: (d.end is None, d.end or date.max))
    if early.start or not early.end or late.end or not late.start or late.start <= early.end:
        return None
    first, second = sorted((early, late), key=lambda d: d.position)
    if not re.search(r"\bor\b", text[first.position + len(first.phrase):second.position], re.I):
        return None
    return DateConstraint(start=early.end + timedelta(days=1), end=late.start - timedelta(days=1), negated=True,
                          position=first.position, weight=min(early.weight, late.weight),
                          phrase=f"{first.phrase} or {second.phrase}")


def _venue_years(dates: list[DateConstraint], mentions: list[VenueMention],
                 text: str) -> tuple[list[tuple[DateConstraint, VenueMention]], bool]:
    """The dates stated for single venues of a venue list ("EMNLP 2019 or ACL 2020"), each with
    the venue mention it follows directly, and whether every positive venue mention has one.
    Their periods are alternatives, bound to their venues (:func:`_venue_year_checkpoints`): not
    an intersection, and, when some venue has no date ("EMNLP 2019 or ACL"), no filter on that
    venue's papers. Empty with fewer than two venue mentions;
    a date after the whole list ("ACL or EMNLP 2019") or away from any venue ("since 2019") is
    not one of them."""
    venues = sorted((m for m in mentions if not m.negated), key=lambda m: m.position)
    if len(venues) < 2:
        return [], False
    own = [(d, m) for d in dates if not d.negated and d.weight >= 1.0 for m in venues
           if m.position + len(m.phrase) <= d.position and not text[m.position + len(m.phrase):d.position].strip()]
    dated = {id(m) for _d, m in own}
    return own, all(id(m) in dated for m in venues)


def _excluded_editions(dates: list[DateConstraint], mentions: list[VenueMention],
                       text: str) -> list[tuple[DateConstraint, VenueMention]]:
    """The dates right after a left-out venue ("excluding EMNLP 2020", "not at ACL 2019-2020"):
    that venue's papers of that period are left out, as one negated ``venue_year`` checkpoint, not
    the venue in every year and the period kept for every paper."""
    return [(d, m) for m in mentions if m.negated and m.values for d in dates
            if not d.negated and d.weight >= 1.0 and d.start and d.end and m.position + len(m.phrase) <= d.position
            and not text[m.position + len(m.phrase):d.position].strip()]


def _venue_year_checkpoints(own: list[tuple[DateConstraint, VenueMention]], every: bool) -> list[tuple[int, Checkpoint]]:
    """Checkpoints for the dates stated per venue (:func:`_venue_years`): when every venue has one,
    their union as a year filter (it narrows the search; alone it would admit ACL 2019 for "EMNLP
    2019 or ACL 2020"); and, unless all periods are one, a ``venue_year`` filter per venue ("ACL
    papers published in 2020"), so each venue's papers keep to their own period and a venue
    without a date ("EMNLP 2019 or ACL") keeps all its years."""
    if not own:
        return []
    out = []
    position = min(d.position for d, _m in own)
    starts, ends = [d.start for d, _m in own], [d.end for d, _m in own]
    if every:
        start = None if None in starts else min(s for s in starts if s)
        end = None if None in ends else max(e for e in ends if e)
        out.append((position, _meta(f"Published {period_text(start, end)}", MetadataPredicate(field="year", start=start,
                                                                                        end=end))))
    if every and len(set(zip(starts, ends))) == 1:
        return out
    for d, m in own:
        if m.values:
            named = " or ".join(dict.fromkeys(e.name for e in m.entries))
            out.append((d.position, _meta(f"{named} papers published {period_text(d.start, d.end)}",
                                          MetadataPredicate(field="venue_year", values=list(m.values), start=d.start,
                                                            end=d.end))))
    return out


def _unknown_venue_mentions(ws: Workspace, vocab: dict[str, int] | None) -> list[VenueMention]:
    """Mentions for the venue-like names a later extractor consumed (``ws.unknown_venues``: "in
    PRL or PRD"): the vocabulary spellings a name answers to in any case (``resolve_name``: "in
    IJCNLP"), else unrecognised so the plan reports them; names joined by a list separator form one
    mention."""
    out: list[VenueMention] = []
    for start, name in sorted(ws.unknown_venues):
        hits = resolve_name(name, vocab, taken=True)
        last = out[-1] if out else None
        if last is not None and re.fullmatch(r"(?:\s|,|/|&|\band\b|\bor\b)*", ws.original[last.position + len(last.phrase):start]):
            last.entries.append(VenueEntry(name))
            last.values.extend(h for h in hits or [name] if h not in last.values)
            last.missing.extend([] if hits else [name])
            last.unrecognised = len(last.missing) == len(last.entries)
            last.phrase = ws.original[last.position:start + len(name)]
            continue
        negated, _only, _cue = ws.cue_before(start)
        out.append(VenueMention([VenueEntry(name)], negated, start, name, values=hits or [name],
                                missing=[] if hits else [name], unrecognised=not hits))
    return out


def _year_checkpoints(dates: list[DateConstraint], text: str, newest: date | None = None) -> list[tuple[int, Checkpoint]]:
    out: list[tuple[int, Checkpoint]] = []
    positive = [d for d in dates if not d.negated]
    hard = [d for d in positive if d.weight >= 1.0]
    chosen = hard or positive
    either = _either_end(chosen, text)
    if either is not None:
        dates = [d for d in dates if d not in chosen] + [either]
        chosen = []
    if chosen:
        starts = [d.start for d in chosen if d.start]
        ends = [d.end for d in chosen if d.end]
        start, end = (max(starts) if starts else None), (min(ends) if ends else None)
        if start and end and start > end and all(d.start and d.end for d in chosen):
            # "from 2018 or 2020": either period, not the span between them (2019 is not asked for)
            start, end = min(starts), max(ends)
            dates = [*dates, *_gaps(chosen)]
        if start and end and start > end:  # no year satisfies them all: an error, not a silent guess
            late = next(d for d in chosen if d.start == max(starts))
            early = next(d for d in chosen if d.end == min(ends))
            raise ContradictoryDates(f"contradictory date constraints: {late.phrase!r} and {early.phrase!r} "
                             "admit no publication date; drop or correct one of them")
        weight = min(d.weight for d in chosen)
        say = f"Published {period_text(start, end)}"
        recent = any(re.search(r"\b(?:recent|latest|newest)", d.phrase, re.I) for d in chosen)
        if weight < 1.0 and not recent:
            say += " (preference)"  # "preferably not before 2015"
        elif weight < 1.0:
            say += (" (soft: 'recent')" if newest is None or end != newest
                    else f" (soft: 'recent' for this corpus, whose newest papers are from {newest.year})")
        out.append((chosen[0].position, _meta(say, MetadataPredicate(field="year", start=start, end=end), weight)))
    for d in dates:
        if d.negated:
            out.append((d.position, _meta(f"Not published {period_text(d.start, d.end)}",
                                          MetadataPredicate(field="year", start=d.start, end=d.end, negate=True))))
    return out


def _type_checkpoint(ts: list, types: list, negated: bool, kind_of_venue: bool, restated) -> tuple[int, Checkpoint]:
    """The publication-type checkpoint of the mentions ``ts`` (of one polarity; their kinds of venue
    when ``kind_of_venue``, else their kinds of paper): alternatives of one kind, positive ones a
    preference unless stated with "only"."""
    values = list(dict.fromkeys(x for t in ts for x in t.values if (x in VENUE_KINDS) == kind_of_venue))
    if negated and any("meta-analysis" in t.values for t in types if not t.negated):
        # "only meta-analyses, not reviews": a meta-analysis is a review of studies
        values = [NON_META_REVIEW if v == "survey" else v for v in values]
    # a positive type is a preference unless stated with "only": types come from sparse
    # metadata or title cues, so absence of a cue is no proof (an exact filter lost 91 % of the
    # relevant papers of a "Surveys of ..." dev intent); exclusions stay exact
    weight = EMPIRICAL_WEIGHT if not negated and not any(t.only for t in ts) else 1.0
    if negated and all(restated.is_soft(t.position) for t in ts):  # "preferably not surveys"
        weight = EMPIRICAL_WEIGHT
    say = ("Is not " if negated else "Is ") + " or ".join(_TYPE_NAMES[v] for v in values)
    if weight < 1.0:
        say += " (preference)"
    return ts[0].position, _meta(say, MetadataPredicate(field="publication_type", values=values, negate=negated), weight,
                                 terms=[t.phrase for t in ts])


def exclusion_checkpoint(cid: str, phrase: str, terms: list[str], source: str = "intent") -> Checkpoint:
    """The exclusion of ``phrase``: a paper about any of its ``terms``, of their irregular
    other number ("mouse" -> "mice", ``grammar.number_variants``) or, for a term naming animals
    in general ("animal models", "rodent"), of a laboratory species (``organisms.species_of``:
    "mice", "rats", "murine"), violates it (``any_of``)."""
    terms = list(dict.fromkeys([*terms, *(v for t in terms for v in number_variants(t)),
                                *(v for t in terms for v in species_of(t))]))
    return Checkpoint(id=cid, kind="exclusion", text=f"The paper is not about {phrase}", terms=terms,
                      any_of=len(terms) > 1, source=source)


def _content(cid: str, facet: Facet) -> Checkpoint:
    phrase = f" {facet.joiner} ".join(facet.phrases)
    if facet.kind == "topic":
        text = f"The paper studies {phrase}"
    elif facet.kind == "method":
        text = f"The paper uses {phrase}"
    elif facet.kind == "data":
        text = f"The paper uses or evaluates on {phrase}"
    else:
        cue = facet.cue
        if cue in ("across", "within", "in") or cue.startswith("in the"):
            text = f"The work is applied {cue} {phrase}"
        elif cue in ("for", "targeting", "aimed at", "for use in") or cue.startswith("tailored"):
            text = f"The work is aimed at {phrase}"
        else:
            text = f"The work is applied to {phrase}"
    return Checkpoint(id=cid, kind=facet.kind, text=text, terms=list(facet.terms),
                      any_of=facet.joiner == "or" and len(facet.terms) > 1)
