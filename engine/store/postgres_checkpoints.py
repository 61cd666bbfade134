"""LangGraph's checkpoints in PostgreSQL (CHECKPOINT_URL), shared by every worker.

A store that cannot be opened is a `CheckpointStoreError` whose message names the setting,
never the URL (it may hold a password).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from engine.config import Settings
from engine.store.protocol import CheckpointStoreError

POSTGRES_POOL_SIZE = 8
POSTGRES_CONNECT_SECONDS = 10.0
# An advisory-lock key of its own ("dr-ckpt"), apart from the session index's schema lock.
CHECKPOINT_SCHEMA_LOCK = 0x64722D636B7074
SCHEMA_LOCK_POLL_SECONDS = 0.05


@contextlib.asynccontextmanager
async def open_checkpointer(settings: Settings) -> AsyncIterator[Any]:
    """Any worker can continue any session; the tables are created on first use (`setup()`
    is idempotent)."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool

    from engine.logs import guard_library_logs

    assert settings.checkpoint_url is not None
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
        saver = AsyncPostgresSaver(pool)  # type: ignore[arg-type]
        await _set_up_once(pool, saver)
        yield saver
    finally:
        await pool.close()


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


def read_checkpoint(settings: Settings, config: dict[str, Any]) -> Any:
    """The latest checkpoint tuple for `config`, read synchronously; None when there is none."""
    from langgraph.checkpoint.postgres import PostgresSaver

    assert settings.checkpoint_url is not None
    with PostgresSaver.from_conn_string(settings.checkpoint_url.get_secret_value()) as saver:
        return saver.get_tuple(config)  # type: ignore[arg-type]
