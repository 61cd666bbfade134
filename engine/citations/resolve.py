"""Resolving what a report cites to sources a tool actually retrieved.

Entries of the model's sources list resolve by URL or document key (and, when they have
neither, by an exact title); citations that name their source resolve by URL, key or title
against the list and then the registry. The result is a `SourceTable`: which writer number
and which retrieved source each citation ends up with, and why anything was dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.citations.entries import SourceEntry
from engine.citations.inline import Ref
from engine.citations.keys import parse_document_key
from engine.citations.registry import SourceRegistry
from engine.citations.results import (
    KEY_NOT_IN_REGISTRY,
    TITLE_NOT_IN_SOURCES,
    UNVERIFIABLE,
    URL_NOT_IN_REGISTRY,
    RemovedCitation,
    duplicate_reason,
)
from engine.citations.sections import ParsedReport

_NON_WORD_RE = re.compile(r"[\W_]+")
# A partial title must be this specific before it may stand for a longer one.
_MIN_PARTIAL_WORDS = 2
_MIN_PARTIAL_CHARS = 8


def normalize_title(title: str) -> str:
    """Case, punctuation and spacing folded away: `Write-Ahead Logging.` → `write ahead logging`."""
    return " ".join(_NON_WORD_RE.sub(" ", title.casefold()).split())


class TitleIndex:
    """Titles of known sources, matched exactly, else by a unique containment.

    A model shortens or lengthens titles (`SQLite WAL` for `Write-Ahead Logging - SQLite`);
    a partial match counts only when it is specific enough and points at one source.
    """

    def __init__(self) -> None:
        # Normalized title -> locators in the order they were added (a dict as ordered set).
        self._exact: dict[str, dict[str, None]] = {}
        # Titles added since the last lookup: most reports never look a title up, so they are
        # normalized only when one is.
        self._pending: list[tuple[str, str]] = []

    def add(self, title: str | None, locator: str) -> None:
        if title:
            self._pending.append((title, locator))

    def _index_pending(self) -> None:
        for title, locator in self._pending:
            normalized = normalize_title(title)
            if normalized:
                self._exact.setdefault(normalized, {})[locator] = None
        self._pending.clear()

    @classmethod
    def of_registry(cls, registry: SourceRegistry) -> TitleIndex:
        index = cls()
        for source in registry.sources():
            index.add(source.title, source.locator)
        return index

    def lookup(self, title: str, exact_only: bool = False) -> str | None:
        """The one source with this title (or, unless `exact_only`, a unique partial match)."""
        wanted = normalize_title(title)
        if not wanted:
            return None
        if self._pending:
            self._index_pending()
        exact = list(self._exact.get(wanted, {}))
        if exact:
            return _one_source(exact)
        specific = len(wanted) >= _MIN_PARTIAL_CHARS and len(wanted.split()) >= _MIN_PARTIAL_WORDS
        if exact_only or not specific:
            return None
        padded = f" {wanted} "
        partial = {
            locator: None
            for known, locators in self._exact.items()
            if padded in f" {known} " or f" {known} " in padded
            for locator in locators
        }
        if not partial:
            # The same words in another order: `SQLite Isolation` for `Isolation In SQLite`.
            words = set(wanted.split())
            partial = {
                locator: None
                for known, locators in self._exact.items()
                if words <= set(known.split())
                for locator in locators
            }
        return _one_source(list(partial))


def _one_source(locators: list[str]) -> str | None:
    """The single source these locators name: one locator, or pages of one document.

    Pages of one file share its title; citing the title cites the document, so its first
    retrieved page stands for it.
    """
    if len(locators) == 1:
        return locators[0]
    files = {parsed.file_name if (parsed := parse_document_key(loc)) else None for loc in locators}
    if len(files) == 1 and None not in files:
        return locators[0]
    return None


def _domain_lookup(text: str, registry: SourceRegistry) -> str | None:
    """`sqlite.org` written as a source name: the one retrieved page on that site, if one."""
    if " " in text or "." not in text or "/" in text.split(".", 1)[0]:
        return None
    for scheme in ("https://", "http://"):
        found = registry.lookup_url(scheme + text)
        if found is not None:
            return found
    return None


def resolve_entry(
    entry: SourceEntry, registry: SourceRegistry, titles: TitleIndex | None = None
) -> tuple[str | None, str]:
    """(registry locator, "") for a retrieved source, else (None, removal reason).

    An entry with neither URL nor key resolves only by the exact title of a retrieved source
    (`titles`): an entry with no address gets no benefit of the doubt.
    """
    if entry.url is not None:
        found = registry.lookup_url(entry.url)
        return (found, "") if found is not None else (None, URL_NOT_IN_REGISTRY)
    if entry.key is not None:
        found = registry.lookup_document(entry.key)
        return (found, "") if found is not None else (None, KEY_NOT_IN_REGISTRY)
    if entry.title is not None and titles is not None:
        found = titles.lookup(entry.title, exact_only=True)
        if found is not None:
            return found, ""
    return None, UNVERIFIABLE


@dataclass
class SourceTable:
    """Where every citation of one report points, in the numbers the writer used.

    `number_map` takes a listed number to the number its source keeps (the lowest number
    listing that source); `keeper` takes a retrieved locator to that number. Sources cited
    only by name get fresh numbers above every listed one.
    """

    registry: SourceRegistry
    number_map: dict[int, int] = field(default_factory=dict)
    keeper: dict[str, int] = field(default_factory=dict)
    locator_of: dict[int, str] = field(default_factory=dict)
    titles: dict[int, str | None] = field(default_factory=dict)
    listed: set[int] = field(default_factory=set)
    entry_titles: TitleIndex = field(default_factory=TitleIndex)
    registry_titles: TitleIndex | None = None
    next_number: int = 1

    def number_for(self, locator: str) -> int:
        """The number of a retrieved source, giving it the next fresh one on first use."""
        number = self.keeper.get(locator)
        if number is None:
            number = self.next_number
            self.next_number += 1
            self.keeper[locator] = number
            self.locator_of[number] = locator
            self.titles[number] = None
        return number

    def resolve_ref(self, ref: Ref) -> tuple[str | None, str]:
        """(registry locator, "") for a name that points at a retrieved source, else a reason."""
        if ref.kind == "url":
            found = self.registry.lookup_url(ref.text)
            return (found, "") if found is not None else (None, URL_NOT_IN_REGISTRY)
        if ref.kind == "key":
            found = self.registry.lookup_document(ref.text)
            return (found, "") if found is not None else (None, KEY_NOT_IN_REGISTRY)
        found = self.entry_titles.lookup(ref.text)
        if found is None:
            if self.registry_titles is None:
                self.registry_titles = TitleIndex.of_registry(self.registry)
            found = self.registry_titles.lookup(ref.text)
        if found is None:
            found = _domain_lookup(ref.text, self.registry)
        return (found, "") if found is not None else (None, TITLE_NOT_IN_SOURCES)


def build_table(
    parsed: ParsedReport, registry: SourceRegistry
) -> tuple[SourceTable, dict[int, RemovedCitation]]:
    """Resolve every entry of the report: the table, and the entry blocks to remove (by index).

    An entry is removed when its source was not retrieved, when its number was already used
    by an earlier entry, or when it repeats a source an entry with a lower number lists.
    """
    table = SourceTable(registry)
    removed: dict[int, RemovedCitation] = {}
    resolved: dict[int, str] = {}  # block index -> registry locator
    for index, block in enumerate(parsed.blocks):
        if not isinstance(block, SourceEntry):
            continue
        if block.number in table.listed:
            # A second entry reusing a number cannot be told apart from the first by markers.
            removed[index] = RemovedCitation(
                number=block.number, source=block.locator, reason=duplicate_reason(block.number)
            )
            continue
        table.listed.add(block.number)
        if block.locator is None and table.registry_titles is None:
            table.registry_titles = TitleIndex.of_registry(registry)
        locator, reason = resolve_entry(block, registry, table.registry_titles)
        if locator is None:
            removed[index] = RemovedCitation(
                number=block.number, source=block.locator or block.title, reason=reason
            )
        else:
            resolved[index] = locator
            current = table.keeper.get(locator)
            table.keeper[locator] = block.number if current is None else min(current, block.number)

    for index, locator in resolved.items():
        entry = parsed.blocks[index]
        assert isinstance(entry, SourceEntry)
        kept = table.keeper[locator]
        table.number_map[entry.number] = kept
        table.entry_titles.add(entry.title, locator)
        if kept != entry.number:
            removed[index] = RemovedCitation(
                number=entry.number, source=entry.locator, reason=duplicate_reason(kept)
            )
            continue
        table.locator_of[kept] = locator
        table.titles[kept] = entry.title
    table.next_number = max(table.listed, default=0) + 1
    return table, removed
