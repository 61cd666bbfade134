"""The researcher middleware stack, and the same guards around the hand-built nodes' calls."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage

from engine.config import Settings
from engine.middleware.budget_stop import BudgetStopMiddleware
from engine.middleware.empty_content import EmptyToolContentMiddleware, fill_empty_tool_messages
from engine.middleware.first_search import FirstSearchMiddleware
from engine.middleware.repeated_calls import RepeatedCallMiddleware
from engine.middleware.retry import ModelRetryMiddleware, RetryPolicy, acall_with_retries
from engine.middleware.source_numbering import SourceNumberingMiddleware
from engine.middleware.tool_names import (
    ToolNameSanitizationMiddleware,
    sanitize_tool_calls,
    tool_names,
)
from engine.model_task import ModelTask, task_config


def retry_policy(settings: Settings) -> RetryPolicy:
    """The retry policy the settings ask for (`LLM_MAX_RETRIES`)."""
    return RetryPolicy(max_retries=settings.llm_max_retries)


def researcher_middleware(
    settings: Settings,
    *,
    policy: RetryPolicy | None = None,
    hidden_tools: Collection[str] = (),
) -> list[AgentMiddleware]:
    """Middleware for each researcher agent, outermost first: the budget, empty content,
    names, retries.

    `hidden_tools` are tools the harness strips from the request after this middleware has
    seen it; a mangled name must never be "corrected" to one of them.
    """
    return [
        BudgetStopMiddleware(),
        EmptyToolContentMiddleware(),
        FirstSearchMiddleware(),
        SourceNumberingMiddleware(),
        RepeatedCallMiddleware(),
        ToolNameSanitizationMiddleware(hidden=hidden_tools),
        ModelRetryMiddleware(policy or retry_policy(settings)),
    ]


async def guarded_tool_call(
    model: BaseChatModel,
    tools: Sequence[Any],
    messages: Sequence[BaseMessage],
    *,
    policy: RetryPolicy,
    task: ModelTask | None = None,
) -> AIMessage:
    """Call a model bound to `tools` with the researcher guards applied by hand."""
    bound = model.bind_tools(list(tools))
    prompt = fill_empty_tool_messages(list(messages))
    config = task_config(task) if task is not None else None

    async def call() -> Any:
        return await bound.ainvoke(prompt, config=config)

    reply = await acall_with_retries(call, policy)
    if not isinstance(reply, AIMessage):
        reply = AIMessage(content=str(getattr(reply, "content", reply)))
    return sanitize_tool_calls(reply, tool_names(tools))


async def guarded_text_call(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    *,
    policy: RetryPolicy,
    task: ModelTask | None = None,
) -> AIMessage:
    """A plain (tool-less) model call with retries and empty-content repair."""
    prompt = fill_empty_tool_messages(list(messages))
    config = task_config(task) if task is not None else None

    async def call() -> Any:
        return await model.ainvoke(prompt, config=config)

    reply = await acall_with_retries(call, policy)
    if not isinstance(reply, AIMessage):
        reply = AIMessage(content=str(getattr(reply, "content", reply)))
    return reply
