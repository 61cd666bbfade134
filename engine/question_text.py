"""What every door (command line, app, HTTP API, MCP) accepts as a question or an answer.

The text is kept as one terminal-safe line (`engine.terminal_text.one_line`), so the report
heading, the sessions list and every line printed later see only the words the person typed;
text with nothing left once control characters are dropped is refused at every door alike.
"""

from __future__ import annotations

from engine.terminal_text import one_line


class BlankText(ValueError):
    """Nothing is left of the text once whitespace and control characters are dropped."""


def cleaned_text(text: str, what: str = "the question") -> str:
    """`text` as one safe line; `BlankText` ("the question is empty") when nothing is left."""
    cleaned = one_line(text)
    if not cleaned:
        raise BlankText(f"{what} is empty")
    return cleaned
