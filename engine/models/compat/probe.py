"""Find out what a server does by asking it: one tool call, one JSON reply per method.

Native tool calling must pass two probes, because servers fail in two ways: some drop tools
unless forced, some (llama-cpp-python's `chatml-function-calling`) call tools but cannot
answer in plain text while tools are bound. Both probes are streamed, as real calls are.
Two requests side by side find whether the server cuts a streaming reply when another arrives.

A probe is a question about the server, not research: it gets one quick retry and a short
timeout, never the long backoff a research call waits through. A probe the server did not
answer (rate limited, failing, timing out) says nothing about the model: the profile it
leads to is only assumed, used for now and never remembered (`ModelProfile.conclusive`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from engine.messages import message_text
from engine.middleware.retry import RetryPolicy
from engine.models.compat.errors import ModelCallError
from engine.models.compat.normalize import looks_like_tool_call
from engine.models.compat.profile import (
    ASSUMED,
    STRUCTURED_METHODS,
    ModelProfile,
    StructuredMethod,
)
from engine.models.compat.reply_watch import stop_reply_when
from engine.models.compat.structured import (
    json_from_reply,
    request_for,
    schema_instruction,
    with_instruction,
)
from engine.models.compat.transport import Transport

PROBE_TOKENS = 48
PARALLEL_CHECK = "parallel requests"
# One quick retry and a short wait per probe; a longer outage is no answer about the model.
PROBE_RETRIES = 1
PROBE_MAX_WAIT_SECONDS = 2.0
PROBE_TIMEOUT_SECONDS = 60.0
NO_ANSWER = "no answer"
# Statuses that say the server could not take the request now (a rate limit, a gateway or the
# service down). Any other refusal is an answer: llama-cpp-python refuses `json_schema` with a
# plain 500, every time.
_NO_ANSWER_STATUSES = frozenset({408, 429, 502, 503, 504})
_WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
_CAPITAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


@dataclass
class ProbeReport:
    """What the probes found, with one line per check for `doctor`."""

    profile: ModelProfile
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    # False when a probe got no answer (rate limit, server error, timeout): the checks that
    # failed for that reason tell nothing about the model.
    conclusive: bool = True
    # Replies the parallel probe cut on purpose (not a sign the server was busy).
    probe_cuts: int = 0


async def _send(
    transport: Transport,
    report: ProbeReport,
    check: str,
    messages: list[BaseMessage],
    **request: Any,
) -> AIMessage | None:
    """One probe request; None, with the check failed, when the server refuses it.

    An unreachable server is no probe result: its error propagates.
    """
    try:
        return await transport.send(
            messages,
            max_tokens=PROBE_TOKENS,
            retry_server_errors=False,
            policy=_probe_policy(transport.policy),
            timeout_seconds=PROBE_TIMEOUT_SECONDS,
            **request,
        )
    except ModelCallError as exc:
        if exc.unreachable:
            raise
        if exc.status in _NO_ANSWER_STATUSES:
            # Busy or down, not refusing: the model's abilities are still unknown.
            report.conclusive = False
            report.checks.append((check, False, f"{NO_ANSWER} ({exc.reason})"))
            return None
        report.checks.append((check, False, "refused the request"))
        return None


def _probe_policy(policy: RetryPolicy) -> RetryPolicy:
    """The endpoint's policy (its sleep and randomness), bounded for a probe."""
    return replace(
        policy,
        max_retries=min(policy.max_retries, PROBE_RETRIES),
        max_delay=min(policy.max_delay, PROBE_MAX_WAIT_SECONDS),
        max_retry_wait=min(policy.max_retry_wait, PROBE_MAX_WAIT_SECONDS),
    )


async def _tool_probe(transport: Transport, report: ProbeReport) -> bool:
    calls_tool: list[BaseMessage] = [
        SystemMessage(content="You can call functions. Use them when they help."),
        HumanMessage(content="What is the weather in Paris right now? Call get_weather."),
    ]
    tools: dict[str, Any] = {"tools": [_WEATHER_TOOL], "tool_choice": "auto"}
    reply = await _send(transport, report, "native tool call", calls_tool, **tools)
    if reply is None:
        return False
    called = any(call["name"] == "get_weather" for call in reply.tool_calls)
    report.checks.append(
        ("native tool call", called, "returned tool_calls" if called else "no parsed tool call")
    )
    if not called:
        return False
    plain: list[BaseMessage] = [HumanMessage(content="Reply with exactly one word: hello")]
    reply = await _send(transport, report, "text answer with tools bound", plain, **tools)
    if reply is None:
        return False
    text = message_text(reply).strip()
    answered = bool(text) and not reply.tool_calls and not looks_like_tool_call(text)
    detail = "answered in text" if answered else f"replied {text[:40]!r}"
    report.checks.append(("text answer with tools bound", answered, detail))
    return answered


