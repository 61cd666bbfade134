"""Which sessions a live process is running: a lock each, which the kernel drops at death.

The sessions index says `running` from the moment a run starts until it records how it ended.
A process killed with `kill -9` (or by a power cut) records nothing, so the index alone would
say `running` forever. While it runs, the process holds an advisory lock (`flock`) on
`DATA_DIR/running/SESSION_ID.lock`; the kernel releases it however the process ends, so a
`running` row whose lock anyone can take belongs to a dead run: it is interrupted, resumable
from its last checkpoint.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from engine.config import Settings
from engine.data_dir import private_dir, private_file
from engine.protocol import is_session_id

try:
    import fcntl
except ImportError:  # Windows: no flock, so a dead run cannot be told from a live one
    fcntl = None  # type: ignore[assignment]

LOCKS_DIR = "running"
_held: dict[str, int] = {}  # lock path → open descriptor, for the runs of this process
_guard = threading.Lock()


def lock_path(settings: Settings, session_id: str) -> Path | None:
    # A session id can come from the command line (`--resume`): never a path of its own.
    if not is_session_id(session_id):
        return None
    return settings.data_dir / LOCKS_DIR / f"{session_id}.lock"


def hold(settings: Settings, session_id: str) -> None:
    """Mark `session_id` as run by this process until `release` (or the process's death)."""
    if fcntl is None:
        return
    path = lock_path(settings, session_id)
    if path is None:
        return
    with _guard:
        if str(path) in _held:
            return
        private_file(private_dir(path.parent) / path.name)
        descriptor = os.open(path, os.O_RDWR)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)  # another live process runs it: that one holds the lock
            return
        _held[str(path)] = descriptor


def release(settings: Settings, session_id: str) -> None:
    """This process no longer runs `session_id`."""
    path = lock_path(settings, session_id)
    if path is None:
        return
    with _guard:
        descriptor = _held.pop(str(path), None)
    if descriptor is not None:
        path.unlink(missing_ok=True)
        os.close(descriptor)


def is_alive(settings: Settings, session_id: str) -> bool:
    """Whether some live process holds `session_id`'s run lock."""
    if fcntl is None:
        return True
    path = lock_path(settings, session_id)
    if path is None:
        return False
    if str(path) in _held:
        return True
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return False  # never locked, or released: no process runs it
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(descriptor)
    return False
