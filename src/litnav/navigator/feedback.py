"""Rule-based feedback parsing: one line of user feedback -> typed edits of checklist and workflow.

The feedback is read with the intent machinery (``navigator.intent.parse_intent``) for metadata
constraints ("only papers after 2019", "only NeurIPS", "not surveys", "more recent") and
exclusions, plus patterns for what only makes sense between turns:

- citation direction: "follow the citing direction of the top paper", "papers that cite #2",
  "follow-up work of the first paper" (``citing``); "what does the top paper cite", "references
  of paper 3", "predecessors of ..." (``cited``);
- exclusion: "drop/remove/exclude/filter out anything about X", "no X", "without X", "I'm not
  interested in X", "the X ones are irrelevant" (``intent.wishes``); "fewer X" / "less X" / "too
  many X" demote X rather than filter it out;
- result size: "show 20 results", "only the top 5";
- pin/ban: "pin paper 2", "ban #3", "remove paper 4" (a rank, a corpus id, or a quoted title);
  "not #1 and not #4", "#3 is irrelevant", "not #2 or #5", "exclude results 1-3" ban too;
- checkpoints: "focus on X" / "prioritise X" (add a topic), "more like #2" / "papers similar to
  the top paper" (a topic named by that paper's title, searched densely by its title + abstract),
  "X matters more/less" (reweight), "ignore the year (venue, type, author) constraint" / "drop
  checkpoint m1" (drop; a constraint the search does not have is a ``FeedbackError``);
- the branch question's answer: "branch a", "a", "[b]" (``navigator.branches.branch_answer``).

Paper references: "the top paper"/"the first paper"/"paper N"/"#N"/"the Nth paper" are ranks in
the current results; a corpus id is taken as is. Each edit carries the phrase it came from.
"""

from __future__ import annotations

import re
from datetime import date

from litnav.core.records import Checklist, Checkpoint, Edit, Workflow
from litnav.core.text import stop_words
from litnav.corpus.phrases import corpus_phrases
from litnav.navigator.anchor import NOT_OLDER
from litnav.navigator.feedback_wording import ORDINALS, RULE_FIELDS, plain_feedback
from litnav.navigator.intent import parse_intent
from litnav.navigator.intent.dates import YEAR_PATTERN
from litnav.navigator.intent.grammar import english_word
from litnav.navigator.intent.parser import ContradictoryDates, exclusion_checkpoint, period_text
from litnav.navigator.intent.wishes import restate_wishes
from litnav.navigator.planner import relax_unsatisfiable
from litnav.navigator.word_family import widened

_ORDINALS = {"top": 1, "best": 1, **ORDINALS, "last": -1}
_PAPER_REF = (r"(?:the\s+)?(?:(?P<ord>top|first|best|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last)"
              r"(?:\s+(?:paper|result|one|hit))?|(?:paper|result|hit|no\.?|number)\s*#?(?P<num>\d+)(?![\w\-/:]|\.\w)|#(?P<hash>\d+)"
              r"|\"(?P<title>[^\"]{4,})\"|(?:(?:paper|result|id)\s+)?(?P<cid>[\w.\-/:]*\d[\w.\-/:]*))")
_CITING = re.compile(
    r"(?:citing\s+direction|papers?\s+(?:that\s+|which\s+)?cit(?:e|ing)|follow[\s-]*ups?(?:\s+work)?|"
    r"successors?|cited\s+by|work\s+(?:that\s+)?builds?\s+on|who\s+cites?|what\s+(?:else\s+)?(?:cites?|has\s+cited)"
    r"|later\s+work)"
    r"(?:\s+(?:of|to|on|for))?\s+" + _PAPER_REF, re.I)
_CITED = re.compile(
    r"(?:cited\s+direction|references?|predecessors?|(?:what|papers?)\s+(?:does\s+)?\S*\s*cites?|"
    r"background|prior\s+work|earlier\s+work)(?:\s+(?:of|from|in|by))?\s+" + _PAPER_REF, re.I)
_CITED_REVERSE = re.compile(r"(?:what|which)(?:\s+papers?)?\s+(?:does|did)\s+" + _PAPER_REF
                            + r"\s+(?:cite|build\s+on|rely\s+on|draw\s+on)", re.I)
_EXCLUDE = re.compile(
    r"\b(?:drop|remove|exclude|filter\s+out|get\s+rid\s+of|skip|hide|no\s+more|no|without|not)\s+"
    r"(?:(?:anything|everything|all|any|the\s+ones|those|papers?|work|results?)\s+)?"
    r"(?:(?:that\s+(?:is|are)\s+)?(?:about|on|mentioning|related\s+to|concerning|involving|using)\s+)"
    r"(?P<what>[\w\s\-]+?)(?:\s+papers?)?\s*(?:[,.;?!]|$|\band\b)", re.I)
_TOP_K = re.compile(r"\b(?:show|give|return|list)(?:\s+me)?\s+(?:only\s+)?(?:the\s+)?(?:top\s+|first\s+)?(?P<n>\d+)|"
                    r"\bonly\s+(?:the\s+)?(?:top|first)\s+(?P<m>\d+)|\b(?P<o>\d+)\s+results\b"
                    r"|\btop\s+(?P<p>\d+)\s+only\b", re.I)
_MORE_RESULTS = re.compile(r"\b(?:more\s+results|(?:show|give)\s+(?:me\s+)?more(?:\s+results)?|see\s+more)\s*(?=$|[,.;!])",
                           re.I)
"""Ten more results than shown ("more results", "show me more")."""
_PIN_VERB = r"pin|keep|ban|remove|drop|discard"
_PIN = re.compile(rf"\b(?P<verb>{_PIN_VERB})\s+" + _PAPER_REF + rf"(?=\s*(?:[,.;]|$|\b(?:and|but)\b|\b(?:{_PIN_VERB})\b))",
                  re.I)
""""pin #1", "ban paper 3", each ended by punctuation, "and", the end or the next such verb
("pin #1 pin #2 pin #3" pins all three)."""
_NOT_PAPER = re.compile(r"\b(?:not|no|exclude|hide|skip|without)\s+" + _PAPER_REF
                        + r"(?=\s*(?:[,.;]|$|\band\b|\bor\b))", re.I)
_IRRELEVANT = re.compile(r"(?<![\w#])" + _PAPER_REF + r"\s+(?:is|are|seems|looks)\s+"
                         r"(?:irrelevant|off[\s-]topic|not\s+relevant|unrelated|wrong)\b", re.I)
"""A result put aside by ordinal or quoted title: "not the second one", "the top paper is off-topic"
(by rank: :data:`_RANKS_PUT_ASIDE`; never a bare id: "not 2019" is a year)."""
_RANK = r"(?:#\s*\d+|(?:results?|papers?|hits?|numbers?|nos?\.?)\s*#?\d+|\d+)(?:\s*(?:-|–|to)\s*#?\d+)?"
_RANK_LIST = (r"(?:(?:results?|papers?|hits?|numbers?|nos?\.?)\s*#?\s*|#\s*)\d+(?:\s*(?:-|–|to)\s*#?\d+)?"
              r"(?:\s*(?:,|/|\bor\b|\band\b|\bnor\b|,\s*(?:or|and|nor))\s*(?:not\s+|no\s+)?" + _RANK + ")*")
