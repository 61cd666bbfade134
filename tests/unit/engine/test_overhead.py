"""The engine's own overhead per researcher call: tool schemas priced once, no thread hops for
untraced bookkeeping, the researcher compiled while the supervisor's first call is in flight."""

from __future__ import annotations

import contextvars
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.messages.utils import count_tokens_approximately

import engine.middleware.token_count as token_count
from engine.middleware.retry import RetryPolicy
from engine.middleware.trace_hops import _inline_unless_tracing, install_inline_trace_setup
from engine.nodes.deps import EngineDeps
from engine.nodes.researcher import prepare_researcher, run_research_unit
from engine.run.runner import open_session
from engine.schemas import PlanDecision
from tests.helpers.scripted_model import ScriptedChatModel, tool_call_message
from tests.unit.engine.conftest import Scenario, fake_tools, make_settings

FINDINGS = "Alpha is documented [1].\n\nSources:\n[1] A: https://alpha.example.org/article-1"


def test_cached_counting_matches_langchain_within_rounding(tmp_path: Path):
    from engine.citations.registry import SourceRegistry

    tools = fake_tools(SourceRegistry(), "unit-1")
    messages = [HumanMessage(content="alpha " * 50)]
    exact = count_tokens_approximately(messages, tools=tools)
    cached = token_count.count_tokens_cached_tools(messages, tools=tools)
    assert abs(cached - exact) <= len(tools)  # one rounding per tool at most
    assert token_count.count_tokens_cached_tools(messages) == count_tokens_approximately(messages)


async def test_researchers_price_each_tool_schema_once(tmp_path: Path, monkeypatch):
    priced: list[str] = []

    def spy(messages: Any, **kwargs: Any) -> int:
        for tool in kwargs.get("tools") or ():
            priced.append(getattr(tool, "name", None) or str(tool.get("name")))
        return count_tokens_approximately(messages, **kwargs)

    monkeypatch.setattr(token_count, "_tool_tokens", {})
    monkeypatch.setattr(token_count, "count_tokens_approximately", spy)
    settings = make_settings(tmp_path)
    model = ScriptedChatModel(
        responder=lambda messages: (
            FINDINGS
            if any(m.type == "tool" for m in messages)
            else tool_call_message("search_web", {"query": "alpha query"})
        )
    )
    deps = EngineDeps(
        settings=settings,
        model_for=lambda role: model,
        tools_for=lambda registry, unit_id, focus=None: fake_tools(registry, unit_id),
        retry=RetryPolicy(max_retries=0),
    )
    for unit in ("unit-1", "unit-2"):
        outcome = await run_research_unit(deps, unit, "alpha")
        assert outcome.status == "completed"
    # Four model calls, each counted with every tool bound, yet each schema priced once.
    assert "search_web" in priced and "write_todos" in priced
    assert len(priced) == len(set(priced))


async def test_untraced_bookkeeping_runs_inline_and_traced_keeps_the_default(monkeypatch):
    assert install_inline_trace_setup()
    calls: list[str] = []

    async def default(ctx: contextvars.Context, func: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append("default")
        return ctx.run(func, *args, **kwargs)

    ctx = contextvars.copy_context()
    monkeypatch.setattr("langsmith.utils.tracing_is_enabled", lambda *a, **k: False)
    assert await _inline_unless_tracing(default, ctx, lambda x: x + 1, 1) == 2
    assert calls == []
    monkeypatch.setattr("langsmith.utils.tracing_is_enabled", lambda *a, **k: True)
    assert await _inline_unless_tracing(default, ctx, lambda x: x + 1, 1) == 2
    assert calls == ["default"]


def test_an_override_installed_by_someone_else_is_kept(monkeypatch):
    from langsmith._runtime_overrides import get_runtime_overrides, set_runtime_overrides

    async def theirs(default: Any, ctx: Any, func: Any, *args: Any, **kwargs: Any) -> Any:
        return ctx.run(func, *args, **kwargs)

    previous = get_runtime_overrides().aio_to_thread
    set_runtime_overrides(aio_to_thread=theirs)
    try:
        assert install_inline_trace_setup() is False
        assert get_runtime_overrides().aio_to_thread is theirs
    finally:
        set_runtime_overrides(aio_to_thread=previous)


async def test_the_researcher_is_compiled_off_the_event_loop_before_the_first_wave(
    tmp_path: Path, monkeypatch
):
    import threading

    import engine.nodes.researcher as researcher

    compiled_on: list[bool] = []
    original = researcher.shared_researcher

    def spy(deps: EngineDeps) -> Any:
        if "researcher" not in deps.cache:
            compiled_on.append(threading.current_thread() is threading.main_thread())
        return original(deps)

    monkeypatch.setattr(researcher, "shared_researcher", spy)
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    deps = scenario.deps(settings)
    async with open_session(settings, deps=deps) as session:
        _ = [e async for e in session.start("Compare alpha and beta", mode="deep")]
        assert "researcher" not in deps.cache  # nothing compiled before research starts
        _ = [e async for e in session.review_plan(PlanDecision(action="approve"))]
    assert compiled_on == [False], "compiled once, in a worker thread"
    assert sorted(scenario.researcher_runs) == ["alpha", "beta", "gamma"]


@pytest.mark.parametrize("fails", [False, True])
async def test_preparing_the_researcher_never_raises(tmp_path: Path, fails: bool):
    settings = make_settings(tmp_path)

    def model_for(role: str) -> Any:
        if fails:
            raise RuntimeError("no model configured")
        return ScriptedChatModel(responder=lambda messages: "ok")

    deps = EngineDeps(
        settings=settings,
        model_for=model_for,  # type: ignore[arg-type]
        tools_for=lambda registry, unit_id, focus=None: fake_tools(registry, unit_id),
    )
    await prepare_researcher(deps)
    assert ("researcher" in deps.cache) is (not fails)
