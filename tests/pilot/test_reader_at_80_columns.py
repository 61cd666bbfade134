"""The reader's TUI at 80×24 (issue 15): every column of the units table on screen, and
plan tracks whose wrapped lines keep a hanging indent. Each test failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widget import Widget

from engine.events import PlanProposed
from engine.schemas import ResearchPlan, ResearchTrack
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story, opening, sample_plan
from tests.pilot.steps import ask, press_and_settle
from tui.widgets.plan_pane import PlanPane
from tui.widgets.row_preview import RowPreview
from tui.widgets.units_table import UnitsTable


def screen_lines(widget: Widget) -> list[str]:
    """What `widget` shows, line by line, as plain text."""
    return [
        "".join(segment.text for segment in widget.render_line(y))
        for y in range(widget.outer_size.height)
    ]


def all_columns_on_screen(table: Any) -> bool:
    used = sum(column.get_render_width(table) for column in table.columns.values())
    return used <= table.size.width and table.virtual_size.width <= table.size.width


# ---- 1: the units table shows every column at 80 columns ---------------------------------


async def test_units_table_shows_every_column_at_80_columns(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await press_and_settle(pilot, "f10")  # the report took the screen: the four panes
        table = app.screen.query_one(UnitsTable)
        assert all_columns_on_screen(table), [c.width for c in table.columns.values()]
        header, first_row, *_ = screen_lines(table)
        for label in ("Topic", "Status", "Tools", "Ev.", "Time"):
            assert label in header, header
        assert "completed" in first_row and "5.2s" in first_row, first_row
        # The topic takes what is left, a few words; the line under the table has it whole.
        assert table.columns["topic"].width >= 8  # type: ignore[index]
        table.focus()
        await pilot.press("home")
        await pilot.pause()
        assert "Event loop mechanics" in app.screen.query_one("#units-preview", RowPreview).plain


async def test_units_table_keeps_its_wide_columns_at_160_columns(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(160, 48)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        table = app.screen.query_one(UnitsTable)
        assert all_columns_on_screen(table)
        assert table.cell_padding == 1
        header, first_row, *_ = screen_lines(table)
        assert "Event loop mechanics" in first_row, first_row
        assert " Topic" in header


# ---- 2: a wrapped plan track keeps a hanging indent ---------------------------------------

LONG_QUERIES = [
    "asyncio event loop run_forever internals",
    "call_soon ready queue ordering of callbacks",
    "selector based event loop readiness polling",
]


def long_query_story() -> dict[str, Any]:
    tracks = list(sample_plan().tracks)
    tracks[0] = ResearchTrack(
        title="Event loop mechanics, from the ready queue to the selector and back again",
        section="The event loop",
        queries=LONG_QUERIES,
    )
    plan = ResearchPlan(**{**sample_plan().model_dump(), "tracks": tracks})
    story = full_story()
    story["start"] = [
        [PlanProposed(plan=plan) if isinstance(e, PlanProposed) else e for e in opening()]
    ]
    return story


def hanging(lines: list[str], lead: str) -> None:
    """The line starting with `lead` wraps, and every continuation starts under its text."""
    start = next(i for i, line in enumerate(lines) if lead in line)
    column = lines[start].index(lead) + len(lead)
    continued = []
    for line in lines[start + 1 :]:
        if not line.strip() or line.lstrip().startswith(("section ", "queries ")):
            break
        continued.append(line)
    assert continued, f"{lead!r} did not wrap: {lines}"
    for line in continued:
        indent = len(line) - len(line.lstrip())
        assert indent == column, (column, line)


async def test_wrapped_track_lines_keep_a_hanging_indent(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(long_query_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        pane = app.screen.query_one(PlanPane)
        assert pane.reviewing
        first = pane.query(".track").first()
        lines = screen_lines(first)
        hanging(lines, "queries ")
        hanging(lines, "1. ")
        text = " ".join(line.strip() for line in lines)
        assert " | ".join(LONG_QUERIES) in text, lines
