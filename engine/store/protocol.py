"""What every session store offers: index rows, an event log per session, and the part of a
session's run lock that other machines can see."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from engine.config import SettingsError

# An index row, in this order: session_id, question, created_at, updated_at, status, mode,
# report_path.
IndexRow = tuple[Any, ...]


class CheckpointStoreError(SettingsError):
    """The configured checkpoint store cannot be used; the message names the setting (the
    command line prints it as one line, exit code 2)."""


class HeldElsewhere(Exception):
    """A live process, here or on another machine, runs the session; `holder` names it
    when it said who it is."""

    def __init__(self, holder: str | None) -> None:
        super().__init__(holder or "another process")
        self.holder = holder


class EventAppender(Protocol):
    """Appends one session's event lines, numbered after those already stored."""

    def append(self, line: str) -> None: ...

    def close(self) -> None: ...


class EventFollower(Protocol):
    """The lines appended to one session's log since the last look."""

    def new_lines(self) -> list[tuple[int, str]]:
        """Each complete line not yet returned whose number is above the one followed from."""
        ...


class RunningHold(Protocol):
    """A hold on a session's run lock that other machines see; closing it lets go."""

    def close(self) -> None: ...


class SessionStore(Protocol):
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
        """Create or update a session's row; fields left None keep their stored value."""
        ...

    def rows(self) -> list[IndexRow]:
        """Every row, most recently updated first."""
        ...

    def forget(self, session_id: str) -> None:
        """Remove the session's row and its event log."""
        ...

    # ---- event log ---------------------------------------------------------------------

    def event_lines(self, session_id: str, after: int = 0) -> list[tuple[int, str]] | None:
        """The session's stored event lines numbered above `after` (from 1), in order; None
        when the session has no log at all."""
        ...

    def event_appender(self, session_id: str) -> EventAppender: ...

    def follow_events(self, session_id: str, after: int) -> EventFollower: ...

    # ---- run lock ----------------------------------------------------------------------

    def take_running(self, session_id: str, holder: str) -> RunningHold | None:
        """Mark the session as run by this process for every machine that shares the store,
        until the hold is closed or the process dies; None when only this machine can see
        who runs it (its own lock files say). Raises `HeldElsewhere` when another live
        process holds it."""
        ...

    def running_anywhere(self, session_id: str) -> bool:
        """Whether a live process on another machine sharing the store runs the session."""
        ...

    # ---- checkpoints -------------------------------------------------------------------

    def opening_problem(self) -> str | None:
        """Why the checkpoint store cannot be opened, or None; called with no event loop
        running, before a server starts, so a bad setting is one line, not a traceback."""
        ...

    def has_checkpoints(self) -> bool:
        """Whether any checkpoint may have been written (a store never opened holds none)."""
        ...

    def checkpointer(self) -> AbstractAsyncContextManager[Any]:
        """LangGraph's checkpoint saver over this store, open while the context lasts."""
        ...

    def read_checkpoint(self, config: dict[str, Any]) -> Any:
        """The latest checkpoint tuple for `config`, read without an event loop (the sessions
        list and the HTTP routes call it from threads); None when there is none."""
        ...
