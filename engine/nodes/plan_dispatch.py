"""Research the approved plan when the supervisor model dispatches none.

A small model often answers the supervisor prompt in prose, or calls ResearchComplete before
anything was researched. The person approved a plan; its tracks are research topics already.
So when a run has dispatched nothing and the model asks for nothing, the engine dispatches
the plan's first tracks itself, as ConductResearch calls in the conversation, so the model
sees their results and goes on from there like after its own calls.
"""

from __future__ import annotations

from uuid import uuid4

from langchain_core.messages import AIMessage

from engine.schemas import ResearchPlan, ResearchTrack


def track_topic(track: ResearchTrack, scope: str) -> str:
    """A standalone research topic for one track (a researcher sees nothing else)."""
    queries = "; ".join(track.queries)
    return (
        f"{track.title}. Find sources that answer: {queries}. "
        f'This is for the report section "{track.section}"; the research as a whole covers: '
        f"{scope}"
    )


def plan_dispatch_message(plan: ResearchPlan, count: int) -> AIMessage:
    """ConductResearch calls for the plan's first `count` tracks."""
    calls = [
        {
            "name": "ConductResearch",
            "args": {"research_topic": track_topic(track, plan.scope)},
            "id": f"call_plan_{index}_{uuid4().hex[:8]}",
            "type": "tool_call",
        }
        for index, track in enumerate(plan.tracks[:count], start=1)
    ]
    return AIMessage(content="", tool_calls=calls)
