"""Everything a cited source returned, as the passages a claim is checked against.

A source's text is every passage the registry kept for it (search snippets, fetched pages,
under every registered form of its address) and, for a local document, the text the index
holds for it: the excerpt a report happened to store is one view of a page, not the page.
Each passage keeps its place (source, which of its texts) so an audit can name it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engine.citations.registry import SourceRegistry

# The whole text of a local document by its key (None when the index lacks it).
DocumentText = Callable[[str], str | None]


@dataclass(frozen=True)
class Passage:
    """One text a source returned: the source's locator, its place among them, the text."""

    source: str
    number: int
    text: str


def source_passages(
    locator: str, registry: SourceRegistry, document_text: DocumentText | None = None
) -> list[Passage]:
    """Every text `locator` returned: the registry's passages, then the indexed document."""
    texts = list(registry.related_passages(locator))
    if document_text is not None and locator in registry.documents():
        whole = document_text(locator)
        if whole:
            folded = " ".join(whole.split())
            # The stored passages are cut from this text: only the ones it lacks add anything.
            texts = [folded, *(text for text in texts if text not in folded)]
    return [Passage(locator, number, text) for number, text in enumerate(texts) if text.strip()]


def cited_passages(
    locators: Iterable[str], registry: SourceRegistry, document_text: DocumentText | None = None
) -> list[Passage]:
    return [
        passage
        for locator in dict.fromkeys(locators)
        for passage in source_passages(locator, registry, document_text)
    ]


def every_passage(
    registry: SourceRegistry, document_text: DocumentText | None = None
) -> list[Passage]:
    """Everything the session retrieved, from every source."""
    return cited_passages((source.locator for source in registry), registry, document_text)


def texts_of(passages: Sequence[Passage]) -> list[str]:
    return [passage.text for passage in passages]
