"""A reply that has stopped saying anything new: it writes out its own instructions, or a line
it already wrote.

Seen on the bundled 1.5B as a researcher: one reply wrote its system prompt back (the to-do
tool's rules, then the tool signatures) and another listed the same settings again under new
numbers, each to the 1,024-token cap, about ninety seconds apiece on a CPU server, and the
lines went on into its notes. Every call's stream is watched for it; the reply is ended at the
first such line and cut back to before it, as if the model had stopped there.

Whole lines are compared (a list item, a paragraph), never single sentences: quoted
reference pages repeat sentences on purpose ("This parameter can only be set at server
start."). A line counts once it is complete and long enough to be no coincidence, its list
marker and citation numbers aside.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage, SystemMessage

from engine.messages import message_text
from engine.text.markers import NUMBERED_MARKER_RE
from engine.text.sentences import LIST_BULLET_RE

# Shorter lines ("## Sources", "- [1] routine-vacuuming.html") repeat legitimately.
MIN_LINE_CHARS = 60
# A numbered list item's number ("1. ", "2) "); a bullet is `LIST_BULLET_RE`'s.
_LIST_NUMBER = re.compile(r"^\d+[.)]\s*")


def _folded(line: str) -> str:
    """The line's words as compared: no list marker, no citation numbers, spacing and case
    aside."""
    text = NUMBERED_MARKER_RE.sub(" ", line).strip()
    text = _LIST_NUMBER.sub("", LIST_BULLET_RE.sub("", text))
    return " ".join(text.split()).casefold()


class Degeneration:
    """A reply watch: fires at the first complete line that is the instructions' own text or a
    line the reply already wrote; `cut_at` is where that line starts."""

    def __init__(self, instructions: str) -> None:
        self.instructions = " ".join(
            _folded(line) for line in instructions.splitlines() if line.strip()
        )
        self.cut_at: int | None = None

    def __call__(self, text: str) -> bool:
        seen: set[str] = set()
        offset = 0
        lines = text.split("\n")
        for line in lines[:-1]:  # the last line may still be coming
            folded = _folded(line)
            if len(folded) >= MIN_LINE_CHARS:
                if folded in seen or folded in self.instructions:
                    self.cut_at = offset
                    return True
                seen.add(folded)
            offset += len(line) + 1
        return False


def degeneration_watch(messages: Sequence[BaseMessage]) -> Degeneration:
    """The watch for a reply to `messages`: their system turns are its instructions."""
    return Degeneration(
        "\n".join(message_text(m) for m in messages if isinstance(m, SystemMessage))
    )
