"""Web-to-repository verification: external scholarly search whose hits count only when they
map to a real corpus record, and the same matcher as a hallucination audit of reference lists.

- ``web_search(query, corpus, settings, limit) -> WebSearchOutcome`` (the ``web`` channel)
- ``Matcher(corpus).match(ExternalRecord) -> Match`` (id first, then title + author + year)
- ``verify_references(path, corpus, settings) -> VerifyReport`` (``litnav verify``)
- providers: ``SemanticScholar``, ``OpenAlex``, ``Crossref``, ``Arxiv`` (``Provider.search``)
"""

from .http import ProviderError
from .matcher import CorpusLookup, Matcher, MatcherConfig, TitleIndex, title_similarity
from .providers import PROVIDERS, Arxiv, Crossref, OpenAlex, Provider, SemanticScholar, build_providers
from .records import ExternalRecord, Match, ProviderFailure, UnverifiedRecord, WebHit, WebSearchOutcome
from .references import Reference, ReferenceParseError, read_references
from .search import matcher_config, web_search
from .verify import VerifiedReference, VerifyReport, verify_references

__all__ = [
    "web_search", "WebSearchOutcome", "WebHit", "UnverifiedRecord", "ProviderFailure",
    "Matcher", "MatcherConfig", "TitleIndex", "CorpusLookup", "Match", "ExternalRecord", "title_similarity",
    "matcher_config", "verify_references", "VerifyReport", "VerifiedReference",
    "read_references", "Reference", "ReferenceParseError",
    "Provider", "ProviderError", "PROVIDERS", "SemanticScholar", "OpenAlex", "Crossref", "Arxiv",
    "build_providers",
]
