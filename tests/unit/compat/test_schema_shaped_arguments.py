"""Tool arguments a small model wrapped in the tool's schema shape are unwrapped (seen on a
1.5B model, which sent one such ConductResearch call seventy times)."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from engine.models.compat.chat import normalized

SHAPED = {"properties": {"research_topic": "queue.qsize()"}, "required": ["research_topic"]}


def _call(args: dict[str, object]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": "ConductResearch", "args": args, "id": "call-1"}],
    )


def test_a_native_call_with_schema_shaped_arguments_is_unwrapped() -> None:
    reply = normalized(_call(SHAPED), ["ConductResearch"])

    assert reply.tool_calls[0]["args"] == {"research_topic": "queue.qsize()"}


def test_a_text_call_with_schema_shaped_arguments_is_unwrapped() -> None:
    text = (
        '<tool_call>{"name": "ConductResearch", "arguments": {"properties": '
        '{"research_topic": "asyncio locks"}, "required": ["research_topic"]}}</tool_call>'
    )

    reply = normalized(AIMessage(content=text), ["ConductResearch"])

    assert reply.tool_calls[0]["args"] == {"research_topic": "asyncio locks"}


def test_arguments_that_merely_include_properties_stay() -> None:
    args = {"properties": {"a": 1}, "research_topic": "asyncio locks"}

    reply = normalized(_call(args), ["ConductResearch"])

    assert reply.tool_calls[0]["args"] == args
