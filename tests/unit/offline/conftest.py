"""Fake research tools over the tiny corpus, logging every call."""

from __future__ import annotations

import pytest
from langchain_core.tools import tool

from tests.unit.offline.offline_corpus import fetch_output, search_output


class ToolLog:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []


@pytest.fixture
def tool_log() -> ToolLog:
    return ToolLog()


@pytest.fixture
def research_tools(tool_log: ToolLog) -> list:
    @tool
    def search_web(query: str) -> str:
        """Search the web and the local documents."""
        tool_log.calls.append(("search_web", query))
        return search_output(query)

    @tool
    def fetch_url(url: str) -> str:
        """Fetch one page and return its text."""
        tool_log.calls.append(("fetch_url", url))
        return fetch_output(url)

    @tool
    def think_tool(reflection: str) -> str:
        """Record a reflection."""
        tool_log.calls.append(("think_tool", reflection))
        return f"Reflection recorded: {reflection}"

    return [search_web, fetch_url, think_tool]