_BARE_RANKS = r"\d{1,3}(?:\s*(?:-|–|to)\s*\d{1,3})?(?:\s*(?:,|\band\b|\bor\b|,\s*(?:and|or))\s*\d{1,3})*"
_RANKS_PUT_ASIDE = re.compile(
    r"\b(?:not|no|drop|remove|exclude|ban|hide|skip|discard|without)\s+(?:the\s+)?(?P<list>" + _RANK_LIST + r")"
    r"(?=\s*(?:[,.;]|$|\b(?:and|but|also|then|please)\b))"
    r"|\b(?:drop|remove|ban|hide|discard)\s+(?P<list3>" + _BARE_RANKS + r")(?=\s*(?:[.;]|$|\b(?:but|also|then)\b))"
    r"|(?<![\w#])(?P<list2>" + _RANK_LIST + r"|" + _BARE_RANKS + r")\s+(?:(?:is|are|seems?|looks?)\s+"
    r"(?:irrelevant|off[\s-]topic|not\s+relevant|unrelated|wrong|not\s+what\s+(?:I|we)(?:'m|\s+am|'re|\s+are)?\s+"
    r"(?:want|need|looking\s+for))|(?:does|do)\s+not\s+interest\s+(?:me|us))\b", re.I)
"""Results put aside by rank, one or several in one phrase: "remove #2", "not #1 and not #4", "not
#2 or #5", "drop #3, #7", "exclude results 1-3", "not #2 nor #5", "#3 is irrelevant", "#2 and #5
are off-topic" (each rank, or each of a range; "not 2019" is no rank)."""


_PINS_BY_RANK = re.compile(r"\b(?:pin|keep)\s+(?:the\s+)?(?P<list>(?:" + _RANK_LIST + r"|" + _BARE_RANKS + r"))"
                           r"(?=\s*(?:[.;]|$|\b(?:but|also|then)\b))", re.I)
"""Results kept at the top by rank, one or several: "pin #1 and #2", "keep 1 and 2", "pin results 1-3"."""
_TYPO_DATE = re.compile(r"\b(?P<cue>(?!(?i:in|on|of|from|since|after|before|until|till|during|by|to|and|or|the|only|than"
                        r"|papers?|work|studies|articles?|year|years|published|pre|post|circa|around|about)\b)"
                        r"[a-z]{3,6})\s+(?P<year>(?:19|20)\d\d)\b(?!\s*(?:-|–|to)\s*\d)")
"""A word that is no date cue right before a year ("aftr 2010", "snce 2010"): else the year alone
reads as "in 2010", a one-year filter (:func:`parse_feedback` checks it is no English word)."""


def _ranks(listed: str) -> list[int]:
    """The ranks a :data:`_RANK_LIST` names, ranges expanded, in order without repeats."""
    out: list[int] = []
    for m in re.finditer(r"(\d+)(?:\s*(?:-|–|to)\s*#?(\d+))?", listed):
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        out += [r for r in range(lo, min(hi, lo + 100) + 1) if r not in out]
    return out


_MORE_LIKE = re.compile(r"\b(?:more|papers?|others?|work)\s+(?:papers?\s+)?(?:like|similar\s+to)\s+" + _PAPER_REF, re.I)
_FOCUS = re.compile(r"\b(?:focus\s+on|concentrate\s+on|prioriti[sz]e|more\s+(?:about|on)|emphasi[sz]e"
                    r"|should\s+(?:also\s+)?(?:cover|address)|(?:I|we)\s+care\s+(?:most\s+|mainly\s+)?about"
                    r"|(?:I'?m|I\s+am|we'?re|we\s+are)\s+(?:mostly|mainly|especially|particularly|most)\s+interested\s+in"
                    r"|(?:I|we)\s+want\s+more|more\s+papers?\s+(?:about|on)"
                    r"|(?:^|(?<=[,;.]\s)|(?<=[,;.]))more(?!\s+(?:results?|papers?|like|similar|recent|newer|from|by|of"
                    r"|than|#)\b))\s+"
                    r"(?P<what>[\w\s\-]+?)(?:\s+papers)?\s*(?=[,.;]|$|\b(?:but|not|nothing|without|except)\b"
                    r"|\band\s+(?:drop|remove|pin|ban|keep|show|give|only|exclude|no"
                    r"|not|since|after|before|ignore|follow)\b)", re.I)
_REWEIGHT = re.compile(r"(?P<what>[\w\s\-]+?)\s+(?:matters?\s+(?P<dir>more|less|most)(?:\s+important)?"
                       r"|(?:is|are)\s+(?P<dir2>more|less)\s+important)\b", re.I)
_FIELD = RULE_FIELDS
_DROP_CP = re.compile(
    rf"\b(?:(?:ignore|drop|relax|remove|lift|no|undo|revert|get\s+rid\s+of|lose)\s+(?:the\s+)?(?:(?P<field>{_FIELD})\s+"
    r"(?:constraint|filter|requirement|restriction|limit|cut-?off)"
    r"|(?P<word>checkpoints?\s+)?(?P<cid>[a-z]\d+(?:(?:\s*,\s*|\s+and\s+)(?:checkpoint\s+)?[a-z]\d+)*))"
    rf"|(?:never\s+mind|forget(?:\s+about)?)\s+(?:the\s+)?(?P<field2>{_FIELD})"
    r"(?:\s+(?:constraint|filter|requirement|restriction|limit))?"
    rf"|(?:any|all)\s+(?P<field3>{_FIELD})s?\s+(?:is|are)\s+(?:fine|ok|okay)"
    r"|(?:put|bring)\s+(?:the\s+)?(?P<type1>surveys?|reviews?)\s+back|(?P<type2>surveys?|reviews?)\s+(?:is|are)\s+"
    r"(?:fine|ok|okay|welcome)|include\s+(?:the\s+)?(?P<type3>surveys?|reviews?)(?:\s+again)?)\b", re.I)


_HEDGE = (r"(?:(?:maybe|perhaps|possibly|ideally|probably|slightly|somewhat|there\s+are|a\s+(?:bit|little|few|lot)"
          r"|way|far|much|I\s+think|I\s+guess|hmm,?"
          r"|(?:could|can)\s+(?:we|you|I)\s+(?:have|get|see)|I'?d\s+(?:prefer|rather\s+have)|I\s+would\s+(?:prefer|rather\s+have)"
          r"|I\s+want|I'd\s+like|give\s+me|show(?:\s+me)?|please)\s+)*")
_FEWER = re.compile(r"(?P<lead>(?:^|(?<=[,;.])|\b(?:and|but)\s)\s*)" + _HEDGE
                    + r"(?:fewer|less|not\s+so\s+many|not\s+as\s+many|too\s+many)\s+(?!(?:important|recent|relevant)\b)", re.I)
"""A clause asking for less of something: "fewer theoretical papers", "less theory", "too many
surveys". Rewritten to "preferably not ...", it becomes a preference (``intent.wishes``): a
negated type of weight < 1 or an exclusion that demotes what it names and filters nothing."""


