"""The researcher's model sees only the research tools."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_openai import ChatOpenAI

from engine.middleware.retry import RetryPolicy
from engine.models.offline import OfflineChatModel
from engine.nodes.deps import EngineDeps
from engine.nodes.researcher import run_research_unit
from tests.fixtures.openai_server import OpenAIServer
from tests.helpers.scripted_model import ScriptedChatModel, tool_call_message
from tests.unit.engine.conftest import fake_tools, make_settings

RESEARCH_TOOLS = {"search_web", "fetch_url", "think_tool", "write_todos"}
TOPIC = "Research track: alpha caching\nSection: Alpha\nQueries: alpha query"


class RecordingOfflineModel(OfflineChatModel):
    """The offline model, noting the tool names of every request it is bound for."""

    bound: list[list[str]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.bound.append(sorted(getattr(t, "name", None) or t["name"] for t in tools))
        return super().bind_tools(tools, **kwargs)


def deps_for(settings: Any, model: Any) -> EngineDeps:
    return EngineDeps(
        settings=settings,
        model_for=lambda role: model,
        tools_for=lambda registry, unit_id: fake_tools(registry, unit_id),
        retry=RetryPolicy(max_retries=0, base_delay=0.0),
    )


async def test_the_offline_researcher_is_bound_to_the_research_tools_only(tmp_path: Path):
    model = RecordingOfflineModel(bound=[])
    outcome = await run_research_unit(deps_for(make_settings(tmp_path), model), "unit-1", TOPIC)
    assert outcome.status == "completed"
    assert model.bound, "the researcher never called its model"
    for names in model.bound:
        assert set(names) == RESEARCH_TOOLS


@pytest.mark.timeout(60)
async def test_a_chat_completions_researcher_sends_the_research_tools_only(tmp_path: Path):
    with OpenAIServer() as llm:
        model = ChatOpenAI(
            model="local-research-model",
            base_url=llm.base_url,
            api_key="x",  # type: ignore[arg-type]
            max_retries=0,
            timeout=10,
        )
        settings = make_settings(tmp_path)
        outcome = await run_research_unit(deps_for(settings, model), "unit-1", TOPIC)
        requests = llm.requests
    assert outcome.status == "completed"
    assert requests
    for body in requests:
        names = {tool["function"]["name"] for tool in body.get("tools") or []}
        assert names == RESEARCH_TOOLS


async def test_a_hidden_harness_tool_is_refused_not_run(tmp_path: Path):
    model = ScriptedChatModel.sequence(
        [
            tool_call_message("read_file", {"file_path": "/etc/passwd"}),
            tool_call_message("task", {"description": "search everything", "subagent_type": "x"}),
            "Nothing found.",
        ]
    )
    outcome = await run_research_unit(deps_for(make_settings(tmp_path), model), "unit-1", "alpha")
    assert outcome.status == "completed"
    replies = [m for m in model.calls[-1] if m.type == "tool"]
    assert [m.status for m in replies] == ["error", "error"]
    assert replies[0].content == "Error: read_file is not available."
    # No general-purpose subagent exists at all, so `task` is an unknown tool.
    assert "no tool named 'task'" in str(replies[1].content)
    assert "read_file" not in str(replies[1].content)
