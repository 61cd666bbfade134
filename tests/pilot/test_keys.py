"""Keys: back to the question bar from any pane, Home/End on the tables, a footer that fits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input
from textual.widgets._footer import FooterKey

from engine.protocol import SessionInfo
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story
from tests.pilot.steps import ask, press_and_settle, wait_until
from tui.screens.sessions import SessionsScreen
from tui.view.report_spans import text_blocks
from tui.widgets.ledger_pane import LedgerPane, LedgerTable
from tui.widgets.report_pane import ReportPane
from tui.widgets.units_table import UnitsTable


def sessions(count: int) -> list[SessionInfo]:
    return [
        SessionInfo(
            session_id=f"s-{index:02d}",
            question=f"Question number {index}?",
            created_at="2025-01-02T10:00:00",
            updated_at=f"2025-01-02T10:{index:02d}:00",
            status="completed",
            mode="deep",
        )
        for index in range(count)
    ]


def question_focused(app: Any) -> bool:
    return app.screen.focused is app.screen.query_one("#question", Input)


def visible_footer(app: Any) -> list[FooterKey]:
    """The footer keys drawn whole inside the screen (a key cut at the edge is not usable)."""
    width = app.screen.size.width
    return [key for key in app.screen.query(FooterKey) if key.region.right <= width]


def footer_actions(app: Any) -> list[str]:
    return [key.action for key in visible_footer(app)]


def footer_offers(app: Any, actions: tuple[str, ...]) -> bool:
    """Whether the footer shows every one of `actions`, and no key cut off at the edge."""
    shown = footer_actions(app)
    return all(action in shown for action in actions) and len(shown) == len(
        app.screen.query(FooterKey)
    )


async def test_ctrl_l_goes_back_to_the_question_from_every_pane(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        for number in (1, 2, 3, 4):
            # Not the digit keys: from the question bar they type into it.
            app.research.action_focus_pane(number)
            await pilot.pause()
            assert not question_focused(app)
            assert await wait_until(pilot, lambda: "focus_question" in footer_actions(app)), number
            await press_and_settle(pilot, "ctrl+l")
            assert question_focused(app), f"pane {number}"
        # In the question bar the key moves nothing, so the footer does not offer it.
        assert await wait_until(
            pilot,
            lambda: "focus_question" not in [key.action for key in app.screen.query(FooterKey)],
        )


async def test_ctrl_l_leaves_a_pane_input_and_a_zoomed_pane(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        # The ledger's filter field: typing goes into it, ctrl+l still leaves it.
        await press_and_settle(pilot, "3", "slash", "t", "a")
        ledger_filter = app.screen.query_one(LedgerPane).query_one(Input)
        assert app.screen.focused is ledger_filter and ledger_filter.value == "ta"
        await press_and_settle(pilot, "ctrl+l")
        assert question_focused(app)
        # A zoomed pane covers the question bar: the key restores the panes first.
        await press_and_settle(pilot, "4", "f10")
        assert app.screen.maximized is not None
        await press_and_settle(pilot, "ctrl+l")
        assert app.screen.maximized is None
        assert question_focused(app)


async def test_end_and_home_move_the_sessions_cursor_to_the_last_and_first_row(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()), sessions=sessions(30))
    async with app.run_test(size=(80, 24)) as pilot:
        await press_and_settle(pilot, "f2")
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 30 and table.cursor_row == 0
        await press_and_settle(pilot, "end")
        assert table.cursor_row == 29
        assert table.scroll_y == table.max_scroll_y > 0
        assert "Question number 0?" in str(screen.query_one("#sessions-preview").render())
        await press_and_settle(pilot, "home")
        assert table.cursor_row == 0
        assert table.scroll_y == 0


@pytest.mark.parametrize("table_type", [UnitsTable, LedgerTable])
async def test_end_and_home_move_the_pane_tables_cursor_too(
    tmp_path: Path, table_type: type[DataTable[Any]]
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        table = app.screen.query_one(table_type)
        assert table.row_count > 1
        table.focus()
        await press_and_settle(pilot, "end")
        assert table.cursor_row == table.row_count - 1
        await press_and_settle(pilot, "home")
        assert table.cursor_row == 0


async def test_report_keys_with_a_search_on_fit_80_columns(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        # The research runs in the long-lived session worker: search once its report is shown.
        report = app.screen.query_one(ReportPane)
        assert await wait_until(
            pilot, lambda: report.body is not None and any(text_blocks(report.body))
        )
        await press_and_settle(pilot, "4", "slash")
        search = app.screen.query_one("#report-search", Input)
        assert await wait_until(pilot, lambda: app.screen.focused is search)
        search.value = "task"
        await press_and_settle(pilot, "enter")
        assert await wait_until(pilot, lambda: bool(report.matches))
        actions = ("next_citation", "next_match", "export", "focus_question", "help")
        # The footer redraws its keys after the bindings change, not with them.
        assert await wait_until(pilot, lambda: footer_offers(app, actions)), footer_actions(app)


async def test_plan_review_keys_fit_80_columns_with_help(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        actions = ("approve", "edit", "revise", "delete", "cancel_plan", "zoom", "help")
        assert await wait_until(pilot, lambda: footer_offers(app, actions)), footer_actions(app)
        # ctrl+l gave way to the plan's keys in the footer, but still works.
        await press_and_settle(pilot, "ctrl+l")
        assert question_focused(app)
