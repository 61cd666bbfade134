"""Where sessions are kept: their index rows, event logs and checkpoints, and who runs each.

`session_store(settings)` chooses the store once, from the settings: SQLite and JSON Lines
files in DATA_DIR, or PostgreSQL when CHECKPOINT_URL puts the checkpoints there too. Callers
use the `SessionStore` protocol and never ask which one they have.
"""

from engine.store.factory import session_store
from engine.store.protocol import (
    CheckpointStoreError,
    EventAppender,
    EventFollower,
    HeldElsewhere,
    SessionStore,
)

__all__ = [
    "CheckpointStoreError",
    "EventAppender",
    "EventFollower",
    "HeldElsewhere",
    "SessionStore",
    "session_store",
]
