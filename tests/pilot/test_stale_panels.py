"""What a reopened or re-laid-out screen must not keep from before: a clarifying question
answered long ago, table columns fitted to a zoomed pane."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from engine.events import Event
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, clarification_story, full_story
from tests.pilot.steps import press_and_settle, wait_until
from tests.pilot.test_reader_at_80_columns import all_columns_on_screen
from tests.pilot.test_reader_defects import saved
from tui.app import DeepResearchApp
from tui.widgets.clarification_panel import ClarificationPanel
from tui.widgets.ledger_pane import LedgerTable
from tui.widgets.units_table import UnitsTable


def clarified_session_log() -> list[Event]:
    """A session that asked a clarifying question, was answered, and finished."""
    asked = clarification_story()["start"][0]
    story = full_story()
    return [*asked, *story["start"][0][1:], *story["review_plan"][0]]  # type: ignore[list-item]


def reopenable_app(tmp_path: Path) -> DeepResearchApp:
    """The app with that session stored, ready to reopen from the sessions screen (F2)."""
    app, _ = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=[saved("s-1")],
        logs={"s-1": clarified_session_log()},
    )
    return app


async def test_a_reopened_finished_session_shows_no_clarifying_question(tmp_path: Path) -> None:
    app = reopenable_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
        screen = app.research
        assert screen.query_one(UnitsTable).row_count == 3  # the whole session was replayed
        panel = screen.query_one(ClarificationPanel)
        assert not panel.display or panel.size.height == 0
        assert screen.view.clarification is None
        # Nothing waits for an answer, so a new question is not asked to abandon one.
        assert screen._pending_decision() == ""
        assert app.focused is None or not panel.has_focus_within


async def test_a_session_reopened_while_it_waits_for_the_answer_still_asks(
    tmp_path: Path,
) -> None:
    app, _ = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=[saved("s-1", "awaiting_clarification")],
        logs={"s-1": list(clarification_story()["start"][0])},  # type: ignore[arg-type]
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
        assert app.research.query_one(ClarificationPanel).asking


def headers_on_screen(table: DataTable[object]) -> bool:
    """Whether every column header is drawn within the table's width."""
    header = table.render_line(0).text
    return all(str(column.label) in header for column in table.columns.values())


async def test_tables_refit_their_columns_when_a_zoomed_pane_is_restored(
    tmp_path: Path,
) -> None:
    """Zoom and unzoom (F10) in quick succession, as a person flicking through panes does:
    the restored pane's table shows every column again, not the zoomed widths."""
    app = reopenable_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
        await press_and_settle(pilot, "f10")  # the reopened report took the screen
        for key, kind in (("2", UnitsTable), ("3", LedgerTable)):
            table = app.research.query_one(kind)
            await press_and_settle(pilot, key)
            for gap in (0.0, 0.05, 0.1):
                await pilot.press("f10")
                await pilot.pause(gap)
                await press_and_settle(pilot, "f10")
                assert table.size.width < 40
                fitted = await wait_until(pilot, lambda t=table: headers_on_screen(t), 3)  # type: ignore[misc]
                assert fitted, (key, gap, table.render_line(0).text)
                assert all_columns_on_screen(table), [c.width for c in table.columns.values()]
