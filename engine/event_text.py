"""Events as a terminal may render them: every text field without control sequences.

Evidence claims, tool results, unit topics and the report carry text from documents, web
pages and models. A renderer that draws them on a terminal (the app) passes each event through
`terminal_safe_event` first, so no ESC or 8-bit C1 sequence (CSI U+009B, OSC U+009D, …), C0
control or bidi override in that text reaches the screen. Fields are walked generically, so a
field added to an event later is covered without a list to keep up to date.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from engine.terminal_text import terminal_safe

T = TypeVar("T")


def terminal_safe_value(value: T) -> T:
    """`value` with every string inside it made terminal-safe; the same object when nothing
    needed cleaning (most events), so the common case copies nothing."""
    cleaned = _cleaned(value)
    return value if cleaned is _SAME else cleaned


_SAME: Any = object()


def _cleaned(value: Any) -> Any:
    """The cleaned value, or `_SAME` when `value` needs no change."""
    if isinstance(value, str):
        safe = terminal_safe(value)
        return _SAME if safe == value else safe
    if isinstance(value, BaseModel):
        changes = {}
        for name in type(value).model_fields:
            cleaned = _cleaned(getattr(value, name))
            if cleaned is not _SAME:
                changes[name] = cleaned
        return value.model_copy(update=changes) if changes else _SAME
    if isinstance(value, list | tuple):
        items = [_cleaned(item) for item in value]
        if all(item is _SAME for item in items):
            return _SAME
        merged = [old if new is _SAME else new for old, new in zip(value, items, strict=True)]
        return type(value)(merged) if isinstance(value, tuple) else merged
    if isinstance(value, dict):
        pairs = [(_cleaned(key), _cleaned(item)) for key, item in value.items()]
        if all(key is _SAME and item is _SAME for key, item in pairs):
            return _SAME
        return {
            old_key if key is _SAME else key: old_item if item is _SAME else item
            for (old_key, old_item), (key, item) in zip(value.items(), pairs, strict=True)
        }
    return _SAME


def terminal_safe_event(event: T) -> T:
    """The event with every text field terminal-safe (newlines and tabs kept)."""
    return terminal_safe_value(event)
