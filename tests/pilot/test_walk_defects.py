"""What a walk through the app at 80×24 and 120×36 found: a reopened plan keeps its edits,
leaving a running session asks first, statuses and the elapsed time follow the latest events,
the gate line says what the gate last decided, live tool counts, help that matches the keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.events import Event, PlanApproved, PlanProposed
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
    research_running,
    sample_plan,
    settle,
)
from tests.pilot.steps import ask, press_and_settle
from tui.screens.confirm import ConfirmScreen
from tui.widgets.plan_pane import PlanPane


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


def plan_text(app: Any) -> str:
    pane = app.screen.query_one(PlanPane)
    summary = str(pane.query_one("#plan-summary").render())
    tracks = "\n".join(str(track.render()) for track in pane.query(".track"))
    return f"{summary}\n{tracks}"


# ---- a reopened plan keeps the person's edits --------------------------------------------


async def test_reopened_session_shows_the_edited_plan_it_approved(tmp_path: Path) -> None:
    approved = PlanApproved(plan=edited_plan(), revision=1, edited=True)
    app, _ = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=[saved("s-0001")],
        logs={"s-0001": story_log(approved)},
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
        text = plan_text(app)
        assert "Loop internals, edited" in text
        assert "Event loop mechanics" not in text
        assert "approved" in text and "(edited)" in text
        assert not app.screen.query_one(PlanPane).reviewing
        assert app.research.view.plan == edited_plan()


async def test_an_old_log_without_plan_approval_still_reopens_approved(tmp_path: Path) -> None:
    app, _ = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=[saved("s-0001")],
        logs={"s-0001": story_log(None)},
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
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