_FINE = re.compile(r"(?:^|(?<=[,;.]))\s*(?:actually,?\s+)?(?:(?:the|all)\s+)?(?P<what>[\w\s\-]+?)"
                   r"(?:\s+(?:papers|ones|results|studies|articles))?\s+(?:is|are)\s+(?:fine|ok|okay|welcome|acceptable|allowed)"
                   r"(?:\s+(?:too|as\s+well|again|after\s+all))?\s*(?=$|[,;.!])", re.I)
"""What the user lets back in ("TACL papers are fine too", "speech is ok after all"): the
constraints that leave it out are dropped."""
_NOT_ONLY = re.compile(r"\bnot\s+(?:only|just)\s+(?P<what>[\w\s\-]+?)(?:\s+(?:papers|ones))?\s*(?=$|[,;.!?])", re.I)
"""A constraint to widen ("not only TACL"): the one that keeps to it is dropped."""
_MIXED = re.compile(r"\b(?i:not|no|exclude|excluding|without|skip)\s+(?i:the\s+)?(?:"
                    r"(?i:(?P<what>(?:(?!(?:and|or|but|the)\b)[\w-]+\s+){1,4}?)"
                    r"(?:papers?|work|studies|articles)\s+(?:from\s+|published\s+)?(?:before|after|since|until|prior\s+to"
                    r"|earlier\s+than|older\s+than)\s+" + YEAR_PATTERN + r"\b"
                    r"|(?:old|older|outdated|new|newer|recent)\s+(?P<what2>(?:(?!(?:and|or|but|the|papers?)\b)[\w-]+\s+){1,3})"
                    r"(?:papers?|work|studies|articles|ones)\b))")
"""A topic, venue or type left out for a period only ("exclude speech papers from before 2010",
"drop the old LREC papers"): no one constraint says it ("excluding EMNLP 2020", one edition, is a
negated ``venue_year`` the intent parser reads)."""
_UNDO_NAMED = re.compile(r"\b(?:undo|lift|remove|drop|ignore|relax|get\s+rid\s+of|forget|never\s*mind)\s+(?:the\s+)?(?P<what>[\w\-]+(?:\s+[\w\-]+)?)"
                         r"\s+(?:filter|constraint|exclusion|restriction|requirement)\b", re.I)
"""A constraint named by what it names ("undo the LREC filter", "drop the Twitter exclusion")."""
_NO_REQUIREMENT = re.compile(r"^\s*(?P<what>[\w\s\-]+?)\s+is\s+no\s+requirement\s*$", re.I)
"""What the user does not require (``feedback_wording``: "X not required"): a focus on it is dropped."""
_EXCEPT_RESULT = re.compile(r"\b(?:except(?:\s+for)?|apart\s+from|but\s+not|other\s+than)\s+"
                            r"(?:#\s*\d+|(?:results?|papers?|hits?|numbers?|nos?\.?)\s*#?\d+)", re.I)
"""A result kept past a filter ("no LREC except #2"), which a filter cannot do."""


def _letting_back(what: str, checklist: Checklist) -> list[str]:
    """Ids of the checkpoints that leave ``what`` out: negated venues, types or authors that name
    it, and exclusions with it among their terms (case and a plural "s" aside)."""
    key = re.sub(r"s$", "", what.lower().strip())
    out = []
    for c in checklist.checkpoints:
        if c.predicate is not None and c.predicate.negate:
            names = [*c.predicate.values, c.text]
        elif c.kind == "exclusion":
            names = list(c.terms)
        else:
            continue
        if key and any(_names(key, re.sub(r"s\b", "", n.lower())) for n in names):
            out.append(c.id)
    return out


def _names(key: str, name: str) -> bool:
    """True when ``key`` is a whole-word part of ``name`` ("acl" of "ACL 2019", not of "TACL")."""
    return re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", name) is not None


def _kept_to(what: str, checklist: Checklist) -> list[str]:
    """Ids of the metadata checkpoints that keep to ``what`` ("Published in TACL" for "TACL")."""
    key = what.lower().strip()
    return [c.id for c in checklist.checkpoints if c.kind == "metadata" and c.predicate is not None
            and not c.predicate.negate and key and any(_names(key, v.lower()) for v in [*c.predicate.values, c.text])]


def _focused_on(what: str, checklist: Checklist) -> list[str]:
    """Ids of the focus checkpoints feedback added on ``what`` ("focus on X", "must use X")."""
    key = what.lower().strip()
    return [c.id for c in checklist.checkpoints if c.source == "user" and c.kind not in ("metadata", "exclusion")
            and key and any(_names(key, t.lower()) for t in [*c.terms, c.text])]


def _named_by(what: str, checklist: Checklist) -> list[str]:
    """Ids of the checkpoints that name ``what`` either way ("undo the LREC filter")."""
    return list(dict.fromkeys(_letting_back(what, checklist) + _kept_to(what, checklist)))


def _widening(what: str, checklist: Checklist, corpus) -> tuple[list[str], Checkpoint] | None:
    """For ``what`` let back in ("LREC too") where a wanted venue or type keeps to others ("only
    TACL"): the ids of those checkpoints and one checkpoint that wants either ("Published in TACL
    or LREC"); None when ``what`` is no venue or type, or nothing keeps to others."""
    venues = corpus.venues() if corpus is not None else None
    try:
        said = [c for c in parse_intent(f"papers in {what}", venues=venues).checkpoints + parse_intent(
            f"only {what}", venues=venues).checkpoints if c.predicate is not None
            and c.predicate.field in ("venue", "publication_type") and not c.predicate.negate]
    except ValueError:
        return None
    for new in said:
        cp, old = _widened(new, checklist)
        if old:
            return old, cp
    return None


class FeedbackError(ValueError):
    """The feedback names something that does not exist (a rank past the results, an unknown
    checkpoint); the message says what."""


_ODD_YEAR = re.compile(rf"\b(?:after|since|before|until|till|from|in)\s+(?P<year>(?!{YEAR_PATTERN}\b)\d{{4}})"
                       r"(?=\s*(?:$|[,.;!?)]|\b(?:and|or)\b))", re.I)
"""A date cue before a four-digit number outside the years the date reader knows, ending the
phrase ("after 3000", "only papers from 3000"; not "after 1000 steps", "in 1000 documents")."""


def _require_edges(seed: str, direction: str, corpus, said: str) -> None:
    """Raise ``FeedbackError`` when ``corpus`` holds no citation edge from (``cited``) or to
    (``citing``) ``seed`` among its papers: following it would add nothing and only reshuffle."""
    if corpus is None or not hasattr(corpus, "citations"):
        return
    if direction == "citing":
        found = bool(corpus.citations(seed))
    else:
        found = bool(corpus.papers([e.cited_id for e in corpus.references(seed)]))
    if not found:
        what = (f"no paper of this corpus cites {seed}" if direction == "citing"
                else f"{seed} cites no paper of this corpus")
        stats = f"litnav stats --corpus {corpus.directory}" if getattr(corpus, "directory", None) else "litnav stats"
        raise FeedbackError(f"{said!r}: {what} in its citation edges (`{stats}` counts them), so there is "
                            "nothing to follow; 'more like #N' searches for similar papers instead")


