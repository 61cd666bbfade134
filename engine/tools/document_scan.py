"""Which files of a documents folder may be indexed, and which are skipped and why.

The rule: nothing outside the documents folder, after resolving links, is ever read. A link to
`/proc/self/environ` or `/etc/passwd` dropped into the folder would otherwise put the process
environment (keys included) or system files into the index and from there into model
requests. Links are resolved and kept only when their target is a regular file inside the
folder; links to folders are never followed (a link that stays inside adds nothing new, one
that leaves is named in a warning). A hard link cannot be told from a file of the folder: the
same file may have a name outside it, so a regular file with more than one link is skipped
with a warning, as a link out is. FIFOs and devices are skipped too: reading one blocks or
never ends. Hidden entries and `.indexignore` patterns are skipped silently, as before.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from engine.terminal_text import shown_name
from engine.tools.documents import SUPPORTED_SUFFIXES

IGNORE_FILE = ".indexignore"
OUTSIDE = "it links outside the documents folder"
HARD_LINKED = "it has other hard links, which may be outside the documents folder"


@dataclass(frozen=True)
class FoundFile:
    """A file that may be indexed: where it really is (links resolved), its size and mtime."""

    path: Path
    size: int
    mtime_ns: int


@dataclass
class FolderScan:
    """Files to index by their path relative to the folder, and one warning per skipped one."""

    files: dict[str, FoundFile] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def inside(root: Path, path: Path) -> Path | None:
    """`path` with every link resolved when that lies inside `root` (resolved), else None."""
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):  # a broken link or a loop of links
        return None
    return resolved if resolved.is_relative_to(root) else None


def read_inside(root: Path, path: Path) -> str | None:
    """The UTF-8 text of `path` when it is a regular file inside `root`, else None."""
    resolved = inside(root, path)
    if resolved is None or not resolved.is_file() or resolved.stat().st_nlink > 1:
        return None
    try:
        return resolved.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _ignored_patterns(root: Path) -> list[str]:
    """Glob patterns from the folder's `.indexignore` (one per line, `#` comments)."""
    text = read_inside(root, root / IGNORE_FILE) or ""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def scan_folder(folder: Path, *, limit: int | None = None) -> FolderScan:
    """Every supported file under `folder` that may be read, in path order (with `limit`,
    the scan stops once it has found that many)."""
    root = folder.resolve()
    ignored = _ignored_patterns(root)
    scan = FolderScan()
    for current, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(current)
        dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
        for name in list(dirnames):
            if (base / name).is_symlink():
                dirnames.remove(name)  # never followed: see the module's docstring
                if inside(root, base / name) is None:
                    rel = (base / name).relative_to(root).as_posix()
                    scan.warnings.append(f"skipped {shown_name(rel)}: {OUTSIDE}")
        for name in sorted(filenames):
            path = base / name
            rel = path.relative_to(root).as_posix()
            if name.startswith(".") or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            if any(fnmatch.fnmatchcase(rel, pattern) for pattern in ignored):
                continue
            found = _readable(root, path, rel, scan.warnings)
            if found is not None:
                scan.files[rel] = found
                if limit is not None and len(scan.files) >= limit:
                    return scan
    scan.files = dict(sorted(scan.files.items()))
    return scan


def _readable(root: Path, path: Path, rel: str, warnings: list[str]) -> FoundFile | None:
    target = inside(root, path)
    if target is None:
        if path.is_symlink() and not os.path.exists(path):
            return None  # a dangling link: nothing to read, nothing leaked
        warnings.append(f"skipped {shown_name(rel)}: {OUTSIDE}")
        return None
    try:
        info = target.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        warnings.append(f"skipped {shown_name(rel)}: not a regular file")
        return None
    if info.st_nlink > 1:
        warnings.append(f"skipped {shown_name(rel)}: {HARD_LINKED}")
        return None
    return FoundFile(target, info.st_size, info.st_mtime_ns)
