"""The session index: question, dates, status and report of every saved session.

Written by the runner at each state change, so the sessions list needs no graph and no
LangChain import. The rows live in the session store (`engine/store/`): a SQLite file in the
data directory, or PostgreSQL with CHECKPOINT_URL, so every worker of a deployment lists the
same sessions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.config import Settings
from engine.events import ReportReady
from engine.protocol import SessionInfo, SessionNotDeleted, SessionStatus, is_session_id
from engine.store import session_store


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def record_session(
    settings: Settings,
    session_id: str,
    *,
    status: SessionStatus,
    question: str | None = None,
    mode: str | None = None,
    report_path: str | None = None,
) -> None:
    """Create or update a session's row; fields left None keep their stored value."""
    from engine import run_lock

    # A running session is locked by this process (with CHECKPOINT_URL, in PostgreSQL too),
    # so a later look can tell a dead run. The lock is taken before the row says `running`
    # and dropped after it says something else, unless the run claimed it for longer.
    if status == "running":
        run_lock.hold(settings, session_id)
    try:
        _write_row(settings, session_id, status, question, mode, report_path)
    finally:
        if status != "running":
            run_lock.release(settings, session_id)


def _write_row(
    settings: Settings,
    session_id: str,
    status: SessionStatus,
    question: str | None,
    mode: str | None,
    report_path: str | None,
) -> None:
    now = _now()
    if question is not None:
        from engine.terminal_text import one_line

        question = one_line(question)  # listed on terminals later: no control sequences
    session_store(settings).write_row(session_id, status, question, mode, report_path, now)


def list_sessions(settings: Settings) -> list[SessionInfo]:
    """Saved sessions, most recently updated first; a `running` session whose process is
    gone (killed, crashed) is listed as `interrupted`, which is what it is."""
    rows = _index_rows(settings)
    return [
        SessionInfo(
            session_id=row[0],
            question=row[1],
            created_at=row[2],
            updated_at=row[3],
            status=(
                "interrupted"
                if row[4] == "running" and not is_running(settings, row[0])
                else row[4]
            ),
            mode=row[5],
            report_path=row[6],
        )
        for row in rows
    ]


def _index_rows(settings: Settings) -> list[tuple[Any, ...]]:
    return session_store(settings).rows()


def is_running(settings: Settings, session_id: str) -> bool:
    """Whether a live process runs the session: this machine's, or with CHECKPOINT_URL, any."""
    from engine import run_lock

    return run_lock.is_alive(settings, session_id) or session_store(settings).running_anywhere(
        session_id
    )


def get_session(settings: Settings, session_id: str) -> SessionInfo | None:
    return next((s for s in list_sessions(settings) if s.session_id == session_id), None)


def _report_file(settings: Settings, session_id: str) -> Path | None:
    if not is_session_id(session_id):
        return None
    # The index names the latest report (follow-up questions each get their own file).
    info = get_session(settings, session_id)
    path = settings.reports_dir / f"{session_id}.md"
    if info is not None and info.report_path:
        recorded = Path(info.report_path)
        if recorded.parent == settings.reports_dir and recorded.is_file():
            path = recorded
    return path if path.is_file() else None


def load_report(settings: Settings, session_id: str) -> ReportReady | None:
    """The saved report with its verification audit, typed as the run announced it, so a
    reopened session renders it exactly as the live one did; None when it has none yet."""
    from engine.sessions_log import load_events, saved_report_event

    stored = [e for e in load_events(settings, session_id) or [] if isinstance(e, ReportReady)]
    if stored:
        # The event the run announced: claims, grounding and notice as they were (also when
        # another machine's worker wrote the report file, with events in PostgreSQL).
        return stored[-1]
    if get_session(settings, session_id) is not None:
        from engine.sessions_state import saved_report

        # The checkpoint holds the report typed: a worker killed before it stored the
        # event (or on another machine, with the file) still leaves it readable here.
        found = saved_report(settings, session_id)
        if found is not None:
            return found
    path = _report_file(settings, session_id)
    if path is None:
        return None
    event = saved_report_event(
        path.read_text(encoding="utf-8"), path.with_suffix("").with_suffix(".audit.json")
    )
    return event.model_copy(update={"report_path": str(path)})


