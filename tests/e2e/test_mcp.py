"""`deepresearch mcp` as a subprocess, driven by the MCP SDK's client over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.helpers.sample_index import seed_sample_index

DOCS = Path(__file__).resolve().parents[2] / "docs" / "samples"


def server(data_dir: Path) -> StdioServerParameters:
    empty_env_file = data_dir.parent / "empty.env"
    empty_env_file.write_text("")
    env = {
        "DATA_DIR": str(seed_sample_index(data_dir)),
        "DOCUMENTS_PATH": str(DOCS),
        "SEARCH_PROVIDER": "local",
        "DEEPRESEARCH_ENV_FILE": str(empty_env_file),  # no developer's .env leaks in
        "PATH": os.environ.get("PATH", ""),
    }
    code = "import sys; from tui.cli import main; sys.exit(main())"
    return StdioServerParameters(command=sys.executable, args=["-c", code, "mcp"], env=env)


def structured(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if isinstance(content, dict) else content
    return json.loads(result.content[0].text)


async def test_an_mcp_client_researches_offline_and_reads_the_report_back(
    tmp_path: Path,
) -> None:
    progress: list[str] = []

    async def on_progress(_progress: float, _total: float | None, message: str | None) -> None:
        progress.append(message or "")

    async with Client(server(tmp_path), read_timeout_seconds=120) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"research", "get_report", "list_sessions"} <= names
        result = await client.call_tool(
            "research",
            {"question": "How do asyncio queues and locks coordinate tasks?", "mode": "deep"},
            progress_callback=on_progress,
        )
        body = structured(result)
        assert body["status"] == "completed" and body["verification_status"] == "verified"
        assert body["citations"] and "## Sources" in body["report"]
        assert any("[researching]" in line for line in progress)
        sessions = structured(await client.call_tool("list_sessions", {}))
        assert [s["session_id"] for s in sessions] == [body["session_id"]]
        again = structured(await client.call_tool("get_report", {"session_id": body["session_id"]}))
        assert again["report"] == body["report"]
        missing = await client.call_tool("get_report", {"session_id": "no-such"})
        assert missing.is_error


async def test_without_auto_approve_research_returns_the_plan_it_waits_on(tmp_path: Path) -> None:
    async with Client(server(tmp_path), read_timeout_seconds=120) as client:
        result = await client.call_tool(
            "research",
            {
                "question": "How do asyncio queues and locks coordinate tasks?",
                "mode": "deep",
                "auto_approve": False,
            },
        )
        body = structured(result)
        assert body["status"] == "awaiting_plan_review"
        assert body["plan"]["tracks"]


async def test_an_overlong_question_is_refused_in_words(tmp_path: Path) -> None:
    from engine.api.mcp_tools import build_mcp_server
    from tests.fixtures.servers import local_settings

    server_in_process = build_mcp_server(local_settings(tmp_path, DOCS))
    async with Client(server_in_process) as client:
        result = await client.call_tool("research", {"question": "why? " * 1000})
    assert result.is_error
    assert "at most 4000 characters" in str(result.content[0])


async def test_an_mcp_client_researches_over_streamable_http(tmp_path: Path) -> None:
    import asyncio
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    params = server(tmp_path)
    process = subprocess.Popen(
        [params.command, *params.args, "--transport", "http", "--port", str(port)],
        env=params.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(300):  # the server imports the engine before it listens
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await asyncio.sleep(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=120) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"research", "get_report", "list_sessions"} <= names
            result = await client.call_tool(
                "research",
                {"question": "What is the default maxsize of asyncio.Queue?", "mode": "quick"},
            )
            body = structured(result)
            assert body["status"] == "completed" and body["citations"]
    finally:
        process.terminate()
        process.wait(timeout=30)
