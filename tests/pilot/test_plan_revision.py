"""An edited plan sent back with feedback, through the engine with a scripted planner: the
person's edit survives a revision that undoes it, and the app says when nothing changed."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import Input, Static

from engine.protocol import SessionDriver
from tests.pilot.fakes import settle
from tests.pilot.steps import ask, press_and_settle, wait_until
from tests.unit.engine.conftest import make_settings
from tests.unit.engine.test_plan_revision import RevisingScenario, costs_on_track_two, reverted
from tui.app import DeepResearchApp
from tui.link.engine_backend import EngineBackend
from tui.widgets.plan_pane import PlanPane
from tui.widgets.track_editor import TrackEditor


class ScenarioBackend(EngineBackend):
    """The real engine on the scripted models and tools of `scenario`."""

    def __init__(self, tmp_path: Path, scenario: RevisingScenario) -> None:
        super().__init__(make_settings(tmp_path), cwd=tmp_path)
        self.scenario = scenario

    def prepare_documents(self, progress: Callable[[int, int], None]) -> str | None:
        return None  # the scripted tools search nothing on disk

    @asynccontextmanager
    async def open_session(self, session_id: str | None) -> AsyncIterator[SessionDriver]:
        from engine.run.runner import open_session

        deps = self.scenario.deps(self.settings)
        async with open_session(self.settings, session_id, deps=deps) as session:
            yield session


def notice_text(pane: PlanPane) -> str:
    rendered = pane.query_one("#plan-notice", Static).render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


async def edit_then_revise(pilot: Any, app: DeepResearchApp) -> PlanPane:
    await ask(pilot, "Compare alpha and beta")
    pane = app.screen.query_one(PlanPane)
    assert await wait_until(pilot, lambda: pane.reviewing)
    await pilot.press("enter")
    title = app.screen.query_one(TrackEditor).query_one("#title", Input)
    title.value = "Track alpha (EDITED)"
    await press_and_settle(pilot, "enter")
    await pilot.press("r")
    await pilot.pause()
    await pilot.press(*"focus on costs", "enter")
    await settle(pilot)
    assert await wait_until(pilot, lambda: app.research.view.plan_revision == 2 and pane.reviewing)
    return pane


def titles(pane: PlanPane) -> list[str]:
    assert pane.draft is not None
    return [track.title for track in pane.draft.plan.tracks]


async def test_a_revision_that_undoes_the_edit_keeps_it_and_says_nothing_changed(
    tmp_path: Path,
) -> None:
    app = DeepResearchApp(ScenarioBackend(tmp_path, RevisingScenario(revise=reverted)))
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await edit_then_revise(pilot, app)
        assert titles(pane) == ["Track alpha (EDITED)", "Track beta", "Track gamma"]
        notice = notice_text(pane)
        assert "returned the plan unchanged" in notice and "Revised" not in notice


async def test_a_revision_of_another_track_keeps_the_edit_and_the_change(tmp_path: Path) -> None:
    app = DeepResearchApp(ScenarioBackend(tmp_path, RevisingScenario(revise=costs_on_track_two)))
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await edit_then_revise(pilot, app)
        assert titles(pane) == ["Track alpha (EDITED)", "Track beta costs", "Track gamma"]
        assert "Revised with your feedback." in notice_text(pane)
