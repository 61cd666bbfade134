"""The sessions index is written off the event loop, yet always says where a run stands."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import RunFinished, SessionStarted
from engine.run.runner import open_session
from engine.schemas import PlanDecision
from engine.sessions import list_sessions
from tests.unit.engine.conftest import Scenario, make_settings


def status_of(settings, session_id: str) -> str:
    return next(info.status for info in list_sessions(settings) if info.session_id == session_id)


@pytest.mark.timeout(60)
async def test_the_row_says_running_before_any_event_and_the_outcome_when_the_stream_ends(
    tmp_path: Path,
):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3, wave=["alpha", "beta"])
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        seen = []
        async for event in session.start("Compare alpha and beta", mode="deep"):
            seen.append((type(event).__name__, status_of(settings, session.session_id)))
        assert seen[0] == ("SessionStarted", "running")
        # The graph's events while it runs, then the pause, announced once the row says so.
        statuses = [status for _, status in seen]
        paused_from = statuses.index("awaiting_plan_review")
        assert set(statuses[:paused_from]) == {"running"}
        assert set(statuses[paused_from:]) == {"awaiting_plan_review"}
        assert ("PlanProposed", "awaiting_plan_review") in seen

        resumed = []
        async for event in session.review_plan(PlanDecision(action="approve")):
            resumed.append(event)
            if len(resumed) == 1:
                assert status_of(settings, session.session_id) == "running"
        assert isinstance(resumed[-1], RunFinished) and resumed[-1].status == "completed"
        assert status_of(settings, session.session_id) == "completed"


@pytest.mark.timeout(60)
async def test_a_reader_that_stops_at_the_first_event_leaves_the_session_interrupted(
    tmp_path: Path,
):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3, wave=["alpha", "beta"])
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        stream = session.start("Compare alpha and beta", mode="deep")
        first = await anext(stream)
        assert isinstance(first, SessionStarted)
        await stream.aclose()  # type: ignore[attr-defined]
        assert status_of(settings, session.session_id) == "interrupted"