def _focus(scratch: Checklist, what: str, text: str, reason: str, query: str | None = None,
           semantic_query: str | None = None) -> Edit:
    """A user topic checkpoint ``text`` on ``what`` (added to ``scratch``) and the edit that adds it
    with its own retrieval branches (role ``focus``, queried with ``query``, default ``what``). With
    ``semantic_query`` (a paper's title + abstract, "more like #2") only the dense branch, queried
    with it (detail ``channels``): BM25 over a title's words finds papers sharing one of them."""
    cp = Checkpoint(id=_next_id("c", scratch), kind="topic", text=text, terms=[what], source="user")
    scratch.checkpoints.append(cp)
    detail = {"checkpoint": cp.model_dump(mode="json"), "role": "focus", "query": query or what}
    return Edit(action="add_checkpoint", target=cp.id, reason=reason, detail=detail | (
        {"semantic_query": semantic_query, "channels": ["semantic"]} if semantic_query else {}))


def _within_topic(what: str, checklist: Checklist) -> str:
    """The query of "focus on ``what``": it and the intent's topic (checkpoint c1), so "focus on
    infants" in a search on obesity searches infants *with* obesity, not infants alone."""
    topic = next((c.text for c in checklist.checkpoints if c.id == "c1" and c.kind != "metadata"), "")
    return what if not topic or what.lower() in topic.lower() else f"{what} {topic}"


UNMENTIONED_DEPTH = 50
"""BM25 hits per term that :func:`_unmentioned` reads for the term as the exclusion filter matches it."""


def _unmentioned(terms: list[str], corpus) -> dict[str, bool]:
    """``{"unmentioned": True}`` when no paper of ``corpus`` mentions any of ``terms`` as the
    exclusion filter matches them (``librarians.operators.text.matching_terms`` on title +
    abstract of each term's best :data:`UNMENTIONED_DEPTH` BM25 hits): the exclusion removes
    nothing, and is most often misspelt ("exclude reinforcment learnng"); the results say so
    (``session.render.result_notes``). ``{}`` otherwise, or without a corpus that searches lexically."""
    from litnav.librarians.operators.text import matching_terms

    if corpus is None or not hasattr(corpus, "lexical_search"):
        return {}
    for term in terms:
        hits = [h.corpus_id for h in corpus.lexical_search(term, UNMENTIONED_DEPTH)]
        papers = corpus.papers(hits) if hits else {}
        texts = corpus.abstracts(hits) if hits else {}
        if any(matching_terms(f"{p.title} {texts.get(cid) or ''}", [term]) for cid, p in papers.items()):
            return {}
    return {"unmentioned": True}


def _excluded(checklist: Checklist, terms: list[str]) -> bool:
    """True when ``checklist`` already has an exclusion of these terms (case ignored; with their
    irregular other number, ``parser.exclusion_checkpoint``: "mice" is already excluded by an
    exclusion of "mouse")."""
    want = {t.lower() for t in exclusion_checkpoint("x", " ".join(terms), list(terms)).terms}
    return any(c.kind == "exclusion" and {t.lower() for t in c.terms} == want for c in checklist.checkpoints)


def resolve_paper(m: re.Match[str], ranking: list[str], corpus=None) -> str:
    """The corpus id a ``_PAPER_REF`` match names (rank in ``ranking``, quoted title, or id).

    Raises ``FeedbackError`` for a rank past the results or an unknown title/id."""
    rank = None
    if m.group("ord"):
        rank = _ORDINALS[m.group("ord").lower()]
    elif m.group("num") or m.group("hash"):
        rank = int(m.group("num") or m.group("hash"))
    if rank is not None:
        if not ranking or rank > len(ranking) or rank == 0:
            raise FeedbackError(f"there is no result number {rank} (the results have {len(ranking)})")
        return ranking[rank - 1] if rank > 0 else ranking[-1]
    if m.group("title"):
        ids = corpus.find_by_title(m.group("title")) if corpus is not None else []
        if not ids:
            raise FeedbackError(f"no paper titled {m.group('title')!r} in the corpus")
        return ids[0]
    cid = m.group("cid")
    if corpus is not None and corpus.paper(cid) is None:
        raise FeedbackError(f"no paper {cid!r} in the corpus")
    return cid


def _next_id(prefix: str, checklist: Checklist) -> str:
    used = {c.id for c in checklist.checkpoints}
    n = 1
    while f"{prefix}{n}" in used:
        n += 1
    return f"{prefix}{n}"


def _same_predicate(a: Checkpoint, b: Checkpoint) -> bool:
    return a.predicate is not None and b.predicate is not None and a.predicate == b.predicate


def _refuse_contradiction(new: Checkpoint, kept: list[Checkpoint]) -> None:
    """Raise ``FeedbackError`` when the hard year range ``new`` and a hard year range in ``kept``
    admit no common date (the intent's "since 2015" and the feedback "only papers before 1900"),
    as the intent parser refuses contradictory dates."""
    p = new.predicate
    if p is None or p.field != "year" or p.negate or new.weight < 1.0:
        return
    for c in kept:
        q = c.predicate
        if c.kind != "metadata" or q is None or q.field != "year" or q.negate or c.weight < 1.0:
            continue
        if not _periods_meet(p, q):
            raise FeedbackError(f"{new.text!r} contradicts {c.id} {c.text!r}: no paper can satisfy both; say "
                                "'ignore the year constraint' first, or give a period that overlaps it")


def _periods_meet(p, q) -> bool:
    """True when the periods of two year predicates share a date (an open end meets everything)."""
    lo = max((d for d in (p.start, q.start) if d), default=None)
    hi = min((d for d in (p.end, q.end) if d), default=None)
    return not (lo and hi and lo > hi)


def _contains(wide, narrow) -> bool:
    """Whether the period of predicate ``wide`` holds all of ``narrow``'s (open ends unbounded)."""
    starts = wide.start is None or (narrow.start is not None and wide.start <= narrow.start)
    ends = wide.end is None or (narrow.end is not None and wide.end >= narrow.end)
    return starts and ends and (wide.start, wide.end) != (narrow.start, narrow.end)


def _overlaps(a: Checkpoint, b: Checkpoint) -> bool:
    """True when two metadata predicates of one field admit a common paper: shared venues or
    types, or year ranges that meet."""
    p, q = a.predicate, b.predicate
    if p.field == "year":
        return _periods_meet(p, q)
    return bool({v.lower() for v in p.values} & {v.lower() for v in q.values})


