"""The approved plan's tracks, dispatched by the engine as research units.

The person approved a plan; its tracks are research topics already. So the engine, not the
supervisor model, dispatches each track as its own unit (its title, its section and its
queries), in the order the person's edits and feedback give, before the model may add topics
of its own. A small model asked to break the question down researches it as one topic and
leaves the tracks unresearched; a track dispatched here is researched whatever the model says.
The calls go into the supervisor's conversation as ConductResearch calls, so the model sees
their results and goes on from there like after its own calls.
"""

from __future__ import annotations

from uuid import uuid4

from langchain_core.messages import AIMessage

from engine.nodes.topic import content_tokens
from engine.schemas import ResearchPlan, ResearchTrack

TRACK_LABEL = "Research track:"


def track_topic(track: ResearchTrack, scope: str) -> str:
    """A standalone research topic for one track (a researcher sees nothing else)."""
    return "\n".join(
        [
            f"{TRACK_LABEL} {track.title}",
            f"Section: {track.section}",
            "Queries: " + " | ".join(track.queries),
            f"The research as a whole covers: {scope}",
        ]
    )


def track_order(
    plan: ResearchPlan, requests: list[str] | None = None, edited: list[str] | None = None
) -> list[int]:
    """Track indexes in the order they are researched: the tracks the person edited at plan
    review first, then those their feedback names (most of its words first), then the rest in
    plan order."""
    edited_titles = {title.casefold() for title in edited or []}
    asked = content_tokens(" ".join(requests or []))

    def rank(index: int) -> tuple[int, float, int]:
        track = plan.tracks[index]
        if track.title.casefold() in edited_titles:
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


def track_call_id(index: int) -> str:
    return f"call_track_{index}_{uuid4().hex[:8]}"


def tracks_dispatch_message(plan: ResearchPlan, indexes: list[int]) -> AIMessage:
    """ConductResearch calls for the plan's tracks `indexes` (ids say which track each is)."""
    calls = [
        {
            "name": "ConductResearch",
            "args": {"research_topic": track_topic(plan.tracks[index], plan.scope)},
            "id": track_call_id(index),
            "type": "tool_call",
        }
        for index in indexes
    ]
    return AIMessage(content="", tool_calls=calls)


def track_of_call(call_id: str) -> int | None:
    """The track an engine-made call dispatches (None: the model's own topic)."""
    parts = call_id.split("_")
    if len(parts) == 4 and parts[:2] == ["call", "track"] and parts[2].isdigit():
        return int(parts[2])
    return None
