"""The session index and event logs in PostgreSQL, when CHECKPOINT_URL puts the checkpoints
there too.

Workers on several machines then share one list of sessions and every session's events. The
index rows are the SQLite index's (`engine/sessions.py`), in a table of the same name; the
events are the JSON lines of `engine/sessions_log.py`, numbered per session from 1 as the
lines of a log file are, so an event's id is the same whichever store holds it.

Whether a `running` row belongs to a live run is told the same way across machines: the
running process holds a PostgreSQL advisory lock keyed by the session on a connection of its
own, which the server releases when that connection ends, however its process died.

Connections are short-lived and synchronous: the runner writes rows from a thread, and the
sessions list needs no event loop. The URL is never echoed: it may hold a password.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from engine.config import Settings, SettingsError
from engine.sessions import SCHEMA

# The index table is the SQLite index's, word for word; the events table is PostgreSQL's own.
_SCHEMA = (
    SCHEMA.rstrip()
    + """;
CREATE TABLE IF NOT EXISTS deepresearch_events (
    session_id TEXT NOT NULL,
    number BIGINT NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (session_id, number)
)
"""
)
CONNECT_SECONDS = 10
SCHEMA_LOCK = 0x6465657072657365  # an advisory-lock key of its own ("deeprese")
_ready: set[str] = set()  # URLs whose table exists (created once per process)
_running: dict[tuple[str, str], Any] = {}  # (URL, session) → the connection holding its lock
_guard = threading.RLock()


class IndexStoreError(SettingsError):
    """The PostgreSQL session index cannot be used; the message names the setting."""


def _url(settings: Settings) -> str:
    assert settings.checkpoint_url is not None
    return settings.checkpoint_url.get_secret_value()


def _connect(settings: Settings) -> Any:
    import psycopg

    url = _url(settings)
    try:
        connection = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_SECONDS)
    except psycopg.Error as exc:
        raise IndexStoreError(
            f"CHECKPOINT_URL: PostgreSQL does not answer for the session index "
            f"({type(exc).__name__}); check the server and the URL"
        ) from None
    if url not in _ready:
        # Workers starting together would race CREATE TABLE IF NOT EXISTS (PostgreSQL then
        # refuses one of them): the schema is created under a lock every worker shares.
        with _guard, connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            connection.execute(_SCHEMA)
        _ready.add(url)
    return connection


def lock_key(session_id: str) -> int:
    """A stable signed 64-bit advisory-lock key for a session id."""
    digest = hashlib.blake2b(session_id.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def write_row(
    settings: Settings,
    session_id: str,
    status: str,
    question: str | None,
    mode: str | None,
    report_path: str | None,
    now: str,
) -> None:
    """Create or update a session's row; fields left None keep their stored value."""
    with _connect(settings) as db:
        db.execute(
            "INSERT INTO deepresearch_sessions VALUES (%s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (session_id) DO UPDATE SET status = EXCLUDED.status,"
            " updated_at = EXCLUDED.updated_at,"
            " question = COALESCE(%s, deepresearch_sessions.question),"
            " mode = COALESCE(%s, deepresearch_sessions.mode),"
            " report_path = COALESCE(%s, deepresearch_sessions.report_path)",
            (
                session_id,
                question or "",
                mode or "auto",
                status,
                now,
                now,
                report_path,
                question,
                mode,
                report_path,
            ),
        )


def rows(settings: Settings) -> list[tuple[Any, ...]]:
    """Every row, most recently updated first (the SQLite index's column order)."""
    with _connect(settings) as db:
        return list(
            db.execute(
                "SELECT session_id, question, created_at, updated_at, status, mode, report_path"
                " FROM deepresearch_sessions ORDER BY updated_at DESC, created_at DESC"
            ).fetchall()
        )


def delete_row(settings: Settings, session_id: str) -> None:
    with _connect(settings) as db:
        db.execute("DELETE FROM deepresearch_events WHERE session_id = %s", (session_id,))
        db.execute("DELETE FROM deepresearch_sessions WHERE session_id = %s", (session_id,))


class EventWriter:
    """Appends one session's event lines, numbered after those already stored.

    One run of a session writes at a time (the run lock), so a counter read once suffices;
    the primary key refuses a number written twice rather than interleave two runs.
    """

    def __init__(self, settings: Settings, session_id: str) -> None:
        self.session_id = session_id
        self.db = _connect(settings)
        row = self.db.execute(
            "SELECT COALESCE(MAX(number), 0) FROM deepresearch_events WHERE session_id = %s",
            (session_id,),
        ).fetchone()
        self.number = int(row[0]) if row else 0

    def append(self, line: str) -> None:
        self.number += 1
        self.db.execute(
            "INSERT INTO deepresearch_events VALUES (%s, %s, %s)",
            (self.session_id, self.number, line),
        )

    def close(self) -> None:
        self.db.close()


def event_lines(settings: Settings, session_id: str, after: int = 0) -> list[tuple[int, str]]:
    """The session's stored event lines numbered above `after`, in order."""
    with _connect(settings) as db:
        return [
            (int(number), str(line))
            for number, line in db.execute(
                "SELECT number, line FROM deepresearch_events"
                " WHERE session_id = %s AND number > %s ORDER BY number",
                (session_id, after),
            ).fetchall()
        ]


def hold_running(settings: Settings, session_id: str) -> None:
    """Mark the session as run by this process, for every worker to see, until released."""
    key = (_url(settings), session_id)
    with _guard:
        if key in _running:
            return
        connection = _connect(settings)
        taken = connection.execute(
            "SELECT pg_try_advisory_lock(%s)", (lock_key(session_id),)
        ).fetchone()
        if not (taken and taken[0]):
            connection.close()  # another live worker runs it and holds the lock
            return
        _running[key] = connection


def release_running(settings: Settings, session_id: str) -> None:
    with _guard:
        connection = _running.pop((_url(settings), session_id), None)
    if connection is not None:
        # Closing the connection releases its advisory locks.
        connection.close()


def running_anywhere(settings: Settings, session_id: str) -> bool:
    """Whether a live process on any machine holds the session's run lock."""
    with _connect(settings) as db:
        taken = db.execute("SELECT pg_try_advisory_lock(%s)", (lock_key(session_id),)).fetchone()
        if taken and taken[0]:
            db.execute("SELECT pg_advisory_unlock(%s)", (lock_key(session_id),))
            return False
    return True
