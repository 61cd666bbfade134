"""A disk that is full (or failing) is one clear sentence, not a chain of tracebacks.

When the disk fills, every write fails at once: the checkpoint, then the event log that would
record the failure, then the session index that would mark it failed, each raising while the
last one is handled. `disk_failure` finds the disk error anywhere in such a chain, and
`describe` says what could not be written and that the session is resumable: every step
checkpointed before the disk filled is kept.
"""

from __future__ import annotations

import contextlib
import errno
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# The disk (or the user's quota) is full, a file hit its size limit, or the device failed.
_DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS})
# SQLite's primary result codes for the same: SQLITE_IOERR, SQLITE_FULL.
_SQLITE_DISK_CODES = frozenset({10, 13})
_REASONS = {
    errno.EROFS: "the file system is read-only",
    errno.EIO: "the disk failed to write",
}


class StorageWriteError(OSError):
    """Something the engine keeps could not be written; `what` names it for a person."""

    def __init__(self, what: str, path: Path | str | None, reason: str) -> None:
        super().__init__(f"could not write {what}: {reason}")
        self.what = what
        self.path = str(path) if path is not None else None
        self.reason = reason


@dataclass(frozen=True)
class DiskFailure:
    what: str
    reason: str


def _reason(exc: BaseException) -> str | None:
    """Why `exc` is a disk failure, or None when it is not one."""
    if isinstance(exc, StorageWriteError):
        return exc.reason
    if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS:
        return _REASONS.get(exc.errno, "the disk is full")
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        text = str(exc).lower()
        if (code is not None and code & 0xFF in _SQLITE_DISK_CODES) or (
            "disk is full" in text or "disk i/o error" in text
        ):
            return "the disk is full or failing"
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def disk_failure(exc: BaseException) -> DiskFailure | None:
    """The disk failure behind `exc` (itself or anything it was raised from or during),
    named as precisely as the chain allows; None when there is none."""
    found: DiskFailure | None = None
    for link in _chain(exc):
        reason = _reason(link)
        if reason is None:
            continue
        if isinstance(link, StorageWriteError):
            return DiskFailure(link.what, reason)
        if found is None:
            filename = link.filename if isinstance(link, OSError) else None
            what = f"{filename}" if filename else "a file in DATA_DIR"
            found = DiskFailure(what, reason)
    return found


def describe(failure: DiskFailure) -> str:
    """One line for a person: what could not be written, and what to do."""
    return (
        f"could not write {failure.what}: {failure.reason}. Free some space (or fix the disk); "
        "the session keeps every step saved before this and resumes with "
        "`deepresearch run --resume SESSION` (`deepresearch sessions` lists it)"
    )


@contextlib.contextmanager
def writing(what: str, path: Path | str | None = None) -> Iterator[None]:
    """Turn a disk failure inside the block into a `StorageWriteError` naming `what`."""
    try:
        yield
    except StorageWriteError:
        raise
    except (OSError, sqlite3.Error) as exc:
        reason = _reason(exc)
        if reason is None:
            raise
        raise StorageWriteError(what, path, reason) from exc
