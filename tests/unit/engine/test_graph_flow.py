"""End-to-end runs of the research graph through ResearchSession, with scripted models."""

from __future__ import annotations

import json
from pathlib import Path

from engine.events import (
    ClarificationRequested,
    EvidenceAdded,
    PhaseChanged,
    PlanProposed,
    ReportReady,
    RouteDecided,
    RunFinished,
    RuntimeProgress,
    SessionStarted,
    UsageUpdated,
)
from engine.markdown_file import markdown_file_text
from engine.run.runner import open_session
from engine.schemas import PlanDecision
from engine.sessions import list_sessions, load_report
from tests.unit.engine.conftest import Scenario, make_settings


async def collect(stream):
    return [event async for event in stream]


async def test_deep_run_pauses_for_plan_review_then_writes_a_verified_report(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        first = await collect(session.start("How do alpha and beta compare?", mode="deep"))
        assert isinstance(first[0], SessionStarted)
        proposals = [e for e in first if isinstance(e, PlanProposed)]
        assert len(proposals) == 1 and proposals[0].revision == 1
        assert [t.title for t in proposals[0].plan.tracks] == [
            "Track alpha",
            "Track beta",
            "Track gamma",
        ]
        assert not any(isinstance(e, RunFinished) for e in first)

        second = await collect(session.review_plan(PlanDecision(action="approve")))
    phases = [e.phase for e in second if isinstance(e, PhaseChanged)]
    assert phases.index("researching") < phases.index("writing") < phases.index("verifying")
    assert phases[-1] == "done"
    evidence = [e for e in second if isinstance(e, EvidenceAdded)]
    assert len(evidence) == 6
    assert {e.record.research_unit_id for e in evidence} == {"unit-1", "unit-2", "unit-3"}
    report = next(e for e in second if isinstance(e, ReportReady))
    assert report.verification_status == "verified"
    assert "ConductResearch" not in report.report
    assert {c.source for c in report.kept_citations} == {
        f"https://{w}.example.org/article-{n}" for w in ("alpha", "beta", "gamma") for n in (1, 2)
    }
    assert Path(report.report_path).read_text() == markdown_file_text(report.report)
    audit = json.loads(Path(report.audit_path).read_text())
    assert audit["verification_status"] == "verified"
    assert isinstance(second[-1], RunFinished) and second[-1].status == "completed"
    progress = [e for e in second if isinstance(e, RuntimeProgress)]
    assert progress[-1].quality_gate_status == "pass"
    assert progress[-1].dispatched_research_units == 3
    assert any(isinstance(e, UsageUpdated) and e.role == "researcher" for e in second)
    [info] = list_sessions(settings)
    assert info.status == "completed" and info.question == "How do alpha and beta compare?"
    # Read back typed: the report as the run announced it, with its verification data.
    assert load_report(settings, info.session_id) == report


async def test_clarification_pauses_and_the_answer_resumes_the_same_thread(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(clarify=True)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        first = await collect(session.start("alpha?", mode="deep"))
        assert [e.question for e in first if isinstance(e, ClarificationRequested)] == [
            "Which region?"
        ]
        assert list_sessions(settings)[0].status == "awaiting_clarification"
        second = await collect(session.answer_clarification("Europe"))
    assert any(isinstance(e, PlanProposed) for e in second)
    brief_calls = [c for c in scenario.model().calls]  # fresh model: nothing recorded
    assert brief_calls == []


async def test_a_clarifying_question_that_asks_the_question_back_is_not_asked(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(
        clarify=True, clarification="What are the criteria for alpha to beat beta on latency?"
    )
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        events = await collect(session.start("How does alpha beat beta on latency?", mode="deep"))
    assert not any(isinstance(e, ClarificationRequested) for e in events)
    assert any(isinstance(e, PlanProposed) for e in events), "straight on to the plan"


async def test_route_decided_is_emitted_and_deep_mode_forces_deep(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(route="quick")
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        events = await collect(session.start("what is alpha", mode="deep"))
    [route] = [e for e in events if isinstance(e, RouteDecided)]
    assert route.mode == "deep" and route.overridden is True
