"""Approximate token counting that prices each tool schema once, not on every model call.

deepagents' summarization counts the request (messages, system prompt and tool schemas) before
every researcher model call. LangChain's `count_tokens_approximately` rebuilds each tool's JSON
schema every time, about 25 ms per call with the deepagents tools bound; with several
researchers sharing the event loop that delay lands on every one of them. The schemas never
change while the engine runs, so their size is computed once per tool and remembered.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages.utils import count_tokens_approximately

_tool_tokens: dict[tuple[str, str, str], int] = {}
_lock = threading.Lock()


def _tool_key(tool: Any) -> tuple[str, str, str]:
    if isinstance(tool, dict):
        # A dict schema is cheap to serialise, and two dicts may share a name.
        return ("dict", "", json.dumps(tool, sort_keys=True, default=str))
    schema = getattr(tool, "args_schema", None)
    return (
        str(getattr(tool, "name", "")),
        str(getattr(tool, "description", "")),
        f"{getattr(schema, '__module__', '')}.{getattr(schema, '__qualname__', schema)!r}",
    )


def tool_tokens(tools: Sequence[Any] | None) -> int:
    """Approximate tokens of the tools' schemas, each priced the first time it is seen."""
    total = 0
    for tool in tools or ():
        key = _tool_key(tool)
        cached = _tool_tokens.get(key)
        if cached is None:
            cached = count_tokens_approximately([], tools=[tool])
            with _lock:
                _tool_tokens[key] = cached
        total += cached
    return total


def count_tokens_cached_tools(
    messages: Iterable[Any], *, tools: Sequence[Any] | None = None
) -> int:
    """`count_tokens_approximately(messages, tools=tools)`, with the tool part remembered."""
    return count_tokens_approximately(messages) + tool_tokens(tools)
