"""The words a claim and a passage are compared by: content words, stemmed."""

from __future__ import annotations

import re

from engine.sourcing.attribution import content_words
from engine.text.stem import stem

# Markdown emphasis with underscores (`_not_`, `_only once_`): the underscores are markup, not
# part of a word, or "names fifo, _not_ sigint" would read as saying "not" nowhere. A dunder
# (`__init__`) or a snake_case name (`wait_for`) is never taken for emphasis.
_UNDERSCORE_EMPHASIS = re.compile(r"(?<![\w`])_(?!_)([^\W_](?:[^_`\n]*?[^\W_])?)_(?![\w`])")


def without_emphasis(text: str) -> str:
    """`text` with Markdown underscore emphasis taken off (`_not_` is `not`)."""
    return _UNDERSCORE_EMPHASIS.sub(r"\1", text) if "_" in text else text


def stemmed_words(text: str) -> frozenset[str]:
    return frozenset(stem(word) for word in content_words(text))
