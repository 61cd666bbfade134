"""Sessions kept in DATA_DIR: the index in SQLite, each event log a JSON Lines file.

The index is a small SQLite file beside LangGraph's checkpoints (`sessions-index.sqlite`),
written by the runner at each state change, so the sessions list needs no graph and no
LangChain import. It is a separate file on purpose: a synchronous write must never wait on
the checkpointer's own connection, which runs on the event loop this write would block.

Each session's events are one file (`session-events/SESSION_ID.jsonl`), appended and flushed
per event so a crash loses at most the event being written. Who runs a session is told by
lock files on this machine alone (`engine/run_lock.py`).
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import AbstractAsyncContextManager, closing
from pathlib import Path
from typing import Any

from engine.config import Settings
from engine.data_dir import private_dir, private_file
from engine.store.protocol import IndexRow
from engine.store.schema import ROWS_QUERY, SCHEMA

INDEX_FILE = "sessions-index.sqlite"
EVENTS_DIR = "session-events"


def index_path(settings: Settings) -> Path:
    return settings.data_dir / INDEX_FILE


def events_path(settings: Settings, session_id: str) -> Path:
    return settings.data_dir / EVENTS_DIR / f"{session_id}.jsonl"


def _connect(path: Path) -> sqlite3.Connection:
    private_file(private_dir(path.parent) / path.name)
    connection = sqlite3.connect(path, timeout=30)
    # Write-ahead logging, synced at the log's checkpoints rather than at every commit, as the
    # checkpointer's database is: a row written is one append, not a rollback journal created,
    # synced and deleted, so fifty sessions starting at once do not queue behind each other's
    # disk flushes (a killed process still loses nothing committed), and readers never wait.
    _write_ahead_logging(connection)
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute(SCHEMA)
    return connection


# Switching a database to WAL takes an exclusive lock. Every open used to ask for it, and two
# sessions opening a new data folder at once saw "database is locked"; now only a file not yet
# in WAL asks, and a lock held by another opener is waited out a little longer.
WAL_ATTEMPTS = 50
WAL_RETRY_SECONDS = 0.1


def _write_ahead_logging(connection: sqlite3.Connection) -> None:
    """The database in WAL mode: once set, a file stays so, and later openers only read it."""
    for attempt in range(WAL_ATTEMPTS):
        try:
            if str(connection.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == WAL_ATTEMPTS - 1:
                raise
            time.sleep(WAL_RETRY_SECONDS)


class SqliteSessionStore:
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
        with closing(_connect(index_path(self.settings))) as db, db:
            row = db.execute(
                "SELECT question FROM deepresearch_sessions WHERE session_id = ?", (session_id,)
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO deepresearch_sessions VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (session_id, question or "", mode or "auto", status, now, now, report_path),
                )
                return
            db.execute(
                "UPDATE deepresearch_sessions SET status = ?, updated_at = ?,"
                " question = COALESCE(?, question), mode = COALESCE(?, mode),"
                " report_path = COALESCE(?, report_path) WHERE session_id = ?",
                (status, now, question, mode, report_path, session_id),
            )

    def rows(self) -> list[IndexRow]:
        path = index_path(self.settings)
        if not path.exists():
            return []
        try:
            connection = _connect(path)
        except sqlite3.OperationalError:
            # A full or failing disk cannot take what opening for writing adds (WAL files, the
            # schema): the list is read from the index file as it stands.
            connection = sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)
        with closing(connection) as db:
            return list(db.execute(ROWS_QUERY).fetchall())

    def forget(self, session_id: str) -> None:
        # The event log is one of the session's files, removed (and listed) with the others.
        with closing(_connect(index_path(self.settings))) as db, db:
            db.execute("DELETE FROM deepresearch_sessions WHERE session_id = ?", (session_id,))

    # ---- event log ---------------------------------------------------------------------

    def event_lines(self, session_id: str, after: int = 0) -> list[tuple[int, str]] | None:
        path = events_path(self.settings, session_id)
        if not path.is_file():
            return None
        numbered = enumerate(
            (line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()), 1
        )
        return [(number, line) for number, line in numbered if number > after]

    def event_appender(self, session_id: str) -> FileAppender:
        return FileAppender(events_path(self.settings, session_id))

    def follow_events(self, session_id: str, after: int) -> FileFollower:
        return FileFollower(events_path(self.settings, session_id), after)

    # ---- run lock ----------------------------------------------------------------------

    def take_running(self, session_id: str, holder: str) -> None:
        return None  # the lock files say who runs it; no other machine shares DATA_DIR's

    def running_anywhere(self, session_id: str) -> bool:
        return False

    # ---- checkpoints -------------------------------------------------------------------

    def opening_problem(self) -> None:
        return None  # a file in DATA_DIR, made on first use: nothing to reach beforehand

    def has_checkpoints(self) -> bool:
        path = self.settings.sessions_db_path
        return path.is_file() and path.stat().st_size > 0

    def checkpointer(self) -> AbstractAsyncContextManager[Any]:
        from engine.store.sqlite_checkpoints import open_checkpointer

        return open_checkpointer(self.settings)

    def read_checkpoint(self, config: dict[str, Any]) -> Any:
        from engine.store.sqlite_checkpoints import read_checkpoint

        return read_checkpoint(self.settings, config)


class FileAppender:
    """Appends lines to a session's log file, each flushed as it is written."""

    def __init__(self, path: Path) -> None:
        private_dir(path.parent)
        private_file(path)  # what a person researched is theirs alone, like the rest of DATA_DIR
        _end_cut_line(path)
        self.log = path.open("a", encoding="utf-8")

    def append(self, line: str) -> None:
        self.log.write(line + "\n")
        self.log.flush()

    def close(self) -> None:
        self.log.close()


def _end_cut_line(path: Path) -> None:
    """End a last line a killed process left half-written, so the next event is whole."""
    try:
        with path.open("rb") as log:
            log.seek(0, 2)
            if log.tell() == 0:
                return
            log.seek(-1, 2)
            cut = log.read(1) != b"\n"
    except OSError:
        return
    if cut:
        with path.open("a", encoding="utf-8") as log:
            log.write("\n")


class FileFollower:
    """The complete lines appended to a log since the last read (a line cut short waits)."""

    def __init__(self, path: Path, after: int) -> None:
        self.path = path
        self.after = after
        self.offset = 0
        self.count = 0

    def new_lines(self) -> list[tuple[int, str]]:
        try:
            with self.path.open("rb") as log:
                log.seek(self.offset)
                chunk = log.read()
        except FileNotFoundError:
            return []
        complete = chunk[: chunk.rfind(b"\n") + 1]
        self.offset += len(complete)
        numbered = []
        for line in complete.decode("utf-8").split("\n"):
            if line.strip():
                self.count += 1
                if self.count > self.after:
                    numbered.append((self.count, line))
        return numbered
