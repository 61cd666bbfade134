"""Question → plan → edit → approve → live units → ledger → report, from the keyboard."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input

from tests.pilot.conftest import make_app
from tests.pilot.fakes import QUESTION, ScriptedDriver, full_story, settle
from tests.pilot.steps import ask
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsTable


async def test_question_plan_edit_approve_units_report(tmp_path: Path) -> None:
    driver = ScriptedDriver(full_story())
    app, backend = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        assert driver.calls[0] == ("start", (QUESTION, "auto"))
        plan = app.screen.query_one(PlanPane)
        assert plan.reviewing and app.focused is plan
        assert app.screen.query_one(StatusHeader).has_class("-offline")

        # Edit track 2's title in place, then approve.
        await pilot.press("down", "enter")
        title = app.screen.query_one("#title", Input)
        assert app.focused is title
        title.value = "Tasks, futures and coroutines"
        await pilot.press("enter")
        await pilot.pause()
        assert plan.draft is not None and plan.draft.changed
        assert plan.draft.plan.tracks[1].title == "Tasks, futures and coroutines"
        await pilot.press("y")
        await settle(pilot)

        (decision,) = driver.decisions()
        assert decision.action == "edit"
        assert decision.plan is not None
        assert decision.plan.tracks[1].title == "Tasks, futures and coroutines"
        assert not plan.reviewing

        units = app.screen.query_one(UnitsTable)
        assert units.row_count == 3
        assert str(units.get_cell("u3", "status")) == "failed"
        assert "search timed out" in str(units.get_cell("u3", "topic"))
        ledger = app.screen.query_one(LedgerPane)
        assert ledger.query_one(DataTable).row_count == 6
        report = app.screen.query_one(ReportPane)
        assert report.report is not None and len(report.marks) == 5
        header = app.screen.query_one(StatusHeader).status_text().plain
        assert "6 records (need 5)" in header and "3 domains (need 3)" in header
        assert "pass" in header
        assert "tokens" not in header  # the offline model counts no tokens
        assert backend.opened == [None]
