"""Every pane state at 120×36 and 80×24, from scripted runs: no clocks, no blink, fixed data."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from engine.protocol import SessionInfo
from tests.pilot.fakes import (
    FakeBackend,
    Hold,
    ScriptedDriver,
    clarification_story,
    failed_run,
    full_story,
    opening,
    research_running,
    settle,
)
from tui.app import DeepResearchApp
from tui.widgets.track_editor import TrackEditor

SIZES = [pytest.param((120, 36), id="120x36"), pytest.param((80, 24), id="80x24")]
Steps = Callable[[Any], Awaitable[None]]


def app_for(script: dict[str, list[list[Any]]], **options: Any) -> DeepResearchApp:
    backend = FakeBackend(ScriptedDriver(script), **options)
    return DeepResearchApp(backend, clock=lambda: 100.0, export_dir=Path("/nonexistent"))


async def ready(pilot: Any) -> None:
    """The screenshot pilot starts before the first screen is composed: wait for it."""
    for _ in range(200):
        if pilot.app.screen.query("#question"):
            break
        await pilot.pause(0.01)
    await pilot.pause()


async def ask(pilot: Any, question: str = "How does asyncio schedule coroutines?") -> None:
    await ready(pilot)
    pilot.app.screen.query_one("#question", Input).value = question
    pilot.app.screen.query_one("#question", Input).focus()
    await pilot.press("enter")
    await settle(pilot)


async def nothing(pilot: Any) -> None:
    await ready(pilot)


async def plan_review(pilot: Any) -> None:
    await ask(pilot)


async def plan_edit_refused(pilot: Any) -> None:
    await ask(pilot)
    await pilot.press("enter")
    editor = pilot.app.screen.query_one(TrackEditor)
    editor.query_one("#queries", Input).value = "loop internals |"
    await pilot.press("enter")
    await pilot.pause()


async def report_ready(pilot: Any) -> None:
    await ask(pilot)
    await pilot.press("y")
    await settle(pilot)
    await pilot.press("]")
    await pilot.pause()


async def clarification(pilot: Any) -> None:
    await ask(pilot, "asyncio?")


async def failed(pilot: Any) -> None:
    await ask(pilot)
    await pilot.press("y")
    await settle(pilot)


HOLD = Hold()


async def running(pilot: Any) -> None:
    await ask(pilot)
    await pilot.press("y")
    await HOLD.reached.wait()
    await pilot.pause()
    pilot.app.screen.query_one("#units-table").focus()
    await pilot.pause()


def running_story() -> dict[str, list[list[Any]]]:
    global HOLD
    HOLD = Hold()
    return {"start": [opening()], "review_plan": [[*research_running(), HOLD]]}


async def reopened(pilot: Any) -> None:
    await ready(pilot)
    await pilot.press("f2")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)


def reopened_app() -> DeepResearchApp:
    story = full_story()
    log = [*story["start"][0], *story["review_plan"][0]]
    info = SessionInfo(
        session_id="s-0001",
        question="How does asyncio schedule coroutines?",
        created_at="2025-01-02T10:00:00",
        updated_at="2025-01-02T10:05:00",
        status="completed",
        mode="deep",
    )
    return app_for(full_story(), sessions=[info], logs={"s-0001": log})


# The four states a person spends most time in, also at a large terminal.
LARGE = pytest.param((160, 50), id="160x50")


@pytest.mark.parametrize("size", [*SIZES, LARGE])
def test_reopened_session(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(reopened_app(), terminal_size=size, run_before=reopened)


@pytest.mark.parametrize("state", ["plan_review", "running", "report_ready"])
def test_research_screen_large(snap_compare: Any, state: str) -> None:
    story, steps = STATES[state]
    assert snap_compare(app_for(story()), terminal_size=(160, 50), run_before=steps)


STATES: dict[str, tuple[Callable[[], dict[str, list[list[Any]]]], Steps]] = {
    "empty": (full_story, nothing),
    "plan_review": (full_story, plan_review),
    "plan_edit_refused": (full_story, plan_edit_refused),
    "running": (running_story, running),
    "report_ready": (full_story, report_ready),
    "clarification": (clarification_story, clarification),
    "failed": (lambda: {"start": [opening()], "review_plan": [failed_run()]}, failed),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("state", list(STATES))
def test_research_screen(snap_compare: Any, state: str, size: tuple[int, int]) -> None:
    story, steps = STATES[state]
    assert snap_compare(app_for(story()), terminal_size=size, run_before=steps)


def sessions() -> list[SessionInfo]:
    return [
        SessionInfo(
            session_id="done-1",
            question="What is PEP 492?",
            created_at="2025-01-02T10:00:00",
            updated_at="2025-01-02T10:05:00",
            status="completed",
            mode="deep",
        ),
        SessionInfo(
            session_id="half-1",
            question="How does asyncio schedule coroutines?",
            created_at="2025-01-03T09:00:00",
            updated_at="2025-01-03T09:02:00",
            status="interrupted",
        ),
    ]


async def open_with(pilot: Any, key: str) -> None:
    await ready(pilot)
    await pilot.press(key)
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("key", ["f1", "f2", "f3"], ids=["help", "sessions", "settings"])
def test_other_screens(snap_compare: Any, key: str, size: tuple[int, int]) -> None:
    app = app_for(full_story(), sessions=sessions())

    async def steps(pilot: Any) -> None:
        await open_with(pilot, key)

    assert snap_compare(app, terminal_size=size, run_before=steps)
