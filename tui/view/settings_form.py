"""What saving the settings form changes in `.env`: values to write and names to remove.

Non-secret fields show their saved value, so emptying one removes it. A key is never shown,
so an empty key field keeps the saved key; removing a key takes an explicit clear.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class SetupField:
    name: str
    label: str
    placeholder: str
    secret: bool


@dataclass(frozen=True)
class SettingsChange:
    updates: dict[str, str]
    removals: frozenset[str]

    @property
    def empty(self) -> bool:
        return not self.updates and not self.removals

    def summary(self, path: object) -> str:
        """What was written where, in words (names only: never a value)."""
        saved = ", ".join(self.updates)
        removed = ", ".join(sorted(self.removals))
        if saved and removed:
            return f"Saved {saved} to {path} and removed {removed} (mode 0600)."
        if saved:
            return f"Saved {saved} to {path} (mode 0600)."
        return f"Removed {removed} from {path} (mode 0600)."


def settings_change(
    fields: tuple[SetupField, ...],
    entered: Mapping[str, str],
    saved: Mapping[str, str],
    present: set[str],
    cleared: set[str],
) -> SettingsChange:
    """The change from what the file holds (`saved` values of non-secret names, `present`
    names) to what the form shows (`entered`), with `cleared` the fields cleared explicitly."""
    updates: dict[str, str] = {}
    removals: set[str] = set()
    for field in fields:
        value = entered.get(field.name, "").strip()
        if value and (field.secret or value != saved.get(field.name, "").strip()):
            updates[field.name] = value
        elif not value and field.name in present and (field.name in cleared or not field.secret):
            removals.add(field.name)
    return SettingsChange(updates, frozenset(removals))