def _replaced_by(new: Checkpoint, checklist: Checklist) -> list[str]:
    """Ids of the user's earlier metadata checkpoints that feedback's ``new`` one replaces. A
    wanted venue, year or type replaces the user's earlier wanted ones of its field ("actually
    since 2012" after "since 2008", "only TACL" after "only ACL"; a soft one only the soft ones)
    and the exclusions it contradicts ("only LREC" after "no LREC"); a wider period replaces the
    intent's year too ("since 2008" after an intent's "since 2010"). An exclusion or a soft
    "fewer" replaces nothing: "no workshop papers" after "no LREC papers" keeps both."""
    p = new.predicate
    if p is None or p.negate:
        return []
    out = []
    for c in checklist.checkpoints:
        q = c.predicate
        if (c.kind == "metadata" and q is not None and p.field == q.field == "year" and not q.negate
                and c.source != "user" and _contains(p, q)):
            out.append(c.id)  # "since 2008" after the intent's "since 2010": a wider period, meant to widen
            continue
        if c.kind != "metadata" or q is None or q.field != p.field or c.source != "user" or (
                p.field == "venue_year" and q.values != p.values):
            continue
        if (not q.negate and new.weight >= c.weight) or (q.negate and _overlaps(new, c)):
            out.append(c.id)
    return out


_ALSO = re.compile(r"\b(?:also|too|as\s+well|in\s+addition)\b", re.I)


def _widened(new: Checkpoint, checklist: Checklist) -> tuple[Checkpoint, list[str]]:
    """A wanted year, venue or type said with "also" or "too" widens the checklist's wanted ones of
    its field: years to the span of all ("also include 2006 and 2007" after "since 2008" is since
    2006), venues and types to either ("tutorials too" after "only surveys"). The widened
    checkpoint and the ids it replaces."""
    field = new.predicate.field
    ranges = [c for c in checklist.checkpoints if c.kind == "metadata" and c.predicate is not None
              and c.predicate.field == field and not c.predicate.negate and (c.weight >= 1.0 or field != "year")]
    if not ranges:
        return new, []
    if field != "year":
        values = list(dict.fromkeys(v for c in [*ranges, new] for v in c.predicate.values))
        head = "Published in " if field == "venue" else "Is "
        text = head + " or ".join(dict.fromkeys(re.sub(r" \(preference\)$", "", c.text).removeprefix(head)
                                                for c in [*ranges, new]))
        return new.model_copy(update={"predicate": new.predicate.model_copy(update={"values": values}), "text": text,
                                      "weight": min(c.weight for c in [*ranges, new])}), [c.id for c in ranges]
    preds = [new.predicate, *(c.predicate for c in ranges)]
    start = None if any(p.start is None for p in preds) else min(p.start for p in preds)
    end = None if any(p.end is None for p in preds) else max(p.end for p in preds)
    widened_cp = new.model_copy(update={"predicate": new.predicate.model_copy(update={"start": start, "end": end}),
                                        "text": f"Published {period_text(start, end)}"})
    return widened_cp, [c.id for c in ranges]


_CORRECTION = re.compile(rf"\b(?:(?:(?:(?:sorry,?\s+)?I\s+meant?|make\s+(?:it|that)|(?:I\s+)?should\s+have\s+said)\s+"
                         rf"|^(?:oops|whoops|sorry|my\s+bad|correction|typo)\b[\s,:;.!-]*(?=(?:from\s+|since\s+)?"
                         rf"{YEAR_PATTERN}\s*[.!]*$))"
                         rf"(?:(?P<from>(?:from|since)\s+)|(?P<before>(?:before|until|up\s+to)\s+))?(?P<year>{YEAR_PATTERN})\b"
                         rf"(?!\s*(?:-|–|to|until|and|or)\s*\d)"
                         rf"(?:\s+on(?:wards?)?\b)?"
                         rf"(?:\s*,?\s*(?:not|instead\s+of|rather\s+than)\s+(?P<was>{YEAR_PATTERN})\b)?"
                         rf"|(?P<year2>{YEAR_PATTERN})\s*,?\s+(?:instead\s+of|rather\s+than)\s+(?P<was2>{YEAR_PATTERN})\b)", re.I)
"""A year said again as a correction: "I meant 2012, not 2010", "sorry, I meant from 2012",
"make that 2015", and a year alone after "oops" or "sorry" ("oops, 2012")."""


def _correction(m: re.Match[str], checklist: Checklist) -> tuple[str, str] | None:
    """For the correction ``m`` (:data:`_CORRECTION`): the id of the year checkpoint it corrects
    and the corrected period in words the intent parser reads, keeping the period's form ("since
    2010" corrected to 2012 is "since 2012", "2005 to 2010" with "not 2010" is "2005 to 2012");
    None when no one year checkpoint is meant (then the year is read as said)."""
    year = int(m.group("year") or m.group("year2"))
    was = int(m.group("was") or m.group("was2")) if (m.group("was") or m.group("was2")) else None
    ranges = [c for c in checklist.checkpoints if c.kind == "metadata" and c.predicate is not None
              and c.predicate.field == "year" and not c.predicate.negate]
    left_out = [c for c in checklist.checkpoints if c.kind == "metadata" and c.predicate is not None
                and c.predicate.field == "year" and c.predicate.negate and c.predicate.start and c.predicate.end
                and c.predicate.start.year == c.predicate.end.year == was]
    if was is not None and len(left_out) == 1:  # "no 2010 papers", then "I meant 2011, not 2010"
        return left_out[0].id, f"not in {year}"
    if was is not None:
        ranges = [c for c in ranges if was in {d.year for d in (c.predicate.start, c.predicate.end) if d}
                  or (c.predicate.end is not None and c.predicate.end.year == was - 1 and c.predicate.start is None)
                  or (c.predicate.start is not None and c.predicate.start.year == was + 1 and c.predicate.end is None)]
    if m.group("before"):  # "I meant before 2012": the period said, in place of the one year constraint
        return (ranges[0].id, f"{m.group('before').strip()} {year}") if len(ranges) == 1 else None
    if len(ranges) != 1:
        return None
    start, end = ranges[0].predicate.start, ranges[0].predicate.end
    if m.group("from") or (start and not end):
        said = f"after {year}" if was is not None and start and start.year == was + 1 and not m.group("from") else f"since {year}"
    elif end and not start:
        said = f"before {year}" if was is not None and end.year == was - 1 else f"until {year}"
    elif start.year == end.year:
        said = f"in {year}"
    elif was == start.year:
        said = f"{year} to {end.year}"
    elif was == end.year:
        said = f"{start.year} to {year}"
    else:
        return None
    return ranges[0].id, said


def _metadata_edits(scratch: Checklist, cp: Checkpoint, old: list[str], how: str, reason: str | None) -> list[Edit]:
    """Edits adding the metadata checkpoint ``cp`` as the user's (the next free "m" id, appended to
    ``scratch``) after dropping the ``old`` ids it replaces ("replaced by", "widened to"); a hard
    one filters, a soft one is a preference. ``reason`` defaults to the new checkpoint's text."""
    new = cp.model_copy(update={"id": _next_id("m", scratch), "source": "user"})
    scratch.checkpoints.append(new)
    return [*(Edit(action="drop_checkpoint", target=cid, reason=f"{how} {new.text!r}") for cid in old),
            Edit(action="add_checkpoint", target=new.id, detail={
                "checkpoint": new.model_dump(mode="json"), "role": "filter" if new.weight >= 1.0 else "prefer"},
                reason=reason or new.text)]


