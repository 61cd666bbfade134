"""Reading settings once: the discovered `.env` file first, the real environment on top.

Discovery order for `.env`: the file named by `DEEPRESEARCH_ENV_FILE`, else the first `.env`
found walking up from the working directory. Real environment variables win over the file.
Every error names the variable, the bad value (never a secret's) and what is allowed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dotenv import dotenv_values
from pydantic import ValidationError

from engine.config.settings import Settings, SettingsError

ENV_FILE_VARIABLE = "DEEPRESEARCH_ENV_FILE"

_ALLOWED_HINTS: dict[str, str] = {
    "search_provider": "one of exa, local, none",
    "research_mode": "one of auto, quick, deep",
    "grounding": "one of strict, mark, off",
    "model_prices": "comma-separated model=input/output USD per million tokens, "
    "e.g. gpt-4.1-mini=0.40/1.60",
    **{
        f"{prefix}fallback_models": "comma-separated model@base_url entries, "
        "e.g. llama3.1@http://localhost:11434/v1"
        for prefix in ("", "orchestrator_", "researcher_", "planner_", "writer_")
    },
    "model_tool_calling": "one of auto, native, prompted",
    "model_structured_output": "one of auto, json_schema, json_object, tool, text",
    "fetch_allowed_hosts": "comma-separated host or host:port entries, e.g. intranet.example:8080",
    **{
        f"{name}_base_url": "an http:// or https:// URL such as http://localhost:8000/v1"
        for name in ("orchestrator", "researcher", "planner", "writer", "exa", "eval")
    },
}


def find_env_file(environ: Mapping[str, str], cwd: Path) -> Path | None:
    """The `.env` to read: `DEEPRESEARCH_ENV_FILE`, else the nearest one above `cwd`."""
    explicit = environ.get(ENV_FILE_VARIABLE)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise SettingsError(
                f"{ENV_FILE_VARIABLE}={explicit!r}: no such file; "
                "allowed: the path of an existing .env file"
            )
        return path
    for folder in (cwd, *cwd.parents):
        candidate = folder / ".env"
        if candidate.is_file():
            return candidate
    return None


def _allowed_for(field: str) -> str:
    """What a field accepts, read from its declared type and bounds."""
    if field in _ALLOWED_HINTS:
        return _ALLOWED_HINTS[field]
    info = Settings.model_fields.get(field)
    if info is None:
        return "a valid value"
    bounds: dict[str, Any] = {}
    for item in info.metadata:
        for name in ("ge", "gt", "le"):
            if getattr(item, name, None) is not None:
                bounds[name] = getattr(item, name)
    annotation = str(info.annotation)
    kind = "an integer" if "int" in annotation else "a number"
    if "ge" in bounds and "le" in bounds:
        return f"{kind} from {bounds['ge']} to {bounds['le']}"
    if "gt" in bounds and "le" in bounds:
        return f"{kind} above {bounds['gt']} and at most {bounds['le']}"
    if "Path" in annotation:
        return "a folder path"
    return "a valid value"


# Settings whose value never appears in an error (a key, a token, a URL with a password).
_SECRET_FIELDS = frozenset({"api_token", "checkpoint_url"})


def _describe(error: dict[str, Any]) -> str:
    field = str(error["loc"][0]) if error.get("loc") else "?"
    raw = error.get("input")
    secret = field.endswith("api_key") or field in _SECRET_FIELDS
    shown = "<hidden>" if secret else repr(raw)
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return f"{field.upper()}={shown}: {message}; allowed: {_allowed_for(field)}"


def settings_from_mapping(values: Mapping[str, str | None]) -> Settings:
    """Build settings from NAME=value pairs (environment variable names, any case)."""
    known = set(Settings.model_fields)
    data = {
        key.lower(): value
        for key, value in values.items()
        if key.lower() in known and value is not None
    }
    try:
        return Settings(**data)
    except ValidationError as exc:
        details = "; ".join(_describe(dict(err)) for err in exc.errors())
        raise SettingsError(f"invalid setting: {details}") from None


def _read_env_file(path: Path) -> dict[str, str | None]:
    """The NAME=value pairs of a `.env` file; a file that cannot be read is a SettingsError."""
    try:
        return dotenv_values(path, encoding="utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise SettingsError(
            f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} on line {line}); "
            "save the file as UTF-8"
        ) from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror or exc})") from None


def load_settings(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> Settings:
    """Read settings once: the discovered `.env` first, then the real environment on top."""
    env = dict(os.environ if environ is None else environ)
    env_file = find_env_file(env, cwd or Path.cwd())
    merged: dict[str, str | None] = {}
    if env_file is not None:
        merged.update(_read_env_file(env_file))
    merged.update(env)
    return settings_from_mapping(merged)


def loaded_env_file(
    environ: Mapping[str, str] | None = None, cwd: Path | None = None
) -> Path | None:
    """Which `.env` file `load_settings` would read (for `doctor`)."""
    return find_env_file(dict(os.environ if environ is None else environ), cwd or Path.cwd())
