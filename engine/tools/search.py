"""Search: one provider interface (exa, local, none) and the `search()` function beneath the
search_web tool, usable without LangChain by the planner and the quick path.

`search()` validates the query, asks the configured provider, runs the deterministic
preprocessing pipeline, records every URL and document key in the source registry before
anyone sees them, emits the `search_preprocess` metric, and returns the results.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from engine.config import Settings
from engine.emit import emit
from engine.events import MetricRecorded
from engine.tools.local_index import LocalIndex
from engine.tools.preprocess import SearchResult, format_results, preprocess
from engine.tools.search_errors import SearchError

MAX_QUERY_CHARS = 1000
LOCAL_RESULTS_FETCHED_PER_RESULT = 2  # fetch extra hits so dedupe still leaves enough


class SourceRecorder(Protocol):
    """What search and fetch need from the session's source registry."""

    def add_url(self, url: str, title: str | None = None, passage: str | None = None) -> Any: ...

    def add_document(
        self, key: str, title: str | None = None, passage: str | None = None
    ) -> Any: ...


class SearchProvider(Protocol):
    name: str

    async def search(self, query: str, limit: int) -> list[Any]: ...


class LocalSearchProvider:
    """Search the local documents folder through its FTS5 index (refreshed on first use)."""

    name = "local"

    def __init__(self, settings: Settings) -> None:
        self.index = LocalIndex(
            settings.index_db_path,
            settings.resolved_documents_path,
            max_file_bytes=settings.index_max_file_bytes,
        )

    async def search(self, query: str, limit: int) -> list[Any]:
        try:
            await asyncio.to_thread(self.index.ensure_fresh)
            return await asyncio.to_thread(
                self.index.search, query, limit * LOCAL_RESULTS_FETCHED_PER_RESULT
            )
        except FileNotFoundError:
            raise SearchError("the documents folder does not exist; check DOCUMENTS_PATH") from None
        except OSError:
            raise SearchError("the local document index could not be read") from None


def provider_for(settings: Settings) -> SearchProvider | None:
    """The configured provider, or None when search is disabled (`SEARCH_PROVIDER=none`)."""
    choice = settings.resolved_search_provider
    if choice == "none":
        return None
    if choice == "exa":
        from engine.tools.exa_search import ExaSearchProvider

        return ExaSearchProvider(settings)
    return LocalSearchProvider(settings)


def clean_query(query: str) -> tuple[str, bool]:
    """The query with whitespace collapsed, cut to MAX_QUERY_CHARS; (query, was_truncated)."""
    if not isinstance(query, str):
        raise SearchError("the search query must be text")
    text = " ".join(query.split())
    if not text:
        raise SearchError("the search query is empty; describe what to look for")
    if len(text) <= MAX_QUERY_CHARS:
        return text, False
    cut = text[:MAX_QUERY_CHARS]
    space = cut.rfind(" ")
    return (cut[:space] if space > MAX_QUERY_CHARS // 2 else cut), True


def record_sources(results: list[SearchResult], registry: SourceRecorder | None) -> None:
    if registry is None:
        return
    for result in results:
        # The result's title names its section ("Crypto — crypto.randomUUID([options])"),
        # often the subject its passage never repeats: it is part of what the source said.
        shown = f"{result.title}. {result.passage}" if result.title else result.passage
        if result.url:
            registry.add_url(result.url, result.title or None, shown)
        elif result.document:
            registry.add_document(result.document, result.title or None, shown)


async def search(
    query: str,
    settings: Settings,
    registry: SourceRecorder | None = None,
    *,
    max_results: int | None = None,
    provider: SearchProvider | None = None,
) -> list[SearchResult]:
    """Search with the configured provider; raises `SearchError` with a safe message."""
    text, _truncated = clean_query(query)
    chosen = provider or provider_for(settings)
    if chosen is None:
        raise SearchError("search is disabled (SEARCH_PROVIDER=none)")
    limit = settings.max_search_results_for_agent
    if max_results is not None:
        limit = max(1, min(max_results, limit))
    raw = await chosen.search(text, limit)
    outcome = preprocess(raw, text, limit)
    record_sources(outcome.results, registry)
    emit(
        MetricRecorded(
            name="search_preprocess",
            values={
                "provider": chosen.name,
                "results_before": outcome.results_before,
                "results_after": len(outcome.results),
                "duplicates_removed": outcome.duplicates_removed,
                "llm_calls_in_preprocess": 0,
            },
        )
    )
    return outcome.results


__all__ = [
    "MAX_QUERY_CHARS",
    "LocalSearchProvider",
    "SearchError",
    "SearchProvider",
    "SearchResult",
    "SourceRecorder",
    "clean_query",
    "format_results",
    "provider_for",
    "search",
]
