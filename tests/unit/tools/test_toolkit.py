"""The LangChain research tools: names, output contract, registry recording, events."""

from __future__ import annotations

import operator
import re
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine.citations.registry import SourceRegistry
from engine.events import ToolCalled
from engine.tools.toolkit import build_research_tools
from tests.fixtures.exa_server import ExaServer
from tests.fixtures.servers import exa_settings, local_settings
from tests.fixtures.web_server import WebServer
from tests.unit.tools.conftest import CapturedEvents

RESULT_BLOCK = re.compile(r"^\[(\d+)\] (.+)\n(URL|Document): (.+)\n(.+)$")


def _tools(settings, registry, unit_id: str | None = "unit-1") -> dict:
    return {t.name: t for t in build_research_tools(settings, registry, unit_id=unit_id)}


def test_tool_names_follow_the_provider(tmp_path: Path) -> None:
    registry = SourceRegistry()
    assert set(_tools(local_settings(tmp_path), registry)) == {
        "search_web",
        "fetch_url",
        "think_tool",
    }
    none = local_settings(tmp_path, SEARCH_PROVIDER="none")
    assert set(_tools(none, registry)) == {"fetch_url", "think_tool"}


async def test_search_web_output_contract_for_web_results(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path, events: CapturedEvents
) -> None:
    registry = SourceRegistry()
    tools = _tools(exa_settings(exa_server, web_server, tmp_path), registry)
    text = await tools["search_web"].ainvoke({"query": "How are asyncio tasks cancelled?"})
    header, *blocks = text.split("\n\n")
    assert header == 'Search results for "How are asyncio tasks cancelled?":'
    assert blocks
    for number, block in enumerate(blocks, start=1):
        match = RESULT_BLOCK.match(block)
        assert match, block
        assert int(match.group(1)) == number
        assert match.group(3) == "URL"
        assert match.group(4) in registry.urls()  # recorded before the model reads it
        assert len(match.group(5)) <= 1200
    calls = events.tool_calls()
    assert [c.status for c in calls] == ["started", "succeeded"]
    assert calls[0].call_id == calls[1].call_id and calls[0].unit_id == "unit-1"
    assert calls[1].duration_seconds is not None
    assert calls[0].arguments == "How are asyncio tasks cancelled?"
    assert events.metrics("search_preprocess")


async def test_search_web_output_contract_for_local_documents(tmp_path: Path) -> None:
    registry = SourceRegistry()
    tools = _tools(local_settings(tmp_path), registry)
    text = await tools["search_web"].ainvoke({"query": "sqlite checkpoint starvation"})
    first = text.split("\n\n")[1]
    match = RESULT_BLOCK.match(first)
    assert match and match.group(3) == "Document"
    assert match.group(4) == "sqlite-checkpoints.html"
    assert "sqlite-checkpoints.html" in registry.documents()


async def test_search_web_no_results(tmp_path: Path) -> None:
    tools = _tools(local_settings(tmp_path), SourceRegistry())
    text = await tools["search_web"].ainvoke({"query": "xylophone zeppelin"})
    assert text == 'No results for "xylophone zeppelin".'


async def test_search_web_bad_input_is_a_result_not_an_exception(
    tmp_path: Path, events: CapturedEvents
) -> None:
    tools = _tools(local_settings(tmp_path), SourceRegistry())
    text = await tools["search_web"].ainvoke({"query": "   "})
    assert text.startswith("Search failed: the search query is empty")
    long_text = await tools["search_web"].ainvoke({"query": "sqlite " * 5000})
    assert long_text.startswith('Search results for "sqlite sqlite')
    assert len(long_text.split("\n")[0]) < 1100
    assert [c.status for c in events.tool_calls()] == ["started", "failed", "started", "succeeded"]


async def test_provider_failure_becomes_one_clear_result(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path, events: CapturedEvents
) -> None:
    exa_server.fail_with(503)
    registry = SourceRegistry()
    tools = _tools(exa_settings(exa_server, web_server, tmp_path), registry)
    text = await tools["search_web"].ainvoke({"query": "asyncio"})
    assert text == "Search failed: search provider returned HTTP 503; try again later"
    failed = events.tool_calls()[-1]
    assert failed.status == "failed" and failed.error and "503" in failed.error
    assert len(registry) == 0


