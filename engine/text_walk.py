"""Every string inside a value (pydantic models, lists, tuples, dicts), mapped by a function.

The walk copies only what changes: a value none of whose strings change comes back as the
same object, so passing every event or reply through it costs little.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T")
_SAME: Any = object()


def map_strings(value: T, change: Callable[[str], str]) -> T:
    """`value` with `change` applied to every string inside it (dict keys included)."""
    changed = _mapped(value, change)
    return value if changed is _SAME else changed


def _mapped(value: Any, change: Callable[[str], str]) -> Any:
    """The changed value, or `_SAME` when nothing inside `value` changes."""
    if isinstance(value, str):
        new = change(value)
        return _SAME if new == value else new
    if isinstance(value, BaseModel):
        updates = {}
        for name in type(value).model_fields:
            new = _mapped(getattr(value, name), change)
            if new is not _SAME:
                updates[name] = new
        return value.model_copy(update=updates) if updates else _SAME
    if isinstance(value, list | tuple):
        items = [_mapped(item, change) for item in value]
        if all(item is _SAME for item in items):
            return _SAME
        merged = [old if new is _SAME else new for old, new in zip(value, items, strict=True)]
        return tuple(merged) if isinstance(value, tuple) else merged
    if isinstance(value, dict):
        pairs = [(_mapped(key, change), _mapped(item, change)) for key, item in value.items()]
        if all(key is _SAME and item is _SAME for key, item in pairs):
            return _SAME
        return {
            old_key if key is _SAME else key: old_item if item is _SAME else item
            for (old_key, old_item), (key, item) in zip(value.items(), pairs, strict=True)
        }
    return _SAME
