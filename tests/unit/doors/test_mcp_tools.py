"""The MCP tools in process: described parameters, a versioned server, refusals that do not
echo what was sent, and a plan a client without auto_approve can approve, edit, revise or
cancel."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from engine.api.mcp_tools import build_mcp_server
from engine.cli import package_version
from tests.fixtures.servers import local_settings

DOCS = Path(__file__).resolve().parents[3] / "docs" / "samples"
DEEP = "How do asyncio queues and locks coordinate tasks?"
SECRET_SHAPED = "sk-live-do-not-echo-4242"


def body(result: Any) -> Any:
    assert not result.is_error, result.content
    content = result.structured_content
    if content is not None:
        return content.get("result", content) if isinstance(content, dict) else content
    return json.loads(result.content[0].text)


def error_text(result: Any) -> str:
    assert result.is_error
    return " ".join(getattr(part, "text", "") for part in result.content)


@pytest.fixture
def client(tmp_path: Path) -> Client:
    return Client(build_mcp_server(local_settings(tmp_path, DOCS)), read_timeout_seconds=120)


async def test_every_tool_parameter_is_described_and_the_server_names_its_version(
    client: Client,
) -> None:
    async with client:
        assert client.server_info.version == package_version() != ""
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert {"research", "review_plan", "get_report", "list_sessions"} <= set(tools)
    for tool in tools.values():
        for name, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{tool.name}.{name} has no description"


async def test_a_refused_argument_is_named_without_echoing_its_value(client: Client) -> None:
    async with client:
        wrong_mode = await client.call_tool("research", {"question": "q", "mode": SECRET_SHAPED})
        wrong_id = await client.call_tool("get_report", {"session_id": f"../{SECRET_SHAPED}"})
        blank = await client.call_tool("research", {"question": "\x1b[2J\u202e\x9b31m"})
    for refused in (wrong_mode, wrong_id):
        text = error_text(refused)
        assert SECRET_SHAPED not in text
    assert "mode" in error_text(wrong_mode) and "session_id" in error_text(wrong_id)
    assert "question" in error_text(blank)


async def test_a_client_without_auto_approve_reviews_the_plan_it_got(client: Client) -> None:
    async with client:
        paused = body(
            await client.call_tool(
                "research", {"question": DEEP, "mode": "deep", "auto_approve": False}
            )
        )
        assert paused["status"] == "awaiting_plan_review"
        session_id, plan = paused["session_id"], paused["plan"]
        missing_feedback = await client.call_tool(
            "review_plan", {"session_id": session_id, "action": "revise"}
        )
        assert "feedback" in error_text(missing_feedback)
        plan["tracks"] = plan["tracks"][:3]
        done = body(
            await client.call_tool(
                "review_plan", {"session_id": session_id, "action": "edit", "plan": plan}
            )
        )
        assert done["status"] == "completed" and done["citations"]
        again = await client.call_tool(
            "review_plan", {"session_id": session_id, "action": "approve"}
        )
        assert "does not wait for a plan review" in error_text(again)


async def test_a_cancelled_plan_ends_the_session_without_research(client: Client) -> None:
    async with client:
        paused = body(
            await client.call_tool(
                "research", {"question": DEEP, "mode": "deep", "auto_approve": False}
            )
        )
        cancelled = body(
            await client.call_tool(
                "review_plan", {"session_id": paused["session_id"], "action": "cancel"}
            )
        )
    assert cancelled == {"session_id": paused["session_id"], "status": "cancelled"}
