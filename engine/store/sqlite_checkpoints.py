"""LangGraph's checkpoints in SQLite, in DATA_DIR (`sessions.sqlite`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from engine.config import Settings
from engine.disk_errors import writing

CHECKPOINTS = "the session checkpoints"


@contextlib.asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[Any]:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = settings.sessions_db_path
    async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
        # The saver keeps its database in WAL mode; NORMAL syncs the log at checkpoints of
        # the WAL instead of at every commit. A killed process still loses nothing
        # committed (only a power cut could take the last steps back), and no step waits
        # for a disk flush.
        with writing(CHECKPOINTS, path):
            await saver.conn.execute("PRAGMA synchronous=NORMAL")
        _name_write_failures(saver, path)
        yield saver


def _name_write_failures(saver: Any, path: Any) -> None:
    """Make a checkpoint the disk could not take a `StorageWriteError` naming the checkpoints,
    rather than a bare database error deep inside a graph step."""
    base = type(saver)

    class NamingSaver(base):  # type: ignore[valid-type,misc]
        async def aput(self, *args: Any, **kwargs: Any) -> Any:
            with writing(CHECKPOINTS, path):
                return await super().aput(*args, **kwargs)

        async def aput_writes(self, *args: Any, **kwargs: Any) -> Any:
            with writing(CHECKPOINTS, path):
                return await super().aput_writes(*args, **kwargs)

    saver.__class__ = NamingSaver


def read_checkpoint(settings: Settings, config: dict[str, Any]) -> Any:
    """The latest checkpoint tuple for `config`, read synchronously; None when there is none."""
    if not settings.sessions_db_path.is_file():
        return None
    from langgraph.checkpoint.sqlite import SqliteSaver

    with SqliteSaver.from_conn_string(str(settings.sessions_db_path)) as saver:
        return saver.get_tuple(config)  # type: ignore[arg-type]
