"""The graph served by LangGraph's own server: `langgraph dev` from the repository root with
docs/deploy/langgraph.json, driven through `langgraph_sdk` as a deployment's clients drive it.

One server, one test: starting the server is most of the time, and the clients run at once.
The blocking-call detector is on, as in every `langgraph dev`: a node that read a file or the
working directory on the event loop would fail its run.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.schema import Command

from tests.helpers.langgraph_server import langgraph_dev, server_log

GRAPH = "deepresearch"
DEEP_QUESTION = "How do asyncio queues and locks coordinate tasks?"
QUICK_QUESTION = "What does asyncio.wait_for do when the timeout expires?"
FOLLOW_UP = "And how does asyncio.timeout differ from it?"
# Marks this test's threads among any a developer's own `langgraph dev` left behind.
OWNER = {"created_by": f"test_langgraph_server-{uuid.uuid4()}"}


async def _stream(client: Any, thread_id: str, **run: Any) -> list[tuple[str, Any]]:
    """Every (event, data) part of one streamed run, custom events of subgraphs included."""
    parts = []
    async for part in client.runs.stream(
        thread_id,
        GRAPH,
        stream_mode=["custom", "updates"],
        stream_subgraphs=True,
        **run,
    ):
        parts.append((part.event, part.data))
    return parts


def _typed(parts: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """The engine's typed events (the `custom` mode), from the top graph and its subgraphs."""
    return [data for event, data in parts if event.split("|")[0] == "custom"]


def _types(events: list[dict[str, Any]]) -> set[str]:
    return {event.get("type", "") for event in events}


def _interrupts(parts: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    return [
        pause
        for event, data in parts
        if event == "updates"
        for pause in data.get("__interrupt__", [])
    ]


def _errors(parts: list[tuple[str, Any]]) -> list[Any]:
    return [data for event, data in parts if event == "error"]


async def deep_session_through_plan_review(server: str) -> None:
    client = get_client(url=server)
    thread = await client.threads.create(metadata=OWNER)
    tid = thread["thread_id"]

    first = await _stream(client, tid, input={"question": DEEP_QUESTION, "mode": "deep"})
    assert not _errors(first), _errors(first)
    # The pause reaches the client on the `updates` stream, as LangGraph's `__interrupt__`.
    paused = [i["value"]["kind"] for i in _interrupts(first)]
    assert paused == ["plan_review"]
    state = await client.threads.get_state(tid)
    assert [i["value"]["kind"] for i in state["interrupts"]] == ["plan_review"]

    # A resume that is no decision pauses again, saying what a decision is.
    retry = await _stream(client, tid, command=Command(resume="yes please"))
    assert not _errors(retry), _errors(retry)
    [pause] = _interrupts(retry)
    assert pause["value"]["kind"] == "plan_review"
    assert "'approve'" in pause["value"]["rejected_edit_reason"]

    second = await _stream(client, tid, command=Command(resume={"action": "approve"}))
    assert not _errors(second), _errors(second)
    events = _typed(second)
    # Researchers run in subgraphs: their evidence reaches the client only as subgraph events.
    subgraph_types = {data.get("type") for event, data in second if event.startswith("custom|")}
    assert "evidence_added" in subgraph_types
    assert {"plan_approved", "research_unit_updated", "report_ready"} <= _types(events)
    ready = next(e for e in events if e["type"] == "report_ready")

    state = await client.threads.get_state(tid)
    assert not state["next"]
    report = state["values"]["verified_report"]
    assert "## Sources" in report
    assert ready["report"] == report
    assert ready["verification_status"] == "verified"


async def quick_question_and_follow_up(server: str) -> None:
    client = get_client(url=server)
    thread = await client.threads.create(metadata=OWNER)
    tid = thread["thread_id"]
    answers = []
    for number, question in enumerate((QUICK_QUESTION, FOLLOW_UP), start=1):
        parts = await _stream(client, tid, input={"question": question, "mode": "quick"})
        assert not _errors(parts), _errors(parts)
        assert "report_ready" in _types(_typed(parts))
        state = await client.threads.get_state(tid)
        assert state["values"]["question"] == question
        assert state["values"]["run_number"] == number  # the thread goes on, not over
        answers.append(state["values"]["verified_report"])
    assert all("[1]" in answer for answer in answers)
    history = await client.threads.get_history(tid, limit=200)
    assert {h["values"].get("question") for h in history} >= {QUICK_QUESTION, FOLLOW_UP}


async def schemas_for_studio(server: str) -> None:
    client = get_client(url=server)
    assistant = (await client.assistants.search(graph_id=GRAPH))[0]["assistant_id"]
    async with httpx.AsyncClient(base_url=server, timeout=60) as http:
        schemas = await http.get(f"/assistants/{assistant}/schemas")
    assert schemas.status_code == 200, schemas.text
    body = schemas.json()
    assert "question" in body["input_schema"]["properties"]
    assert "verified_report" in body["output_schema"]["properties"]
    assert body["state_schema"] is not None


async def _delete_threads(server: str) -> None:
    # The in-memory server keeps its threads in .langgraph_api/ of its working directory (the
    # repository root) and reloads them as it starts: leave none of this test's there.
    client = get_client(url=server)
    for thread in await client.threads.search(metadata=OWNER, limit=100):
        await client.threads.delete(thread["thread_id"])


# A server start and a deep session: ~20 s of the server's CPU; minutes on a loaded machine.
@pytest.mark.timeout(360)
async def test_the_served_graph_answers_langgraph_sdk_clients(tmp_path: Path) -> None:
    """Three clients at once on one server: a deep session through plan review, a quick
    question with its follow-up, and Studio's schema request; then the server's log shows no
    blocking call on its event loop."""
    # `langgraph dev` runs one run at a time unless told otherwise.
    with langgraph_dev(tmp_path, jobs_per_worker=3) as server:
        try:
            await asyncio.gather(
                deep_session_through_plan_review(server),
                quick_question_and_follow_up(server),
                schemas_for_studio(server),
            )
        finally:
            await _delete_threads(server)
    log = server_log(tmp_path)
    assert "BlockingError" not in log, log
