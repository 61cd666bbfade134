"""Narrow panes keep rows told apart: unit topics that share their start lose that part
first, and a long domain in the filter list folds at its dots and dashes (issue 37, item 11)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Select

from engine.events import ResearchUnitSummary
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story
from tests.pilot.steps import ask, press_and_settle
from tests.pilot.test_plan_review import screen_lines
from tui.presentation.narrow_text import SEPARATORS
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.units_table import UnitsPane

SHARED = "asyncio schedule coroutines tasks: "
ENDINGS = ("overview", "how it works", "usage and examples", "pitfalls")


class UnitsApp(App[None]):
    CSS = "UnitsPane { width: 30; height: 10; }"

    def compose(self) -> ComposeResult:
        yield UnitsPane()


def unit(index: int, topic: str) -> ResearchUnitSummary:
    return ResearchUnitSummary(id=f"u{index}", topic=topic, status="running")


async def test_units_sharing_a_start_stay_distinct_in_a_narrow_pane() -> None:
    app = UnitsApp()
    async with app.run_test(size=(60, 20)) as pilot:
        pane = app.query_one(UnitsPane)
        units = [unit(i, SHARED + ending) for i, ending in enumerate(ENDINGS, start=1)]
        pane.table.show_units(units)
        await pilot.pause()
        rows = [line[1:].split(" running")[0].strip() for line in screen_lines(app)[1:5]]
        assert len(rows) == 4 and len(set(rows)) == 4, rows
        for row, ending in zip(rows, ENDINGS, strict=True):
            assert row.lstrip("…").rstrip("…").strip() in ending, (row, ending)


async def test_a_unit_arriving_later_makes_earlier_rows_give_way() -> None:
    app = UnitsApp()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(UnitsPane).table
        table.show_unit(unit(1, SHARED + ENDINGS[0]))
        await pilot.pause()
        alone = screen_lines(app)[1]
        assert "asynci" in alone  # nothing to tell it apart from yet: its own start shows
        table.show_unit(unit(2, SHARED + ENDINGS[1]))
        await pilot.pause()
        first, second = screen_lines(app)[1:3]
        assert "overvi" in first and "how it" in second


async def test_domain_list_folds_long_names_at_separators(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(60, 20)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        ledger = app.screen.query_one(LedgerPane)
        await press_and_settle(pilot, "3")
        ledger.query_one(Select).focus()
        await press_and_settle(pilot, "enter")
        # The open list's lines, between its left and right edges.
        lines = [line.split("▊")[-1].split("▎")[0].strip() for line in screen_lines(app)]
        long_name = max(ledger._domains, key=len)
        start = next(i for i, line in enumerate(lines) if line and long_name.startswith(line))
        pieces: list[str] = []
        while "".join(pieces) != long_name:
            piece = lines[start + len(pieces)]
            assert piece and long_name.startswith("".join(pieces) + piece), (pieces, piece)
            pieces.append(piece)
        assert len(pieces) > 1  # the list is narrower than the name
        assert all(piece[-1] in SEPARATORS for piece in pieces[:-1]), pieces
