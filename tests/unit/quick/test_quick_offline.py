"""The offline extractive model drives the quick path with no network: a search or two, then
an extractive answer that cites what the tools returned."""

from __future__ import annotations

from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool, StructuredTool

from engine.config import settings_from_mapping
from engine.models.offline import OfflineChatModel
from engine.quick.graph import build_quick_graph, final_answer

PAGE = "https://example.org/france"
SENTENCE = "Paris is the capital and largest city of France."


def corpus_tools(log: list[str]) -> list[BaseTool]:
    async def search_web(query: str) -> str:
        log.append(f"search:{query}")
        return f"[1] France facts\nURL: {PAGE}\n{SENTENCE} It sits on the Seine."

    async def fetch_url(url: str) -> str:
        log.append(f"fetch:{url}")
        return f"Fetched: {url}\nTitle: France facts\n\n{SENTENCE} It sits on the Seine."

    return [
        StructuredTool.from_function(coroutine=search_web, description="Search the web."),
        StructuredTool.from_function(coroutine=fetch_url, description="Fetch a page."),
    ]


async def test_offline_model_answers_a_quick_question_with_a_citation() -> None:
    log: list[str] = []
    settings = settings_from_mapping({})
    # As the engine builds it for the offline model (engine/nodes/quick.py).
    graph = build_quick_graph(OfflineChatModel(), corpus_tools(log), settings, chat_model=False)

    state = await graph.ainvoke(
        {"messages": [HumanMessage(content="What is the capital of France?")]}
    )

    answer = final_answer(state)
    assert log and log[0].startswith("search:")
    assert SENTENCE in answer
    assert "[1]" in answer
    assert PAGE in answer
    assert state["tool_iterations"] <= settings.max_tool_iterations
    assert state["llm_turns"] <= 3
