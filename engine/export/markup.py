"""Reading the report's Markdown prose safely, once, for every exporter.

One markdown-it parser: no raw HTML, no images (an exported file carries no external
assets), and links only to http and https addresses; anything else stays plain text.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# Characters that start Markdown syntax inside a line of text.
_MARKDOWN_SPECIAL = "\\`*_[]<>#|!~"
_SENTENCE_ENDS = (".", "!", "?", ":", "…")
_CLOSING = "\"')»”’*_"


@cache
def parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    from engine.export.document import is_web_link

    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    md.validateLink = is_web_link  # type: ignore[method-assign,assignment]
    return md


def tokens(markdown: str) -> list[Token]:
    return parser().parse(markdown)


def ends_a_sentence(line: str) -> bool:
    """Whether a line ends a sentence, its trailing citation markers aside."""
    from engine.citations.markers import find_inline_markers

    text = line.rstrip()
    for marker in reversed(find_inline_markers(text)):
        if marker.end < len(text):
            break
        text = text[: marker.start].rstrip()
    return text.rstrip(_CLOSING).endswith(_SENTENCE_ENDS)


def separate_paragraphs(markdown: str) -> str:
    """Each sentence-ending line of a top-level paragraph ends a paragraph of its own.

    Writers put a paragraph, or a cited sentence, on each line, and the app shows them so;
    Markdown would join consecutive lines into one paragraph, so exports put a blank line
    after each line that ends a sentence. A line wrapped mid-sentence stays joined; lists,
    quotes, tables and code keep their lines as they are.
    """
    lines = markdown.split("\n")
    breaks: set[int] = set()
    for token in tokens(markdown):
        if token.type == "paragraph_open" and token.level == 0 and token.map:
            start, end = token.map
            breaks.update(
                index + 1 for index in range(start, end - 1) if ends_a_sentence(lines[index])
            )
    out: list[str] = []
    for index, line in enumerate(lines):
        if index in breaks and line.strip():
            out.append("")
        out.append(line)
    return "\n".join(out)


def _raw_html_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True})


def without_raw_html(markdown: str) -> str:
    """Raw HTML in the prose escaped, so a Markdown viewer shows it as text, as the exports
    here do: a report may quote a page's markup, and no tag of it should act."""
    lines = markdown.split("\n")
    for token in _raw_html_parser().parse(markdown):
        if not token.map:
            continue
        start, end = token.map
        if token.type == "html_block":
            for index in range(start, end):
                lines[index] = lines[index].replace("<", "\\<")
        elif token.type == "inline":
            for child in token.children or []:
                if child.type == "html_inline":
                    escaped = child.content.replace("<", "\\<")
                    for index in range(start, end):
                        lines[index] = lines[index].replace(child.content, escaped)
    return "\n".join(lines)


def has_title(markdown: str) -> bool:
    """Whether the prose opens with its own first-level heading."""
    for token in tokens(markdown):
        if token.level != 0 or token.type == "blockquote_open":
            continue  # a notice quoted above the title does not count
        if token.type == "heading_open":
            return token.tag == "h1"
        if token.type in ("paragraph_open", "bullet_list_open", "ordered_list_open"):
            return False
    return False


def escape_text(text: str) -> str:
    """Text that Markdown shows as it is, on one line."""
    flat = " ".join(text.split())
    return "".join(f"\\{char}" if char in _MARKDOWN_SPECIAL else char for char in flat)
