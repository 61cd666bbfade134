"""The last reported state of each research unit in a run, so a cancel can close them out.

A cancelled run stops its researchers mid-flight; without a final word they would stay
"running" for every consumer of the stream. The runner reports them as cancelled instead.
"""

from __future__ import annotations

from engine.events import (
    Event,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RuntimeProgress,
)

_UNFINISHED = {"queued", "running"}


class UnitTracker:
    def __init__(self) -> None:
        self._units: dict[str, ResearchUnitSummary] = {}

    def see(self, event: Event) -> None:
        if isinstance(event, ResearchUnitUpdated):
            self._units[event.unit.id] = event.unit
        elif isinstance(event, RuntimeProgress):
            for unit in event.research_units:
                self._units[unit.id] = unit

    def cancelled(self) -> list[ResearchUnitUpdated]:
        """One update per unit that had not finished, now marked cancelled."""
        return [
            ResearchUnitUpdated(unit=unit.model_copy(update={"status": "cancelled"}))
            for unit in self._units.values()
            if unit.status in _UNFINISHED
        ]
