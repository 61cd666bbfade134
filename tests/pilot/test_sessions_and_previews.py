"""Deleting a session (issue 15: 16), the full text of truncated rows (10), and the keys the
detail modals name in their footer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import DataTable

from engine.protocol import SessionInfo
from tests.pilot.conftest import make_app
from tests.pilot.fakes import SESSION_ID, ScriptedDriver, full_story, record, settle, unit
from tests.pilot.steps import ask, press_and_settle
from tests.pilot.test_reader_defects import finished_session_log, footer_keys
from tui.presentation.labels import SESSION_STATUSES, session_status_word
from tui.screens.confirm import ConfirmScreen
from tui.screens.help import HelpScreen
from tui.screens.record_detail import RecordDetailScreen
from tui.screens.research import ResearchScreen
from tui.screens.sessions import SessionsScreen
from tui.screens.unit_detail import UnitDetailScreen
from tui.widgets.ledger_pane import LedgerPane, LedgerTable
from tui.widgets.report_pane import ReportPane
from tui.widgets.row_preview import RowPreview
from tui.widgets.units_table import UnitsPane, UnitsTable

LONG_QUESTION = (
    "How does the asyncio event loop decide which ready callback, task step or I/O "
    "completion runs next, and what changes when a task is cancelled while it awaits?"
)


def info(session_id: str, status: str = "completed", question: str = "What is PEP 492?") -> Any:
    return SessionInfo(
        session_id=session_id,
        question=question,
        created_at="2025-01-02T10:00:00",
        updated_at=f"2025-01-0{2 if session_id == 'done-1' else 3}T10:05:00",
        status=status,  # type: ignore[arg-type]
        mode="deep",
    )


def two_sessions() -> list[SessionInfo]:
    # Newest first on screen: half-1, then done-1.
    return [info("done-1"), info("half-1", "interrupted", LONG_QUESTION)]


def notices(app: Any) -> list[str]:
    return [str(notification.message) for notification in app._notifications]


async def open_sessions(pilot: Any) -> SessionsScreen:
    await press_and_settle(pilot, "f2")
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    return screen


# ---- deleting a session -----------------------------------------------------------------


async def test_delete_asks_first_and_removes_the_highlighted_session(tmp_path: Path) -> None:
    app, backend = make_app(tmp_path, ScriptedDriver(full_story()), sessions=two_sessions())
    async with app.run_test(size=(80, 24)) as pilot:
        sessions = await open_sessions(pilot)
        await pilot.press("down", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "What is PEP 492?" in str(app.screen.question)
        assert backend.deleted == []  # nothing goes before the answer
        await press_and_settle(pilot, "y")
        await settle(pilot)
        assert backend.deleted == ["done-1"]
        assert app.screen is sessions
        assert [s.session_id for s in sessions.sessions] == ["half-1"]
        assert sessions.query_one(DataTable).row_count == 1
        assert any("Deleted: What is PEP 492?" in text for text in notices(app))


async def test_answering_no_deletes_nothing(tmp_path: Path) -> None:
    app, backend = make_app(tmp_path, ScriptedDriver(full_story()), sessions=two_sessions())
    async with app.run_test(size=(80, 24)) as pilot:
        sessions = await open_sessions(pilot)
        for refusal in ("n", "escape"):
            await pilot.press("delete")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await press_and_settle(pilot, refusal)
            assert app.screen is sessions
        assert backend.deleted == []
        assert sessions.query_one(DataTable).row_count == 2
        assert "Nothing was deleted." in notices(app)


async def test_a_running_session_is_not_deleted_and_the_reason_is_shown(tmp_path: Path) -> None:
    running = [info("run-1", "running"), info("done-1")]
    app, backend = make_app(tmp_path, ScriptedDriver(full_story()), sessions=running)
    async with app.run_test(size=(80, 24)) as pilot:
        sessions = await open_sessions(pilot)
        await pilot.press("d")  # the running one is the newest
        await pilot.pause()
        assert app.screen is sessions  # not even asked
        assert any("running" in text and "ctrl+x" in text for text in notices(app))
        # Listed as finished, but running by the time it is deleted: the engine's reason.
        await pilot.press("down", "d")
        await pilot.pause()
        backend.sessions = [info("run-1", "running"), info("done-1", "running")]
        await press_and_settle(pilot, "y")
        await settle(pilot)
        assert backend.deleted == []
        assert any(
            text.startswith("Not deleted: session done-1 is running") for text in notices(app)
        )


async def test_deleting_the_session_on_screen_clears_the_screen(tmp_path: Path) -> None:
    # The stored log is the session's own: it starts with this session's id.
    app, backend = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=[info(SESSION_ID), info("done-1")],
        logs={SESSION_ID: finished_session_log()},
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await open_sessions(pilot)
        await press_and_settle(pilot, "enter")
        research = app.screen
        assert isinstance(research, ResearchScreen)
        assert research.query_one(ReportPane).report is not None
        await open_sessions(pilot)
        await pilot.press("d")
        await pilot.pause()
        assert "It is the session on screen" in str(app.screen.question)  # type: ignore[attr-defined]
        await press_and_settle(pilot, "y")
        await settle(pilot)
        assert backend.deleted == [SESSION_ID]
        assert research.query_one(ReportPane).report is None
        assert research.view.session_id != SESSION_ID
        assert research.query_one(UnitsTable).row_count == 0
        await press_and_settle(pilot, "escape")
        assert app.screen is research
        assert research.focused is research.query_one("#question")  # ready for a question


# ---- the highlighted row in full -------------------------------------------------------


async def test_ledger_preview_shows_the_highlighted_claim_in_full_at_80x24(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await pilot.press("3")
        await pilot.pause()
        ledger = app.screen.query_one(LedgerPane)
        table = ledger.query_one(LedgerTable)
        preview = ledger.query_one(RowPreview)
        assert app.screen.focused is table
        first = record(1)
        # The column cuts the claim; the preview has all of it, with every domain.
        assert table.columns["claim"].width < len(first.claim)  # type: ignore[index]
        assert preview.plain.startswith(first.claim)
        assert "docs.python.org" in preview.plain and "confidence 0.80" in preview.plain
        await pilot.press("down")
        await pilot.pause()
        assert preview.plain.startswith(record(2).claim)
        # It fits: on screen, inside the pane, under the table, which keeps rows to read.
        pane, shown = ledger.region, preview.region
        assert shown.height >= 1 and pane.contains_region(shown), (pane, shown)
        assert shown.y >= table.region.bottom
        assert table.region.height >= 4  # header and at least three rows
        assert app.screen.get_widget_at(shown.x + 1, shown.y)[0] is preview


async def test_ledger_preview_follows_the_cursor_through_sorting_and_filtering(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        ledger = app.screen.query_one(LedgerPane)
        table = ledger.query_one(LedgerTable)
        preview = ledger.query_one(RowPreview)
        ledger.sort_by("claim")
        await pilot.pause()
        under_cursor = str(table.get_row_at(0)[0])
        assert preview.plain.startswith(under_cursor.rstrip("…"))
        assert not preview.plain.startswith(record(1).claim)  # "A Task…" sorts first now
        ledger.set_text_filter("no such claim anywhere")
        await pilot.pause()
        assert table.row_count == 0 and not preview.display


async def test_units_preview_shows_the_highlighted_unit_and_follows_its_status(
    tmp_path: Path,
) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await pilot.press("2")
        await pilot.pause()
        table = app.screen.query_one(UnitsTable)
        preview = app.screen.query_one(UnitsPane).query_one(RowPreview)
        assert app.screen.focused is table
        assert preview.plain.startswith("unit u1 · Event loop mechanics · completed · 3 tool calls")
        await pilot.press("down", "down")
        await pilot.pause()
        failed = "unit u3 · search timed out · Native coroutine syntax · failed"
        assert preview.plain.startswith(failed)
        long_topic = "Native coroutine syntax and what PEP 492 changed for generators and awaits"
        table.show_unit(unit(3, "completed", topic=long_topic))
        await pilot.pause()
        assert preview.plain.startswith(f"unit u3 · {long_topic} · completed")
        assert table.columns["topic"].width < len(long_topic)  # type: ignore[index]


async def test_sessions_preview_shows_the_whole_question(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()), sessions=two_sessions())
    async with app.run_test(size=(80, 24)) as pilot:
        sessions = await open_sessions(pilot)
        preview = sessions.query_one(RowPreview)
        assert preview.plain.startswith(LONG_QUESTION)
        assert "stopped (resume)" in preview.plain and "half-1" in preview.plain
        question_column = sessions.query_one(DataTable).columns["question"]  # type: ignore[index]
        assert question_column.get_render_width(sessions.query_one(DataTable)) < len(LONG_QUESTION)
        await pilot.press("down")
        await pilot.pause()
        assert preview.plain.startswith("What is PEP 492? · completed (reopen)")
        assert preview.region.height >= 1
        assert sessions.region.contains_region(preview.region)
        # Every column is on screen at 80 columns, each status whole; the question gives way.
        table = sessions.query_one(DataTable)
        assert table.virtual_size.width <= table.size.width
        assert str(table.get_cell("half-1", "status")) == "stopped"
        longest = max(len(session_status_word(status)) for status in SESSION_STATUSES)
        assert table.columns["status"].width >= longest  # type: ignore[index]


async def test_export_and_feedback_dialogs_name_their_enter_key(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "r")
        assert footer_keys(app) == ["submit", "abandon"]
        await press_and_settle(pilot, "escape", "y")
        await press_and_settle(pilot, "4", "e")
        assert footer_keys(app) == ["submit", "abandon"]


# ---- detail modals name the keys that act in them ---------------------------------------


async def test_detail_footer_names_its_scroll_keys_and_they_scroll(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await pilot.press("2", "enter")
        await pilot.pause()
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, UnitDetailScreen)
        assert footer_keys(app) == [
            "dismiss",
            "scroll_by(1)",
            "page(1)",
            "edge('top')",
        ]
        panel = detail.panel
        assert panel.max_scroll_y > 0
        await pilot.press("j")
        await pilot.pause()
        assert panel.scroll_y == 1
        await pilot.press("space")
        await pilot.pause()
        assert panel.scroll_y > 1
        await pilot.press("G")
        await pilot.pause()
        assert panel.scroll_y == panel.max_scroll_y
        await pilot.press("g")
        await pilot.pause()
        assert panel.scroll_y == 0
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ResearchScreen)


async def test_detail_with_nothing_to_scroll_offers_only_close(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        await pilot.press("3", "enter")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, RecordDetailScreen)
        assert app.screen.panel.max_scroll_y == 0
        assert footer_keys(app) == ["dismiss"]


async def test_help_footer_names_its_scroll_keys(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await press_and_settle(pilot, "f1")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert footer_keys(app)[:3] == ["dismiss", "scroll_by(1)", "page(1)"]
        await pilot.press("space")
        await pilot.pause()
        assert help_screen.panel.scroll_y > 0
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, ResearchScreen)
