"""On a small terminal the report takes the screen once it is written; the person is told
where the other panes went and how to get them back, once, not on every section."""

from __future__ import annotations

from pathlib import Path

from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story
from tests.pilot.steps import ask, press_and_settle
from tui.screens.research.updates import REPORT_ZOOMED
from tui.widgets.report_pane import ReportPane


async def _notices(tmp_path: Path, size: tuple[int, int]) -> tuple[list[str], bool]:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=size) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        zoomed = app.screen.maximized is app.screen.query_one(ReportPane)
        return [n.message for n in app._notifications], zoomed


async def test_at_80x24_the_zoomed_report_says_how_to_see_every_pane(tmp_path: Path) -> None:
    messages, zoomed = await _notices(tmp_path, (80, 24))
    assert zoomed
    assert messages.count(REPORT_ZOOMED) == 1


async def test_a_large_terminal_keeps_every_pane_and_says_nothing(tmp_path: Path) -> None:
    messages, zoomed = await _notices(tmp_path, (160, 48))
    assert not zoomed and REPORT_ZOOMED not in messages


async def test_panes_the_person_restored_stay_when_more_of_the_report_arrives(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        pane = app.screen.query_one(ReportPane)
        assert app.screen.maximized is pane
        await press_and_settle(pilot, "f10")
        assert app.screen.maximized is None
        app.screen._show_report_pane(pane)  # the next section begins
        await pilot.pause()
        assert app.screen.maximized is None
        assert [n.message for n in app._notifications].count(REPORT_ZOOMED) == 1
