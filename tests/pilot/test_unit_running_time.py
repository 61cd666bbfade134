"""A running research unit shows how long it has been running, second by second: on a slow
model a researcher works for minutes before its first record."""

from __future__ import annotations

import time
from pathlib import Path

from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story, unit
from tests.pilot.steps import ask
from tui.presentation.formatting import format_running
from tui.widgets.units_table import UnitsTable


def test_running_time_reads_in_whole_seconds_then_minutes() -> None:
    assert [format_running(s) for s in (-1, 0, 42.9, 60, 185)] == [
        "0s",
        "0s",
        "42s",
        "1m00s",
        "3m05s",
    ]


async def test_a_running_units_time_advances_and_its_duration_replaces_it(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        table = app.screen.query_one(UnitsTable)
        table.show_unit(unit(7, "running", started_at=time.time() - 75))
        await pilot.pause()
        first = str(table.get_cell("u7", "time"))
        assert first in {"1m15s", "1m16s"}, first
        await pilot.pause(2.2)
        later = str(table.get_cell("u7", "time"))
        assert later != first and later.startswith("1m1"), later
        table.show_unit(unit(7, "completed", started_at=time.time() - 80, duration_seconds=80))
        await pilot.pause(1.2)
        assert str(table.get_cell("u7", "time")) == "1m20s", "the time stops with the unit"
        table.show_unit(unit(8, "running"))  # no start time known: nothing to count from
        await pilot.pause()
        assert str(table.get_cell("u8", "time")) == ""
