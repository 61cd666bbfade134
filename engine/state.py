"""Graph state: the main research graph's state and the supervisor subgraph's own schema.

Plain TypedDicts of JSON-friendly values (plans, records and the source registry are stored as
dicts) so every checkpoint serialises cleanly and a second process can resume it. Reducers:
messages accumulate; within the supervisor loop notes, raw notes, the ledger and research-unit
results accumulate too, while the main graph overwrites them so a follow-up question never
inherits stale copies. `langgraph.types.Overwrite` resets an accumulating channel on a topic
shift.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

# Not typing's: pydantic (LangGraph Server's input and output schemas) rejects it before 3.12.
from typing_extensions import TypedDict

from engine.citations.registry import merge_registry_dicts


def merge_units(
    left: dict[str, dict[str, Any]] | None, right: dict[str, dict[str, Any]] | None
) -> dict[str, dict[str, Any]]:
    """Research-unit results keyed by unit id; a later write for the same id replaces it."""
    merged = dict(left or {})
    merged.update(right or {})
    return merged


class ResearchState(TypedDict, total=False):
    """State of the main graph, one thread per session."""

    messages: Annotated[list[AnyMessage], add_messages]
    question: str
    previous_question: str
    mode: str
    route: str
    route_reason: str
    run_number: int
    clarification_question: str
    clarification_answer: str
    research_brief: str
    plan: dict[str, Any] | None
    # The plan the model proposed, while a revision of the person's edit of it is drafted.
    plan_before_edits: dict[str, Any] | None
    plan_revision: int
    plan_status: str
    rejected_edit_reason: str | None
    plan_feedback: str
    # What the person asked for at plan review (every feedback, the tracks they edited): the
    # tracks it names are researched first.
    plan_requests: list[str]
    plan_edited_tracks: list[str]
    # Research results: overwritten at this level (the supervisor returns complete lists).
    supervisor_messages: list[AnyMessage]
    notes: list[str]
    raw_notes: list[str]
    evidence_ledger: list[dict[str, Any]]
    research_units: dict[str, dict[str, Any]]
    registry: dict[str, Any]
    final_report: str
    # Why the writer gave no usable report, when final_report was assembled from the ledger.
    writer_fallback: str | None
    verified_report: str
    audit: dict[str, Any]
    report_path: str | None
    audit_path: str | None
    gate_status: str
    gate_reason: str | None
    # Why research stopped early ("budget reached (…)"): the report is partial.
    budget_stop: str | None
    # What ended research short of the quality gate, in words (None: the gate passed).
    research_stop: str | None
    status: str


class SupervisorState(TypedDict, total=False):
    """State of the `supervisor ⇄ supervisor_tools` loop."""

    supervisor_messages: Annotated[list[AnyMessage], add_messages]
    question: str
    research_brief: str
    plan: dict[str, Any] | None
    plan_requests: list[str]
    plan_edited_tracks: list[str]
    notes: Annotated[list[str], operator.add]
    raw_notes: Annotated[list[str], operator.add]
    evidence_ledger: Annotated[list[dict[str, Any]], operator.add]
    registry: Annotated[dict[str, Any], merge_registry_dicts]
    research_units: Annotated[dict[str, dict[str, Any]], merge_units]
    run_number: int
    research_iterations: int
    supervisor_iteration: int
    skipped_units: int
    stalled_rejections: int
    records_at_last_gate: int
    gate_status: str
    gate_reason: str | None
    budget_stop: str | None
    # What ended research short of the quality gate, in words (None: the gate passed).
    research_stop: str | None
    pending_dispatch: list[dict[str, Any]]


class SupervisorOutput(TypedDict, total=False):
    """What the supervisor subgraph hands back to the main graph."""

    supervisor_messages: list[AnyMessage]
    notes: list[str]
    raw_notes: list[str]
    evidence_ledger: list[dict[str, Any]]
    registry: dict[str, Any]
    research_units: dict[str, dict[str, Any]]
    gate_status: str
    gate_reason: str | None
    budget_stop: str | None
    # What ended research short of the quality gate, in words (None: the gate passed).
    research_stop: str | None


class UnitInput(TypedDict):
    """What `supervisor_tools` sends to one `research_unit` task."""

    unit_id: str
    topic: str
    call_id: str
    # The wave the unit belongs to, and the evidence the ledger held when it was sent: a
    # unit announces only evidence neither the ledger nor a sibling already has.
    wave_id: NotRequired[str]
    known_evidence: NotRequired[list[str]]
    # The plan track the unit researches (None: a topic of the supervisor model's own), and
    # what is searched before the researcher's first turn.
    track: NotRequired[int | None]
    queries: NotRequired[list[str]]
    # That track itself (a ResearchTrack as JSON), handed to the researcher's model as data.
    plan_track: NotRequired[dict[str, Any]]
