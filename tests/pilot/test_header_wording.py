"""The header reads as words: counts toward a need, one clock, the app's name and the whole
offline notice at 80 columns, no token count for a model that is none."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from engine.events import OFFLINE_NOTICE
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story
from tests.pilot.steps import ask, press_and_settle
from tui.widgets.status_header import StatusHeader


def rendered(widget: Static) -> str:
    shown = widget.render()
    return getattr(shown, "plain", str(shown))


async def test_the_gate_counts_say_what_they_need(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(160, 40)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        line = app.screen.query_one(StatusHeader).status_text().plain
        assert "6 records (need 5)" in line and "3 domains (need 3)" in line
        assert "/5" not in line and "/3" not in line


async def test_at_80_columns_the_name_and_the_whole_offline_notice_show(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await press_and_settle(pilot, "f10")
        header = app.screen.query_one(StatusHeader)
        assert rendered(header.query_one("#status-line", Static)).startswith("deepresearch")
        badge = header.query_one("#offline-badge", Static)
        lines = [
            "".join(segment.text for segment in badge.render_line(y))
            for y in range(badge.size.height)
        ]
        assert " ".join(" ".join(lines).split()).endswith(OFFLINE_NOTICE)
        assert "tokens" not in header.status_text().plain
