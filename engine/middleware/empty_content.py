"""Empty tool results break some chat APIs: replace them with a short placeholder."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import BaseMessage, ToolMessage

EMPTY_TOOL_PLACEHOLDER = "(the tool returned no content)"


def _is_empty(content: Any) -> bool:
    if content is None:
        return True
    if isinstance(content, str):
        return not content.strip()
    if isinstance(content, list):
        return all(
            _is_empty(part.get("text") if isinstance(part, dict) else part) for part in content
        )
    return False


def fill_empty_tool_messages(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The same messages, with every empty `ToolMessage` content set to the placeholder."""
    fixed: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, ToolMessage) and _is_empty(message.content):
            message = message.model_copy(update={"content": EMPTY_TOOL_PLACEHOLDER})
        fixed.append(message)
    return fixed


class EmptyToolContentMiddleware(AgentMiddleware):
    """Fills empty tool-message content before each model call."""

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> Any:
        return handler(_filled(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return await handler(_filled(request))


def _filled(request: ModelRequest) -> ModelRequest:
    return request.override(messages=cast(Any, fill_empty_tool_messages(request.messages)))
