"""The researcher's model sees only the research tools, and a window sized from the settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_openai import ChatOpenAI

from engine.middleware.retry import RetryPolicy
from engine.models.offline import OfflineChatModel
from engine.nodes.deps import EngineDeps
from engine.nodes.researcher import run_research_unit
from engine.nodes.researcher_harness import researcher_model
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
        tools_for=lambda registry, unit_id, focus=None: fake_tools(registry, unit_id),
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


def test_the_researcher_model_states_the_configured_window(tmp_path: Path):
    settings = make_settings(tmp_path, model_max_input_tokens=32_000)
    known = ChatOpenAI(model="gpt-4o", api_key="x")  # type: ignore[arg-type]
    unknown = ChatOpenAI(model="qwen-local", api_key="x")  # type: ignore[arg-type]
    assert unknown.profile is None
    for model in (known, unknown):
        copy = researcher_model(model, settings)
        assert copy.profile is not None and copy.profile["max_input_tokens"] == 32_000
        assert copy.model_name == model.model_name
    # The shared instance other roles use is left alone.
    assert unknown.profile is None
    assert known.profile is not None and known.profile["max_input_tokens"] == 128_000


async def test_summarization_starts_within_the_configured_window(tmp_path: Path):
    """Long pages overflow a 6k-token window: the researcher's history gets summarized."""
    settings = make_settings(tmp_path, model_max_input_tokens=6_000)
    summaries: list[str] = []

    def respond(messages: list[Any]) -> Any:
        text = "\n".join(str(m.content) for m in messages)
        if "<messages>" in text:  # deepagents' summary request
            summaries.append(text)
            return "Summary: alpha pages were read."
        fetched = len([m for m in messages if m.type == "tool"])
        if fetched < 6 and not summaries:
            return tool_call_message("fetch_url", {"url": f"https://alpha.example.org/{fetched}"})
        return "Alpha is documented [1].\n\nSources:\n[1] A: https://alpha.example.org/long"

    def tools_for(registry: Any, unit_id: Any, focus: Any = None) -> list[Any]:
        from langchain_core.tools import tool

        @tool
        async def fetch_url(url: str) -> str:
            """Fetch a page."""
            registry.add_url(url)
            return f"Fetched: {url}\n\n" + "alpha words of a long page. " * 150  # ~1k tokens

        return [fetch_url]

    model = ScriptedChatModel(responder=respond)
    deps = deps_for(settings, model)
    deps.tools_for = tools_for
    outcome = await run_research_unit(deps, "unit-1", "alpha")
    assert outcome.status == "completed"
    assert summaries, "a 6k-token window should have triggered summarization"
