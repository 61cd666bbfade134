"""Where a session's checkpoints live: SQLite in DATA_DIR, or PostgreSQL when CHECKPOINT_URL is set.

The session id is the LangGraph thread id, so whichever process opens the store next resumes
where the last one stopped. The session store (`engine/store/`) opens them; a store that
cannot be opened is a `CheckpointStoreError` whose message names the setting, never the URL
(it may hold a password).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from engine.config import Settings
from engine.store import CheckpointStoreError, session_store

__all__ = ["CheckpointStoreError", "checkpointer"]


@contextlib.asynccontextmanager
async def checkpointer(settings: Settings) -> AsyncIterator[Any]:
    """LangGraph's checkpoint saver for the configured store, open while the context lasts."""
    async with session_store(settings).checkpointer() as saver:
        yield saver
