"""No-LLM intent analysis: a natural-language intent -> a typed checklist.

    from litnav.navigator.intent import parse_intent, describe
    checklist = parse_intent("empirical studies of federated learning across hospitals for "
                             "medical imaging, in Nature Medicine or IEEE TMI, 2023 to Oct 2025, "
                             "not surveys", venues=corpus.venues())
    print(describe(checklist))

Modules, one concept each: ``text`` (normalisation, consumed spans, negation cues), ``dates``,
``venues`` (+ ``navigator/data/venues.json``), ``pubtypes``, ``authors``, ``grammar`` (word
classes from a general English lexicon), ``keyphrases`` (concepts: boundaries from grammar and
the corpus phrase table ``corpus.phrases``), ``facets`` (content exclusions; concepts typed
topic/method/application/data by their cue words), ``claims`` (claim mode), ``passage`` (passage mode: a pasted
abstract states no constraints), ``parser``
(assembles the checklist: the whole intent is always ``c1``), ``describe`` (rendering).
"""

from litnav.navigator.intent.describe import describe
from litnav.navigator.intent.parser import EMPIRICAL_WEIGHT, parse_intent
from litnav.navigator.intent.pubtypes import PUBLICATION_TYPES

__all__ = ["parse_intent", "describe", "PUBLICATION_TYPES", "EMPIRICAL_WEIGHT"]
