"""The plan as the person edits it, validated by the engine's own schema after every change.

Pure Python (no Textual) so every edit rule is unit-tested on its own. An edit that would make
the plan invalid is refused: the draft keeps its last valid tracks and the refusal carries the
schema's reason, so the widget can show it next to the text the person typed, which it keeps.
"""

from __future__ import annotations

from pydantic import ValidationError

from engine.schemas import ResearchPlan, ResearchTrack
from tui.view.track_fields import QUERY_SEPARATOR, EditResult, TrackFields

__all__ = ["QUERY_SEPARATOR", "EditResult", "PlanDraft", "TrackFields", "describe_validation_error"]


def describe_validation_error(error: ValidationError) -> str:
    """The schema's complaints in words a person can act on ("track 2 title: ...")."""
    parts: list[str] = []
    for item in error.errors():
        location = list(item.get("loc", ()))
        where = ""
        if len(location) >= 2 and location[0] == "tracks" and isinstance(location[1], int):
            where = f"track {location[1] + 1}"
            if len(location) >= 3:
                where += f" {location[2]}"
        elif location:
            where = str(location[0])
        message = str(item.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


class PlanDraft:
    """An editable copy of a proposed plan; only valid plans are ever kept."""

    def __init__(self, plan: ResearchPlan) -> None:
        self.original = plan
        self.plan = plan

    @property
    def tracks(self) -> list[ResearchTrack]:
        return list(self.plan.tracks)

    @property
    def changed(self) -> bool:
        return self.plan != self.original

    def _try(self, tracks: list[ResearchTrack | dict[str, object]]) -> EditResult:
        data = self.plan.model_dump()
        data["tracks"] = [
            track.model_dump() if isinstance(track, ResearchTrack) else track for track in tracks
        ]
        try:
            self.plan = ResearchPlan.model_validate(data)
        except ValidationError as error:
            return EditResult(False, describe_validation_error(error))
        return EditResult(True)

    def replace_track(self, index: int, fields: TrackFields) -> EditResult:
        tracks: list[ResearchTrack | dict[str, object]] = list(self.plan.tracks)
        tracks[index] = {
            "title": fields.title,
            "section": fields.section,
            "queries": fields.query_list(),
        }
        return self._try(tracks)

    def insert_track(self, index: int, fields: TrackFields) -> EditResult:
        tracks: list[ResearchTrack | dict[str, object]] = list(self.plan.tracks)
        tracks.insert(
            index,
            {"title": fields.title, "section": fields.section, "queries": fields.query_list()},
        )
        return self._try(tracks)

    def delete_track(self, index: int) -> EditResult:
        tracks: list[ResearchTrack | dict[str, object]] = list(self.plan.tracks)
        del tracks[index]
        return self._try(tracks)

    def move_track(self, index: int, offset: int) -> EditResult:
        target = index + offset
        if not 0 <= target < len(self.plan.tracks):
            return EditResult(False, "the track is already at the edge of the plan")
        tracks: list[ResearchTrack | dict[str, object]] = list(self.plan.tracks)
        tracks[index], tracks[target] = tracks[target], tracks[index]
        return self._try(tracks)

    def reset(self) -> None:
        """Drop every edit and go back to the plan as proposed."""
        self.plan = self.original
