"""Where a session's checkpoints live: SQLite in DATA_DIR, or PostgreSQL when CHECKPOINT_URL is set.

The session id is the LangGraph thread id, so whichever process opens the store next resumes
where the last one stopped. A store that cannot be opened is a `CheckpointStoreError` whose
message names the setting, never the URL (it may hold a password).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from engine.config import Settings, SettingsError
from engine.disk_errors import writing

POSTGRES_POOL_SIZE = 8
POSTGRES_CONNECT_SECONDS = 10.0
# An advisory-lock key of its own ("dr-ckpt"), apart from the session index's schema lock.
CHECKPOINT_SCHEMA_LOCK = 0x64722D636B7074
SCHEMA_LOCK_POLL_SECONDS = 0.05
CHECKPOINTS = "the session checkpoints"


class CheckpointStoreError(SettingsError):
    """The configured checkpoint store cannot be used; the message names the setting (the
    command line prints it as one line, exit code 2)."""


@contextlib.asynccontextmanager
async def checkpointer(settings: Settings) -> AsyncIterator[Any]:
    """Where checkpoints live: PostgreSQL when CHECKPOINT_URL is set, else SQLite in DATA_DIR.

    PostgreSQL is shared by every worker of a deployment, so any of them can continue any
    session; its tables are created on first use (`setup()` is idempotent).
    """
    if settings.checkpoint_url is None:
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
        return
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    from engine.logs import guard_library_logs

    # The pool logs every failed attempt with libpq's message, which may quote the URL.
    guard_library_logs(settings)

    pool = AsyncConnectionPool(
        settings.checkpoint_url.get_secret_value(),
        min_size=1,
        max_size=POSTGRES_POOL_SIZE,
        open=False,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    try:
        await pool.open(wait=True, timeout=POSTGRES_CONNECT_SECONDS)
    except Exception as exc:
        await pool.close()
        # Named without the URL, which may hold a password.
        raise CheckpointStoreError(
            f"CHECKPOINT_URL: PostgreSQL does not answer ({type(exc).__name__}); check the "
            "server and the URL, or unset CHECKPOINT_URL to keep checkpoints in DATA_DIR"
        ) from None
    try:
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type,assignment]
        await _set_up_once(pool, saver)
        yield saver
    finally:
        await pool.close()


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


async def _set_up_once(pool: Any, saver: Any) -> None:
    """Create or migrate the checkpoint tables while holding a lock every worker shares.

    `setup()` reads the last migration and then inserts the next ones; two workers (or two
    engine processes of one worker) starting together on a fresh database both read "none
    yet" and one of them fails on the migrations table's primary key.
    """
    async with pool.connection() as connection:
        # Polled, never waited for inside a statement: a migration builds its indexes
        # CONCURRENTLY, which waits for every open statement, and so for a blocked lock call.
        while not await _try_lock(connection):  # noqa: ASYNC110 - the lock is in another process
            await asyncio.sleep(SCHEMA_LOCK_POLL_SECONDS)
        try:
            await saver.setup()
        finally:
            await connection.execute("SELECT pg_advisory_unlock(%s)", (CHECKPOINT_SCHEMA_LOCK,))


async def _try_lock(connection: Any) -> bool:
    cursor = await connection.execute(
        "SELECT pg_try_advisory_lock(%s) AS held", (CHECKPOINT_SCHEMA_LOCK,)
    )
    row = await cursor.fetchone()
    return bool(row["held"])
