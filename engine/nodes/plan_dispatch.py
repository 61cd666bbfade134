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
