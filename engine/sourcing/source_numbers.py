"""One number per source for the whole quick run, so `[3]` means the same source throughout.

Every search numbers its results from 1, so after two searches `[1]` names two sources.
The quick path renumbers each new search result block to continue the run's numbering (a
source seen before keeps its number), and when an answer cites numbers without listing them
under References, the engine lists them from what the model was shown. Small models cite
`[n]` far more reliably than they write a references section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, ToolMessage

from engine.citations.sections import parse_sources_section
from engine.messages import message_text
from engine.text.markers import NUMBERED_MARKER_RE

_BLOCK_HEADER = re.compile(r"^\[(\d+)\] (.*)$")
_LOCATOR = re.compile(r"^(?:URL|Document): (\S.*)$")
# A citation marker as the quick path writes and reads them: [1], [1, 3], [2-4].
MARKER = NUMBERED_MARKER_RE
_REFERENCES_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s*|\*\*)?(?:references|sources|bibliography)\b", re.IGNORECASE | re.MULTILINE
)
SEARCH_HEADER = "Search results for"


@dataclass
class SourceCatalog:
    """Numbers given to sources so far: number → (title, locator)."""

    entries: dict[int, tuple[str, str]]
    passages: dict[int, str] = field(default_factory=dict)

    def number_for(self, title: str, locator: str) -> int:
        # A passage is a title (document and section) at a locator: two sections of one page
        # are two numbered results, as the search showed them.
        known = next(
            (number for number, entry in self.entries.items() if entry == (title, locator)), None
        )
        if known is not None:
            return known
        number = max(self.entries, default=0) + 1
        self.entries[number] = (title, locator)
        return number


def _blocks(text: str) -> list[list[str]]:
    return [block.splitlines() for block in text.split("\n\n")]


def catalog_of(messages: Sequence[BaseMessage]) -> SourceCatalog:
    """The numbering the model has seen in the (already renumbered) search results."""
    catalog = SourceCatalog({})
    for message in messages:
        text = message_text(message)
        if not isinstance(message, ToolMessage) or not text.startswith(SEARCH_HEADER):
            continue
        for lines in _blocks(text):
            header = _BLOCK_HEADER.match(lines[0]) if lines else None
            locator = _LOCATOR.match(lines[1]) if header and len(lines) > 1 else None
            if header and locator:
                number = int(header.group(1))
                catalog.entries.setdefault(number, (header.group(2), locator.group(1)))
                catalog.passages.setdefault(number, " ".join(lines[2:]))
    return catalog


def renumber(new: Sequence[BaseMessage], catalog: SourceCatalog) -> list[BaseMessage]:
    """New search results numbered to continue `catalog` (which is updated)."""
    renumbered: list[BaseMessage] = []
    for message in new:
        text = message_text(message)
        if not isinstance(message, ToolMessage) or not text.startswith(SEARCH_HEADER):
            renumbered.append(message)
            continue
        blocks = []
        for lines in _blocks(text):
            header = _BLOCK_HEADER.match(lines[0]) if lines else None
            locator = _LOCATOR.match(lines[1]) if header and len(lines) > 1 else None
            if header and locator:
                number = catalog.number_for(header.group(2), locator.group(1))
                lines = [f"[{number}] {header.group(2)}", *lines[1:]]
            blocks.append("\n".join(lines))
        renumbered.append(message.model_copy(update={"content": "\n\n".join(blocks)}))
    return renumbered


def cited_numbers(text: str) -> list[int]:
    numbers: list[int] = []
    for match in MARKER.finditer(text):
        for part in re.split(r"\s*,\s*", match.group(1)):
            bounds = [int(piece) for piece in re.split(r"\s*[–-]\s*", part) if piece]
            span = range(bounds[0], bounds[-1] + 1) if len(bounds) == 2 else bounds
            numbers += [number for number in span if number not in numbers]
    return numbers


def body_of(answer: str) -> str:
    """The answer above its references section (all of it when it has none)."""
    heading = _REFERENCES_HEADING.search(answer)
    return answer[: heading.start()] if heading is not None else answer


def complete_references(answer: str, catalog: SourceCatalog) -> str:
    """The answer with a References section listing every cited number the model was shown.

    An answer whose own references section names a retrieved source keeps it: the verifier
    reads it and checks every entry. One that names none (titles from memory, invented
    links) is replaced by the list of what the model was shown.
    """
    cited = [number for number in cited_numbers(body_of(answer)) if number in catalog.entries]
    if not cited:
        # Nothing shown to the model is cited: there is nothing to list in its place.
        return answer
    heading = _REFERENCES_HEADING.search(answer)
    if heading is not None:
        section = answer[heading.start() :]
        if any(locator in section for _, locator in catalog.entries.values()):
            return answer
        answer = answer[: heading.start()]
    lines = [
        f"[{number}] {catalog.entries[number][0]} — {catalog.entries[number][1]}"
        for number in cited
    ]
    return answer.rstrip() + "\n\n## References\n" + "\n".join(lines) + "\n"


def page_of(locator: str) -> str:
    """The page a locator names: two sections or anchors of one page are one page."""
    return locator.split("#", 1)[0].rstrip("/")


def listed_consistently(answer: str, catalog: SourceCatalog) -> dict[int, str] | None:
    """The numbers the answer's own references list, when they agree with the catalog.

    None when the answer lists a catalog number at another page: its numbering is its own,
    and a number added from the catalog would name the wrong source.
    """
    listed: dict[int, str] = {}
    for entry in parse_sources_section(answer):
        locator = entry.url or entry.key or ""
        known = catalog.entries.get(entry.number)
        if known is not None and page_of(known[1]) != page_of(locator):
            return None
        listed[entry.number] = locator
    return listed


def listing_with(
    tail: str, listed: dict[int, str], added: list[int], catalog: SourceCatalog
) -> str:
    """The references section with the added numbers listed, when the answer has its own
    list that names what it was shown (an answer without one is listed from the catalog)."""
    if not tail or not listed:
        return tail
    if not any(locator in tail for _, locator in catalog.entries.values()):
        return tail  # a list of the model's own that the catalog's list will replace
    lines = [
        f"[{number}] {catalog.entries[number][0]} — {catalog.entries[number][1]}"
        for number in added
        if number not in listed
    ]
    return tail.rstrip("\n") + "\n" + "\n".join(lines) + "\n" if lines else tail
