"""Events as a terminal may render them: every text field without control sequences.

Evidence claims, tool results, unit topics and the report carry text from documents, web
pages and models. A renderer that draws them on a terminal (the app) passes each event through
`terminal_safe_event` first, so no ESC or 8-bit C1 sequence (CSI U+009B, OSC U+009D, …), C0
control or bidi override in that text reaches the screen. Fields are walked generically, so a
field added to an event later is covered without a list to keep up to date.
"""

from __future__ import annotations

from typing import TypeVar

from engine.terminal_text import terminal_safe
from engine.text_walk import map_strings

T = TypeVar("T")


def terminal_safe_event(event: T) -> T:
    """The event with every text field terminal-safe (newlines and tabs kept); the same
    object when nothing needed cleaning."""
    return map_strings(event, terminal_safe)