def top_k_edit(n: int, reason: str) -> Edit:
    """The edit that makes a turn return ``n`` results ("show 20 results", ``litnav refine --top``)."""
    return Edit(action="set_param", target="top_k", detail={"role": "top_k", "param": "top_k", "value": n},
                reason=reason)


_NAMED_PAPERS = re.compile(r"(?<![\w#])(?P<more>more\s+)?(?P<name>[A-Z][a-z]+(?:\s+(?:[A-Z]\.|[a-z]{1,3}))*(?:\s+[A-Z][\w'-]+)+?)(?:'s)?"
                           r"\s+(?P<what>papers?|work|articles?|publications?)\b")
"""A capitalised name before "papers" ("no Hermann Ney papers"): papers by that person, when the
corpus lists an author of that whole name (else a topic: "no Machine Translation papers"); "more
Hermann Ney papers" prefers them, as "more papers by" does."""


def _authors_named(text: str, corpus) -> str:
    """``text`` with "<name> papers" said as "papers by <name>" wherever the corpus lists an
    author of that whole name (``Corpus.has_author(full=True)``); unchanged without a corpus."""
    if corpus is None or not hasattr(corpus, "has_author"):
        return text
    return _NAMED_PAPERS.sub(lambda m: f"{'preferably ' if m.group('more') else ''}{m.group('what')} by {m.group('name')}"
                             if corpus.has_author(m.group("name"), full=True) else m.group(0), text)


def _named_most(checklist: Checklist, words: list[str]) -> Checkpoint | None:
    """The checkpoint whose text and terms hold most of ``words``, a concept before the whole intent
    (c1 holds every word of the intent): "deep neural networks matter less" is its facet, not c1;
    None when no checkpoint holds any."""
    def held(c: Checkpoint) -> int:
        text = (c.text + " " + " ".join(c.terms)).lower()
        return sum(w in text for w in words)

    best = max(checklist.checkpoints, key=lambda c: (held(c), c.id != "c1"), default=None)
    return best if best is not None and held(best) else None


