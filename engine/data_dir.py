"""The data directory: private to its user, or a clear error that names DATA_DIR.

Sessions, reports, logs and the document index hold what a person researched and what their
documents say, so the folder is created 0700 and every file the engine writes in it 0600, like
the `.env` the app writes. SQLite gives a database's `-wal` and `-shm` files the mode of the
database file, which is why databases are created here, empty and private, before SQLite opens
them. A folder that cannot be used (a file, a read-only file system, no permission) stops the
command before any work with a `SettingsError` naming DATA_DIR, never a traceback.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path

from engine.config import Settings, SettingsError

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
# What the engine itself puts in a data directory: an existing folder holding one of these (or
# nothing) is ours to tighten; any other folder someone pointed DATA_DIR at keeps its mode.
_OWN_ENTRIES = (
    "sessions.sqlite",
    "sessions-index.sqlite",
    "index.sqlite",
    "reports",
    "logs",
)


class DataDirError(SettingsError):
    """DATA_DIR cannot be used; the message names it, the path and the reason."""


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) with the folder itself 0700."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    _tighten(path, PRIVATE_DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty and 0600 when it is missing; tighten it when it is not."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE))
    _tighten(path, PRIVATE_FILE_MODE)
    return path


def write_private_text(path: Path, text: str) -> None:
    """Write `text` to `path` as UTF-8, the file 0600 whether it is new or replaced."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE_MODE)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        _tighten(path, PRIVATE_FILE_MODE)
        handle.write(text)


def replace_private_text(path: Path, text: str) -> None:
    """Write `text` to `path` whole or not at all: a process killed while writing leaves the
    file as it was, never cut short (the text goes to a hidden file beside it, then takes
    its name in one step)."""
    staged = path.with_name(f".{path.name}.writing")
    write_private_text(staged, text)
    os.replace(staged, path)


def _tighten(path: Path, mode: int) -> None:
    # A mode passed to mkdir/open is filtered by the umask and ignored for what already
    # exists (data written by an older version): set it explicitly when it is too open.
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        os.chmod(path, mode)


def _looks_like_ours(folder: Path) -> bool:
    try:
        return not any(folder.iterdir()) or any((folder / n).exists() for n in _OWN_ENTRIES)
    except OSError:
        return False


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileExistsError):
        return "it is a file, not a folder"
    if isinstance(exc, NotADirectoryError):
        return "a part of the path is a file, not a folder"
    if exc.errno == errno.EROFS:
        return "Read-only file system"
    return exc.strerror or type(exc).__name__


def _error(folder: Path, reason: str) -> DataDirError:
    return DataDirError(
        f"DATA_DIR={str(folder)!r}: {reason}; allowed: a folder this user can create and "
        "write (sessions, reports, logs and the document index live there)"
    )


def check_data_dir(settings: Settings) -> Path:
    """For commands that only read: DATA_DIR may be missing, but not something else."""
    folder = settings.data_dir
    if folder.exists() and not folder.is_dir():
        raise _error(folder, "it is a file, not a folder")
    return folder


def prepare_data_dir(settings: Settings) -> Path:
    """Create DATA_DIR private (or tighten our own), prove it writable, pre-create the
    checkpoint database private; raise `DataDirError` when any of it fails."""
    folder = check_data_dir(settings)
    try:
        existed = folder.is_dir()
        folder.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
        if not existed or _looks_like_ours(folder):
            _tighten(folder, PRIVATE_DIR_MODE)
        # A real write, not os.access: it is what fails on a full or read-only file system.
        with tempfile.TemporaryFile(dir=folder):
            pass
        private_file(settings.sessions_db_path)
    except OSError as exc:
        raise _error(folder, _reason(exc)) from None
    return folder
