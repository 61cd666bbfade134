"""The plan as the person edits it, validated by the engine's own schema after every change.

Pure Python (no Textual) so every edit rule is unit-tested on its own. An edit that would make
the plan invalid is refused: the draft keeps its last valid tracks and the refusal carries the
schema's reason, so the widget can show it next to the text the person typed, which it keeps.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from engine.schemas import ResearchPlan, ResearchTrack
from tui.view.track_fields import QUERY_SEPARATOR, EditResult, TrackFields

__all__ = ["QUERY_SEPARATOR", "EditResult", "PlanDraft", "TrackFields", "describe_validation_error"]


# What a person calls the plan's fields: (one, many).
_NAMES = {
    "tracks": ("track", "tracks"),
    "queries": ("query", "queries"),
    "title": ("title", "titles"),
    "section": ("report section", "report sections"),
    "scope": ("scope", "scopes"),
}


def describe_validation_error(error: ValidationError) -> str:
    """The schema's complaints in words a person can act on ("track 2 title is empty",
    "a plan has at most 6 tracks"), each said once."""
    parts: list[str] = []
    for item in error.errors():
        part = _describe(list(item.get("loc", ())), item)
        if part not in parts:
            parts.append(part)
    return "; ".join(parts)


def _describe(location: list[object], item: Any) -> str:
    kind, context = item.get("type", ""), item.get("ctx") or {}
    field = str(location[-1]) if location and isinstance(location[-1], str) else ""
    one, many = _NAMES.get(field, (field.replace("_", " "), field.replace("_", " ")))
    owner = _owner(location)
    if kind == "too_long":
        return f"{owner or 'a plan'} has at most {_count(context['max_length'], one, many)}"
    if kind == "too_short":
        return f"{owner or 'a plan'} needs at least {_count(context['min_length'], one, many)}"
    if kind == "string_too_short":
        name = f"{owner} {one}".strip()
        if not str(item.get("input", "")).strip():
            return f"{name} is empty"
        return f"{name} needs at least {context['min_length']} characters"
    if kind == "string_too_long":
        return f"{owner} {one} has more than {context['max_length']} characters".strip()
    # The engine's own validators already say what is wrong, in words.
    message = str(item.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{owner}: {message}" if owner else message


def _owner(location: list[object]) -> str:
    """The track a complaint is about ("track 2"), or "" for the plan itself."""
    if len(location) >= 2 and location[0] == "tracks" and isinstance(location[1], int):
        return f"track {location[1] + 1}"
    return ""


def _count(number: object, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def max_tracks() -> int | None:
    """How many tracks the engine's plan schema allows (None: no limit)."""
    for constraint in ResearchPlan.model_fields["tracks"].metadata:
        limit = getattr(constraint, "max_length", None)
        if isinstance(limit, int):
            return limit
    return None


class PlanDraft:
    """An editable copy of a proposed plan; only valid plans are ever kept."""

    def __init__(self, plan: ResearchPlan) -> None:
        self.original = plan
        self.plan = plan
        # The plans before each applied edit, latest last: `undo` goes back one.
        self._history: list[ResearchPlan] = []

    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def undo(self) -> bool:
        """Take back the last applied edit; False when there is none."""
        if not self._history:
            return False
        self.plan = self._history.pop()
        return True

    def room_for_track(self) -> EditResult:
        """Whether one more track would fit the plan, asked before anything is typed."""
        limit = max_tracks()
        if limit is not None and len(self.plan.tracks) >= limit:
            return EditResult(False, f"a plan has at most {_count(limit, 'track', 'tracks')}")
        return EditResult(True)

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
            plan = ResearchPlan.model_validate(data)
        except ValidationError as error:
            return EditResult(False, describe_validation_error(error))
        self._history.append(self.plan)
        self.plan = plan
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

    def over_limit(
        self,
        max_units: int,
        requests: list[str] | None = None,
        edited_before: list[str] | None = None,
    ) -> list[int]:
        """Indexes of the tracks research would not reach with `max_units` units, as the draft
        stands (its edited and added tracks go first, as the engine dispatches them)."""
        from engine.plan_order import tracks_over_limit

        return tracks_over_limit(self.original, self.plan, max_units, requests, edited_before)

    def reset(self) -> None:
        """Drop every edit and go back to the plan as proposed."""
        self.plan = self.original
        self._history.clear()
