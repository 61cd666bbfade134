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
import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.config import Settings
from engine.data_dir import private_dir, private_file
from engine.protocol import is_session_id
from engine.store import HeldElsewhere, session_store
from engine.terminal_text import one_line

try:
    import fcntl
except ImportError:  # Windows: no flock, so a dead run cannot be told from a live one
    fcntl = None  # type: ignore[assignment]

LOCKS_DIR = "running"
_guard = threading.Lock()


class SessionHeld(Exception):
    """Another live run has the session: one run of a session at a time, whichever door."""

    def __init__(self, session_id: str, holder: str | None) -> None:
        self.session_id = session_id
        self.holder = holder
        by = holder or "another process"
        super().__init__(
            f"session {session_id} is already running ({by}); wait for that run to end or "
            "stop it (ctrl+x in the app, ctrl+c for deepresearch run) before running it here"
        )


# Which door this process is, in the words a refusal names it by; a door may set it.
door: str | None = None


def holder_label() -> str:
    """This process as a refusal names it: pid, host and the command it runs."""
    return f"process {os.getpid()} on {socket.gethostname()}, {door or _command()}"


def _command() -> str:
    program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"
    # A subcommand names the door; anything else on the line (a question) stays out of it.
    words = [program, *(arg for arg in sys.argv[1:2] if arg.isidentifier())]
    return " ".join(words)


@dataclass
class _Hold:
    """This process's hold on one session's run lock.

    Claimed by one run (`claim`, counted: a driver chaining legs claims around the legs'
    own claims) and/or recorded by the index writing `running` (`hold`); the lock goes when
    neither still has it.
    """

    descriptor: int
    shared: Any = None  # the store's hold other machines see (PostgreSQL's advisory lock)
    owner: object | None = None
    claims: int = 0
    recorded: bool = False


_held: dict[str, _Hold] = {}  # lock path → this process's hold


def lock_path(settings: Settings, session_id: str) -> Path | None:
    # A session id can come from the command line (`--resume`): never a path of its own.
    if not is_session_id(session_id):
        return None
    return settings.data_dir / LOCKS_DIR / f"{session_id}.lock"


def claim(settings: Settings, session_id: str, owner: object) -> None:
    """Make `owner` the one run of `session_id`, until as many `unclaim`s (or death).

    Raises `SessionHeld`, naming the holder, when another live process runs it (on this
    machine, or with CHECKPOINT_URL on any), or another run of this process does.
    """
    if fcntl is None:
        return
    path = lock_path(settings, session_id)
    if path is None:
        return
    with _guard:
        hold = _held.get(str(path))
        if hold is not None:
            if hold.claims and hold.owner is not owner:
                raise SessionHeld(session_id, f"{holder_label()}, another run of it")
            hold.owner, hold.claims = owner, hold.claims + 1
            return
        hold = _take(settings, session_id, path, quiet=False)
        assert hold is not None
        hold.owner, hold.claims = owner, 1
        _held[str(path)] = hold


def unclaim(settings: Settings, session_id: str, owner: object) -> None:
    """`owner` ends one claim on `session_id`; the lock goes with the last one."""
    path = lock_path(settings, session_id)
    if path is None:
        return
    with _guard:
        hold = _held.get(str(path))
        if hold is None or hold.owner is not owner or not hold.claims:
            return
        hold.claims -= 1
        if hold.claims:
            return
        hold.owner = None
        if not hold.recorded:
            _drop(path, _held.pop(str(path)))


def hold(settings: Settings, session_id: str) -> None:
    """Mark `session_id` as run by this process until `release` (or the process's death).

    The index calls it when it records `running`; a run has claimed the session before, so
    this adds nothing then. Without a claim (a tool writing the index), a lock another live
    process holds is left to it.
    """
    if fcntl is None:
        return
    path = lock_path(settings, session_id)
    if path is None:
        return
    with _guard:
        hold = _held.get(str(path))
        if hold is None:
            hold = _take(settings, session_id, path, quiet=True)
            if hold is None:
                return
            _held[str(path)] = hold
        hold.recorded = True


def release(settings: Settings, session_id: str) -> None:
    """The index no longer says this process runs `session_id` (a claim may still hold it)."""
    path = lock_path(settings, session_id)
    if path is None:
        return
    with _guard:
        hold = _held.get(str(path))
        if hold is None:
            return
        hold.recorded = False
        if not hold.claims:
            _drop(path, _held.pop(str(path)))


def _take(settings: Settings, session_id: str, path: Path, *, quiet: bool) -> _Hold | None:
    """Lock `path` (and where the store is shared, its hold on the session) for this process."""
    assert fcntl is not None
    descriptor = _lock(path, fcntl.LOCK_EX)
    if descriptor is None:
        if quiet:
            return None
        raise SessionHeld(session_id, _read_holder(path))
    _write_holder(descriptor)
    try:
        shared = session_store(settings).take_running(session_id, holder_label())
    except HeldElsewhere as elsewhere:
        _drop(path, _Hold(descriptor))
        if quiet:
            return None
        raise SessionHeld(session_id, elsewhere.holder) from None
    return _Hold(descriptor, shared)


def _drop(path: Path, hold: _Hold) -> None:
    if hold.shared is not None:
        hold.shared.close()  # gives its advisory lock back, then closes its connection
    if _names(path, hold.descriptor):
        path.unlink(missing_ok=True)
    os.close(hold.descriptor)


def _write_holder(descriptor: int) -> None:
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, holder_label().encode("utf-8", "replace"), 0)


def _read_holder(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return one_line(text)[:200] or None


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
