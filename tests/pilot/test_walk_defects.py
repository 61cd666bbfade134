"""What a walk through the app at 80×24 and 120×36 found: a reopened plan keeps its edits,
leaving a running session asks first, statuses and the elapsed time follow the latest events
(the readouts are in test_walk_readouts)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from engine.events import (
    Event,
    PhaseChanged,
    PlanApproved,
    PlanProposed,
    ResearchUnitUpdated,
    RunFailed,
    RunFinished,
    SessionStarted,
)
from engine.protocol import SessionInfo
from engine.schemas import ResearchPlan, ResearchTrack
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    QUESTION,
    SESSION_ID,
    Hold,
    ScriptedDriver,
    full_story,
    opening,
    research_finished,
    research_running,
    sample_plan,
    settle,
    unit,
)
from tests.pilot.steps import ask, press_and_settle
from tests.pilot.test_elapsed import Clock, app_with, header_text
from tui.screens.confirm import ConfirmScreen
from tui.view.elapsed import stored_elapsed
from tui.widgets.hanging_lines import HangingLines
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice


def saved(session_id: str, status: str = "completed", question: str = QUESTION) -> SessionInfo:
    return SessionInfo(
        session_id=session_id,
        question=question,
        created_at="2025-01-02T10:00:00",
        updated_at="2025-01-02T10:05:00",
        status=status,  # type: ignore[arg-type]
    )


def edited_plan() -> ResearchPlan:
    plan = sample_plan()
    tracks = list(plan.tracks)
    tracks[0] = ResearchTrack(
        title="Loop internals, edited", section="The event loop", queries=["selector loop"]
    )
    return plan.model_copy(update={"tracks": tracks})


def story_log(approved: Event | None) -> list[Event]:
    """A finished session's events, with the plan approval (or none, as old logs have)."""
    story = full_story()
    opening, research = story["start"][0], story["review_plan"][0]
    middle = [approved] if approved is not None else []
    return [*opening, *middle, *research]  # type: ignore[list-item]


@asynccontextmanager
async def reopened(
    tmp_path: Path, log: list[Event], *, size: tuple[int, int] = (120, 36)
) -> AsyncIterator[Any]:
    """The app with `log` stored as the completed session s-0001, reopened from the sessions
    screen (F2)."""
    app, _ = make_app(
        tmp_path, ScriptedDriver(full_story()), sessions=[saved("s-0001")], logs={"s-0001": log}
    )
    async with app.run_test(size=size) as pilot:
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
        yield app


def plan_text(app: Any) -> str:
    pane = app.screen.query_one(PlanPane)
    summary = str(pane.query_one("#plan-summary").render())
    tracks = "\n".join(str(track.render()) for track in pane.query(".track"))
    return f"{summary}\n{tracks}"


# ---- a reopened plan keeps the person's edits --------------------------------------------


async def test_reopened_session_shows_the_edited_plan_it_approved(tmp_path: Path) -> None:
    approved = PlanApproved(plan=edited_plan(), revision=1, edited=True)
    async with reopened(tmp_path, story_log(approved)) as app:
        text = plan_text(app)
        assert "Loop internals, edited" in text
        assert "Event loop mechanics" not in text
        assert "approved" in text and "(edited)" in text
        assert not app.screen.query_one(PlanPane).reviewing
        assert app.research.view.plan == edited_plan()


async def test_an_old_log_without_plan_approval_still_reopens_approved(tmp_path: Path) -> None:
    async with reopened(tmp_path, story_log(None)) as app:
        text = plan_text(app)
        assert "Event loop mechanics" in text and "approved" in text
        assert "(edited)" not in text


async def test_edited_marker_sits_on_the_status_line_not_after_the_scope(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "J")  # move the first track down: the plan is edited
        pane = app.screen.query_one(PlanPane)
        assert pane.draft is not None and pane.draft.changed
        status_line, *rest = str(pane.query_one("#plan-summary").render()).splitlines()
        assert "awaiting your review" in status_line and "(edited)" in status_line
        assert all("(edited)" not in line for line in rest)
        scope = pane.query_one("#plan-scope", HangingLines).plain
        assert scope.startswith("Scope: ") and "(edited)" not in scope


def test_plan_proposed_and_approved_are_distinct_facts() -> None:
    assert PlanApproved(plan=sample_plan()).type != PlanProposed(plan=sample_plan()).type


# ---- leaving a running session asks first ------------------------------------------------


async def running_app(tmp_path: Path, **options: Any) -> tuple[Any, ScriptedDriver, Hold]:
    hold = Hold()
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[*research_running(), hold]]})
    app, _ = make_app(tmp_path, driver, **options)
    return app, driver, hold


async def start_research(pilot: Any, hold: Hold) -> None:
    await ask(pilot)
    await pilot.press("y")
    await hold.reached.wait()
    await pilot.pause()
    assert pilot.app.link.running


async def test_opening_another_session_asks_before_stopping_the_run(tmp_path: Path) -> None:
    app, driver, hold = await running_app(
        tmp_path, sessions=[saved("other-1", question="What is PEP 492?")], logs={"other-1": []}
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await start_research(pilot, hold)
        await pilot.press("f2")
        await pilot.pause(0.2)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ConfirmScreen)
        assert driver.cancelled == 0 and app.link.running
        await pilot.press("n")
        await pilot.pause(0.2)
        assert app.link.running and driver.cancelled == 0
        assert app.research.view.session_id == SESSION_ID
        # Asked again, and this time the person agrees: the run stops, the other opens.
        await pilot.press("f2")
        await pilot.pause(0.2)
        await pilot.press("enter")
        await pilot.pause(0.2)
        await press_and_settle(pilot, "y")
        await settle(pilot)
        assert driver.cancelled == 1 and not app.link.running
        assert app.research.view.session_id == "other-1"
        assert app.research.view.question == "What is PEP 492?"


