"""Which sessions a live process is running: a lock each, which the kernel drops at death.

The sessions index says `running` from the moment a run starts until it records how it ended.
A process killed with `kill -9` (or by a power cut) records nothing, so the index alone would
say `running` forever. While it runs, the process holds an advisory lock (`flock`) on
`DATA_DIR/running/SESSION_ID.lock`; the kernel releases it however the process ends, so a
`running` row whose lock anyone can take belongs to a dead run: it is interrupted, resumable
from its last checkpoint.

A session can also be *open* without running: the app shows it paused at plan review (or at
its clarifying question) and sends the person's decision when it comes. Such a process holds a
shared lock on `DATA_DIR/open/SESSION_ID.lock` for as long as it has the session open (shared:
two apps may show one session). Deleting takes that lock exclusively, so it refuses a session
another live process has open, and a dead process's hold ends with the process.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
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


# ---- open sessions ----------------------------------------------------------------------

OPEN_DIR = "open"
# lock path → [open descriptor, how many times this process opened the session]
_open_held: dict[str, list[int]] = {}


class OpenElsewhere(Exception):
    """Another live process has the session open; `pid` names it when it said so."""

    def __init__(self, pid: int | None) -> None:
        super().__init__(f"open in process {pid}" if pid else "open in another process")
        self.pid = pid


def open_lock_path(settings: Settings, session_id: str) -> Path | None:
    if not is_session_id(session_id):
        return None
    return settings.data_dir / OPEN_DIR / f"{session_id}.lock"


def _lock(path: Path, operation: int) -> int | None:
    """A descriptor of `path` locked with `operation` (without waiting), or None when another
    process holds a conflicting lock.

    A lock file is removed by whoever holds it exclusively (deletion, the last release), so
    the file locked may have been unlinked between opening and locking it: the lock must be on
    the file the path names now, else it guards nothing. Then the new file is tried.
    """
    assert fcntl is not None
    private_dir(path.parent)
    for _ in range(100):
        try:
            private_file(path)
            descriptor = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            continue  # removed (by a deletion ending) between creating and opening it
        try:
            fcntl.flock(descriptor, operation | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            return None
        if _names(path, descriptor):
            return descriptor
        os.close(descriptor)
    return None


def _names(path: Path, descriptor: int) -> bool:
    """Whether `path` still names the file open as `descriptor`."""
    try:
        named = os.stat(path)
    except OSError:
        return False
    held = os.fstat(descriptor)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _write_pid(descriptor: int) -> None:
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, str(os.getpid()).encode(), 0)


def _read_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def hold_open(settings: Settings, session_id: str) -> None:
    """This process has `session_id` open (until `release_open`, as often as it was called,
    or the process's death): another process will not delete it meanwhile."""
    if fcntl is None:
        return
    path = open_lock_path(settings, session_id)
    if path is None:
        return
    with _guard:
        held = _open_held.get(str(path))
        if held is not None:
            held[1] += 1
            return
        descriptor = _lock(path, fcntl.LOCK_SH)
        if descriptor is None:
            return  # being deleted this very moment: there is nothing left to hold
        _write_pid(descriptor)
        _open_held[str(path)] = [descriptor, 1]


def release_open(settings: Settings, session_id: str) -> None:
    """This process has closed `session_id` once; the lock goes with the last close."""
    path = open_lock_path(settings, session_id)
    if path is None or fcntl is None:
        return
    with _guard:
        held = _open_held.get(str(path))
        if held is None:
            return
        held[1] -= 1
        if held[1] > 0:
            return
        del _open_held[str(path)]
        descriptor = held[0]
        try:
            # The last process to have it open removes the file; another one keeps it.
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass
        else:
            if _names(path, descriptor):
                path.unlink(missing_ok=True)
        finally:
            os.close(descriptor)


@contextmanager
def claim_for_deletion(settings: Settings, session_id: str) -> Iterator[None]:
    """Hold `session_id`'s open lock exclusively while it is deleted; raises `OpenElsewhere`
    when another live process has it open. This process's own hold does not count: the app
    deleting the session it shows clears its screen."""
    path = open_lock_path(settings, session_id)
    if path is None or fcntl is None:
        yield
        return
    with _guard:
        held = _open_held.get(str(path))
        if held is not None:
            try:
                fcntl.flock(held[0], fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                # A conversion that fails may have dropped the shared lock: take it back.
                with contextlib.suppress(OSError):
                    fcntl.flock(held[0], fcntl.LOCK_SH | fcntl.LOCK_NB)
                raise OpenElsewhere(_read_pid(path)) from None
            # A copy shares the lock and outlives a `release_open` during the deletion.
            descriptor = os.dup(held[0])
        else:
            locked = _lock(path, fcntl.LOCK_EX)
            if locked is None:
                raise OpenElsewhere(_read_pid(path))
            descriptor = locked
    try:
        yield
    except BaseException:
        if held is not None:  # not deleted after all: this process still has it open
            with contextlib.suppress(OSError):
                fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        raise
    else:
        # Removed while held exclusively: whoever opened the file meanwhile tries again.
        if _names(path, descriptor):
            path.unlink(missing_ok=True)
    finally:
        os.close(descriptor)