def parse_feedback(
    feedback: str,
    checklist: Checklist,
    workflow: Workflow,
    ranking: list[str],
    corpus=None,
    today: date | None = None,
) -> list[Edit]:
    """Typed edits for ``feedback`` given the current turn (see the module docstring).

    ``ranking`` is the current result list (corpus ids, best first). Edits are abstract
    (``add_checkpoint`` with the checkpoint, ``set_param`` on a role such as ``citation``,
    ``exclude``, ``top_k``); ``navigator.refine.apply_edits`` wires them into the workflow.
    Raises ``FeedbackError`` when the feedback refers to a missing result or checkpoint and
    ``ValueError`` when nothing in it could be understood.
    """
    text = " ".join(feedback.split())
    text = restate_wishes(_authors_named(plain_feedback(text, len(ranking)), corpus), opening=True,
                          keep_soft=True).text  # "I'm not interested in #2" -> "not #2"
    fix = _CORRECTION.search(text)
    for odd in (m for m in _TYPO_DATE.finditer(text) if not english_word(m.group("cue").lower())
                and not (fix and fix.start() <= m.start() < fix.end())):  # "oops 2012" corrects
        raise FeedbackError(f"{odd.group(0)!r}: {odd.group('cue')!r} is no word litnav reads before a year; say "
                            f"'since {odd.group('year')}', 'after {odd.group('year')}', 'before {odd.group('year')}' "
                            f"or 'in {odd.group('year')}'")
    if odd := _ODD_YEAR.search(text):  # else "before 1500" would become an exclusion of those words
        raise FeedbackError(f"{odd.group(0)!r}: {odd.group('year')} is no year litnav reads as a date (1800-2099)")
    if not text:
        raise ValueError("the feedback is empty")
    if mixed := _MIXED.search(text):
        what = " ".join((mixed.group("what") or mixed.group("what2")).split())
        raise FeedbackError(f"{mixed.group(0)!r} leaves out {what} papers of one period only, which no one constraint "
                            f"says: give the two wishes apart, e.g. 'no {what}' and 'only papers since 2010'")
    if kept := _EXCEPT_RESULT.search(text):
        raise FeedbackError(f"{kept.group(0)!r}: a result cannot be kept past a filter that leaves it out; say 'fewer "
                            "X' (a preference, which filters nothing) and pin the result ('pin #2')")
    edits: list[Edit] = []
    corrected: list[str] = []  # year checkpoints a correction ("I meant 2012, not 2010") replaces
    if fix:
        if (found := _correction(fix, checklist)) is None and (fix.group("from") or fix.group("before")):
            found = ("", f"{(fix.group('from') or fix.group('before')).strip()} {fix.group('year')}")  # as said
        if found is None:
            year = fix.group("year") or fix.group("year2")
            raise FeedbackError(f"{fix.group(0)!r}: it is not clear which period this corrects; say the whole period "
                                f"you want ('since {year}', 'before {year}', '2005 to {year}')")
        corrected += [found[0]] if found[0] else []
        text = f"{text[:fix.start()]}{found[1]}{text[fix.end():]}"
    scratch = Checklist(intent=checklist.intent, checkpoints=list(checklist.checkpoints))
    already: list[str] = []
    consumed: list[tuple[int, int]] = []

    def take(m: re.Match[str]) -> str:
        consumed.append(m.span())
        return m.group(0).strip()

    for rx, direction in ((_CITED_REVERSE, "cited"), (_CITING, "citing"), (_CITED, "cited")):
        for m in rx.finditer(text):
            if any(s <= m.start() < e for s, e in consumed):
                continue
            seed = resolve_paper(m, ranking, corpus)
            _require_edges(seed, direction, corpus, m.group(0).strip())
            edits.append(Edit(action="add_node", target=f"cite_{direction}", detail={
                "role": "citation", "direction": direction, "seed_ids": [seed]}, reason=take(m)))
    def by_rank(action: str, m: re.Match[str], listed: str) -> None:
        for rank in _ranks(listed):
            if not ranking or rank < 1 or rank > len(ranking):
                raise FeedbackError(f"{m.group(0).strip()!r}: there is no result number {rank} (the results have "
                                    f"{len(ranking)})")
            if not any(e.action == action and e.target == ranking[rank - 1] for e in edits):
                edits.append(Edit(action=action, target=ranking[rank - 1], reason=m.group(0).strip()))
        take(m)

    for m in _RANKS_PUT_ASIDE.finditer(text):
        by_rank("ban", m, m.group("list") or m.group("list2") or m.group("list3"))
    for m in _PINS_BY_RANK.finditer(text):  # "pin #1 and #2", "keep 1 and 2"; one rank: _PIN below
        if len(_ranks(m.group("list"))) > 1:
            by_rank("pin", m, m.group("list"))
    for m in _PIN.finditer(text):
        if any(s <= m.start() < e for s, e in consumed):
            continue
        verb = m.group("verb").lower()
        if verb in ("remove", "drop") and (m.group("cid") or "").lower() in {c.id for c in checklist.checkpoints}:
            continue  # "drop m2": the checkpoint (_DROP_CP), not a paper
        seed = resolve_paper(m, ranking, corpus)
        action = "pin" if verb in ("pin", "keep") else "ban"
        other = next((e for e in edits if e.action == ("ban" if action == "pin" else "pin") and e.target == seed), None)
        if other is not None:
            raise FeedbackError(f"{other.reason!r} and {m.group(0).strip()!r} name the same paper {seed}: "
                                "say one of them")
        edits.append(Edit(action=action, target=seed, reason=take(m)))
    for m in [*_NOT_PAPER.finditer(text), *_IRRELEVANT.finditer(text)]:
        if not (m.group("ord") or m.group("title")) or any(s <= m.start() < e for s, e in consumed):
            continue  # ranks were read above; a bare id is no result put aside ("not 2019")
        seed = resolve_paper(m, ranking, corpus)
        if any(e.action == "pin" and e.target == seed for e in edits):
            raise FeedbackError(f"{m.group(0).strip()!r} puts aside a paper the same feedback pins ({seed}): say one of them")
        if not any(e.action == "ban" and e.target == seed for e in edits):
            edits.append(Edit(action="ban", target=seed, reason=take(m)))
    for m in _EXCLUDE.finditer(text):
        if any(s <= m.start() < e for s, e in consumed):
            continue
        what = " ".join(m.group("what").split())
        if not what or what.lower() in ("paper", "papers", "results"):
            continue
        terms = [t for t in re.split(r"\s+or\s+|\s*/\s*", what, flags=re.I) if t]  # "crystals or materials": either
        if not any(w.lower() not in stop_words() for t in terms for w in re.findall(r"\w+", t)):
            raise FeedbackError(f"{take(m)!r} names nothing to exclude (only words such as {what!r})")
        if _excluded(scratch, terms):
            already.append(f"{what!r} is already excluded")
            take(m)  # no second checkpoint for the same exclusion
            continue
        cp = exclusion_checkpoint(_next_id("x", scratch), what, terms, source="user")
        if corpus is not None:  # its corpus word family too, as a search's exclusions
            cp = widened(cp, corpus, corpus_phrases(corpus))
        scratch.checkpoints.append(cp)
        edits.append(Edit(action="add_checkpoint", target=cp.id, detail={"checkpoint": cp.model_dump(mode="json"),
                                                                          "role": "exclude", "terms": cp.terms}
                          | _unmentioned(cp.terms, corpus), reason=take(m)))
    for m in _MORE_RESULTS.finditer(text):
        edits.append(top_k_edit(len(ranking) + 10, take(m)))
    for m in _TOP_K.finditer(text):
        group = next(g for g in ("n", "m", "o", "p") if m.group(g))
        n = int(m.group(group))
        if n < 1 or text[max(0, m.start(group) - 1)] == "-":
            raise FeedbackError(f"{feedback.strip()!r}: show at least one result")
        edits.append(top_k_edit(n, take(m)))
    for m in _DROP_CP.finditer(text):
        if m.group("cid"):  # "drop checkpoint x1", "remove checkpoints m1 and x2", "drop m2": a checkpoint by its id
            ids = [c.lower() for c in re.findall(r"\b[a-z]\d+\b", m.group("cid"), re.I)]
            if not m.group("word") and not set(ids) <= {c.id for c in checklist.checkpoints}:
                continue  # "drop b2" without "checkpoint" names a paper (_PIN) unless the checklist has that id
        else:
            said = (m.group("field") or m.group("field2") or m.group("field3")
                    or ("type" if m.group("type1") or m.group("type2") or m.group("type3") else ""))
            said_field = re.sub(r"^(?:19|20)\d\d$", "year", re.sub(r"s$", "", said.lower().split()[0]))
            field = {"date": "year", "type": "publication_type", "survey": "publication_type",
                     "review": "publication_type"}.get(said_field, said.lower().replace(" ", "_") if " " in said else said_field)
            fields = {field, "venue_year"} if field in ("year", "venue") else {field}  # "EMNLP 2019": venue and year
            ids = [c.id for c in checklist.checkpoints if c.kind == "metadata" and c.predicate is not None
                   and c.predicate.field in fields]
            if not ids:
                raise FeedbackError(f"the search has no {said.lower()} constraint to ignore")
        reason = take(m)
        for cid in ids:
            if cid not in {c.id for c in checklist.checkpoints}:
                raise FeedbackError(f"no checkpoint {cid!r} in the checklist")
            if cid == "c1":
                raise FeedbackError("c1 is the intent itself and cannot be dropped; start a new search to change it")
            edits.append(Edit(action="drop_checkpoint", target=cid, reason=reason))
    for rx, find, none in ((_FINE, _letting_back, "no constraint of the search leaves out"),
                           (_NOT_ONLY, _kept_to, "no constraint of the search keeps to"),
                           (_UNDO_NAMED, _named_by, "no constraint of the search names"),
                           (_NO_REQUIREMENT, _focused_on, "no focus of the search is on")):
        for m in rx.finditer(text):
            if any(s <= m.start() < e for s, e in consumed) or any(s < m.end() <= e for s, e in consumed):
                continue
            what = " ".join(m.group("what").split())
            ids = [cid for cid in find(what, checklist) if cid != "c1"]
            reason = take(m)
            if not ids and rx is _FINE and (wider := _widening(what, checklist, corpus)):
                old, cp = wider  # "LREC too" after "only TACL": TACL or LREC
                edits += _metadata_edits(scratch, cp, old, "widened to", reason)
                continue
            if not ids:
                already.append(f"{none} {what!r}")
                continue
            edits += [Edit(action="drop_checkpoint", target=cid, reason=reason) for cid in ids
                      if not any(e.action == "drop_checkpoint" and e.target == cid for e in edits)]
    for m in _MORE_LIKE.finditer(text):
        if any(s <= m.start() < e for s, e in consumed):
            continue
        if re.search(r"\b(?:fewer|less|no|not|nothing|without|avoid)\s+$", text[:m.start()], re.I):
            raise FeedbackError(f"{text[max(0, m.start() - 12):m.end()].strip()!r}: litnav cannot demote papers "
                                "similar to one; put that result aside ('drop #N') or focus on what you want "
                                "('focus on X')")
        cid = resolve_paper(m, ranking, corpus)
        paper = corpus.paper(cid) if corpus is not None else None
        what = " ".join((paper.title if paper is not None else cid).split())
        abstract = corpus.abstract(cid) if paper is not None and hasattr(corpus, "abstract") else None
        # searched by its title + abstract, densely: BM25 over its title's words, even beside the
        # search's topic, brought papers that share a word with it ("Visual" of "... Dense Visual
        # Representations")
        like = f"The paper is like {what!r}"
        if any(c.text == like for c in scratch.checkpoints):  # "more like #1" twice would count it twice
            already.append(f"{like!r} is already in the checklist")
            take(m)
            continue
        edits.append(_focus(scratch, what, like, take(m), _within_topic(what, checklist),
                            f"{what}. {abstract}" if abstract else None))
    for m in _FOCUS.finditer(text):
        what = " ".join(m.group("what").split())
        same = next((c for c in scratch.checkpoints if c.text.lower() == f"the paper is about {what}".lower()), None)
        if same is not None:  # "focus on X" twice would count X twice
            already.append(f"{same.id} {same.text!r} is already in the checklist")
            take(m)
            continue
        edits.append(_focus(scratch, what, f"The paper is about {what}", take(m), _within_topic(what, checklist)))
    for m in _REWEIGHT.finditer(text):
        what = m.group("what").lower().split()
        hit = next((c for c in checklist.checkpoints if what and what[-1] == c.id.lower()), None) or _named_most(
            checklist, [w for w in what if len(w) > 3])
        if hit is None and what and re.fullmatch(r"[a-z]\d+", what[-1]) and len(what) == 1:
            raise FeedbackError(f"{m.group(0).strip()!r}: no checkpoint {what[-1]!r} (the checklist has "
                                f"{', '.join(c.id for c in checklist.checkpoints)})")
        more = (m.group("dir") or m.group("dir2")).lower() in ("more", "most")
        if hit is not None:
            factor = 2.0 if more else 0.5
            edits.append(Edit(action="reweight_checkpoint", target=hit.id,
                              detail={"old": hit.weight, "new": round(hit.weight * factor, 3)}, reason=take(m)))
        elif more and what and not re.fullmatch(r"[a-z]\d+", what[-1]):  # "X matters most", X no checkpoint yet
            said = " ".join(m.group("what").split())
            edits.append(_focus(scratch, said, f"The paper is about {said}", take(m), _within_topic(said, checklist)))
    # metadata constraints and stated exclusions, read by the intent parser on what is left
    rest = text
    for s, e in sorted(consumed, reverse=True):
        rest = rest[:s] + " " + rest[e:]
    rest = _FEWER.sub(lambda m: m.group("lead") + "preferably not ", rest)  # a preference, read as one
    venues = corpus.venues() if corpus is not None else None
    newest = corpus.newest_date() if hasattr(corpus, "newest_date") else None
    try:
        parsed = (parse_intent(rest, venues=venues, today=today, newest=newest) if rest.strip(" ,.;and")
                  else Checklist(intent=""))
    except ContradictoryDates as exc:
        raise FeedbackError(str(exc)) from None
    except ValueError:  # nothing left that the intent parser reads
        parsed = Checklist(intent="")
    for cp in parsed.checkpoints:
        if cp.kind == "metadata" and cp.predicate is not None:
            same = next((c for c in scratch.checkpoints if _same_predicate(cp, c)), None)
            if same is not None and same.weight >= cp.weight and not same.text.endswith(NOT_OLDER):
                already.append(f"{same.id} {same.text!r} is already in the checklist")
                continue
            softer = [same.id] if same is not None else []  # "only TACL" after "ideally in TACL": now a filter
            if _ALSO.search(rest) and cp.predicate.field in ("year", "venue", "publication_type") and not cp.predicate.negate:
                cp, old = _widened(cp, checklist)  # "also include 2006 and 2007" after "since 2008": since 2006
            else:
                old = _replaced_by(cp, checklist)
                old += [cid for cid in corrected if cp.predicate.field == "year" and cid not in old]
            old += [cid for cid in softer if cid not in old]
            if cp.predicate.field == "year" and newest is None and hasattr(corpus, "newest_date"):
                where = getattr(corpus, "directory", None)
                raise FeedbackError(f"{cp.text!r}: no paper of this corpus has a publication year or date, so a "
                                    "date constraint cannot change the results (`litnav stats --corpus "
                                    f"{where or 'DIR'} --venues 5` lists the papers per year)")
            dropped = {e.target for e in edits if e.action == "drop_checkpoint"}  # "ignore the year constraint and ..."
            _refuse_contradiction(cp, [c for c in scratch.checkpoints if c.id not in old and c.id not in dropped])
            if corpus is not None and hasattr(corpus, "ids_matching"):  # as a search does: a filter
                cp = relax_unsatisfiable(Checklist(intent="", checkpoints=[cp]), corpus).checkpoints[0]  # nothing passes
            edits += _metadata_edits(scratch, cp, old, "replaced by", None)
        elif cp.kind == "exclusion":  # each one ("no speech; no Chinese"); what _EXCLUDE read is not in ``rest``
            if _excluded(scratch, cp.terms):
                already.append(f"{' '.join(cp.terms)!r} is already excluded")
                continue
            new = cp.model_copy(update={"id": _next_id("x", scratch), "source": "user"})
            scratch.checkpoints.append(new)
            role = "exclude" if new.weight >= 1.0 else "demote"  # "less theory": judged, never filtered out
            edits.append(Edit(action="add_checkpoint", target=new.id, detail={
                "checkpoint": new.model_dump(mode="json"), "role": role, "terms": list(new.terms)}
                | _unmentioned(cp.terms, corpus), reason=new.text))
    if not edits and already:
        hint = " (for a narrower period say e.g. 'only papers after 2021')" if any(
            a.startswith(f"{c.id} ") and c.predicate is not None and c.predicate.field == "year"
            for a in already for c in scratch.checkpoints) else ""
        raise FeedbackError(f"nothing to change: {'; '.join(dict.fromkeys(already))}{hint}")
    if not edits and (only := _ONLY_CONTENT.fullmatch(text.strip(" .!"))):  # "only cohort studies", "humans only"
        said = " ".join((only.group("a") or only.group("b")).split())
        if any(w.lower() not in stop_words() for w in re.findall(r"\w+", said)):
            edits.append(_focus(scratch, said, f"The paper is about {said}", text.strip(), _within_topic(said, checklist)))
    if not edits:
        raise ValueError(f"could not turn the feedback {feedback!r} into an edit; try e.g. 'only papers after "
                         "2019', 'follow the citing direction of the top paper', 'drop anything about speech', "
                         "'focus on X', 'c2 matters less', 'pin paper 2', 'show 20 results'" + _unasked_hint(feedback))
    return edits


