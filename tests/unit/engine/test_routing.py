"""The `auto` route through the graph: the classifier picks quick or deep; an explicit mode wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, tool

from engine.events import (
    EvidenceAdded,
    PhaseChanged,
    PlanProposed,
    ReportReady,
    ResearchUnitUpdated,
    RouteDecided,
    RunFinished,
)
from engine.quick.budget import quick_recursion_limit
from engine.quick.prompt import QUICK_PROMPT_MARKER
from engine.run.runner import open_session
from tests.helpers.scripted_model import system_text, tool_call_message
from tests.unit.engine.conftest import Scenario, make_settings, page_url

ROUTER_MARKER = "You decide how a research question"


async def collect(stream):
    return [event async for event in stream]


class QuickScenario(Scenario):
    """Scripted roles plus the quick-answer researcher: one search, then a cited answer."""

    def respond(self, messages: list[BaseMessage]) -> Any:
        if system_text(messages).startswith(QUICK_PROMPT_MARKER):
            if not any(isinstance(m, ToolMessage) for m in messages):
                return tool_call_message("search_web", {"query": "alpha query"})
            return f"Alpha caches expire hourly [1].\n\n## References\n[1] {page_url('alpha')}"
        return super().respond(messages)


def router_calls(scenario: Scenario) -> int:
    assert scenario._model is not None
    return sum(1 for call in scenario._model.calls if system_text(call).startswith(ROUTER_MARKER))


async def test_auto_takes_the_quick_path_when_the_classifier_says_quick(tmp_path: Path):
    settings = make_settings(tmp_path, research_mode="auto")
    scenario = QuickScenario(route="quick")
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        events = await collect(session.start("When do alpha caches expire?", mode="auto"))
    [route] = [e for e in events if isinstance(e, RouteDecided)]
    assert (route.mode, route.reason, route.overridden) == ("quick", "scripted", False)
    phases = [e.phase for e in events if isinstance(e, PhaseChanged)]
    assert "quick_research" in phases and "planning" not in phases
    assert not any(isinstance(e, PlanProposed) for e in events)
    report = next(e for e in events if isinstance(e, ReportReady))
    assert [c.source for c in report.kept_citations] == [page_url("alpha")]
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"
    assert router_calls(scenario) == 1 and scenario.researcher_runs == []
    # The quick path shows in the units and ledger panes like one research unit.
    units = [e.unit for e in events if isinstance(e, ResearchUnitUpdated)]
    assert [(u.id, u.status) for u in units] == [("quick-1", "running"), ("quick-1", "completed")]
    # The engine's search of the question as asked, then the scripted model's own.
    assert units[-1].tool_call_count == 2 and units[-1].evidence_count == 1
    [evidence] = [e.record for e in events if isinstance(e, EvidenceAdded)]
    assert evidence.claim == "Alpha caches expire hourly."
    assert evidence.source_urls == [page_url("alpha")] and evidence.research_unit_id == "quick-1"


async def test_auto_goes_deep_when_the_classifier_says_deep(tmp_path: Path):
    settings = make_settings(tmp_path, research_mode="auto")
    scenario = QuickScenario(route="deep")
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        events = await collect(session.start("Survey alpha and beta caching", mode="auto"))
    [route] = [e for e in events if isinstance(e, RouteDecided)]
    assert (route.mode, route.overridden) == ("deep", False)
    assert any(isinstance(e, PlanProposed) for e in events)
    assert "quick_research" not in [e.phase for e in events if isinstance(e, PhaseChanged)]


async def test_an_explicit_mode_overrides_without_asking_the_classifier(tmp_path: Path):
    settings = make_settings(tmp_path, research_mode="auto")
    scenario = QuickScenario(route="quick")  # would route quick if it were asked
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        events = await collect(session.start("When do alpha caches expire?", mode="deep"))
    [route] = [e for e in events if isinstance(e, RouteDecided)]
    assert (route.mode, route.overridden) == ("deep", True)
    assert route.reason.startswith("deep mode chosen by you")
    assert any(isinstance(e, PlanProposed) for e in events)
    assert router_calls(scenario) == 0


async def test_the_quick_path_runs_under_the_quick_graphs_recursion_limit(tmp_path: Path):
    settings = make_settings(tmp_path, max_llm_turns=4, max_tool_iterations=3)
    scenario = QuickScenario()
    limits: list[int] = []

    def tools_for(registry: Any, unit_id: str | None, focus: str | None = None) -> list[BaseTool]:
        @tool
        async def search_web(query: str, config: RunnableConfig) -> str:
            """Search the web."""
            limits.append(int(config.get("recursion_limit", -1)))
            registry.add_url(page_url("alpha"), "Alpha page 1")
            return f"[1] Alpha page 1\nURL: {page_url('alpha')}\nalpha fact."

        return [search_web]

    deps = scenario.deps(settings)
    deps.tools_for = tools_for
    async with open_session(settings, deps=deps) as session:
        events = await collect(session.start("When do alpha caches expire?", mode="quick"))
    assert isinstance(events[-1], RunFinished) and events[-1].status == "completed"
    # The model's search and the question searched as asked beside it, both under the limit.
    assert limits == [quick_recursion_limit(settings)] * 2 == [4 * 2 + 10] * 2
