"""One plan track as the person types it, and the verdict on an edit (no engine imports).

Kept apart from `tui.view.plan_draft`, which validates with the engine's schema, so the plan
widgets load with the first frame while the schema loads with the first plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.schemas import ResearchTrack

QUERY_SEPARATOR = " | "


@dataclass(frozen=True)
class TrackFields:
    """One track as three editable strings (queries joined by ` | `)."""

    title: str
    section: str
    queries: str

    @classmethod
    def from_track(cls, track: ResearchTrack) -> TrackFields:
        return cls(track.title, track.section, QUERY_SEPARATOR.join(track.queries))

    def query_list(self) -> list[str]:
        return [part.strip() for part in self.queries.split("|")]


@dataclass(frozen=True)
class EditResult:
    """Whether an edit was applied; `reason` says why not."""

    ok: bool
    reason: str = ""
