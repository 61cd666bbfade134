"""Cancelling a session mid-research: the run stops, stays resumable, and resumes without
re-running the units that had finished."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine.events import (
    PhaseChanged,
    ReportReady,
    ResearchUnitUpdated,
    RunFinished,
    SessionStarted,
)
from engine.run.runner import open_session
from engine.schemas import PlanDecision
from engine.sessions import list_sessions
from tests.unit.engine.conftest import Scenario, make_settings


async def collect(stream):
    return [event async for event in stream]


@pytest.mark.timeout(60)
async def test_cancel_mid_research_stops_and_resume_finishes_without_rerunning(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=2)
    # beta would take a minute: the run is cancelled while it is still researching.
    scenario = Scenario(tracks=3, researcher_delay={"beta": 60.0})
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        await collect(session.start("Compare alpha and beta", mode="deep"))
        started = asyncio.get_running_loop().time()
        events = []
        async for event in session.review_plan(PlanDecision(action="approve")):
            events.append(event)
            unit = event.unit if isinstance(event, ResearchUnitUpdated) else None
            if unit is not None and unit.status == "completed":
                assert "alpha" in unit.topic
                await session.cancel()
        elapsed = asyncio.get_running_loop().time() - started
    assert elapsed < 30, "cancel() should stop the run, not wait for the slow unit"
    assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"
    assert isinstance(events[-2], PhaseChanged) and events[-2].phase == "cancelled"
    assert not any(isinstance(e, ReportReady) for e in events)
    assert list_sessions(settings)[0].status == "interrupted"
    # beta was still searching its queries, before its researcher's first turn.
    assert scenario.researcher_runs == ["alpha"]

    # A new engine (as after a restart) resumes the saved session; beta is fast now.
    scenario.researcher_delay = {}
    async with open_session(settings, session.session_id, deps=scenario.deps(settings)) as again:
        resumed = await collect(again.resume())
    assert isinstance(resumed[0], SessionStarted) and resumed[0].resumed
    assert isinstance(resumed[-1], RunFinished) and resumed[-1].status == "completed"
    # alpha finished before the cancel and is not researched again; beta re-runs, and the
    # third track is researched after it.
    assert sorted(scenario.researcher_runs) == ["alpha", "beta", "gamma"]
    report = next(e for e in resumed if isinstance(e, ReportReady))
    kept = {c.source for c in report.kept_citations}
    assert "https://alpha.example.org/article-1" in kept
    assert "https://beta.example.org/article-1" in kept
    assert list_sessions(settings)[0].status == "completed"


@pytest.mark.timeout(60)
async def test_a_reader_that_stops_mid_run_leaves_the_session_interrupted(tmp_path: Path):
    settings = make_settings(tmp_path, max_concurrent_research_units=2)
    scenario = Scenario(tracks=3, researcher_delay={"beta": 60.0})
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        await collect(session.start("Compare alpha and beta", mode="deep"))
        stream = session.review_plan(PlanDecision(action="approve"))
        async for event in stream:
            if isinstance(event, ResearchUnitUpdated) and event.unit.status == "completed":
                break  # the app quitting: nobody reads the rest of the stream
        await stream.aclose()
    assert list_sessions(settings)[0].status == "interrupted"


async def test_resuming_a_finished_session_shows_its_report_again(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        await collect(session.start("Compare alpha and beta", mode="deep"))
        first = await collect(session.review_plan(PlanDecision(action="approve")))
    original = next(e for e in first if isinstance(e, ReportReady))
    async with open_session(settings, session.session_id, deps=scenario.deps(settings)) as again:
        resumed = await collect(again.resume())
    replayed = next(e for e in resumed if isinstance(e, ReportReady))
    assert replayed == original
    assert isinstance(resumed[-1], RunFinished) and resumed[-1].status == "completed"
