"""The quick path through the graph."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool

from engine.events import RunFinished
from engine.runner import open_session
from engine.shallow.budget import shallow_recursion_limit
from engine.shallow.prompt import QUICK_PROMPT_MARKER
from tests.helpers.scripted_model import system_text, tool_call_message
from tests.unit.engine.conftest import Scenario, make_settings, page_url


async def collect(stream):
    return [event async for event in stream]


class QuickScenario(Scenario):
    """Scripted roles plus the quick-answer researcher: one search, then a cited answer."""

    def respond(self, messages: list[BaseMessage]) -> Any:
        if system_text(messages).startswith(QUICK_PROMPT_MARKER):
            if not any(isinstance(m, ToolMessage) for m in messages):
                return tool_call_message("search_web", {"query": "alpha query"})
            return f"Alpha caches expire hourly [1].\n\n## References\n[1] {page_url('alpha')}"
        return super().respond(messages)


async def test_the_quick_path_runs_under_the_shallow_graphs_recursion_limit(tmp_path: Path):
    settings = make_settings(tmp_path, max_llm_turns=4, max_tool_iterations=3)
    scenario = QuickScenario()
    limits: list[int] = []

    def tools_for(registry: Any, unit_id: str | None) -> list[BaseTool]:
        @tool
        async def search_web(query: str, config: RunnableConfig) -> str:
            """Search the web."""
            limits.append(int(config.get("recursion_limit", -1)))
            registry.add_url(page_url("alpha"), "Alpha page 1")
            return f"[1] Alpha page 1\nURL: {page_url('alpha')}\nalpha fact."

        return [search_web]

    deps = scenario.deps(settings)
    deps.tools_for = tools_for
    async with open_session(settings, deps=deps) as session:
        events = await collect(session.start("When do alpha caches expire?", mode="quick"))
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"
    assert limits == [shallow_recursion_limit(settings)] == [4 * 2 + 10]
