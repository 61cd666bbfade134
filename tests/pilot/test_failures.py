"""A failed run says what happened in the engine's words and how to resume it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import RunFailed
from engine.nodes.failures import sanitize_run_error
from tests.pilot.conftest import make_app
from tests.pilot.fakes import SESSION_ID, ScriptedDriver, opening, research_finished
from tests.pilot.steps import ask, press_and_settle
from tests.pilot.test_run_paths import plain
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice


class ModelTimeout(TimeoutError):
    pass


class RateLimitError(Exception):
    pass


class InternalMishap(Exception):
    pass


def footer_offers_resume(app: object) -> bool:
    bindings = app.screen.active_bindings  # type: ignore[attr-defined]
    binding = bindings.get("ctrl+r")
    return binding is not None and binding.enabled and binding.binding.show


@pytest.mark.parametrize("error", [ModelTimeout(), RateLimitError(), InternalMishap()])
async def test_resumable_failure_shows_engine_text_and_the_resume_key(
    tmp_path: Path, error: Exception
) -> None:
    engine_text = sanitize_run_error(error)
    failed = RunFailed(error=engine_text, phase="researching", session_id=SESSION_ID)
    driver = ScriptedDriver(
        {"start": [opening()], "review_plan": [[failed]], "resume": [research_finished()]}
    )
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        assert not footer_offers_resume(app), "nothing to resume before the failure"
        await press_and_settle(pilot, "y")
        text = plain(app.screen.query_one(RunNotice))
        assert engine_text in text
        assert "press ctrl+r to resume" in text
        assert footer_offers_resume(app)
        await press_and_settle(pilot, "ctrl+r")
        assert ("resume", None) in driver.calls
        assert app.screen.query_one(ReportPane).report is not None
        assert not footer_offers_resume(app)


async def test_unresumable_failure_does_not_offer_the_resume_key(tmp_path: Path) -> None:
    failed = RunFailed(error="the plan is no longer valid", resumable=False, session_id=SESSION_ID)
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[failed]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        text = plain(app.screen.query_one(RunNotice))
        assert "the plan is no longer valid" in text
        assert "cannot be resumed" in text and "ctrl+r" not in text
        assert not footer_offers_resume(app)
        await press_and_settle(pilot, "ctrl+r")
        assert ("resume", None) not in driver.calls
