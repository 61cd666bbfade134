"""Which tracks of the approved plan no research unit took up.

A unit the engine dispatched for a track (engine.nodes.plan_dispatch) says which track it is.
A topic of the supervisor model's own is free text: it is the research of the track whose title
it names, else of the track whose title and section share most of their words with it (every
track tied for most, on a tie). A track no unit is the research of was not researched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.schemas import ResearchPlan, ResearchTrack
from engine.text.words import content_tokens


def unresearched_tracks(plan: ResearchPlan | None, units: Iterable[Mapping[str, Any]]) -> list[str]:
    """Titles of the plan's tracks that none of `units` researched, in plan order."""
    if plan is None:
        return []
    researched: set[int] = set()
    for unit in units:
        researched |= tracks_of_unit(unit, plan)
    return [track.title for index, track in enumerate(plan.tracks) if index not in researched]


def tracks_of_unit(unit: Mapping[str, Any], plan: ResearchPlan) -> set[int]:
    """The tracks one research unit (its stored record) is the research of."""
    track = unit.get("track")
    if isinstance(track, int) and 0 <= track < len(plan.tracks):
        return {track}
    return _tracks_of(str(unit.get("topic") or ""), plan.tracks)


def _tracks_of(topic: str, tracks: list[ResearchTrack]) -> set[int]:
    """The tracks `topic` is the research of (none when it shares no word with any)."""
    folded = topic.casefold()
    named = {index for index, track in enumerate(tracks) if track.title.casefold() in folded}
    if named:
        return named
    words = content_tokens(topic)
    shares = [_share(words, track) for track in tracks]
    best = max(shares, default=0.0)
    return {index for index, share in enumerate(shares) if best > 0 and share == best}


def _share(words: set[str], track: ResearchTrack) -> float:
    wanted = content_tokens(f"{track.title} {track.section}")
    return len(wanted & words) / len(wanted) if wanted else 0.0
