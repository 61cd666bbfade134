"""Markdown emphasis taken off the words a claim and a passage are compared by."""

from __future__ import annotations

import re

# Markdown emphasis with underscores (`_not_`, `_only once_`): the underscores are markup, not
# part of a word, or "names fifo, _not_ sigint" would read as saying "not" nowhere. A dunder
# (`__init__`) or a snake_case name (`wait_for`) is never taken for emphasis.
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w`])_(?!_)([^\W_](?:[^_`\n]*?[^\W_])?)_(?![\w`])")


def without_emphasis(text: str) -> str:
    """`text` with Markdown underscore emphasis taken off (`_not_` is `not`)."""
    return _UNDERSCORE_EMPHASIS.sub(r"\1", text) if "_" in text else text
