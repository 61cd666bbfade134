"""Model-call middleware: empty tool content, tool names, retries, structured-output retry."""

from __future__ import annotations

import random

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from engine.middleware.empty_content import EMPTY_TOOL_PLACEHOLDER, fill_empty_tool_messages
from engine.middleware.retry import (
    RetryPolicy,
    acall_with_retries,
    is_transient,
    retry_after_seconds,
)
from engine.middleware.structured_output import StructuredOutputError, invoke_structured
from engine.middleware.tool_names import (
    resolve_tool_name,
    sanitize_tool_calls,
    unknown_tool_message,
)
from engine.schemas import ResearchBrief
from tests.helpers.scripted_model import ScriptedChatModel, tool_call_message

KNOWN = ["search_web", "fetch_url", "think_tool"]


def http_error(status: int, headers: dict[str, str] | None = None) -> httpx.HTTPStatusError:
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    response = httpx.Response(status, headers=headers or {}, request=request)
    return httpx.HTTPStatusError(f"HTTP {status}", request=request, response=response)


def test_empty_tool_content_gets_a_placeholder_and_others_are_untouched():
    messages = [
        HumanMessage("q"),
        ToolMessage(content="", tool_call_id="a"),
        ToolMessage(content=[], tool_call_id="b"),
        ToolMessage(content="  \n", tool_call_id="c"),
        ToolMessage(content="result", tool_call_id="d"),
    ]
    fixed = fill_empty_tool_messages(messages)
    assert [m.content for m in fixed[1:]] == [EMPTY_TOOL_PLACEHOLDER] * 3 + ["result"]
    assert messages[1].content == ""  # the original is not mutated


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("search_web", "search_web"),
        ("functions.search_web", "search_web"),
        ("Search_Web", "search_web"),
        ("search-web", "search_web"),
        ("fetch_url()", "fetch_url"),
        ("serch_web", "search_web"),
        ("`think_tool`", "think_tool"),
        ("launch_missiles", None),
    ],
)
def test_tool_names_resolve_to_the_nearest_known_tool(name, expected):
    assert resolve_tool_name(name, KNOWN) == expected


def test_sanitize_renames_calls_and_leaves_unknown_ones_for_an_error():
    message = AIMessage(
        content="",
        tool_calls=[
            {"name": "tools:fetch_url", "args": {"url": "x"}, "id": "1", "type": "tool_call"},
            {"name": "delete_everything", "args": {}, "id": "2", "type": "tool_call"},
        ],
    )
    fixed = sanitize_tool_calls(message, KNOWN)
    assert [c["name"] for c in fixed.tool_calls] == ["fetch_url", "delete_everything"]
    error = unknown_tool_message("delete_everything", "2", KNOWN)
    assert error.status == "error" and error.tool_call_id == "2"
    assert "fetch_url, search_web, think_tool" in error.content


def test_transient_errors_are_recognised():
    assert is_transient(http_error(429))
    assert is_transient(http_error(503))
    assert is_transient(TimeoutError())
    assert is_transient(httpx.ConnectError("refused"))
    assert not is_transient(http_error(400))
    assert not is_transient(ValueError("bad"))


def test_retry_after_is_read_in_seconds_and_milliseconds():
    assert retry_after_seconds(http_error(429, {"retry-after": "7"})) == 7.0
    assert retry_after_seconds(http_error(429, {"retry-after-ms": "1500"})) == 1.5
    assert retry_after_seconds(http_error(429)) is None
    # A value that is no number and no date is no wait asked for, not a failure of its own.
    assert retry_after_seconds(http_error(429, {"retry-after": "soon"})) is None
    assert retry_after_seconds(http_error(429, {"retry-after": "nan"})) is None


async def test_retries_back_off_exponentially_with_jitter_and_honour_retry_after():
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    failures = [http_error(500), http_error(502), http_error(429, {"retry-after": "30"})]

    async def call() -> str:
        if failures:
            raise failures.pop(0)
        return "ok"

    policy = RetryPolicy(max_retries=10, base_delay=1.0, rng=random.Random(3), sleep=sleep)
    assert await acall_with_retries(call, policy) == "ok"
    assert 0.5 <= waits[0] <= 1.0 and 1.0 <= waits[1] <= 2.0  # 2**attempt with 50-100 % jitter
    assert waits[2] == 30.0


async def test_retries_stop_at_the_limit_and_never_retry_a_bad_request():
    attempts = 0

    async def sleep(_: float) -> None:
        return None

    async def always_503() -> None:
        nonlocal attempts
        attempts += 1
        raise http_error(503)

    with pytest.raises(httpx.HTTPStatusError):
        await acall_with_retries(always_503, RetryPolicy(max_retries=10, sleep=sleep))
    assert attempts == 11

    attempts = 0

    async def bad_request() -> None:
        nonlocal attempts
        attempts += 1
        raise http_error(400)

    with pytest.raises(httpx.HTTPStatusError):
        await acall_with_retries(bad_request, RetryPolicy(max_retries=10, sleep=sleep))
    assert attempts == 1


async def test_structured_output_is_retried_once_with_the_validation_error():
    model = ScriptedChatModel.sequence(
        [
            tool_call_message("ResearchBrief", {"wrong_field": "x"}),
            tool_call_message("research_brief", {"research_brief": "the brief"}),
        ]
    )
    brief = await invoke_structured(model, ResearchBrief, [HumanMessage("q")], policy=RetryPolicy())
    assert brief.research_brief == "the brief"
    correction = model.calls[1][-1].content
    assert (
        "not valid for ResearchBrief" in correction
        and "research_brief: Field required" in correction
    )


async def test_structured_output_gives_up_after_one_retry():
    model = ScriptedChatModel.sequence([AIMessage(content="no tool call")] * 3)
    with pytest.raises(StructuredOutputError):
        await invoke_structured(model, ResearchBrief, [HumanMessage("q")], policy=RetryPolicy())
    assert len(model.calls) == 2
