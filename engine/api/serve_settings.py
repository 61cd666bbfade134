"""Settings of `deepresearch serve` alone, read as `load_settings` reads the engine's.

`ENGINE_PROCESSES`: how many engine processes a `serve` worker runs its sessions in. Each
process holds the engine (the graph, the checkpointer, the offline model) and about a hundred
megabytes; a session's legs run in one of them at a time. Unset, one per core, at most
`DEFAULT_MAX` (the server itself needs a share of the cores too).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from engine.config import SettingsError, find_env_file

ENGINE_PROCESSES = "ENGINE_PROCESSES"
MAX_ENGINE_PROCESSES = 64
DEFAULT_MAX = 4


def cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def default_engine_processes() -> int:
    return min(DEFAULT_MAX, cores())


def parse_engine_processes(value: str | None) -> int:
    """`ENGINE_PROCESSES` as a count; blank or unset is the default for this machine."""
    if value is None or not value.strip():
        return default_engine_processes()
    text = value.strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_ENGINE_PROCESSES:
        raise SettingsError(
            f"invalid setting: {ENGINE_PROCESSES}={value!r}: not a count of engine processes; "
            f"allowed: an integer from 1 to {MAX_ENGINE_PROCESSES}, or unset for one per core "
            f"(at most {DEFAULT_MAX})"
        )
    return int(text)


def engine_processes(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> int:
    """The configured count: the environment over the discovered `.env`, names in any case,
    as `load_settings` reads the engine's settings."""
    env = dict(os.environ if environ is None else environ)
    value: str | None = None
    env_file = find_env_file(env, cwd or Path.cwd())
    if env_file is not None:
        from dotenv import dotenv_values

        try:
            from_file = dotenv_values(env_file, encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            from_file = {}  # `load_settings` has already said what is wrong with the file
        value = _named(from_file, value)
    return parse_engine_processes(_named(env, value))


def _named(values: Mapping[str, str | None], default: str | None) -> str | None:
    for name, value in values.items():
        if name.upper() == ENGINE_PROCESSES and value is not None:
            default = value
    return default
