"""What the graph's nodes call out to: models per role, research tools, grounding search.

One `EngineDeps` per engine, so tests and benchmarks swap in scripted models and tools without
touching the graph, and a resumed session rebuilds the same graph in a new process. The graph's
nodes are module-level functions that receive it as the run's context, `Runtime[EngineDeps]`,
and read it with `deps_of`: the runner streams every leg with `context=deps`, and a run given
none (LangGraph Server passes no Python objects) gets `settings_deps()`, the defaults the
settings configure. Nothing is created at import time; the defaults import lazily when first
called.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engine.config import Role, Settings, load_settings
from engine.middleware.retry import RetryPolicy

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.tools import BaseTool
    from langgraph.runtime import Runtime

    from engine.citations.registry import SourceRegistry

ModelFor = Callable[[Role], "BaseChatModel"]


class ToolsFor(Protocol):
    """A research unit's tools: recording into `registry`, reporting as `unit_id`, and
    ranking long fetched texts against `focus` (the unit's topic or question)."""

    def __call__(
        self, registry: SourceRegistry, unit_id: str | None, focus: str | None = None
    ) -> list[BaseTool]: ...


PlannerSearch = Callable[[str], Awaitable[str]]


def _default_models(settings: Settings) -> ModelFor:
    cache: dict[Role, Any] = {}
    endpoints: dict[str, Any] = {}

    def model_for(role: Role) -> BaseChatModel:
        if role not in cache:
            from engine.models.factory import make_chat_model

            cache[role] = make_chat_model(settings, role, endpoints=endpoints)
        return cache[role]

    return model_for


def _default_tools(settings: Settings) -> ToolsFor:
    def tools_for(
        registry: SourceRegistry, unit_id: str | None, focus: str | None = None
    ) -> list[BaseTool]:
        from engine.tools.toolkit import build_research_tools

        return build_research_tools(settings, registry, unit_id=unit_id, focus=focus)

    return tools_for


@dataclass
class EngineDeps:
    """Everything the nodes need besides graph state."""

    settings: Settings
    model_for: ModelFor
    tools_for: ToolsFor
    planner_search: PlannerSearch | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    # Whether the router and the quick path are wired (off: every question goes deep).
    quick_path: bool = True
    clock: Callable[[], float] = time.time
    # Objects compiled once per engine (the researcher agent); never checkpointed.
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def has_search(self) -> bool:
        return self.settings.resolved_search_provider != "none"

    @property
    def researcher_recursion_limit(self) -> int:
        # Each tool round is a model step, a tool step and middleware hook steps.
        return self.settings.max_react_tool_calls * 3 + 10


def default_deps(settings: Settings) -> EngineDeps:
    """The real models, tools and grounding search the settings configure; a search provider
    that cannot work is a `SettingsError` here, before any session starts."""
    from engine.preflight import require_working_search

    require_working_search(settings)
    return EngineDeps(
        settings=settings,
        model_for=_default_models(settings),
        tools_for=_default_tools(settings),
        planner_search=_default_planner_search(settings),
        retry=RetryPolicy(max_retries=settings.llm_max_retries),
    )


# The settings-built dependencies of runs given none, under the environment they were read in.
_SETTINGS_DEPS: dict[frozenset[tuple[str, str]], EngineDeps] = {}
_BUILDING = threading.Lock()


def settings_deps() -> EngineDeps:
    """`default_deps` for the settings of this process's environment, read and built the
    first time that environment is seen and then shared (models, endpoints and the compiled
    researcher) while it stays the same.

    Reading settings touches files (the working directory, `.env`); deciding whether they
    changed only looks at `os.environ`. So a caller that resolves them once off the event loop
    (`await asyncio.to_thread(settings_deps)`, as LangGraph Server's graph factory does) lets
    every node on the loop get them without blocking it.
    """
    environment = frozenset(os.environ.items())
    cached = _SETTINGS_DEPS.get(environment)
    if cached is not None:
        return cached
    with _BUILDING:  # runs that start together build them once
        cached = _SETTINGS_DEPS.get(environment)
        if cached is None:
            cached = default_deps(load_settings())
            _SETTINGS_DEPS.clear()  # one environment at a time: earlier ones don't come back
            _SETTINGS_DEPS[environment] = cached
    return cached


def deps_of(runtime: Runtime[EngineDeps] | None) -> EngineDeps:
    """The dependencies of this run: its context when the caller gave one (the runner does),
    else `settings_deps()` (LangGraph Server gives none, or only JSON)."""
    context = getattr(runtime, "context", None)
    if isinstance(context, EngineDeps):
        return context
    return settings_deps()


def _default_planner_search(settings: Settings) -> PlannerSearch | None:
    if settings.resolved_search_provider == "none":
        return None

    async def planner_search(query: str) -> str:
        # Grounding only: no registry, so nothing the planner saw becomes citable by itself.
        from engine.tools.search import format_results, search

        return format_results(query, await search(query, settings))

    return planner_search
