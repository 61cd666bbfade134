"""What the API hands out names a file by its name, never by where it sits on the server.

A report's `report_path` and `audit_path` (and a session's `report_path`) are absolute paths
under the server's DATA_DIR: they tell a client the server's layout and user name, and mean
nothing on the client's machine. Every body and every streamed event goes out with such a
field cut to its file name.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any

from sse_starlette import ServerSentEvent


def _is_path_field(key: object) -> bool:
    return isinstance(key, str) and key.endswith("_path")


def without_server_paths(value: Any) -> Any:
    """`value` (parsed JSON) with every `*_path` string cut to its file name."""
    if isinstance(value, dict):
        return {
            key: PurePath(item).name
            if _is_path_field(key) and isinstance(item, str)
            else without_server_paths(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [without_server_paths(item) for item in value]
    return value


def public_event_line(line: str) -> str:
    """One stored event (a JSON line) as a client may see it."""
    if '_path"' not in line:
        return line
    try:
        parsed = json.loads(line)
    except ValueError:
        return line
    return json.dumps(without_server_paths(parsed), ensure_ascii=False)


def public_event(event: ServerSentEvent) -> ServerSentEvent:
    """A Server-Sent Event with its data made public."""
    if isinstance(event.data, str):
        event.data = public_event_line(event.data)
    return event
