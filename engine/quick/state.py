"""The state the quick researcher carries between its two nodes."""

from __future__ import annotations

from typing import Annotated, Any, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class QuickResearchState(TypedDict):
    """Conversation plus the context the prompt is rendered from and the spent budget.

    Only `messages` is required. `tool_iterations` counts every tool call the model asked for
    (parallel calls count one each); `llm_turns` counts model calls, so the loop can stop
    itself before LangGraph's recursion limit would have to.
    """

    messages: Annotated[list[AnyMessage], add_messages]
    data_sources: NotRequired[list[str] | None]
    user_info: NotRequired[dict[str, Any] | None]
    tools_info: NotRequired[list[dict[str, str]] | None]
    available_documents: NotRequired[list[str] | None]
    collection_name: NotRequired[str | None]
    tool_iterations: NotRequired[int]
    llm_turns: NotRequired[int]
