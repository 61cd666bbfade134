"""A researcher whose session reached its budget stops at its next model call.

The step in flight (a model call, a search, a fetch) finishes; the model is not asked again.
The researcher ends with a short reply, and its findings so far become evidence as usual.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import AIMessage

from engine.budget import budget_reached


def _stopped(reason: str) -> AIMessage:
    return AIMessage(content=f"Research stopped: {reason}.")


class BudgetStopMiddleware(AgentMiddleware):
    """Answers the model call itself, with no tool calls, once the budget is reached."""

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        reason = budget_reached()
        return _stopped(reason) if reason else handler(request)

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        reason = budget_reached()
        return _stopped(reason) if reason else await handler(request)
