"""One research unit: a deepagents researcher on one topic, isolated and time-boxed.

The topic is the single human message, verbatim. Each unit gets its own source registry
(merged into the session's by the state reducer) and its own tools recording into it, an
explicit recursion limit and no checkpointer of its own: a unit that was cut short is re-run
whole on resume, so its sources and its evidence always come from the same run.

Compiling a deepagents agent costs about a quarter of a CPU second, so the researcher is
compiled once per engine with template tools, and each unit's own tools are swapped in at
call time (`UnitToolsMiddleware`, through a context variable each unit sets for its run).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, cast

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool

from engine.citations.evidence import EvidenceRecord
from engine.citations.registry import SourceRegistry
from engine.logs import get_logger
from engine.middleware.first_search import retrieved_opening_id
from engine.middleware.guarded import researcher_middleware
from engine.model_task import ModelTask, task_config
from engine.models.compat.reply_watch import stop_reply_when
from engine.nodes.common import today
from engine.nodes.deps import EngineDeps
from engine.nodes.extraction import unit_findings
from engine.nodes.failures import sanitize_unit_failure
from engine.nodes.plan_dispatch import topic_focus
from engine.nodes.researcher_harness import (
    hidden_harness_tools,
    register_researcher_harness,
    researcher_model,
)
from engine.nodes.researcher_passages import (
    Passage,
    copying_passages,
    passages_block,
    retrieve_passages,
    seed_catalog,
    with_copy_finished,
)
from engine.prompts import RESEARCHER_PROMPT, RESEARCHER_PROMPT_NO_SEARCH
from engine.schemas import ResearchTrack

_log = get_logger("researcher")


@dataclass
class UnitOutcome:
    """How a research unit ended and what it found."""

    unit_id: str
    topic: str
    status: str
    started_at: float
    finished_at: float
    notes: str = ""
    raw_notes: str = ""
    records: list[EvidenceRecord] = field(default_factory=list)
    registry: dict[str, Any] = field(default_factory=dict)
    tool_call_count: int = 0
    failure_reason: str | None = None

    @property
    def duration_seconds(self) -> float:
        return round(self.finished_at - self.started_at, 3)


def researcher_prompt(deps: EngineDeps) -> str:
    settings = deps.settings
    if not deps.has_search:
        return RESEARCHER_PROMPT_NO_SEARCH.format(
            date=today(), max_tool_calls=settings.max_react_tool_calls
        )
    return RESEARCHER_PROMPT.format(
        date=today(),
        search_budget=settings.researcher_search_budget,
        max_tool_calls=settings.max_react_tool_calls,
    )


_UNIT_TOOLS: ContextVar[dict[str, BaseTool] | None] = ContextVar("unit_tools", default=None)


class UnitToolsMiddleware(AgentMiddleware):
    """Runs each tool call with the calling unit's own tool of that name."""

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        return handler(_with_unit_tool(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        return await handler(_with_unit_tool(request))


def _with_unit_tool(request: Any) -> Any:
    tools = _UNIT_TOOLS.get()
    if tools and request.tool is not None and request.tool.name in tools:
        return request.override(tool=tools[request.tool.name])
    return request


_COMPILE_LOCK = threading.Lock()


def shared_researcher(deps: EngineDeps) -> Any:
    """The engine's compiled researcher (template tools; units swap in their own).

    Thread-safe: the supervisor compiles it in a worker thread while its first model call is
    in flight (`prepare_researcher`), so the first wave does not wait for it.
    """
    cached = deps.cache.get("researcher")
    if cached is not None:
        return cached
    with _COMPILE_LOCK:
        cached = deps.cache.get("researcher")
        if cached is not None:
            return cached
        from deepagents import create_deep_agent
        from deepagents.backends import StateBackend
        from deepagents.middleware.summarization import create_summarization_middleware
        from langchain.agents.middleware import TodoListMiddleware

        from engine.middleware.token_count import count_tokens_cached_tools
        from engine.middleware.trace_hops import install_inline_trace_setup

        install_inline_trace_setup()

        model = researcher_model(deps.model_for("researcher"), deps.settings)
        register_researcher_harness(model)
        cached = create_deep_agent(
            model=model,
            tools=deps.tools_for(SourceRegistry(), None),
            system_prompt=researcher_prompt(deps),
            middleware=[
                # Replaces deepagents' own summarization (same name): tool schemas are priced
                # once instead of on every model call.
                create_summarization_middleware(
                    model, StateBackend(), token_counter=count_tokens_cached_tools
                ),
                cast(AgentMiddleware, TodoListMiddleware()),
                UnitToolsMiddleware(),
                *researcher_middleware(
                    deps.settings, policy=deps.retry, hidden_tools=hidden_harness_tools()
                ),
            ],
            checkpointer=False,
            name="researcher",
        )
        deps.cache["researcher"] = cached
    return cached


async def prepare_researcher(deps: EngineDeps) -> None:
    """Compile the researcher off the event loop; a failure shows up in the first unit instead."""
    if deps.cache.get("researcher") is not None:
        return
    with contextlib.suppress(Exception):
        await asyncio.to_thread(shared_researcher, deps)


def _searched_for(topic: str, queries: list[str] | None) -> list[str]:
    """What is searched before the first turn: the track's queries, else the topic itself."""
    if queries:
        return queries
    return [" ".join(topic.split())[:300]]


async def run_research_unit(
    deps: EngineDeps,
    unit_id: str,
    topic: str,
    *,
    queries: list[str] | None = None,
    track: ResearchTrack | None = None,
) -> UnitOutcome:
    """Run one researcher to completion, timeout or failure; never raises (except cancel).

    The researcher starts from the passages its queries retrieved (engine.nodes.
    researcher_passages), numbered in its first message after the topic."""
    settings = deps.settings
    started = deps.clock()
    registry = SourceRegistry()
    focus = topic_focus(topic)
    token = _UNIT_TOOLS.set({tool.name: tool for tool in deps.tools_for(registry, unit_id, focus)})
    passages: list[Passage] = []
    try:
        agent = shared_researcher(deps)

        async def research() -> Any:
            passages[:] = await retrieve_passages(
                deps, registry, unit_id, focus, _searched_for(topic, queries)
            )
            opening = (
                HumanMessage(
                    content=f"{topic}\n\n{passages_block(passages)}",
                    id=retrieved_opening_id(unit_id),
                )
                if passages
                else HumanMessage(content=topic)
            )
            # Every model call of the unit inherits the task from the run's metadata.
            config = task_config(ModelTask(role="researcher", topic=topic, track=track))
            config["recursion_limit"] = deps.researcher_recursion_limit
            # A reply that starts copying the passages back is stopped there;
            # `with_copy_finished` completes it below.
            with stop_reply_when(copying_passages(passages) if passages else None):
                return await agent.ainvoke({"messages": [opening]}, config)

        result = await asyncio.wait_for(research(), timeout=settings.research_unit_timeout_seconds)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        status = "timed_out" if isinstance(exc, TimeoutError) else "failed"
        # The person sees the sanitized reason; the log keeps the cause (secrets redacted).
        _log.warning("research unit %s %s", unit_id, status, exc_info=exc)
        return UnitOutcome(
            unit_id,
            topic,
            status,
            started,
            deps.clock(),
            registry=registry.to_dict(),
            failure_reason=sanitize_unit_failure(
                exc,
                time_limit=settings.research_unit_timeout_seconds,
                tool_calls=settings.max_react_tool_calls,
            ),
        )
    finally:
        _UNIT_TOOLS.reset(token)
    messages = with_copy_finished(list(result.get("messages", [])), passages)
    findings = unit_findings(messages, registry, unit_id, settings, seed=seed_catalog(passages))
    return UnitOutcome(
        unit_id,
        topic,
        "completed",
        started,
        deps.clock(),
        notes=findings.notes,
        raw_notes=findings.raw_notes,
        records=findings.records,
        registry=registry.to_dict(),
        tool_call_count=findings.tool_call_count,
    )