_ONLY_CONTENT = re.compile(r"(?:only|just)\s+(?P<a>[\w\s\-]+?)(?:\s+(?:papers|ones))?"
                           r"|(?P<b>[\w\s\-]+?)(?:\s+(?:papers|ones))?\s+only", re.I)
"""Feedback that is "only X" where X is no date, venue, type or author (those the intent parser
read first): a focus on X ("only cohort studies", "humans only"), which ranks X first and drops nothing."""
_WHY = re.compile(r"\bwhy\b|\bexplain\b|\bwhat\s+is\s+#?\d+\s+about\b|\bhow\s+is\s+#?\d+\s+relevant\b", re.I)
_UNDO = re.compile(r"\b(?:undo|revert|go\s+back|previous\s+(?:turn|results?))\b", re.I)


def _unasked_hint(feedback: str) -> str:
    """Where feedback that asks a question or to undo is answered, since it is no edit."""
    if _WHY.search(feedback):
        return ("; a question about a result is answered by `litnav audit SESSION --paper ID` (each checkpoint's "
                "verdict with its quote)")
    if _UNDO.search(feedback):
        return ("; to undo an edit, name its inverse ('drop checkpoint x1', 'ignore the year constraint'), or refine "
                "with --out so the earlier session file stays as it was")
    return ""

