"""The OpenAI-compatible test server, driven by the real ChatOpenAI client."""

from __future__ import annotations

import time

import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_openai import ChatOpenAI

from engine.model_task import ModelTask, task_config
from engine.models.offline import OfflineChatModel
from engine.models.offline.research import topic_text
from engine.schemas import ConductResearch, ResearchComplete, ResearchPlan, ResearchTrack
from tests.fixtures.openai_server import UNKNOWN_TOOL_NAME, OpenAIServer

TRACK = ResearchTrack(title="Cancelling tasks", section="Cancellation", queries=["cancel task"])


@pytest.fixture
def llm():
    with OpenAIServer() as server:
        yield server


def _client(server: OpenAIServer, **kwargs) -> ChatOpenAI:
    return ChatOpenAI(
        model="offline",
        base_url=server.base_url,
        api_key="x",
        max_retries=0,
        timeout=kwargs.pop("timeout", 5),
        **kwargs,
    )


async def test_tool_calls_match_the_in_process_model(llm, research_tools) -> None:
    prompt = [HumanMessage(topic_text(TRACK))]
    remote = await _client(llm).bind_tools(research_tools).ainvoke(prompt)
    # In process, the model is handed the task the server reads back out of the prompt.
    task = task_config(ModelTask(role="researcher", topic=topic_text(TRACK), track=TRACK))
    local = await OfflineChatModel().bind_tools(research_tools).ainvoke(prompt, task)
    assert remote.tool_calls == local.tool_calls
    assert remote.usage_metadata is not None
    assert remote.usage_metadata["input_tokens"] == local.usage_metadata["input_tokens"]
    body = llm.requests[-1]
    assert {t["function"]["name"] for t in body["tools"]} == {
        "search_web",
        "fetch_url",
        "think_tool",
    }


async def test_streaming_with_usage_reassembles_tool_calls(llm) -> None:
    model = _client(llm, stream_usage=True).bind_tools([ConductResearch, ResearchComplete])
    prompt = [HumanMessage("Compare threads vs asyncio for servers")]
    chunks = [chunk async for chunk in model.astream(prompt)]
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    task = task_config(ModelTask(role="supervisor", question=str(prompt[0].content)))
    expected = (
        await OfflineChatModel()
        .bind_tools([ConductResearch, ResearchComplete])
        .ainvoke(prompt, task)
    )
    assert total.tool_calls == expected.tool_calls
    assert total.usage_metadata and total.usage_metadata["output_tokens"] > 0
    assert llm.requests[-1]["stream_options"] == {"include_usage": True}


async def test_streamed_text_equals_the_plain_answer(llm) -> None:
    text = " ".join(f"Sentence number {n} is a sentence." for n in range(12))
    plain = await _client(llm).ainvoke(text)
    streamed = "".join([str(c.content) async for c in _client(llm).astream(text)])
    assert streamed == plain.content and plain.content


@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
async def test_structured_output_both_methods(llm, method) -> None:
    model = _client(llm).with_structured_output(ResearchPlan, method=method)
    plan = await model.ainvoke("Compare threads vs asyncio for servers")
    assert isinstance(plan, ResearchPlan) and len(plan.tracks) >= 3


async def test_tool_messages_round_trip(llm, research_tools) -> None:
    model = _client(llm).bind_tools(research_tools)
    first = await model.ainvoke([HumanMessage(topic_text(TRACK))])
    results = [
        ToolMessage(
            'Search results for "cancel task":\n\n[1] Tasks\nURL: https://docs.example.org/t\n'
            "To cancel a running Task use the cancel() method of the task object.",
            tool_call_id=call["id"],
        )
        for call in first.tool_calls
    ]
    second = await model.ainvoke([HumanMessage(topic_text(TRACK)), first, *results])
    # The search named a URL, so the researcher fetches it next.
    assert [c["name"] for c in second.tool_calls] == ["fetch_url"]
    assert second.tool_calls[0]["args"] == {"url": "https://docs.example.org/t"}


async def test_rate_limit_carries_retry_after_then_recovers(llm) -> None:
    llm.fail("rate_limit", retry_after=7)
    with pytest.raises(openai.RateLimitError) as caught:
        await _client(llm).ainvoke("hello there")
    assert caught.value.response.headers["retry-after"] == "7"
    assert (await _client(llm).ainvoke("hello there")).content


async def test_server_error_for_n_requests(llm) -> None:
    llm.fail("server_error", times=2)
    for _ in range(2):
        with pytest.raises(openai.InternalServerError):
            await _client(llm).ainvoke("hello there")
    assert llm.pending_faults == 0
    assert (await _client(llm).ainvoke("hello there")).content


async def test_hang_times_out_on_the_client(llm) -> None:
    llm.fail("hang", hang_seconds=10)
    started = time.perf_counter()
    with pytest.raises(openai.APITimeoutError):
        await _client(llm, timeout=0.5).ainvoke("hello there")
    assert time.perf_counter() - started < 5


async def test_malformed_tool_arguments_become_invalid_tool_calls(llm, research_tools) -> None:
    llm.fail("malformed_tool_args")
    reply = await _client(llm).bind_tools(research_tools).ainvoke([HumanMessage(topic_text(TRACK))])
    assert isinstance(reply, AIMessage)
    assert reply.invalid_tool_calls and reply.invalid_tool_calls[0]["name"] == "search_web"


async def test_unknown_tool_name(llm, research_tools) -> None:
    llm.fail("unknown_tool")
    reply = await _client(llm).bind_tools(research_tools).ainvoke([HumanMessage(topic_text(TRACK))])
    assert reply.tool_calls[0]["name"] == UNKNOWN_TOOL_NAME


async def test_empty_content(llm, research_tools) -> None:
    llm.fail("empty_content")
    reply = await _client(llm).bind_tools(research_tools).ainvoke([HumanMessage(topic_text(TRACK))])
    assert reply.content == "" and reply.tool_calls == []


def test_unknown_fault_is_refused(llm) -> None:
    with pytest.raises(ValueError, match="unknown fault"):
        llm.fail("teapot")  # type: ignore[arg-type]
