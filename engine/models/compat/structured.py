"""JSON replies by whichever method the server supports, falling back method by method.

json_schema (OpenAI, vLLM) → json_object with the schema beside it (llama.cpp servers
constrain the grammar by it) → a forced tool call → plain text with the schema in the prompt.
A method the server rejects outright is never tried again for that endpoint.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from engine.messages import message_text
from engine.models.compat.json_text import closed_cut_object, parse_json_object
from engine.models.compat.normalize import strip_reasoning, unescape_entities, unescape_values
from engine.models.compat.profile import STRUCTURED_METHODS, StructuredMethod
from engine.models.compat.reply_watch import STOPPED_EARLY

# A reply ended before the model finished it: at the token cap, or by a watch that had read
# enough. Its JSON is read as far as it is complete.
CUT_REASONS = frozenset({"length", STOPPED_EARLY})
_SCHEMA_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def methods_from(method: StructuredMethod) -> list[StructuredMethod]:
    """`method` and every fallback after it."""
    return list(STRUCTURED_METHODS[STRUCTURED_METHODS.index(method) :])


def safe_name(name: str) -> str:
    cleaned = "".join(char if char in _SCHEMA_NAME_CHARS else "_" for char in name)
    return cleaned[:64] or "reply"


def schema_instruction(name: str, schema: dict[str, Any]) -> str:
    compact = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    return (
        f"Reply with only one JSON object for {name} that matches this JSON schema, with no "
        f"prose and no code fence:\n{compact}"
    )


def with_instruction(messages: Sequence[BaseMessage], instruction: str) -> list[BaseMessage]:
    """The conversation with the schema instruction in its system turn (or a first one)."""
    updated = list(messages)
    for index, message in enumerate(updated):
        if isinstance(message, SystemMessage):
            text = f"{message_text(message)}\n\n{instruction}"
            updated[index] = SystemMessage(content=text)
            return updated
    return [SystemMessage(content=instruction), *updated]


def request_for(method: StructuredMethod, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The request fields that ask for a JSON reply by `method`."""
    if method == "json_schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": safe_name(name), "schema": schema},
            }
        }
    if method == "json_object":
        return {"response_format": {"type": "json_object", "schema": schema}}
    if method == "tool":
        tool = {
            "type": "function",
            "function": {
                "name": safe_name(name),
                "description": f"Reply with {name}.",
                "parameters": schema,
            },
        }
        return {
            "tools": [tool],
            "tool_choice": {"type": "function", "function": {"name": safe_name(name)}},
        }
    return {}


def json_from_reply(reply: AIMessage, method: StructuredMethod) -> dict[str, Any]:
    """The JSON object a reply carries (tool arguments or text); `ValueError` if none."""
    if reply.tool_calls:
        return dict(unescape_values(reply.tool_calls[0]["args"]))
    text = strip_reasoning(message_text(reply))
    try:
        return dict(unescape_values(parse_json_object(text)))
    except ValueError:
        pass
    try:
        # JSON whose quotes themselves came back as entities (`{&#34;a&#34;: 1}`).
        return dict(unescape_values(parse_json_object(unescape_entities(text))))
    except ValueError:
        if reply.response_metadata.get("finish_reason") not in CUT_REASONS:
            raise
    cut = closed_cut_object(text)
    if cut is None:
        raise ValueError("the reply was cut off before its first complete value")
    return dict(unescape_values(cut))


def correction(name: str, error: str) -> HumanMessage:
    return HumanMessage(
        content=f"Your previous reply was not a valid {name} ({error}). Reply again with only "
        f"the JSON object for {name}, matching the schema."
    )
