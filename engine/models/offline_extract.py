"""Extractive notes: the best-matching retrieved sentences, each cited, with a Sources list."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.models.offline_sources import Source
from engine.models.offline_text import Candidate, quotable, rank_candidates, split_sentences


@dataclass(frozen=True)
class Quote:
    """A sentence quoted verbatim from a source, and that source."""

    text: str
    source: Source


def candidates_from(sources: Sequence[Source]) -> list[Candidate]:
    """Every quotable sentence of every source, in source order."""
    found: list[Candidate] = []
    for index, source in enumerate(sources):
        position = 0
        for passage in source.passages:
            for sentence in split_sentences(passage):
                if quotable(sentence):
                    found.append(Candidate(sentence, index, position))
                    position += 1
    return found


def best_quotes(sources: Sequence[Source], query: str, *, limit: int) -> list[Quote]:
    """The `limit` sentences that best match `query`, at most two per source first."""
    chosen = rank_candidates(candidates_from(sources), query, limit=limit)
    return [Quote(candidate.text, sources[candidate.source_index]) for candidate in chosen]


def _fallback(locator: str) -> str:
    """A title for a source nobody named: the URL without its scheme, or the document key."""
    for scheme in ("https://", "http://"):
        if locator.startswith(scheme):
            return locator.removeprefix(scheme).rstrip("/")
    return locator


class CitationNumbers:
    """Numbers sources in the order they are first cited."""

    def __init__(self) -> None:
        self._numbers: dict[str, int] = {}
        self._titles: dict[str, str] = {}

    def number(self, locator: str, title: str = "") -> int:
        if locator not in self._numbers:
            self._numbers[locator] = len(self._numbers) + 1
            self._titles[locator] = title if title and title != locator else _fallback(locator)
        return self._numbers[locator]

    def sources_lines(self) -> list[str]:
        """`[n] Title: URL-or-key` for every cited source, in number order."""
        return [
            f"[{number}] {self._titles[locator]}: {locator}"
            for locator, number in self._numbers.items()
        ]

    def __len__(self) -> int:
        return len(self._numbers)


def notes_text(quotes: Sequence[Quote]) -> str:
    """Research notes: one cited quote per bullet, then `Sources:`."""
    if not quotes:
        return "No retrieved source matched this topic."
    numbers = CitationNumbers()
    lines: list[str] = []
    for quote in quotes:
        number = numbers.number(quote.source.locator, quote.source.title)
        lines.append(f"- {quote.text} [{number}]")
    lines += ["", "Sources:", *numbers.sources_lines()]
    return "\n".join(lines)


def answer_text(heading: str, quotes: Sequence[Quote]) -> str:
    """A short cited answer (the quick path): a heading, quoted lines, a Sources section."""
    if not quotes:
        return f"# {heading}\n\nNo retrieved source answered this question."
    numbers = CitationNumbers()
    lines = [f"# {heading}", ""]
    for quote in quotes:
        number = numbers.number(quote.source.locator, quote.source.title)
        lines.append(f"{quote.text} [{number}]")
    lines += ["", "## Sources", *numbers.sources_lines()]
    return "\n".join(lines)
