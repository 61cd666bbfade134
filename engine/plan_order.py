"""The order an approved plan's tracks are researched in, and which of them fit the limit.

Shared by the engine, which dispatches the tracks in this order, and by every front end that
shows the person, while they review the plan, which tracks the unit limit leaves out.
"""

from __future__ import annotations

from engine.schemas import ResearchPlan
from engine.text.words import content_tokens


def track_order(
    plan: ResearchPlan, requests: list[str] | None = None, edited: list[str] | None = None
) -> list[int]:
    """Track indexes in the order they are researched: the tracks the person edited at plan
    review first, then those their feedback names (most of its words first), then the rest in
    plan order."""
    first = {title.casefold() for title in edited or []}
    asked = content_tokens(" ".join(requests or []))

    def rank(index: int) -> tuple[int, float, int]:
        track = plan.tracks[index]
        if track.title.casefold() in first:
            return (0, 0.0, index)
        words = content_tokens(f"{track.title} {track.section} {' '.join(track.queries)}")
        share = len(words & asked) / len(words) if words and asked else 0.0
        return (1, -share, index) if share > 0 else (2, 0.0, index)

    return sorted(range(len(plan.tracks)), key=rank)


def edited_tracks(proposed: ResearchPlan | None, approved: ResearchPlan) -> list[str]:
    """Titles of the approved plan's tracks the person wrote or changed at review."""
    if proposed is None:
        return []
    before = {(t.title, t.section, tuple(t.queries)) for t in proposed.tracks}
    return [
        t.title for t in approved.tracks if (t.title, t.section, tuple(t.queries)) not in before
    ]


def tracks_over_limit(
    proposed: ResearchPlan | None,
    plan: ResearchPlan,
    max_units: int,
    requests: list[str] | None = None,
    edited_before: list[str] | None = None,
) -> list[int]:
    """Indexes of `plan`'s tracks that research would not reach: the engine dispatches one
    unit per track, in `track_order`, and stops at `max_units` (0: no limit known).
    `edited_before`: titles of tracks the person edited at earlier reviews of this plan."""
    if max_units <= 0 or len(plan.tracks) <= max_units:
        return []
    order = track_order(plan, requests, edited_titles(proposed, plan, edited_before))
    return sorted(order[max_units:])


def edited_titles(
    proposed: ResearchPlan | None, plan: ResearchPlan, edited_before: list[str] | None = None
) -> list[str]:
    """The tracks the person wrote or changed: at earlier reviews (those still in `plan`),
    then at this one."""
    titles = {track.title for track in plan.tracks}
    earlier = [title for title in edited_before or [] if title in titles]
    return earlier + [title for title in edited_tracks(proposed, plan) if title not in earlier]
