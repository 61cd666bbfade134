"""The app's sessions list names a session by its first question with a count of follow-ups
(issue 37, wording; `deepresearch sessions`: tests/unit/hardening/test_sessions_listing.py)."""

from __future__ import annotations

from pathlib import Path

from engine.protocol import SessionInfo
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story, settle
from tests.pilot.test_plan_review import screen_lines
from tui.widgets.row_preview import RowPreview

FIRST = "How does the asyncio event loop decide which ready coroutine runs next?"
FOLLOW_UPS = ["What does create_task return?", "Can a task be cancelled twice?"]


def followed_up_session() -> SessionInfo:
    # The index row keeps the latest question, as the engine's does after a follow-up.
    return SessionInfo(
        session_id="s-0042",
        question=FOLLOW_UPS[-1],
        created_at="2025-01-02T10:00:00",
        updated_at="2025-01-02T10:05:00",
        status="completed",
    )


async def test_sessions_list_names_the_first_question_and_counts_follow_ups(
    tmp_path: Path,
) -> None:
    app, _ = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=[followed_up_session()],
        questions={"s-0042": [FIRST, *FOLLOW_UPS]},
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f2")
        await settle(pilot)
        row = next(line for line in screen_lines(app) if "How does the asyncio" in line)
        assert "(+2 follow-ups)" in row  # kept in sight though the question is cut
        preview = app.screen.query_one(RowPreview).plain
        assert preview.startswith(FIRST)
        assert "follow-up 1: What does create_task return?" in preview
