"""The sessions list at 80×24 (issue 15): the question gets the room, the time and the
status are short, and the line under the list says them in full. Each test failed before
its fix."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from engine.protocol import SessionInfo
from tests.pilot.conftest import make_app
from tests.pilot.fakes import QUESTION, ScriptedDriver, full_story
from tests.pilot.steps import press_and_settle
from tests.pilot.test_reader_at_80_columns import all_columns_on_screen, screen_lines
from tui.presentation.formatting import compact_stamp
from tui.widgets.row_preview import RowPreview


def session(session_id: str, question: str, updated: str, status: str) -> SessionInfo:
    return SessionInfo(
        session_id=session_id,
        question=question,
        created_at=updated,
        updated_at=updated,
        status=status,  # type: ignore[arg-type]
    )


async def test_sessions_list_gives_the_question_the_room_at_80_columns(tmp_path: Path) -> None:
    long_question = "How does the asyncio event loop decide which ready callback runs next?"
    saved = [
        session("s-1", long_question, "2025-01-03T09:02:00", "awaiting_clarification"),
        session("s-2", QUESTION, "2025-01-02T10:05:00", "awaiting_plan_review"),
    ]
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()), sessions=saved)
    async with app.run_test(size=(80, 24)) as pilot:
        await press_and_settle(pilot, "f2")
        table = app.screen.query_one("#sessions-table")
        assert all_columns_on_screen(table)
        assert table.columns["question"].width >= 36  # type: ignore[attr-defined]
        first = screen_lines(table)[1]
        assert "How does the asyncio event loop" in first, first
        assert "2025-01-03" in first and "needs answer" in first and "resume" in first
        second = screen_lines(table)[2]
        assert "plan review" in second, second
        # The line under the table keeps the whole question, the full status and time.
        preview = app.screen.query_one(RowPreview).plain
        assert long_question in preview and "waiting for your answer" in preview
        assert "2025-01-03 09:02" in preview


def test_compact_stamp_says_the_time_today_the_day_this_year_the_date_before() -> None:
    now = datetime(2026, 11, 27, 15, 0)
    assert compact_stamp("2026-11-27T13:40:05", now) == "13:40"
    assert compact_stamp("2026-01-02T10:05:00", now) == "Jan 2"
    assert compact_stamp("2025-01-02T10:05:00", now) == "2025-01-02"
    assert compact_stamp("not a time", now) == "not a time"
    # Stored times are UTC; they show in local time, as `now` is.
    stored = datetime(2026, 11, 27, 13, 40, tzinfo=UTC)
    local = stored.astimezone().replace(tzinfo=None)
    later = local + timedelta(minutes=5)
    assert compact_stamp(stored.isoformat(), later) == local.strftime("%H:%M")
