"""Replies as real models write them become canonical: calls parsed, reasoning and escapes gone."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from engine.models.compat.chat import normalized
from engine.models.compat.json_text import parse_json_object
from engine.models.compat.normalize import (
    looks_like_tool_call,
    parse_text_tool_calls,
    strip_reasoning,
    unescape_entities,
)
from engine.models.compat.prompted_tools import render_conversation

TOOLS = ["search_web", "fetch_url"]


@pytest.mark.parametrize(
    ("text", "name", "args"),
    [
        (
            '<tool_call>\n{"name": "search_web", "arguments": {"query": "asyncio"}}\n</tool_call>',
            "search_web",
            {"query": "asyncio"},
        ),
        (  # Qwen without a closing tag, as a reply cut by max_tokens leaves it
            '<tool_call>{"name": "fetch_url", "arguments": {"url": "https://a.test/x"}}',
            "fetch_url",
            {"url": "https://a.test/x"},
        ),
        (
            'I will search.\n```json\n{"name": "search_web", "arguments": {"query": "gil"}}\n```',
            "search_web",
            {"query": "gil"},
        ),
        ('functions.search_web:\n{"query": "page size"}', "search_web", {"query": "page size"}),
        (
            '<|python_tag|>{"name": "search_web", "parameters": {"query": "x"}}',
            "search_web",
            {"query": "x"},
        ),
        (
            '[TOOL_CALLS][{"name": "search_web", "arguments": {"query": "y"}}]',
            "search_web",
            {"query": "y"},
        ),
        ('<function=search_web>{"query": "z"}</function>', "search_web", {"query": "z"}),
        (
            '{"name": "search_web", "arguments": "{\\"query\\": \\"q\\"}"}',
            "search_web",
            {"query": "q"},
        ),
    ],
)
def test_text_tool_calls_in_every_style_are_parsed(text: str, name: str, args: dict) -> None:
    parsed = parse_text_tool_calls(text, TOOLS)
    assert [(call["name"], call["args"]) for call in parsed.tool_calls] == [(name, args)]
    assert not looks_like_tool_call(parsed.text)


def test_a_json_answer_is_not_taken_for_a_call_of_an_unknown_tool() -> None:
    parsed = parse_text_tool_calls('{"name": "Ada Lovelace", "born": 1815}', TOOLS)
    assert parsed.tool_calls == []
    assert parsed.text.startswith("{")


def test_two_tagged_calls_both_survive() -> None:
    text = (
        '<tool_call>{"name": "search_web", "arguments": {"query": "a"}}</tool_call>\n'
        '<tool_call>{"name": "search_web", "arguments": {"query": "b"}}</tool_call>'
    )
    calls = parse_text_tool_calls(text, TOOLS).tool_calls
    assert [call["args"]["query"] for call in calls] == ["a", "b"]
    assert calls[0]["id"] != calls[1]["id"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<think>plan it</think>The answer [1].", "The answer [1]."),
        ("reasoning the template opened</think>\nThe answer.", "The answer."),
        ("The answer.<think>unfinished thoughts cut by the cap", "The answer."),
        ("No reasoning here.", "No reasoning here."),
    ],
)
def test_reasoning_never_survives(text: str, expected: str) -> None:
    assert strip_reasoning(text) == expected


def test_escaped_replies_from_autoescaping_templates_are_restored() -> None:
    reply = AIMessage(
        content="&lt;tool_call&gt;\n{&#34;name&#34;: &#34;search_web&#34;, "
        "&#34;arguments&#34;: {&#34;query&#34;: &#34;a &amp; b&#34;}}\n&lt;/tool_call&gt;"
    )
    fixed = normalized(reply, TOOLS)
    assert fixed.tool_calls[0]["args"] == {"query": "a & b"}
    assert fixed.content == ""
    assert unescape_entities("plain & simple") == "plain & simple"


@pytest.mark.parametrize(
    "text",
    [
        'Here it is:\n```json\n{"a": 1, "b": [1, 2,],}\n```',
        "Sure! {'a': 1, 'b': [1, 2]} hope that helps",
        '{"a": 1, "b": [1, 2]}',
    ],
)
def test_lenient_json(text: str) -> None:
    assert parse_json_object(text) == {"a": 1, "b": [1, 2]}


def test_no_json_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="no JSON object"):
        parse_json_object("I cannot answer that.")


def test_prompted_conversation_shows_tools_calls_and_results_as_text() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search_web",
                "description": "Search.",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
            },
        }
    ]
    call = {"name": "search_web", "args": {"query": "gil"}, "id": "c1", "type": "tool_call"}
    messages = [
        SystemMessage(content="You research."),
        HumanMessage(content="What is the GIL?"),
        AIMessage(content="", tool_calls=[call]),
        ToolMessage(content="[1] The GIL", tool_call_id="c1"),
    ]
    rendered = render_conversation(messages, tools)
    assert [type(m).__name__ for m in rendered] == [
        "SystemMessage",
        "HumanMessage",
        "AIMessage",
        "HumanMessage",
    ]
    assert '"name": "search_web"' in rendered[0].content and "<tools>" in rendered[0].content
    assert rendered[2].content.startswith("<tool_call>") and not rendered[2].tool_calls
    assert rendered[3].content == "<tool_response>\n[1] The GIL\n</tool_response>"
