"""The chat-model contract: structured output, bound tools, streaming, usage, determinism."""

from __future__ import annotations

import time

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage

from engine.model_task import ModelTask, task_config
from engine.models.offline import OfflineChatModel
from engine.schemas import (
    ClarifyWithUser,
    ConductResearch,
    ResearchBrief,
    ResearchComplete,
    ResearchPlan,
    RouteDecision,
)


async def test_structured_output_fills_every_scoping_schema() -> None:
    model = OfflineChatModel()
    question = [
        SystemMessage("Scope the request."),
        HumanMessage("How are asyncio tasks cancelled?"),
    ]
    asked = "How are asyncio tasks cancelled?"

    def task(role: str) -> dict:
        return task_config(ModelTask(role=role, question=asked))  # type: ignore[arg-type]

    clarify = await model.with_structured_output(ClarifyWithUser).ainvoke(question, task("clarify"))
    assert isinstance(clarify, ClarifyWithUser) and not clarify.need_clarification
    brief = await model.with_structured_output(ResearchBrief).ainvoke(question, task("brief"))
    assert isinstance(brief, ResearchBrief)
    assert "How are asyncio tasks cancelled?" in brief.research_brief
    route = await model.with_structured_output(RouteDecision).ainvoke(question, task("route"))
    assert isinstance(route, RouteDecision) and route.mode == "quick"
    plan = await model.with_structured_output(ResearchPlan).ainvoke(question, task("plan"))
    assert isinstance(plan, ResearchPlan) and 3 <= len(plan.tracks) <= 6


async def test_one_word_question_asks_then_accepts_the_answer() -> None:
    config = task_config(ModelTask(role="clarify", question="asyncio"))
    model = OfflineChatModel().with_structured_output(ClarifyWithUser).with_config(config)
    first = await model.ainvoke([HumanMessage("asyncio")])
    assert isinstance(first, ClarifyWithUser)
    assert first.need_clarification and first.question.endswith("?")
    answered = await model.ainvoke(
        [HumanMessage("asyncio"), AIMessage(first.question), HumanMessage("cancellation")]
    )
    assert isinstance(answered, ClarifyWithUser) and not answered.need_clarification


async def test_brief_keeps_the_clarification_answer() -> None:
    config = task_config(ModelTask(role="brief", question="asyncio cancellation"))
    model = OfflineChatModel().with_structured_output(ResearchBrief).with_config(config)
    brief = await model.ainvoke(
        [HumanMessage("Request: asyncio\nClarifying question: Which part?\nAnswer: cancellation")]
    )
    assert isinstance(brief, ResearchBrief)
    assert brief.research_brief.startswith("Research question: asyncio cancellation")


async def test_include_raw_structured_output_reports_usage() -> None:
    model = OfflineChatModel().with_structured_output(ResearchBrief, include_raw=True)
    result = await model.ainvoke("How are asyncio tasks cancelled?")
    assert isinstance(result, dict)
    assert result["parsing_error"] is None
    raw = result["raw"]
    assert isinstance(raw, AIMessage) and raw.tool_calls[0]["name"] == "ResearchBrief"
    assert raw.usage_metadata is not None
    assert raw.usage_metadata["input_tokens"] == 5
    assert raw.usage_metadata["output_tokens"] > 5


async def test_bind_tools_returns_a_runnable_with_tool_calls_and_same_model() -> None:
    model = OfflineChatModel()
    bound = model.bind_tools([ConductResearch, ResearchComplete])
    reply = await bound.ainvoke("How are asyncio tasks cancelled?")
    assert isinstance(reply, AIMessage)
    assert {call["name"] for call in reply.tool_calls} == {"ConductResearch"}
    assert all(call["id"] for call in reply.tool_calls)
    # Unbound, the same model answers in text.
    plain = await model.ainvoke("Tasks are cancelled with the cancel method of a task object.")
    assert isinstance(plain, AIMessage) and not plain.tool_calls and plain.content


async def test_streaming_matches_invoke_text_and_tool_calls() -> None:
    model = OfflineChatModel()
    bound = model.bind_tools([ConductResearch, ResearchComplete])
    prompt = [HumanMessage("Compare threads vs asyncio for servers")]
    invoked = await bound.ainvoke(prompt)
    chunks = [chunk async for chunk in bound.astream(prompt)]
    assert len(chunks) >= 2
    assert all(isinstance(chunk, AIMessageChunk) for chunk in chunks)
    assert any(chunk.tool_call_chunks for chunk in chunks)
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert total.tool_calls == invoked.tool_calls
    assert total.usage_metadata == invoked.usage_metadata

    long_text = " ".join(f"Sentence number {n} is here." for n in range(20))
    text_chunks = [c async for c in model.astream(long_text)]
    assert sum(bool(c.content) for c in text_chunks) > 1
    assert "".join(str(c.content) for c in text_chunks) == (await model.ainvoke(long_text)).content


def test_sync_invoke_and_stream_agree() -> None:
    model = OfflineChatModel().bind_tools([ConductResearch, ResearchComplete])
    invoked = model.invoke("How do threads and processes differ?")
    chunks = list(model.stream("How do threads and processes differ?"))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert total.tool_calls == invoked.tool_calls


async def test_replies_are_deterministic_across_instances() -> None:
    prompt = [HumanMessage("Compare threads vs asyncio for servers")]
    one = await OfflineChatModel().bind_tools([ConductResearch, ResearchComplete]).ainvoke(prompt)
    two = await OfflineChatModel().bind_tools([ConductResearch, ResearchComplete]).ainvoke(prompt)
    assert one.tool_calls == two.tool_calls
    assert one.usage_metadata == two.usage_metadata


async def test_delay_is_slept_per_call() -> None:
    model = OfflineChatModel(delay_seconds=0.05)
    started = time.perf_counter()
    await model.ainvoke("hello there")
    await model.ainvoke("hello again")
    assert time.perf_counter() - started >= 0.1
    started = time.perf_counter()
    await OfflineChatModel().ainvoke("hello there")
    assert time.perf_counter() - started < 0.05
