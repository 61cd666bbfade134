"""The event contract: every type round-trips through JSON; bad input is refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from engine.citations.evidence import EvidenceRecord
from engine.events import (
    EVENT_TYPES,
    BudgetReached,
    CitationAuditEntry,
    ClaimSupport,
    ClarificationRequested,
    EvidenceAdded,
    MetricRecorded,
    ModelCallProgress,
    ModelSwitched,
    PhaseChanged,
    PlanApproved,
    PlanProposed,
    ReportDelta,
    ReportReady,
    ReportReviewed,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RouteDecided,
    RunFailed,
    RunFinished,
    RuntimeProgress,
    SessionStarted,
    ToolCalled,
    UsageUpdated,
    event_to_json,
    parse_event,
)
from engine.schemas import ResearchPlan, ResearchTrack

PLAN = ResearchPlan(
    scope="asyncio cancellation",
    tracks=[
        ResearchTrack(title=f"Track {n}", section=f"Section {n}", queries=[f"query {n}"])
        for n in range(3)
    ],
)
UNIT = ResearchUnitSummary(
    id="u1",
    topic="cancellation",
    status="completed",
    started_at=1.0,
    finished_at=3.5,
    duration_seconds=2.5,
    tool_call_count=4,
    evidence_count=2,
)
RECORD = EvidenceRecord(
    id="e1",
    claim="Tasks can be cancelled.",
    source_urls=["asyncio-task.html"],
    research_unit_id="u1",
)

SAMPLES: list[Any] = [
    SessionStarted(session_id="s1", question="q?", mode="deep", offline=True),
    PhaseChanged(phase="researching", detail="wave 1"),
    ClarificationRequested(question="Which version?"),
    PlanProposed(plan=PLAN, revision=2, rejected_edit_reason="too few tracks"),
    PlanApproved(plan=PLAN, revision=2, edited=True),
    RouteDecided(mode="quick", reason="a lookup", overridden=True),
    RuntimeProgress(
        supervisor_iteration=2,
        dispatched_research_units=3,
        skipped_research_units=1,
        quality_gate_status="retry",
        quality_gate_reason="need 5 records, have 2",
        min_evidence_records=5,
        min_source_domains=3,
        evidence_record_count=2,
        source_domain_count=1,
        source_domains=["docs.python.org"],
        research_units=[UNIT],
    ),
    ResearchUnitUpdated(unit=UNIT),
    ToolCalled(tool="search_web", call_id="c1", unit_id="u1", arguments="q", duration_seconds=0.1),
    EvidenceAdded(record=RECORD),
    MetricRecorded(name="search_preprocess", values={"results_before": 9, "results_after": 8}),
    UsageUpdated(role="writer", input_tokens=10, output_tokens=5, total_input_tokens=10),
    BudgetReached(spent_tokens=12_000, spent_usd=0.4, budget_usd=0.5, detail="research stops"),
    ModelSwitched(
        role="writer",
        from_model="gpt-4.1",
        from_endpoint="api.openai.com",
        to_model="llama3.1",
        to_endpoint="localhost:11434",
        reason="cannot be reached",
    ),
    ModelCallProgress(
        role="writer",
        endpoint="127.0.0.1:8081",
        state="generating",
        output_tokens=120,
        elapsed_seconds=9.5,
    ),
    ReportReady(
        report="# R\n\nText [1].",
        verification_status="verified",
        verification_reason="valid_citations",
        kept_citations=[CitationAuditEntry(number=1, source="https://a.example/x")],
        removed_citations=[CitationAuditEntry(number=2, source="x", reason="unverifiable")],
        claims=[
            ClaimSupport(
                text="Text [1].",
                numbers=[1],
                sources=["https://a.example/x"],
                score=0.8,
                status="supported",
            )
        ],
        grounding="strict",
        report_path="/tmp/r.md",
    ),
    ReportDelta(section="Timeouts", text="A timeout cancels ", start=True),
    ReportReviewed(
        round=1,
        max_rounds=2,
        missing_sections=["Timeouts"],
        unsupported_claims=2,
        outcome="revising",
    ),
    RunFailed(error="research unit timed out", phase="researching", session_id="s1"),
    RunFinished(session_id="s1", status="completed"),
]


def test_every_event_type_has_a_sample() -> None:
    assert {type(sample) for sample in SAMPLES} == set(EVENT_TYPES)


def test_type_discriminators_are_unique() -> None:
    names = [cls.model_fields["type"].default for cls in EVENT_TYPES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_json_round_trip(event: Any) -> None:
    line = event_to_json(event)
    assert "\n" not in line
    parsed = parse_event(line)
    assert type(parsed) is type(event)
    assert parsed == event
    assert parse_event(json.loads(line)) == event


def test_events_are_frozen() -> None:
    event = PhaseChanged(phase="writing")
    with pytest.raises(ValidationError):
        event.phase = "done"  # type: ignore[misc]


def test_unknown_type_and_fields_are_refused() -> None:
    with pytest.raises(ValidationError):
        parse_event('{"type": "mystery"}')
    with pytest.raises(ValidationError):
        parse_event('{"type": "phase_changed", "phase": "writing", "extra": 1}')
    with pytest.raises(ValidationError):
        parse_event('{"type": "phase_changed", "phase": "sleeping"}')


def test_evidence_record_requires_a_source_and_names_the_field() -> None:
    with pytest.raises(ValidationError) as caught:
        EvidenceRecord(id="e", claim="c", source_urls=[])
    assert "source_urls" in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        EvidenceRecord(id="e", claim="c", source_urls=["u"], confidence=1.5)
    assert "confidence" in str(caught.value)


def test_model_call_progress_reads_as_words_and_says_nothing_once_finished() -> None:
    from engine.events import ModelCallProgress
    from engine.progress_text import describe_model_call

    waiting = ModelCallProgress(role="writer", endpoint="h:1", state="waiting", elapsed_seconds=5)
    assert describe_model_call(waiting) == "writer model (h:1): reading the prompt… 5s"
    assert describe_model_call(waiting, short=True) == "writer model: reading the prompt… 5s"
    assert describe_model_call(waiting.model_copy(update={"state": "finished"})) is None


def test_a_log_written_before_plan_approvals_still_parses() -> None:
    """Stored sessions from before `plan_approved` existed load as they are."""
    plan = PLAN.model_dump(mode="json")
    old = json.dumps({"type": "plan_proposed", "plan": plan, "revision": 1})
    assert isinstance(parse_event(old), PlanProposed)
    approved = parse_event(json.dumps({"type": "plan_approved", "plan": plan}))
    assert isinstance(approved, PlanApproved) and approved.revision == 1 and not approved.edited