@dataclass(frozen=True)
class DeletedSession:
    """What deleting a session removed."""

    session_id: str
    files: tuple[Path, ...]
    checkpoints: bool


def _session_files(settings: Settings, session_id: str) -> list[Path]:
    """Every file the engine keeps for one session under the data directory."""
    from engine import run_lock
    from engine.store.sqlite import events_path

    files = [events_path(settings, session_id)]
    reports = settings.reports_dir
    if reports.is_dir():
        # The first question's report and audit, then each follow-up's (`ID-N.md`).
        # A partial report continued with a raised budget has its own (`ID-continued-N.md`).
        numbered = re.compile(
            re.escape(session_id) + r"(-\d+)?(-continued-\d+)?(\.md|\.audit\.json)"
        )
        files += sorted(path for path in reports.iterdir() if numbered.fullmatch(path.name))
    lock = run_lock.lock_path(settings, session_id)
    if lock is not None:
        files.append(lock)
    return [path for path in files if path.is_file()]


def delete_session(settings: Settings, session_id: str) -> DeletedSession:
    """`adelete_session` for callers without an event loop (the command line, a thread)."""
    import asyncio

    return asyncio.run(adelete_session(settings, session_id))


async def adelete_session(settings: Settings, session_id: str) -> DeletedSession:
    """Remove everything stored for a session: its checkpoints (the LangGraph thread, in
    whichever store CHECKPOINT_URL selects), its event log, its reports and audits, and last
    its row in the index, so a deletion cut short can be asked for again. A session some
    live process is running, or another live process has open (the app showing it paused at
    plan review, say), is refused with `SessionNotDeleted`, which says why.

    Copies the person exported are theirs and stay where they were written.
    """
    from engine import run_lock

    if not is_session_id(session_id):
        raise SessionNotDeleted(f"no saved session {session_id!r}")
    info = get_session(settings, session_id)
    if info is None:
        raise SessionNotDeleted(f"no saved session {session_id!r}")
    if is_running(settings, session_id):
        raise SessionNotDeleted(
            f"session {session_id} is running; cancel the run (ctrl+x in the app, ctrl+c for "
            "deepresearch run) and delete it when it has stopped"
        )
    try:
        # Held while deleting: no other process opens the session half-deleted.
        with run_lock.claim_for_deletion(settings, session_id):
            return await _delete_stored(settings, session_id)
    except run_lock.OpenElsewhere as held:
        waiting = _WAITING.get(info.status, "")
        process = f" (process {held.pid})" if held.pid else ""
        raise SessionNotDeleted(
            f"session {session_id} is open in another deepresearch app{process}"
            f"{waiting}; close it there (ctrl+n for a new session, or quit) and delete it then"
        ) from None


# What a session open elsewhere is doing, by its status, in the refusal's words.
_WAITING = {
    "awaiting_plan_review": ", waiting for its plan to be reviewed",
    "awaiting_clarification": ", waiting for the answer to its clarifying question",
}


async def _delete_stored(settings: Settings, session_id: str) -> DeletedSession:
    checkpoints = await _delete_checkpoints(settings, session_id)
    files = tuple(_session_files(settings, session_id))
    for path in files:
        path.unlink(missing_ok=True)
    session_store(settings).forget(session_id)
    return DeletedSession(session_id, files, checkpoints)


async def _delete_checkpoints(settings: Settings, session_id: str) -> bool:
    """Delete the session's LangGraph thread; whether the checkpoint store held one."""
    if not session_store(settings).has_checkpoints():
        return False  # no checkpoint was ever written: nothing to open, nothing to create
    from engine.checkpoints import checkpointer

    async with checkpointer(settings) as saver:
        found = await saver.aget_tuple({"configurable": {"thread_id": session_id}}) is not None
        await saver.adelete_thread(session_id)
    return bool(found)
