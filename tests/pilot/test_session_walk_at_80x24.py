"""What a person saw walking a whole session at 80x24, each checked where it showed."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from tests.pilot.conftest import make_app
from tests.pilot.fakes import FakeBackend, ScriptedDriver, full_story
from tests.pilot.steps import ask, press_and_settle
from tui.app import DeepResearchApp
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane

SMALL = (80, 24)


# ---- the plan pane spends no row on a notice it does not have ---------------------------


async def test_the_plan_notice_takes_no_row_while_empty(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=SMALL) as pilot:
        await ask(pilot)
        notice = app.screen.query_one(PlanPane).query_one("#plan-notice", Static)
        assert not notice.display
        await press_and_settle(pilot, "y")
        assert not notice.display and notice.region.height == 0


async def finished(pilot: object) -> ReportPane:
    await ask(pilot)
    await press_and_settle(pilot, "y")
    return pilot.app.screen.query_one(ReportPane)  # type: ignore[attr-defined]


# ---- the export prompt says where the file goes, from the start of the path ------------


async def test_the_export_prompt_says_the_folder_of_a_long_path(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder-with-a-rather-long-name" / "and-another-one-below-it"
    backend = FakeBackend(ScriptedDriver(full_story()), env_path=tmp_path / ".env")
    app = DeepResearchApp(backend, clock=lambda: 100.0, export_dir=folder)
    async with app.run_test(size=SMALL) as pilot:
        await finished(pilot)
        await press_and_settle(pilot, "e")
        said = str(app.screen.query_one("#export-folder", Static).render())
        assert str(folder) in said.replace("\n", "")
        field = app.screen.query_one("#export-path", Input)
        field.value = str(tmp_path / "elsewhere" / "mine.md")
        await pilot.pause()
        said = str(app.screen.query_one("#export-folder", Static).render())
        assert str(tmp_path / "elsewhere") in said


# ---- a tool call says what it did, in plain words ---------------------------------------


async def test_a_unit_names_its_search_by_where_it_searches(tmp_path: Path) -> None:
    from tui.screens.unit_detail import UnitDetailScreen
    from tui.widgets.units_table import UnitsTable

    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))  # a session on local documents
    async with app.run_test(size=SMALL) as pilot:
        await finished(pilot)
        app.screen.query_one(UnitsTable).focus()
        await press_and_settle(pilot, "enter")  # unit u1: a search, then a page read
        detail = app.screen
        assert isinstance(detail, UnitDetailScreen)
        shown = "\n".join(line.plain for line in detail.lines())
        assert "search documents" in shown and "read a page" in shown, shown
        assert "search_web" not in shown and "fetch_url" not in shown


# ---- the command palette offers what can act now ----------------------------------------


def palette_titles(app: DeepResearchApp) -> set[str]:
    return {command.title for command in app.get_system_commands(app.screen)}


async def test_the_palette_offers_plan_actions_only_while_a_plan_waits(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=SMALL) as pilot:
        plan_titles = {"Approve plan", "Revise plan", "Edit plan track", "Delete plan track"}
        assert not plan_titles & palette_titles(app)
        assert "Export report" not in palette_titles(app)
        await ask(pilot)
        assert plan_titles <= palette_titles(app)
        await press_and_settle(pilot, "y")
        titles = palette_titles(app)
        assert not plan_titles & titles, titles
        assert {"Export report", "Verification audit"} <= titles
        assert "Cancel run" not in titles  # the run is over
