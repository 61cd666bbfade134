"""Where sessions are kept: their index rows, their event logs, and who runs each of them.

`session_store(settings)` chooses the store once, from the settings: SQLite and JSON Lines
files in DATA_DIR, or PostgreSQL when CHECKPOINT_URL puts the checkpoints there too. Callers
use the `SessionStore` protocol and never ask which one they have.
"""

from engine.store.factory import session_store
from engine.store.protocol import EventAppender, EventFollower, HeldElsewhere, SessionStore

__all__ = ["EventAppender", "EventFollower", "HeldElsewhere", "SessionStore", "session_store"]