@pytest.mark.usefixtures("fake_dns")
async def test_fetch_url_reads_a_search_result_and_records_it(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path, events: CapturedEvents
) -> None:
    registry = SourceRegistry()
    tools = _tools(exa_settings(exa_server, web_server, tmp_path), registry)
    url = exa_server.url_for("gil-overview.html")
    text = await tools["fetch_url"].ainvoke({"url": url})
    lines = text.split("\n")
    assert lines[0] == f"Fetched: {url}"
    assert lines[1] == "Title: The Python global interpreter lock explained"
    assert lines[2] == ""
    assert "only one thread to execute Python bytecode" in text
    assert url in registry.urls()
    assert [c.status for c in events.tool_calls()] == ["started", "succeeded"]


async def test_fetch_url_records_final_url_after_redirect(
    web_server: WebServer, tmp_path: Path
) -> None:
    registry = SourceRegistry()
    settings = local_settings(tmp_path, FETCH_ALLOWED_HOSTS=web_server.allowed_host)
    tools = _tools(settings, registry)
    text = await tools["fetch_url"].ainvoke({"url": web_server.url("/redirect-chain/1")})
    final = web_server.url("/asyncio-cancellation.html")
    assert text.startswith(f"Fetched: {final}\n")
    assert final in registry.urls()


async def test_fetch_url_failure_is_safe_and_unrecorded(
    web_server: WebServer, tmp_path: Path, events: CapturedEvents
) -> None:
    registry = SourceRegistry()
    tools = _tools(local_settings(tmp_path), registry)
    text = await tools["fetch_url"].ainvoke({"url": web_server.url("/gil-overview.html")})
    assert text == "Fetch failed: blocked: loopback address"
    assert len(registry) == 0
    assert web_server.requests == []
    failed = events.tool_calls()[-1]
    assert failed.status == "failed" and failed.error == "blocked: loopback address"


async def test_fetch_url_reads_a_local_document_by_key(tmp_path: Path) -> None:
    registry = SourceRegistry()
    tools = _tools(local_settings(tmp_path), registry)
    text = await tools["fetch_url"].ainvoke({"url": "sqlite-checkpoints.html"})
    assert text.startswith(
        "Fetched: sqlite-checkpoints.html\nTitle: Checkpoints in SQLite WAL mode\n\n"
    )
    assert "Checkpoint starvation" in text
    assert "sqlite-checkpoints.html" in registry.documents()


@pytest.mark.parametrize("url", ["", "no-such-document.html", "ftp://example.com/x"])
async def test_fetch_url_bad_input(tmp_path: Path, url: str) -> None:
    registry = SourceRegistry()
    tools = _tools(local_settings(tmp_path), registry)
    text = await tools["fetch_url"].ainvoke({"url": url})
    assert text.startswith("Fetch failed: ")
    assert len(registry) == 0


async def test_think_tool_only_echoes(tmp_path: Path, events: CapturedEvents) -> None:
    registry = SourceRegistry()
    tools = _tools(local_settings(tmp_path), registry)
    text = await tools["think_tool"].ainvoke({"reflection": "Need a source on WAL."})
    assert text == "Reflection recorded: Need a source on WAL."
    assert len(registry) == 0
    assert [c.tool for c in events.tool_calls()] == ["think_tool", "think_tool"]


async def test_events_reach_the_langgraph_custom_stream(tmp_path: Path) -> None:
    from langgraph.graph import END, START, StateGraph

    class State(TypedDict):
        done: Annotated[list[str], operator.add]

    registry = SourceRegistry()
    tools = _tools(local_settings(tmp_path), registry, unit_id="unit-7")

    async def node(state: State) -> dict:
        await tools["search_web"].ainvoke({"query": "GIL switch interval"})
        return {"done": ["searched"]}

    graph = StateGraph(State)
    graph.add_node("research", node)
    graph.add_edge(START, "research")
    graph.add_edge("research", END)
    streamed = [
        chunk
        async for mode, chunk in graph.compile().astream(
            {"done": []}, stream_mode=["updates", "custom"]
        )
        if mode == "custom"
    ]
    tool_events = [e for e in streamed if isinstance(e, ToolCalled)]
    assert [e.status for e in tool_events] == ["started", "succeeded"]
    assert all(e.unit_id == "unit-7" for e in tool_events)
    assert any(getattr(e, "name", "") == "search_preprocess" for e in streamed)


async def test_fetch_url_without_scheme_under_web_search_is_refused_not_indexed(
    exa_server: ExaServer, web_server: WebServer, tmp_path: Path
) -> None:
    registry = SourceRegistry()
    tools = _tools(exa_settings(exa_server, web_server, tmp_path), registry)
    text = await tools["fetch_url"].ainvoke({"url": "example.com/page"})
    assert text == "Fetch failed: blocked: only http and https URLs can be fetched"
    assert not (tmp_path / "index.sqlite").exists()  # no indexing as a side effect
