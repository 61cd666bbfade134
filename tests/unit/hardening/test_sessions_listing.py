"""`deepresearch sessions` names a session by its first question with a count of follow-ups
(the index row keeps only the latest question)."""

from __future__ import annotations

from engine.config import settings_from_mapping
from engine.events import SessionStarted
from engine.sessions import record_session
from engine.sessions_log import events_path
from tests.unit.hardening.conftest import Sandbox

FIRST = "How does the asyncio event loop decide which ready coroutine runs next?"
FOLLOW_UPS = ["What does create_task return?", "Can a task be cancelled twice?"]


def test_cli_sessions_lists_the_first_question_and_counts_follow_ups(sandbox: Sandbox) -> None:
    settings = settings_from_mapping({"DATA_DIR": str(sandbox.data_dir)})
    record_session(settings, "s-0042", status="completed", question=FOLLOW_UPS[-1])
    log = events_path(settings, "s-0042")
    log.parent.mkdir(parents=True, exist_ok=True)
    legs = [SessionStarted(session_id="s-0042", question=q) for q in [FIRST, *FOLLOW_UPS]]
    log.write_text("".join(leg.model_dump_json() + "\n" for leg in legs), encoding="utf-8")
    code, out, _err = sandbox.run("sessions")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("s-0042"))
    assert "How does the asyncio" in row and row.endswith("(+2 follow-ups)")
    assert "Can a task be cancelled" not in row
