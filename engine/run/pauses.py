"""What a paused session says: the events that announce the graph's interrupts, the status
the session index records for them, and the phase a stopped session resumes in.

The interrupting nodes (engine.nodes.scope) pause with a `{"kind": …}` value; the runner reads
the pending ones from the checkpoint after a leg's stream ends, so each pause is announced once,
and again by `resume()`.
"""

from __future__ import annotations

import time
from typing import Any

from engine.events import ClarificationRequested, Event, Phase, PhaseChanged, PlanProposed
from engine.protocol import SessionStatus
from engine.schemas import ResearchPlan


def pause_events(interrupts: Any) -> list[Event]:
    """The events that announce the graph's pending interrupts, each after its phase.

    The phase is announced here, not by the interrupting node: that node re-runs from the top
    when it is resumed, and would enter the phase a second time.
    """
    events: list[Event] = []
    for item in interrupts or ():
        value = getattr(item, "value", item)
        if not isinstance(value, dict):
            continue
        if value.get("kind") == "clarification":
            events.append(PhaseChanged(phase="clarifying"))
            events.append(ClarificationRequested(question=str(value.get("question", ""))))
        elif value.get("kind") == "plan_review" and value.get("plan"):
            events.append(PhaseChanged(phase="plan_review"))
            events.append(
                PlanProposed(
                    plan=ResearchPlan.model_validate(value["plan"]),
                    revision=max(1, int(value.get("revision") or 1)),
                    rejected_edit_reason=value.get("rejected_edit_reason"),
                    at=time.time(),
                    max_research_units=max(0, int(value.get("max_research_units") or 0)),
                    requests=[str(text) for text in value.get("requests") or []],
                    edited_tracks=[str(title) for title in value.get("edited_tracks") or []],
                )
            )
    return events


def pause_status(events: list[Event]) -> SessionStatus:
    """The index status of a session paused with `events`: a question to answer, else a plan."""
    if any(isinstance(event, ClarificationRequested) for event in events):
        return "awaiting_clarification"
    return "awaiting_plan_review"


# The phase of a run resumed before one of these graph nodes.
_RESUMED_PHASES: dict[str, Phase] = {
    "route_question": "routing",
    "scope_intake": "scoping",
    "quick_research": "quick_research",
    "research_supervisor": "researching",
    "final_report": "writing",
    "verify_citations": "verifying",
}


def resumed_phase(next_nodes: Any) -> list[Event]:
    """The phase a stopped run resumes in, announced as it resumes: the node it resumes in
    may not announce it again (the supervisor does on its first pass only), and "cancelled"
    would otherwise stay the last word until some later node spoke."""
    for node in next_nodes or ():
        phase = _RESUMED_PHASES.get(node)
        if phase is not None:
            return [PhaseChanged(phase=phase, detail="resumed")]
    return []
