"""Where citations and search matches sit in the rendered report, block by block.

The Markdown widget renders the report as blocks (headings, paragraphs, list items). A span is
a stretch of one block's text; the reader scrolls to the block and highlights the stretch. The
rendered text keeps every `[n]` as it was written, so citations are found in the same reading
order as `tui.view.citations.citation_marks` finds them in the source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui.view.citations import MARKER, SOURCES_HEADING

if TYPE_CHECKING:
    from textual.content import Content
    from textual.widgets import Markdown
    from textual.widgets._markdown import MarkdownBlock

HIGHLIGHT_STYLE = "reverse bold"


@dataclass(frozen=True)
class Span:
    block: MarkdownBlock
    start: int
    end: int


def text_blocks(markdown: Markdown) -> list[MarkdownBlock]:
    """Blocks that hold text themselves (not containers of other blocks), in reading order."""
    from textual.widgets._markdown import MarkdownBlock

    return [
        block
        for block in markdown.query(MarkdownBlock).results(MarkdownBlock)
        if block_text(block) and not block.query_children(MarkdownBlock)
    ]


def block_content(block: MarkdownBlock) -> Content:
    # The pinned Textual keeps a block's rendered text here; see MarkdownBlock.set_content.
    return block._content


def block_text(block: MarkdownBlock) -> str:
    return block_content(block).plain


def citation_spans(markdown: Markdown) -> list[Span]:
    """Each `[n]` of the body (one span per number in `[n, m]`), stopping at Sources."""
    spans: list[Span] = []
    for block in text_blocks(markdown):
        text = block_text(block)
        if SOURCES_HEADING.match(f"## {text.strip()}"):
            break
        for match in MARKER.finditer(text):
            numbers = list(re.finditer(r"\d+", match.group(1)))
            if len(numbers) == 1:  # `[n]`: the whole marker lights up
                spans.append(Span(block, match.start(), match.end()))
                continue
            offset = match.start(1)
            for number in numbers:
                spans.append(Span(block, offset + number.start(), offset + number.end()))
    return spans


def search_spans(markdown: Markdown, query: str) -> list[Span]:
    """Every case-insensitive occurrence of `query`, in reading order."""
    needle = query.casefold()
    if not needle:
        return []
    spans: list[Span] = []
    for block in text_blocks(markdown):
        haystack = block_text(block).casefold()
        start = haystack.find(needle)
        while start >= 0:
            spans.append(Span(block, start, start + len(needle)))
            start = haystack.find(needle, start + len(needle))
    return spans


class Highlighter:
    """Highlights one span at a time, restoring the block it highlighted before."""

    def __init__(self) -> None:
        self._block: MarkdownBlock | None = None
        self._original: Content | None = None

    def show(self, span: Span) -> None:
        self.clear()
        self._block, self._original = span.block, block_content(span.block)
        span.block.set_content(self._original.stylize(HIGHLIGHT_STYLE, span.start, span.end))

    def clear(self) -> None:
        if self._block is not None and self._original is not None and self._block.is_attached:
            self._block.set_content(self._original)
        self._block = self._original = None

    @property
    def block(self) -> MarkdownBlock | None:
        return self._block