async def _structured_probe(transport: Transport, report: ProbeReport) -> StructuredMethod:
    question = [HumanMessage(content="Which city is the capital of France? Answer as JSON.")]
    for method in STRUCTURED_METHODS[:-1]:
        prompt: list[BaseMessage] = list(question)
        if method != "json_schema":
            prompt = with_instruction(question, schema_instruction("Capital", _CAPITAL_SCHEMA))
        check = f"structured output: {method}"
        request = request_for(method, "Capital", _CAPITAL_SCHEMA)
        reply = await _send(transport, report, check, prompt, **request)
        if reply is None:
            continue
        try:
            value = json_from_reply(reply, method)
        except ValueError:
            report.checks.append((check, False, "reply was not JSON"))
            continue
        valid = isinstance(value.get("city"), str)
        report.checks.append((check, valid, "valid JSON" if valid else "wrong shape"))
        if valid:
            return method
    return "text"


async def _parallel_probe(transport: Transport, report: ProbeReport) -> bool:
    """Whether the server ends a streaming reply when another request arrives (llama-cpp-
    python's server does). Learned any later, it costs the first parallel researchers their
    replies, each after a long prompt was read (a minute or more on a CPU server)."""
    count: list[BaseMessage] = [HumanMessage(content="Count from 1 to 30, separated by spaces.")]
    # No retry: the cut is the answer, and a retry would only be cut again.
    policy = replace(_probe_policy(transport.policy), max_retries=0)
    streaming = asyncio.Event()

    def started(text: str) -> bool:
        streaming.set()
        return False

    async def outcome() -> str:
        try:
            await transport.send(
                count,
                max_tokens=PROBE_TOKENS,
                retry_server_errors=False,
                policy=policy,
                timeout_seconds=PROBE_TIMEOUT_SECONDS,
            )
        except ModelCallError as exc:
            if exc.unreachable:
                raise
            return "cut" if exc.cut_short else "failed"
        return "answered"

    async def first() -> str:
        try:
            with stop_reply_when(started):
                return await outcome()
        finally:
            streaming.set()

    async def second() -> str:
        # Once the first reply is streaming, however fast the server: a request that arrives
        # before it, or after it ended, cuts nothing.
        await streaming.wait()
        return await outcome()

    outcomes = await asyncio.gather(first(), second())
    report.probe_cuts = outcomes.count("cut")
    if report.probe_cuts or transport.one_at_a_time:
        detail = "one at a time: a new request ended the reply streaming; research units take turns"
        report.checks.append((PARALLEL_CHECK, False, detail))
        return True
    if "failed" in outcomes:
        # Both were answered before, one at a time: a refusal now says nothing about the model.
        report.conclusive = False
        report.checks.append((PARALLEL_CHECK, False, NO_ANSWER))
    else:
        report.checks.append((PARALLEL_CHECK, True, "answered side by side"))
    return False


async def probe_endpoint(transport: Transport, context_window: int) -> ProbeReport:
    """Probe one endpoint; `ModelCallError` when it cannot be reached at all."""
    report = ProbeReport(ModelProfile(context_window, source="detected"))
    native = await _tool_probe(transport, report)
    method = await _structured_probe(transport, report)
    # Only a server that answers at all can say how it answers two requests.
    answers = any(ok for _, ok, _ in report.checks)
    one_at_a_time = answers and await _parallel_probe(transport, report)
    source = "detected" if report.conclusive else ASSUMED
    report.profile = ModelProfile(
        context_window,
        "native" if native else "prompted",
        method,
        source=source,
        one_at_a_time=one_at_a_time,
    )
    return report


async def detect_profile(transport: Transport, context_window: int) -> ModelProfile:
    return (await probe_endpoint(transport, context_window)).profile
