"""A tool call the researcher already made gets a nudge, not the same results again.

Small models loop: the same search, with the same arguments, turn after turn, until the tool
budget runs out with nothing written. Its results are already in the conversation, so the
call is answered with a short notice that says so and asks for the findings.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import AIMessage, ToolMessage

REPEATED_CALL_NOTICE = (
    "You already called {name} with exactly these arguments; its results are above. Do not "
    "call it again: write your findings now, citing the results by number like [1], or try "
    "a different query."
)


def _signature(name: str, args: Any) -> str:
    return f"{name}:{json.dumps(args, sort_keys=True, default=str)}"


def is_repeat(call: dict[str, Any], messages: list[Any]) -> bool:
    """Whether an earlier, answered call in `messages` had the same name and arguments."""
    wanted = _signature(call["name"], call.get("args") or {})
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    return any(
        isinstance(message, AIMessage)
        and any(
            earlier.get("id") != call.get("id")
            and earlier.get("id") in answered
            and _signature(earlier["name"], earlier.get("args") or {}) == wanted
            for earlier in message.tool_calls
        )
        for message in messages
    )


def _notice(request: Any) -> ToolMessage:
    call = request.tool_call
    return ToolMessage(
        content=REPEATED_CALL_NOTICE.format(name=call["name"]),
        tool_call_id=call.get("id") or "",
        name=call["name"],
    )


def _messages(request: Any) -> list[Any]:
    state = request.state
    return list((state.get("messages") if isinstance(state, dict) else None) or [])


class RepeatedCallMiddleware(AgentMiddleware):
    """Answers a repeated tool call with a notice instead of running it again."""

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        if is_repeat(request.tool_call, _messages(request)):
            return _notice(request)
        return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        if is_repeat(request.tool_call, _messages(request)):
            return _notice(request)
        return await handler(request)
