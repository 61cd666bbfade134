"""The one place that chooses a session store."""

from __future__ import annotations

from engine.config import Settings
from engine.store.protocol import SessionStore


def session_store(settings: Settings) -> SessionStore:
    """PostgreSQL when CHECKPOINT_URL is set (every worker shares it), else DATA_DIR's files."""
    if settings.checkpoint_url is not None:
        from engine.store.postgres import PostgresSessionStore

        return PostgresSessionStore(settings)
    from engine.store.sqlite import SqliteSessionStore

    return SqliteSessionStore(settings)
