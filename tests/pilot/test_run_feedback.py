"""What the person sees the moment they act: a question sent, settings saved, a run that
failed before its plan, ctrl+r with nothing on screen to resume."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from engine.events import PhaseChanged, RunFailed, SessionStarted
from tests.pilot.conftest import make_app
from tests.pilot.fakes import QUESTION, SESSION_ID, FakeBackend, Hold, ScriptedDriver, opening
from tests.pilot.steps import press_and_settle, wait_until
from tui.app import DeepResearchApp
from tui.screens.sessions import SessionsScreen
from tui.widgets.plan_pane import PlanPane
from tui.widgets.status_header import StatusHeader


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_question_shows_it_is_starting_at_once_and_is_timed_from_enter(
    tmp_path: Path,
) -> None:
    hold = Hold()  # the engine loading with the first question
    driver = ScriptedDriver({"start": [[hold, *opening()]]})
    clock = Clock()
    backend = FakeBackend(driver, env_path=tmp_path / ".env")
    app = DeepResearchApp(backend, clock=clock, export_dir=tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        field = app.screen.query_one("#question", Input)
        field.value = QUESTION
        field.focus()
        await pilot.press("enter")
        await hold.reached.wait()
        await pilot.pause()
        header = app.screen.query_one(StatusHeader).status_text().plain
        assert "starting" in header and "elapsed" in header
        assert field.value == ""
        summary = str(app.screen.query_one("#plan-summary", Static).render())
        assert "starting" in summary
        clock.now += 3.5  # the engine takes its time to say the session began
        hold.release.set()
        assert await wait_until(pilot, lambda: app.screen.query_one(PlanPane).reviewing)
        assert app.research.view.started_at == 100.0  # from the Enter, not from the engine


async def test_the_offline_badge_follows_settings_saved_in_the_app(tmp_path: Path) -> None:
    app, backend = make_app(tmp_path, ScriptedDriver({}))
    async with app.run_test(size=(120, 36)) as pilot:
        header = app.screen.query_one(StatusHeader)
        assert await wait_until(pilot, lambda: header.has_class("-offline"))
        backend.offline = False  # what the saved settings now say
        await press_and_settle(pilot, "f3")
        app.screen.query_one("#setup-ORCHESTRATOR_BASE_URL", Input).value = "http://127.0.0.1:9/v1"
        await press_and_settle(pilot, "ctrl+s")
        assert backend.reloads == 1
        assert await wait_until(pilot, lambda: not header.has_class("-offline"))


async def test_a_run_that_fails_before_its_plan_no_longer_says_it_reads_the_question(
    tmp_path: Path,
) -> None:
    driver = ScriptedDriver(
        {
            "start": [
                [
                    SessionStarted(session_id=SESSION_ID, question=QUESTION),
                    PhaseChanged(phase="scoping"),
                    RunFailed(error="The model endpoint cannot be reached.", session_id=SESSION_ID),
                ]
            ]
        }
    )
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        app.screen.query_one("#question", Input).value = QUESTION
        await press_and_settle(pilot, "enter")
        summary = str(app.screen.query_one("#plan-summary", Static).render())
        assert "reading the question" not in summary
        assert "failed" in app.screen.query_one(StatusHeader).status_text().plain


async def test_a_run_that_raises_before_its_plan_no_longer_says_it_reads_the_question(
    tmp_path: Path,
) -> None:
    driver = ScriptedDriver({"start": [[PhaseChanged(phase="scoping"), ConnectionError("x")]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        app.screen.query_one("#question", Input).value = QUESTION
        await press_and_settle(pilot, "enter")
        summary = str(app.screen.query_one("#plan-summary", Static).render())
        assert "reading the question" not in summary
        assert "failed" in app.screen.query_one(StatusHeader).status_text().plain


async def test_ctrl_r_with_no_session_on_screen_asks_which_session(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver({}))
    async with app.run_test(size=(120, 36)) as pilot:
        app.screen.query_one("#question", Input).blur()
        await press_and_settle(pilot, "ctrl+r")
        assert isinstance(app.screen, SessionsScreen)
