"""Which tracks of the approved plan no research unit took up.

A unit's topic is free text: the plan's own wording when the engine dispatched the track
(engine.nodes.plan_dispatch), the supervisor model's wording otherwise. Each topic is the
research of the track whose title it names, else of the track whose title and section share
most of their words with it (every track tied for most, on a tie). A track no topic is the
research of was not researched.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.nodes.topic import content_tokens
from engine.schemas import ResearchPlan, ResearchTrack


def unresearched_tracks(plan: ResearchPlan | None, topics: Iterable[str]) -> list[str]:
    """Titles of the plan's tracks that none of `topics` researched, in plan order."""
    if plan is None:
        return []
    researched: set[int] = set()
    for topic in topics:
        researched |= _tracks_of(topic, plan.tracks)
    return [track.title for index, track in enumerate(plan.tracks) if index not in researched]


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
