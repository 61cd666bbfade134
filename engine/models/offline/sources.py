"""Reading what the research tools returned, as the offline model sees it in ToolMessages.

The formats are the tools' contract with every model (engine/tools):

    Search results for "QUERY":

    [1] TITLE
    URL: https://example.org/page          (or `Document: asyncio-task.html`)
    PASSAGE TEXT

`No results for "QUERY".`, and for fetches `Fetched: URL-or-key\\nTitle: TITLE\\n\\nTEXT` or
`Fetch failed: reason`. A source is identified by its locator (URL or document key) exactly as
the tool wrote it, so the model can only ever cite what a tool actually returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_RESULT_HEADER_RE = re.compile(r"^\[(\d+)\]\s+(.*)$")
_LOCATOR_RE = re.compile(r"^(URL|Document):\s*(\S.*)$")


@dataclass
class Source:
    """One retrieved source: its locator, title and every passage of it seen so far."""

    locator: str
    title: str
    is_url: bool
    passages: list[str] = field(default_factory=list)
    fetched: bool = False

    @property
    def text(self) -> str:
        return "\n\n".join(self.passages)


def parse_search_results(text: str) -> list[Source]:
    """Sources in one `search_web` result (empty for `No results` or anything unrecognised)."""
    lines = text.splitlines()
    found: list[Source] = []
    current: Source | None = None
    body: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        header = _RESULT_HEADER_RE.match(line.strip())
        locator = _LOCATOR_RE.match(lines[index + 1].strip()) if index + 1 < len(lines) else None
        if header and locator:
            if current is not None:
                current.passages.append("\n".join(body).strip())
                found.append(current)
            current = Source(
                locator=locator.group(2).strip(),
                title=header.group(2).strip() or locator.group(2).strip(),
                is_url=locator.group(1) == "URL",
            )
            body = []
            index += 2
            continue
        if current is not None:
            body.append(line)
        index += 1
    if current is not None:
        current.passages.append("\n".join(body).strip())
        found.append(current)
    return [source for source in found if source.locator]


def parse_fetch_result(text: str) -> Source | None:
    """The page in one `fetch_url` result, or None when the fetch failed."""
    if not text.startswith("Fetched:"):
        return None
    head, _, body = text.partition("\n\n")
    locator = ""
    title = ""
    for line in head.splitlines():
        if line.startswith("Fetched:"):
            locator = line.removeprefix("Fetched:").strip()
        elif line.startswith("Title:"):
            title = line.removeprefix("Title:").strip()
    if not locator:
        return None
    return Source(
        locator=locator,
        title=title or locator,
        is_url=locator.startswith(("http://", "https://")),
        passages=[body.strip()] if body.strip() else [],
        fetched=True,
    )


class SourcePool:
    """Sources in the order first seen, merged by locator, passages deduplicated."""

    def __init__(self) -> None:
        self._by_locator: dict[str, Source] = {}

    def add(self, source: Source) -> None:
        known = self._by_locator.get(source.locator)
        if known is None:
            self._by_locator[source.locator] = Source(
                locator=source.locator,
                title=source.title,
                is_url=source.is_url,
                passages=[p for p in source.passages if p],
                fetched=source.fetched,
            )
            return
        if source.fetched:
            known.fetched = True
            if source.title and source.title != source.locator:
                known.title = source.title
        for passage in source.passages:
            if passage and passage not in known.passages:
                known.passages.append(passage)

    def add_tool_output(self, tool_name: str, content: str) -> None:
        """Absorb a search or fetch result; other tools' outputs carry no sources."""
        if tool_name == "fetch_url" or content.startswith("Fetched:"):
            fetched = parse_fetch_result(content)
            if fetched is not None:
                self.add(fetched)
            return
        for source in parse_search_results(content):
            self.add(source)

    @property
    def sources(self) -> list[Source]:
        return list(self._by_locator.values())

    def get(self, locator: str) -> Source | None:
        return self._by_locator.get(locator)

    def __len__(self) -> int:
        return len(self._by_locator)
