"""What a person saw walking a whole session at 80x24, each checked where it showed."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story
from tests.pilot.steps import ask, press_and_settle
from tui.widgets.plan_pane import PlanPane

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
