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

import re
from uuid import uuid4

from langchain_core.messages import AIMessage

from engine.schemas import ResearchPlan, ResearchTrack

TRACK_LABEL = "Research track:"
_SECTION_LABEL = "Section:"
_QUERIES_LABEL = "Queries:"
_SCOPE_LABEL = "The research as a whole covers:"
_QUESTION_LABEL = "The question it answers:"
_LABELS = re.compile(
    "^(?:"
    + "|".join(
        re.escape(label)
        for label in (TRACK_LABEL, _SECTION_LABEL, _QUERIES_LABEL, _SCOPE_LABEL, _QUESTION_LABEL)
    )
    + r")[ \t]*",
    re.MULTILINE,
)


def track_topic(track: ResearchTrack, scope: str, question: str = "") -> str:
    """A standalone research topic for one track (a researcher sees nothing else): the track,
    the plan's scope and the person's own question (a small model's scope can be two words,
    "Apache HTTPd", and the question is what the passages are ranked for)."""
    lines = [
        f"{TRACK_LABEL} {track.title}",
        f"{_SECTION_LABEL} {track.section}",
        f"{_QUERIES_LABEL} " + " | ".join(track.queries),
        f"{_SCOPE_LABEL} {scope}",
    ]
    if question.strip():
        lines.append(f"{_QUESTION_LABEL} {' '.join(question.split())}")
    return "\n".join(lines)


def topic_focus(topic: str) -> str:
    """What a topic asks about, to rank passages against: a track's topic without the labels
    `track_topic` writes into every topic alike ("Research track:", "Section:", "Queries:",
    "The research as a whole covers:", "The question it answers:"). Ranked with them, a
    sentence that says "section" or "covers" scored for words no one asked about."""
    return _LABELS.sub("", topic)


def topic_without_question(topic: str) -> str:
    """The topic as the unit's task, without the person's question: a finding made of the
    question's words is its answer ("Autovacuum is enabled by default [1]." for "Is
    autovacuum enabled by default?"), not the task written back."""
    return topic.split(f"\n{_QUESTION_LABEL}", 1)[0]


def track_call_id(index: int) -> str:
    return f"call_track_{index}_{uuid4().hex[:8]}"


def tracks_dispatch_message(
    plan: ResearchPlan, indexes: list[int], question: str = ""
) -> AIMessage:
    """ConductResearch calls for the plan's tracks `indexes` (ids say which track each is)."""
    calls = [
        {
            "name": "ConductResearch",
            "args": {"research_topic": track_topic(plan.tracks[index], plan.scope, question)},
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
