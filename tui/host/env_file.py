"""Writing the first-run setup to `.env`: owner-only permissions, existing lines preserved."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")
_NEEDS_QUOTES = re.compile(r"[\s#'\"\\$`]")


def _quoted(value: str) -> str:
    if not _NEEDS_QUOTES.search(value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def read_env_names(path: Path) -> set[str]:
    """The variable names an existing `.env` assigns (values are never read back on screen)."""
    if not path.is_file():
        return set()
    names: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _ASSIGNMENT.match(line)
        if match:
            names.add(match.group(1))
    return names


def read_env_values(path: Path, names: Iterable[str]) -> dict[str, str]:
    """The values `path` assigns to `names` (the last assignment wins, as when loading).

    Only for settings that may be shown: callers never ask for a key's value.
    """
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    wanted = set(names)
    parsed = dotenv_values(path)
    return {name: value for name, value in parsed.items() if name in wanted and value is not None}


def write_env_file(path: Path, values: Mapping[str, str], remove: Iterable[str] = ()) -> Path:
    """Set each non-empty value in `path`, replacing earlier assignments, with mode 0600.

    Blank values leave the existing line alone, so saving the form without retyping a key
    does not erase it; a name in `remove` loses every assignment instead. Comments and
    unrelated lines stay as they were.
    """
    updates = {name: value for name, value in values.items() if value.strip()}
    removed = set(remove) - set(updates)
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    written: set[str] = set()
    result: list[str] = []
    for line in lines:
        match = _ASSIGNMENT.match(line)
        name = match.group(1) if match else None
        if name in removed:
            continue
        if name in updates:
            if name not in written:
                result.append(f"{name}={_quoted(updates[name].strip())}")
                written.add(name)
            continue
        result.append(line)
    for name, value in updates.items():
        if name not in written:
            result.append(f"{name}={_quoted(value.strip())}")
    path.parent.mkdir(parents=True, exist_ok=True)
    # Create owner-only from the first byte; tighten an existing file before rewriting it.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write("\n".join(result) + "\n")
    return path
