"""The researcher role inside real agents: search, fetch, then cited extractive notes."""

from __future__ import annotations

import re

from deepagents import create_deep_agent
from langchain.agents import create_agent
from langchain.agents.middleware import TodoListMiddleware
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from engine.citations.extract import extract_cited_sentences
from engine.model_task import ModelTask, task_config
from engine.models.offline import OfflineChatModel
from engine.models.offline.research import topic_text
from engine.schemas import ResearchTrack
from tests.unit.offline.offline_corpus import all_corpus_text, all_locators

TRACK = ResearchTrack(
    title="asyncio task cancellation",
    section="How it works",
    queries=["asyncio cancel task", "CancelledError exception"],
)
_MARK = re.compile(r"\s*\[\d+\]")
# What the engine hands a research unit's model calls: its topic and the plan track.
UNIT = task_config(ModelTask(role="researcher", topic=topic_text(TRACK), track=TRACK))
QUICK = task_config(ModelTask(role="quick", question="How are asyncio tasks cancelled?"))


def _final_text(messages: list) -> str:
    return next(m.text for m in reversed(messages) if isinstance(m, AIMessage) and m.text)


def _assert_grounded_notes(text: str) -> None:
    cited = extract_cited_sentences(text)
    assert len(cited) >= 3
    corpus = all_corpus_text()
    for sentence in cited:
        assert sentence.sentence in corpus  # quoted verbatim
        assert set(sentence.sources) <= all_locators()  # never an invented source


async def test_create_agent_researcher_searches_fetches_and_cites(research_tools, tool_log) -> None:
    agent = create_agent(OfflineChatModel(), tools=research_tools, system_prompt="Research.")
    result = await agent.ainvoke(
        {"messages": [HumanMessage(topic_text(TRACK))]}, {**UNIT, "recursion_limit": 20}
    )
    searches = [arg for name, arg in tool_log.calls if name == "search_web"]
    fetches = [arg for name, arg in tool_log.calls if name == "fetch_url"]
    assert sorted(searches) == sorted(TRACK.queries)  # parallel calls, any order
    assert 1 <= len(fetches) <= 2 and all(url.startswith("https://") for url in fetches)
    text = _final_text(result["messages"])
    _assert_grounded_notes(text)
    assert "Sources:" in text
    # Three model turns: search, fetch, answer.
    assert sum(isinstance(m, AIMessage) for m in result["messages"]) == 3


async def test_deep_agent_researcher_with_todo_middleware(research_tools, tool_log) -> None:
    agent = create_deep_agent(
        model=OfflineChatModel(),
        tools=research_tools,
        system_prompt="Research the topic.",
        middleware=[TodoListMiddleware()],
    )
    result = await agent.ainvoke(
        {"messages": [HumanMessage(topic_text(TRACK))]}, {**UNIT, "recursion_limit": 30}
    )
    assert [n for n, _ in tool_log.calls].count("search_web") == len(TRACK.queries)
    _assert_grounded_notes(_final_text(result["messages"]))


async def test_streamed_agent_run_carries_tool_calls(research_tools) -> None:
    agent = create_agent(OfflineChatModel(), tools=research_tools)
    tool_names = []
    async for chunk, _meta in agent.astream(
        {"messages": [HumanMessage(topic_text(TRACK))]},
        {**UNIT, "recursion_limit": 20},
        stream_mode="messages",
    ):
        if isinstance(chunk, ToolMessage):
            tool_names.append(chunk.name)
    assert tool_names.count("search_web") == 2 and "fetch_url" in tool_names


async def test_quick_path_answers_with_a_heading_and_sources(research_tools, tool_log) -> None:
    search_and_fetch = [t for t in research_tools if t.name != "think_tool"]
    agent = create_agent(OfflineChatModel(), tools=search_and_fetch)
    result = await agent.ainvoke(
        {"messages": [HumanMessage("How are asyncio tasks cancelled?")]},
        {**QUICK, "recursion_limit": 20},
    )
    text = _final_text(result["messages"])
    assert text.startswith("# How are asyncio tasks cancelled?")
    assert "## Sources" in text
    _assert_grounded_notes(text)
    assert [n for n, _ in tool_log.calls].count("search_web") == 1


async def test_a_spent_budget_forces_an_answer_without_tool_calls(research_tools) -> None:
    model = OfflineChatModel().bind_tools(research_tools)
    search = (
        'Search results for "asyncio cancel":\n\n[1] Coroutines and Tasks\n'
        "URL: https://docs.example.org/asyncio-task.html\n"
        "To cancel a running Task use the cancel() method of the task object.\n"
    )
    call = {"name": "search_web", "args": {"query": "asyncio cancel"}, "id": "c1"}
    reply = await model.ainvoke(
        [
            SystemMessage("Quick answers."),
            HumanMessage("How are asyncio tasks cancelled?"),
            AIMessage("", tool_calls=[call]),
            ToolMessage(search, tool_call_id="c1", name="search_web"),
            # Told as data, not by the notice's wording, however it is put.
            HumanMessage("Time is up: write the answer from what you found."),
        ],
        task_config(
            ModelTask(role="quick", question="How are asyncio tasks cancelled?", answer_now=True)
        ),
    )
    assert reply.tool_calls == []
    assert "To cancel a running Task use the cancel() method of the task object. [1]" in reply.text
    assert "[1] Coroutines and Tasks: https://docs.example.org/asyncio-task.html" in reply.text


async def test_no_results_gives_an_honest_empty_answer() -> None:
    model = OfflineChatModel()
    call = {"name": "search_web", "args": {"query": "zzz"}, "id": "c1"}
    reply = await model.ainvoke(
        [
            HumanMessage(topic_text(TRACK)),
            AIMessage("", tool_calls=[call]),
            ToolMessage('No results for "zzz".', tool_call_id="c1", name="search_web"),
        ],
        UNIT,
    )
    assert "[" not in reply.text and "http" not in reply.text
    assert _MARK.search(reply.text) is None