async def test_a_new_session_asks_before_stopping_the_run(tmp_path: Path) -> None:
    app, driver, hold = await running_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await start_research(pilot, hold)
        await pilot.press("ctrl+n")
        await pilot.pause(0.2)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause(0.2)
        assert app.link.running and app.research.view.session_id == SESSION_ID
        await pilot.press("ctrl+n")
        await pilot.pause(0.2)
        await press_and_settle(pilot, "y")
        await settle(pilot)
        assert driver.cancelled == 1 and not app.link.running
        assert app.research.view.session_id == ""


# ---- statuses follow the latest events -----------------------------------------------------


def resumed() -> SessionStarted:
    return SessionStarted(session_id=SESSION_ID, question=QUESTION, resumed=True)


def cancelled_leg() -> list[Event]:
    """What the engine says when a run is cancelled mid-research."""
    return [
        ResearchUnitUpdated(unit=unit(2, "cancelled")),
        PhaseChanged(phase="cancelled", detail="stopped; resume to continue"),
        RunFinished(session_id=SESSION_ID, status="cancelled"),
    ]


def notice_text(app: Any) -> str:
    notice = app.screen.query_one(RunNotice)
    return str(notice.render()) if notice.has_class("-shown") else ""


async def test_resume_after_cancel_no_longer_says_cancelled(tmp_path: Path) -> None:
    hold = Hold()
    driver = ScriptedDriver(
        {
            "start": [opening()],
            "review_plan": [[*research_running(), *cancelled_leg()]],
            "resume": [[resumed(), hold]],
        }
    )
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        assert "stopped" in header_text(app)
        await pilot.press("ctrl+r")
        await hold.reached.wait()
        await pilot.pause(0.2)
        line = header_text(app)
        assert "stopped" not in line and "resuming" in line, line
        status = str(app.screen.query_one(ReportPane).query_one("#report-status").render())
        assert "Stopped" not in status
        hold.release.set()
        await settle(pilot)


async def test_a_completed_session_reopened_shows_no_cancel_banner(tmp_path: Path) -> None:
    log = [*opening(), *research_running(), *cancelled_leg(), resumed(), *research_finished()]
    async with reopened(tmp_path, log) as app:
        assert "cancel" not in notice_text(app).lower()
        assert "done" in header_text(app)
        assert not app.research.view.resumable  # nothing to resume: it completed


async def test_a_failure_is_the_headers_latest_word_and_stops_the_clock(tmp_path: Path) -> None:
    clock = Clock()
    failure = RunFailed(error="The model endpoint did not answer.", session_id=SESSION_ID)
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[*research_running(), failure]]})
    app = app_with(tmp_path, driver, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        clock.now += 30  # reading the plan: the person's time, not the research's
        await press_and_settle(pilot, "y")
        line = header_text(app)
        assert "phase failed" in line and "researching" not in line, line
        clock.now += 100
        await pilot.pause(1.2)
        assert "elapsed 0:00" in header_text(app), header_text(app)


# ---- elapsed time survives a resume and a reopen -------------------------------------------


async def test_elapsed_goes_on_after_cancel_and_resume(tmp_path: Path) -> None:
    clock = Clock()
    hold = Hold()
    driver = ScriptedDriver(
        {
            "start": [opening()],
            "review_plan": [[*research_running(), *cancelled_leg()]],
            "resume": [[resumed(), hold]],
        }
    )
    app = app_with(tmp_path, driver, clock)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        clock.now += 75  # reading the plan: the person's time, not the research's
        await press_and_settle(pilot, "y")
        assert "elapsed 0:00" in header_text(app), header_text(app)
        clock.now += 3600  # an hour stopped does not count
        await pilot.press("ctrl+r")
        await hold.reached.wait()
        clock.now += 5
        await pilot.pause(1.2)
        assert "elapsed 0:05" in header_text(app), header_text(app)
        hold.release.set()
        await settle(pilot)


def test_stored_elapsed_sums_the_legs_from_their_stamps() -> None:
    base = 1_800_000_000.0
    start = SessionStarted(session_id=SESSION_ID, question=QUESTION, at=base)
    stopped = RunFinished(session_id=SESSION_ID, status="cancelled", at=base + 40)
    again = resumed().model_copy(update={"at": base + 7200})
    done = RunFinished(session_id=SESSION_ID, at=base + 7225)
    row = ("2027-01-15T08:00:00", "2027-01-15T10:00:25")
    assert stored_elapsed([start, stopped, again, done], *row) == 65
    # Stopped by a quit (nothing said): the leg counts to its last stamp, a unit's finish.
    unit_done = ResearchUnitUpdated(unit=unit(1, started_at=base + 2, finished_at=base + 12))
    assert stored_elapsed([start, unit_done, again, done], *row) == 37
    # A follow-up question is timed from its own start.
    follow = start.model_copy(update={"at": base + 9000})
    assert (
        stored_elapsed([start, done, follow, done.model_copy(update={"at": base + 9009})], *row)
        == 9
    )
    # Paused at plan review: up to the pause.
    review = PlanProposed(plan=sample_plan(), at=base + 4)
    assert stored_elapsed([start, review], *row) == 4
