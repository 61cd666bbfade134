"""The source registry: every URL and document key a tool actually returned in a session.

The citation verifier trusts nothing else. Lookups forgive the ways writers mangle a URL
(case, tracking parameters, truncation, a deeper path, a subset of the query) but always hand
back the URL exactly as the tool returned it, so a verified report only ever contains
retrieved addresses.

The registry lives in checkpointed graph state as `to_dict()` output; `merge_registry_dicts`
is the reducer for that channel. It also keeps the text each source showed the model (search
passages, fetched pages; capped per source), so a report's claims can be checked against what
their sources said without fetching anything again.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine.citations.keys import parse_document_key
from engine.citations.urls import UrlParts, normalized_form, url_parts

SourceKind = Literal["url", "document"]
_FORMAT_VERSION = 1
# Enough for a fetched page (8,000 characters) and a few search passages; a deep session with
# dozens of sources stays a few hundred kilobytes in its checkpoints.
MAX_PASSAGE_CHARS_PER_SOURCE = 12_000


@dataclass(frozen=True)
class RegisteredSource:
    """One retrieved source: its URL or document key exactly as the tool returned it."""

    locator: str
    kind: SourceKind
    title: str | None = None


def _clean_title(title: str | None) -> str | None:
    if title is None:
        return None
    cleaned = " ".join(title.split())
    return cleaned or None


class SourceRegistry:
    """URLs and document keys returned by tools, in the order they were first seen.

    Mutations and lookups never await, so concurrent asyncio tools can share one registry; a
    lock additionally keeps the indexes consistent when tools run in worker threads.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._sources: list[RegisteredSource] = []
        self._position: dict[str, int] = {}
        # URL indexes.
        self._url_parts: dict[str, UrlParts | None] = {}
        self._by_normalized: dict[str, list[str]] = {}
        # (scheme, host, path) -> URLs; (scheme, host, path segments) -> URLs whose path has
        # at least two segments (the parents a deeper cited path may lie below).
        self._by_path: dict[tuple[str, str, str], list[str]] = {}
        self._by_segments: dict[tuple[str, str, tuple[str, ...]], list[str]] = {}
        self._sorted_raw: list[str] | None = None
        self._sorted_normalized: list[tuple[str, str]] | None = None
        # Document indexes.
        self._documents_by_file: dict[str, list[str]] = {}
        self._documents_by_folded_key: dict[str, str] = {}
        # Text each source returned: locator → passages, first seen first.
        self._passages: dict[str, list[str]] = {}
        # Every title a source was shown under (a page's sections come back as results of
        # their own, "git-gc(1) — HOOKS", "git-gc(1) — NOTES"); `title` keeps the first.
        # Read on a unit's own registry while it runs; `merge` and `to_dict` keep `title` only.
        self._labels: dict[str, list[str]] = {}

    # ------------------------------------------------------------------ adding

    def add_url(self, url: str, title: str | None = None, passage: str | None = None) -> bool:
        """Record a URL a tool returned, with the text it showed. True when it was new.

        Re-adding a known URL keeps its first title unless it had none.
        """
        locator = url.strip()
        if not locator:
            raise ValueError("cannot register an empty URL")
        added = self._add(RegisteredSource(locator, "url", _clean_title(title)))
        self.add_passage(locator, passage)
        return added

    def add_document(self, key: str, title: str | None = None, passage: str | None = None) -> bool:
        """Record a document key the local search returned. True when it was not known yet."""
        locator = " ".join(key.split())
        if not locator:
            raise ValueError("cannot register an empty document key")
        added = self._add(RegisteredSource(locator, "document", _clean_title(title)))
        self.add_passage(locator, passage)
        return added

    def add_passage(self, locator: str, passage: str | None) -> None:
        """Keep text a registered source returned (a duplicate or text past the cap is not)."""
        text = " ".join((passage or "").split())
        if not text:
            return
        with self._lock:
            if locator not in self._position:
                return
            kept = self._passages.setdefault(locator, [])
            if any(text in known for known in kept):
                return
            # A longer text that contains a kept passage replaces it before room is counted.
            kept[:] = [known for known in kept if known not in text]
            room = MAX_PASSAGE_CHARS_PER_SOURCE - sum(len(p) for p in kept)
            if room > 0:
                kept.append(text[:room])

    def passages(self, locator: str) -> list[str]:
        """The text `locator` (as registered) returned to the model, first seen first."""
        with self._lock:
            return list(self._passages.get(locator, ()))

    def related_passages(self, locator: str) -> list[str]:
        """The text of `locator` and of every registered form of the same source.

        A citation resolves to one locator, but the text may sit under another: a search
        passage at `https://a.example/x`, the fetched page at `https://a.example/x/`; page 15
        of `guide.pdf` cited as `guide.pdf`.
        """
        with self._lock:
            if locator not in self._position:
                return []
            source = self._sources[self._position[locator]]
            if source.kind == "url":
                parts = self._url_parts.get(locator)
                family = self._by_normalized.get(normalized_form(locator, parts), [locator])
            else:
                parsed = parse_document_key(locator)
                name = parsed.file_name if parsed else locator.casefold()
                family = self._documents_by_file.get(name, [locator])
            ordered = [locator, *(other for other in family if other != locator)]
            return [text for member in ordered for text in self._passages.get(member, ())]

    def _add(self, source: RegisteredSource) -> bool:
        with self._lock:
            labels = self._labels.setdefault(source.locator, [])
            if source.title is not None and source.title not in labels:
                labels.append(source.title)
            index = self._position.get(source.locator)
            if index is not None:
                known = self._sources[index]
                if known.title is None and source.title is not None:
                    self._sources[index] = RegisteredSource(known.locator, known.kind, source.title)
                return False
            self._position[source.locator] = len(self._sources)
            self._sources.append(source)
            if source.kind == "url":
                self._index_url(source.locator)
            else:
                self._index_document(source.locator)
            return True

    def _index_url(self, url: str) -> None:
        parts = url_parts(url)
        self._url_parts[url] = parts
        self._by_normalized.setdefault(normalized_form(url, parts), []).append(url)
        if parts is not None:
            self._by_path.setdefault((parts.scheme, parts.netloc, parts.path), []).append(url)
            if len(parts.segments) >= 2:
                key = (parts.scheme, parts.netloc, parts.segments)
                self._by_segments.setdefault(key, []).append(url)
        self._sorted_raw = None
        self._sorted_normalized = None

    def _index_document(self, key: str) -> None:
        self._documents_by_folded_key.setdefault(key.casefold(), key)
        parsed = parse_document_key(key)
        file_name = parsed.file_name if parsed else key.casefold()
        self._documents_by_file.setdefault(file_name, []).append(key)

    def merge(self, other: SourceRegistry) -> None:
        """Add every source of `other` (in its order) that this registry does not hold yet."""
        for source in other.sources():
            if source.kind == "url":
                self.add_url(source.locator, source.title)
            else:
                self.add_document(source.locator, source.title)
            for passage in other.passages(source.locator):
                self.add_passage(source.locator, passage)

    # ----------------------------------------------------------------- reading

    def __len__(self) -> int:
        return len(self._sources)

    def __contains__(self, source: object) -> bool:
        """Exact membership of a URL or document key as a tool returned it."""
        return isinstance(source, str) and source.strip() in self._position

    def __iter__(self) -> Iterator[RegisteredSource]:
        return iter(self.sources())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceRegistry):
            return NotImplemented
        return self.sources() == other.sources()

    __hash__ = None  # type: ignore[assignment]  # mutable container

    def __repr__(self) -> str:
        return f"SourceRegistry({len(self)} sources)"

    def sources(self) -> list[RegisteredSource]:
        """Every registered source, in the order it was first added."""
        with self._lock:
            return list(self._sources)

    def urls(self) -> list[str]:
        """Registered URLs in insertion order."""
        return [s.locator for s in self.sources() if s.kind == "url"]

    def documents(self) -> list[str]:
        """Registered document keys in insertion order."""
        return [s.locator for s in self.sources() if s.kind == "document"]

    def title_for(self, source: str) -> str | None:
        """The title recorded for a URL or key, looked up by the same rules as citations."""
        text = source.strip()
        locator = text if text in self._position else self.lookup_url(text)
        if locator is None:
            locator = self.lookup_document(text)
        if locator is None:
            return None
        return self._sources[self._position[locator]].title

    def labels_for(self, locator: str) -> list[str]:
        """Every title `locator` (as registered) was shown under, first seen first."""
        with self._lock:
            return list(self._labels.get(locator, ()))

    # ---------------------------------------------------------------- matching

    def lookup(self, cited: str) -> str | None:
        """Resolve a cited URL or document key to the registered locator, or None."""
        return self.lookup_url(cited) or self.lookup_document(cited)

    def lookup_url(self, cited: str) -> str | None:
        """The registered URL that `cited` refers to, exactly as the tool returned it.

        Levels are tried in order and the first level with exactly one candidate wins; a level
        with several candidates is ambiguous and falls through to the next:
        1 exact or normalized equality; 2 truncation (a registry URL starts with the cited URL
        as written); 3 prefix (a registry URL starts with the cited URL's normalized form);
        4 child path (same scheme and host, the registry path has at least two segments and
        the cited path lies below it); 5 query subset (same host and path, every cited
        parameter present in the registry URL with the same value).
        """
        written = cited.strip()
        if not written:
            return None
        with self._lock:
            if written in self._url_parts:
                return written
            cited_parts = url_parts(written)
            normalized = normalized_form(written, cited_parts)
            levels: tuple[Callable[[], list[str]], ...] = (
                lambda: self._by_normalized.get(normalized, []),
                lambda: self._starting_with_raw(written),
                lambda: self._starting_with_normalized(normalized),
                lambda: self._child_path_parents(cited_parts),
                lambda: self._query_supersets(cited_parts),
            )
            for level in levels:
                candidates = list(dict.fromkeys(level()))
                if len(candidates) == 1:
                    return candidates[0]
            return None

    def _starting_with_raw(self, prefix: str) -> list[str]:
        if self._sorted_raw is None:
            self._sorted_raw = sorted(self._url_parts)
        ordered = self._sorted_raw
        found: list[str] = []
        index = bisect.bisect_left(ordered, prefix)
        while index < len(ordered) and ordered[index].startswith(prefix):
            found.append(ordered[index])
            index += 1
        return found

    def _starting_with_normalized(self, prefix: str) -> list[str]:
        if self._sorted_normalized is None:
            pairs = {(url, url) for url in self._url_parts}
            pairs |= {(normalized_form(url, parts), url) for url, parts in self._url_parts.items()}
            self._sorted_normalized = sorted(pairs)
        ordered = self._sorted_normalized
        found: list[str] = []
        index = bisect.bisect_left(ordered, (prefix, ""))
        while index < len(ordered) and ordered[index][0].startswith(prefix):
            found.append(ordered[index][1])
            index += 1
        return found

    def _child_path_parents(self, cited: UrlParts | None) -> list[str]:
        if cited is None:
            return []
        # Registry paths of two segments or more that are a proper prefix of the cited path.
        segments = cited.segments
        found: list[str] = []
        for depth in range(2, len(segments)):
            found.extend(self._by_segments.get((cited.scheme, cited.netloc, segments[:depth]), ()))
        return found

    def _query_supersets(self, cited: UrlParts | None) -> list[str]:
        if cited is None:
            return []
        wanted = set(cited.query)
        found: list[str] = []
        for url in self._by_path.get((cited.scheme, cited.netloc, cited.path), []):
            parts = self._url_parts[url]
            if parts is not None and wanted <= set(parts.query):
                found.append(url)
        return found

    def lookup_document(self, key: str) -> str | None:
        """The registered document key that `key` refers to, or None.

        Matches by file name, case-insensitively. Pages are lenient: the same page is preferred,
        then the whole document, then the first page registered for that file.
        """
        text = " ".join(key.split())
        if not text:
            return None
        with self._lock:
            exact = self._documents_by_folded_key.get(text.casefold())
            if exact is not None:
                return exact
            parsed = parse_document_key(text)
            if parsed is None:
                return None
            candidates = self._documents_by_file.get(parsed.file_name, [])
            if not candidates:
                return None
            pages = {c: (p.page if (p := parse_document_key(c)) else None) for c in candidates}
            for wanted_page in (parsed.page, None):
                for candidate in candidates:
                    if pages[candidate] == wanted_page:
                        return candidate
            return candidates[0]

    # ----------------------------------------------------------- serialization

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form for checkpointed graph state."""
        return {
            "version": _FORMAT_VERSION,
            "sources": [self._entry(s) for s in self.sources()],
        }

    def _entry(self, source: RegisteredSource) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "locator": source.locator,
            "kind": source.kind,
            "title": source.title,
        }
        passages = self.passages(source.locator)
        if passages:
            entry["passages"] = passages
        return entry

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> SourceRegistry:
        """Rebuild a registry from `to_dict()` output (None or {} gives an empty registry)."""
        registry = cls()
        if not data:
            return registry
        entries = data.get("sources", [])
        if not isinstance(entries, list):
            raise ValueError("registry data: 'sources' must be a list")
        for entry in entries:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("locator"), str):
                raise ValueError("registry data: each source needs a string 'locator'")
            title = entry.get("title")
            title = title if isinstance(title, str) else None
            if entry.get("kind") == "document":
                registry.add_document(entry["locator"], title)
            elif entry.get("kind") == "url":
                registry.add_url(entry["locator"], title)
            else:
                raise ValueError("registry data: 'kind' must be 'url' or 'document'")
            passages = entry.get("passages") or []
            if not isinstance(passages, list):
                raise ValueError("registry data: 'passages' must be a list of strings")
            for passage in passages:
                if isinstance(passage, str):
                    registry.add_passage(entry["locator"], passage)
        return registry

    @classmethod
    def from_sources(
        cls, urls: list[str] | tuple[str, ...] = (), documents: list[str] | tuple[str, ...] = ()
    ) -> SourceRegistry:
        """A registry holding the given URLs and document keys (convenient in tests)."""
        registry = cls()
        for url in urls:
            registry.add_url(url)
        for key in documents:
            registry.add_document(key)
        return registry


def merge_registry_dicts(
    left: Mapping[str, Any] | None, right: Mapping[str, Any] | None
) -> dict[str, Any]:
    """LangGraph reducer for a registry kept as `to_dict()` output: the union, left first."""
    merged = SourceRegistry.from_dict(left)
    merged.merge(SourceRegistry.from_dict(right))
    return merged.to_dict()
