"""Hallucinated or corrupted tool names: map them to the nearest known tool, or answer with an
error the model can read and correct (instead of crashing the agent loop)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

# Prefixes some models put before a function name ("functions.search_web", "tools:fetch_url").
_NAMESPACE = re.compile(r"^(?:functions|function|tools|tool|default_api|api)[.:/]", re.IGNORECASE)
_NOT_NAME = re.compile(r"[^a-z0-9_]+")
_MATCH_CUTOFF = 0.8


def resolve_tool_name(name: str, known: Collection[str]) -> str | None:
    """The known tool a (possibly mangled) name refers to, or None when none is close."""
    if name in known:
        return name
    cleaned = _NAMESPACE.sub("", name.strip().strip("`'\" ")).removesuffix("()")
    cleaned = re.sub(r"[\s\-]+", "_", cleaned.strip())
    by_folded = {tool.casefold(): tool for tool in known}
    if cleaned.casefold() in by_folded:
        return by_folded[cleaned.casefold()]
    squeezed = _NOT_NAME.sub("", cleaned.casefold())
    for folded, tool in by_folded.items():
        if _NOT_NAME.sub("", folded) == squeezed and squeezed:
            return tool
    close = difflib.get_close_matches(
        cleaned.casefold(), list(by_folded), n=1, cutoff=_MATCH_CUTOFF
    )
    return by_folded[close[0]] if close else None


def sanitize_tool_calls(message: AIMessage, known: Collection[str]) -> AIMessage:
    """The message with each tool call renamed to the known tool it meant, where one is close.

    Names that match nothing are left alone so the tool step can answer them with an error.
    """
    if not message.tool_calls or not known:
        return message
    calls = []
    changed = False
    for call in message.tool_calls:
        resolved = resolve_tool_name(call["name"], known)
        if resolved is not None and resolved != call["name"]:
            call = {**call, "name": resolved}
            changed = True
        calls.append(call)
    return message.model_copy(update={"tool_calls": calls}) if changed else message


def unknown_tool_message(name: str, call_id: str, known: Collection[str]) -> ToolMessage:
    """The error the model sees for a tool that does not exist, listing the ones that do."""
    available = ", ".join(sorted(known)) or "none"
    return ToolMessage(
        content=f"Error: there is no tool named {name!r}. Available tools: {available}. "
        "Call one of them with valid arguments.",
        tool_call_id=call_id,
        name=name,
        status="error",
    )


def tool_names(tools: Sequence[Any]) -> list[str]:
    """Names of tools given as `BaseTool`s, OpenAI tool dicts or schema classes."""
    names: list[str] = []
    for tool in tools:
        if isinstance(tool, dict):
            name = tool.get("name") or tool.get("function", {}).get("name")
        else:
            name = getattr(tool, "name", None) or getattr(tool, "__name__", None)
        if name:
            names.append(str(name))
    return names


def _sanitize_result(result: Any, known: Collection[str]) -> Any:
    if isinstance(result, AIMessage):
        return sanitize_tool_calls(result, known)
    if isinstance(result, ModelResponse):
        messages: list[BaseMessage] = [
            sanitize_tool_calls(m, known) if isinstance(m, AIMessage) else m for m in result.result
        ]
        return ModelResponse(result=messages, structured_response=result.structured_response)
    return result


class ToolNameSanitizationMiddleware(AgentMiddleware):
    """Renames mangled tool calls after each model call; answers unknown ones with an error."""

    def __init__(self, *, hidden: Collection[str] = ()) -> None:
        super().__init__()
        # Tools an inner middleware removes from the request: the model never sees them.
        self._hidden = frozenset(hidden)
        self._known: list[str] = []

    def _visible(self, request: ModelRequest) -> list[str]:
        return [name for name in tool_names(request.tools) if name not in self._hidden]

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> Any:
        self._known = self._visible(request)
        return _sanitize_result(handler(request), self._known)

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        self._known = self._visible(request)
        return _sanitize_result(await handler(request), self._known)

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        if request.tool is None:
            call = request.tool_call
            return unknown_tool_message(call["name"], call.get("id") or "", self._known)
        return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        if request.tool is None:
            call = request.tool_call
            return unknown_tool_message(call["name"], call.get("id") or "", self._known)
        return await handler(request)
