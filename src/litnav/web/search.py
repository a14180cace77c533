"""The web channel: ask the enabled providers, keep only records that map to a corpus paper."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from litnav.core.settings import Settings, WebSettings

from .http import ProviderError
from .matcher import CorpusLookup, Matcher, MatcherConfig
from .providers import build_providers
from .providers.base import Provider
from .records import ExternalRecord, ProviderFailure, UnverifiedRecord, WebHit, WebSearchOutcome

log = logging.getLogger(__name__)


def matcher_config(settings: WebSettings) -> MatcherConfig:
    """The matcher thresholds held in ``WebSettings``."""
    return MatcherConfig(
        match_threshold=settings.match_threshold,
        min_confidence=settings.min_confidence,
        year_tolerance=settings.year_tolerance,
    )


def _ask(provider: Provider, query: str, limit: int) -> list[ExternalRecord] | ProviderFailure:
    try:
        return provider.search(query, limit)
    except ProviderError as exc:
        log.warning("web search skips provider %s: %s", exc.provider, exc)
        return ProviderFailure(provider=exc.provider, url=exc.url, error=exc.detail)


def web_search(
    query: str,
    corpus: CorpusLookup,
    settings: WebSettings | Settings,
    limit: int | None = None,
) -> WebSearchOutcome:
    """Search the providers enabled in ``settings.providers`` for ``query`` (``limit`` records
    from each, default ``settings.per_provider_limit``) and map every record to the corpus.

    Returns ``WebSearchOutcome``: ``hits`` are the verified corpus papers, deduplicated by
    ``corpus_id`` and ranked round-robin over providers by each provider's own rank (rank 1 =
    provider 1's best verified record); ``unverified`` the records that did not map (or whose
    metadata disagree); ``errors`` the providers that failed (the others still count);
    ``skipped_reason`` says why nothing ran (no provider enabled, empty query). Never raises
    for provider failures.
    """
    web = settings.web if isinstance(settings, Settings) else settings
    if not web.providers:
        return WebSearchOutcome(skipped_reason="web channel off: no provider enabled (settings web.providers)")
    if not query.strip():
        return WebSearchOutcome(skipped_reason="empty query")
    limit = limit or web.per_provider_limit
    matcher = Matcher.for_corpus(corpus, matcher_config(web))
    providers = build_providers(web)
    try:
        with ThreadPoolExecutor(max_workers=len(providers)) as pool:
            answers = list(pool.map(lambda p: _ask(p, query, limit), providers))
    finally:
        for p in providers:
            p.close()

    outcome = WebSearchOutcome()
    verified: list[tuple[int, int, WebHit]] = []
    for order, (provider, answer) in enumerate(zip(providers, answers)):
        if isinstance(answer, ProviderFailure):
            outcome.errors.append(answer)
            continue
        for prank, record in enumerate(answer, start=1):
            m = matcher.match(record)
            if m.status != "verified":
                outcome.unverified.append(UnverifiedRecord(external=record, match=m))
                continue
            hit = WebHit(
                corpus_id=m.corpus_id, provider=provider.name, rank=0, score=m.confidence,
                method=m.method, confidence=m.confidence, provider_rank=prank, external=record,
            )
            verified.append((prank, order, hit))
    seen: set[str] = set()
    for _prank, _order, hit in sorted(verified, key=lambda t: (t[0], t[1])):
        if hit.corpus_id in seen:
            continue
        seen.add(hit.corpus_id)
        outcome.hits.append(hit.model_copy(update={"rank": len(outcome.hits) + 1}))
    return outcome
