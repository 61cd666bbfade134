"""Sessions kept in PostgreSQL, when CHECKPOINT_URL puts the checkpoints there too.

Workers on several machines then share one list of sessions and every session's events. The
index rows are the SQLite index's, in a table of the same name; the events are the JSON
lines of a log file, numbered per session from 1 as a file's lines are, so an event's id is
the same whichever store holds it.

Whether a `running` row belongs to a live run is told the same way across machines: the
running process holds a PostgreSQL advisory lock keyed by the session on a connection of its
own, which the server releases when that connection ends, however its process died.

Connections are short-lived and synchronous: the runner writes rows from a thread, and the
sessions list needs no event loop. The URL is never echoed: it may hold a password.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from contextlib import AbstractAsyncContextManager
from typing import Any

from engine.config import Settings, SettingsError
from engine.store.protocol import CheckpointStoreError, HeldElsewhere, IndexRow
from engine.store.schema import ROWS_QUERY, SCHEMA
from engine.terminal_text import one_line

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
_guard = threading.RLock()


class IndexStoreError(SettingsError):
    """The PostgreSQL session index cannot be used; the message names the setting."""


def _url(settings: Settings) -> str:
    assert settings.checkpoint_url is not None
    return settings.checkpoint_url.get_secret_value()


def _connect(settings: Settings, **options: Any) -> Any:
    import psycopg

    url = _url(settings)
    try:
        connection = psycopg.connect(
            url, autocommit=True, connect_timeout=CONNECT_SECONDS, **options
        )
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


class PostgresSessionStore:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    # ---- index rows --------------------------------------------------------------------

    def write_row(
        self,
        session_id: str,
        status: str,
        question: str | None,
        mode: str | None,
        report_path: str | None,
        now: str,
    ) -> None:
        with _connect(self.settings) as db:
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

    def rows(self) -> list[IndexRow]:
        with _connect(self.settings) as db:
            return list(db.execute(ROWS_QUERY).fetchall())

    def forget(self, session_id: str) -> None:
        with _connect(self.settings) as db:
            db.execute("DELETE FROM deepresearch_events WHERE session_id = %s", (session_id,))
            db.execute("DELETE FROM deepresearch_sessions WHERE session_id = %s", (session_id,))

    # ---- event log ---------------------------------------------------------------------

    def event_lines(self, session_id: str, after: int = 0) -> list[tuple[int, str]] | None:
        with _connect(self.settings) as db:
            lines = [
                (int(number), str(line))
                for number, line in db.execute(
                    "SELECT number, line FROM deepresearch_events"
                    " WHERE session_id = %s AND number > %s ORDER BY number",
                    (session_id, after),
                ).fetchall()
            ]
        # No line at all: no log (a session no door told of, or one from before event logs).
        return lines or (None if after == 0 else [])

    def event_appender(self, session_id: str) -> EventWriter:
        return EventWriter(self.settings, session_id)

    def follow_events(self, session_id: str, after: int) -> RowFollower:
        return RowFollower(self, session_id, after)

    # ---- run lock ----------------------------------------------------------------------

    def take_running(self, session_id: str, holder: str) -> Any:
        """A connection holding the session's advisory lock, for every worker to see.

        The connection is named after its process (`application_name`), which is how another
        worker learns who holds it.
        """
        connection = _connect(self.settings, application_name=_application_name(holder))
        key = lock_key(session_id)
        taken = connection.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
        if taken and taken[0]:
            return _RunningHold(connection, key)
        try:
            found = connection.execute(_HOLDER, (*_lock_parts(key),)).fetchone()
        finally:
            connection.close()
        raise HeldElsewhere(_holder_of(found[0] if found else None))

    def running_anywhere(self, session_id: str) -> bool:
        key = lock_key(session_id)
        with _connect(self.settings) as db:
            taken = db.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if taken and taken[0]:
                db.execute("SELECT pg_advisory_unlock(%s)", (key,))
                return False
        return True

    # ---- checkpoints -------------------------------------------------------------------

    def opening_problem(self) -> str | None:
        async def opened() -> None:
            async with self.checkpointer():
                pass

        try:
            asyncio.run(opened())
        except CheckpointStoreError as exc:
            return str(exc)
        return None

    def has_checkpoints(self) -> bool:
        return True  # shared by every worker: only the server knows

    def checkpointer(self) -> AbstractAsyncContextManager[Any]:
        from engine.store.postgres_checkpoints import open_checkpointer

        return open_checkpointer(self.settings)

    def read_checkpoint(self, config: dict[str, Any]) -> Any:
        from engine.store.postgres_checkpoints import read_checkpoint

        return read_checkpoint(self.settings, config)


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
        self.append_many([line])

    def append_many(self, lines: list[str]) -> None:
        """Store `lines` in one transaction: all of them, numbered in order, or none."""
        if not lines:
            return
        first = self.number + 1
        rows = [(self.session_id, first + offset, line) for offset, line in enumerate(lines)]
        with self.db.transaction(), self.db.cursor() as cursor:
            cursor.executemany("INSERT INTO deepresearch_events VALUES (%s, %s, %s)", rows)
        self.number += len(lines)

    def close(self) -> None:
        self.db.close()


class RowFollower:
    """The rows stored for a session since the last look: the same numbers, whichever
    machine's worker wrote them."""

    def __init__(self, store: PostgresSessionStore, session_id: str, after: int) -> None:
        self.store = store
        self.session_id = session_id
        self.seen = after

    def new_lines(self) -> list[tuple[int, str]]:
        lines = self.store.event_lines(self.session_id, self.seen) or []
        if lines:
            self.seen = lines[-1][0]
        return lines


# Who holds a session-level advisory lock: PostgreSQL splits its 64-bit key in two halves.
_HOLDER = (
    "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
    " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
    " AND l.classid::bigint = %s AND l.objid::bigint = %s LIMIT 1"
)
_NAME_PREFIX = "deepresearch: "
_NAME_LENGTH = 63  # PostgreSQL keeps this many bytes of an application name


def _lock_parts(key: int) -> tuple[int, int]:
    unsigned = key & 0xFFFFFFFFFFFFFFFF
    return unsigned >> 32, unsigned & 0xFFFFFFFF


def _application_name(holder: str) -> str:
    name = _NAME_PREFIX + holder
    return name.encode("utf-8")[:_NAME_LENGTH].decode("utf-8", "ignore")


def _holder_of(name: str | None) -> str | None:
    if not name or not name.startswith(_NAME_PREFIX):
        return None
    return one_line(name.removeprefix(_NAME_PREFIX)) or None


class _RunningHold:
    """A session's advisory lock on its own connection, given back before the connection
    closes: the server ends a closed connection's backend, and frees its locks, only after
    the client has moved on, so a worker taking the session next could still find it held."""

    def __init__(self, connection: Any, key: int) -> None:
        self.connection = connection
        self.key = key

    def close(self) -> None:
        try:
            self.connection.execute("SELECT pg_advisory_unlock(%s)", (self.key,))
        except Exception:  # noqa: S110 - closing frees it too, if later
            pass
        finally:
            self.connection.close()
