"""A researcher's first move is a search: research starts from retrieved sources.

Small models often answer a research topic from memory on their first turn, and some servers
drop tools unless a call is forced. So the first model call of a unit (no tool result yet)
forces the search tool; a model that still does not call it gets the search the engine runs
itself on the unit's topic, as the quick path does. Later turns are the model's own.

A unit the engine has already searched for starts from those passages (its opening message
carries an id made by `retrieved_opening_id`): forcing a search there only makes the model
repeat the engine's query and read the same results twice (measured on a 1.5B model: one
more call per unit, and every later prompt thousands of characters longer).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from engine.messages import message_text

SEARCH_TOOL = "search_web"
QUERY_CHARS = 300
_RETRIEVED_OPENING = "opening-with-passages-"


def retrieved_opening_id(unit_id: str) -> str:
    """The id of a unit's opening message that holds the passages the engine retrieved."""
    return f"{_RETRIEVED_OPENING}{unit_id}"


def _engine_searched(messages: Sequence[BaseMessage]) -> bool:
    return any(
        isinstance(m, HumanMessage) and (m.id or "").startswith(_RETRIEVED_OPENING)
        for m in messages
    )


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):
        return str((tool.get("function") or tool).get("name", ""))
    return str(getattr(tool, "name", ""))


def _needs_first_search(request: ModelRequest) -> bool:
    searched = any(isinstance(message, ToolMessage) for message in request.messages)
    if searched or _engine_searched(request.messages):
        return False
    return any(_tool_name(tool) == SEARCH_TOOL for tool in request.tools)


def _topic(messages: Sequence[BaseMessage]) -> str:
    for message in messages:
        if isinstance(message, HumanMessage):
            return " ".join(message_text(message).split())[:QUERY_CHARS]
    return ""


def engine_search(messages: Sequence[BaseMessage]) -> AIMessage:
    """The search call the engine makes for a model that would not make one."""
    from engine.models.compat.normalize import new_call_id

    call = {
        "name": SEARCH_TOOL,
        "args": {"query": _topic(messages)},
        "id": new_call_id(),
        "type": "tool_call",
    }
    return AIMessage(content="", tool_calls=[call])


def _called_a_tool(response: Any) -> bool:
    messages = response.result if isinstance(response, ModelResponse) else [response]
    return any(isinstance(m, AIMessage) and m.tool_calls for m in messages)


class FirstSearchMiddleware(AgentMiddleware):
    """Forces the search tool on a unit's first model call, and searches for a model that won't."""

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> Any:
        if not _needs_first_search(request):
            return handler(request)
        response = handler(request.override(tool_choice=forced_search_choice()))
        if _called_a_tool(response):
            return response
        return ModelResponse(result=[engine_search(request.messages)])

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        if not _needs_first_search(request):
            return await handler(request)
        response = await handler(request.override(tool_choice=forced_search_choice()))
        if _called_a_tool(response):
            return response
        return ModelResponse(result=[engine_search(request.messages)])


def forced_search_choice() -> dict[str, Any]:
    return {"type": "function", "function": {"name": SEARCH_TOOL}}
