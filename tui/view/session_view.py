"""What the app knows about the session on screen, accumulated from bridge messages.

A plain store: it records facts the engine reported, and the detail screens read slices of it.
It decides nothing; the engine's events are the only source of state.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.citations.evidence import EvidenceRecord
    from engine.events import (
        BudgetReached,
        ReportReady,
        ResearchUnitSummary,
        RouteDecided,
        RuntimeProgress,
        ToolCalled,
        UsageUpdated,
    )
    from engine.schemas import ResearchPlan


@dataclass
class SessionView:
    session_id: str = ""
    question: str = ""
    offline: bool = False
    # Where the session searches (local documents, the web): names its search tool.
    search_provider: str = ""
    phase: str = ""
    phase_detail: str = ""
    started_at: float | None = None
    # When the person sent the question: its time counts from then, not from when the engine
    # (loaded with the first question) said the session began.
    asked_at: float | None = None
    # Since when the run waits for the person (plan review, a clarifying question): that
    # time is theirs, not the research's, and the clock stands still.
    waiting_since: float | None = None
    finished_at: float | None = None
    route: RouteDecided | None = None
    progress: RuntimeProgress | None = None
    usage: UsageUpdated | None = None
    plan: ResearchPlan | None = None
    plan_revision: int = 0
    # The plan the person sent back with feedback, to tell them whether the revision changed it.
    plan_before_revision: ResearchPlan | None = None
    clarification: str | None = None
    units: dict[str, ResearchUnitSummary] = field(default_factory=dict)
    tool_calls: defaultdict[str, list[ToolCalled]] = field(
        default_factory=lambda: defaultdict(list)
    )
    records: list[EvidenceRecord] = field(default_factory=list)
    records_by_id: dict[str, EvidenceRecord] = field(default_factory=dict)
    domains: set[str] = field(default_factory=set)
    # Ledger records per research unit, counted as they arrive.
    evidence_by_unit: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    report: ReportReady | None = None
    # The report took the screen by itself once (a small terminal); after the person restores
    # the panes, a later section does not take it again.
    report_zoomed: bool = False
    # The cap research stopped at, when it did (the report is then partial).
    budget_stop: BudgetReached | None = None
    failure: str | None = None
    resumable: bool = False

    def add_tool_calls(self, calls: list[ToolCalled]) -> None:
        for call in calls:
            self.tool_calls[call.unit_id or ""].append(call)

    def add_records(self, records: list[EvidenceRecord]) -> list[EvidenceRecord]:
        """Store new records; returns those not seen before (a resumed run may repeat some)."""
        fresh = [record for record in records if record.id not in self.records_by_id]
        for record in fresh:
            self.records_by_id[record.id] = record
            self.evidence_by_unit[record.research_unit_id or ""] += 1
        self.records.extend(fresh)
        return fresh

    def calls_of(self, unit_id: str) -> int:
        """Tool calls seen for a unit: a call's start and outcome are one call."""
        calls = self.tool_calls.get(unit_id, [])
        named = {call.call_id for call in calls if call.call_id}
        return len(named) + sum(
            1 for call in calls if not call.call_id and call.status != "started"
        )

    def live_unit(self, unit: ResearchUnitSummary) -> ResearchUnitSummary:
        """A unit with its counts as its events arrive, never fewer than were shown: the
        engine's summary of a running unit (the quick path's above all) says 0 tool calls
        until the unit is done, and a unit cancelled mid-way keeps that last summary."""
        calls = self.calls_of(unit.id)
        evidence = self.evidence_by_unit.get(unit.id, 0)
        update: dict[str, int] = {}
        if calls > unit.tool_call_count:
            update["tool_call_count"] = calls
        if evidence > unit.evidence_count:
            update["evidence_count"] = evidence
        return unit.model_copy(update=update) if update else unit

    def findings_of(self, unit_id: str) -> list[EvidenceRecord]:
        return [record for record in self.records if record.research_unit_id == unit_id]

    def unit_topic(self, unit_id: str) -> str:
        unit = self.units.get(unit_id)
        return unit.topic if unit else unit_id
