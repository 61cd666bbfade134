"""Orchestration overhead: how close the engine's schedule gets to the ideal critical path.

A scripted model answers every call after a fixed delay and the research tools answer after
fixed delays, so all wall time beyond the critical path (the chain of delays the schedule
cannot overlap) is engine overhead. For 4, 8 and 16 research units at concurrency 4 it prints
wall time, critical-path time, their ratio (target ≤ 1.10) and engine CPU seconds per unit,
each as the minimum and the median of several runs (the machine may be busy).

    uv run python bench/orchestration.py
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel

from engine.citations.registry import SourceRegistry
from engine.config import settings_from_mapping
from engine.events import RunFinished
from engine.middleware.retry import RetryPolicy
from engine.nodes.deps import EngineDeps
from engine.run.runner import open_session
from engine.schemas import (
    ClarifyWithUser,
    PlanDecision,
    ResearchBrief,
    ResearchPlan,
    ResearchTrack,
)
from tests.helpers.scripted_model import (
    ScriptedChatModel,
    human_text,
    structured_reply,
    system_text,
    tool_call_message,
    tool_calls_message,
)

MODEL_DELAY = 0.200
SEARCH_DELAY = 0.300
CONCURRENCY = 4


class SearchInput(BaseModel):
    query: str


class ThinkInput(BaseModel):
    reflection: str


def tools_for(
    registry: SourceRegistry, unit_id: str | None, focus: str | None = None
) -> list[BaseTool]:
    """Delayed tools built like engine.tools.toolkit's: fixed argument schemas, so making a
    unit's tools costs microseconds (`@tool` would infer a schema per unit, ~15 ms each)."""

    async def search_web(query: str) -> str:
        await asyncio.sleep(SEARCH_DELAY)
        url = f"https://{query.split()[0]}.example.org/page"
        registry.add_url(url, "Page")
        return f'Search results for "{query}":\n\n[1] Page\nURL: {url}\n{query} fact.'

    async def think_tool(reflection: str) -> str:
        return reflection

    return [
        StructuredTool.from_function(
            coroutine=search_web, name="search_web", description="Search.", args_schema=SearchInput
        ),
        StructuredTool.from_function(
            coroutine=think_tool, name="think_tool", description="Reflect.", args_schema=ThinkInput
        ),
    ]


def responder(units: int) -> Any:
    topics = [f"topic{i}" for i in range(units)]

    def respond(messages: list[BaseMessage]) -> Any:
        system = system_text(messages)
        if system.startswith("You are scoping"):
            return structured_reply(ClarifyWithUser(need_clarification=False))
        if system.startswith("Rewrite the research request"):
            return structured_reply(ResearchBrief(research_brief="brief"))
        if system.startswith("You are planning"):
            return structured_reply(
                ResearchPlan(
                    scope="scope",
                    tracks=[
                        ResearchTrack(title=f"Track {i}", section=f"Section {i}", queries=["q"])
                        for i in range(3)
                    ],
                )
            )
        if system.startswith("You are the lead research supervisor"):
            done = sum(
                1
                for m in messages
                if isinstance(m, ToolMessage) and str(m.content).startswith("Research unit")
            )
            dispatched = sum(
                1
                for m in messages
                if isinstance(m, AIMessage)
                for c in m.tool_calls
                if c["name"] == "ConductResearch"
            )
            if dispatched < units:
                wave = topics[dispatched : dispatched + CONCURRENCY]
                return tool_calls_message(
                    [("ConductResearch", {"research_topic": t}) for t in wave]
                )
            assert done == units
            return tool_call_message("ResearchComplete", {})
        if system.startswith("You are a researcher"):
            topic = human_text(messages).strip()
            if not any(isinstance(m, ToolMessage) for m in messages):
                return tool_call_message("search_web", {"query": f"{topic} query"})
            return f"{topic} fact [1].\n\nSources:\n[1] Page: https://{topic}.example.org/page"
        return "# Report\n\nFindings [1].\n\n## Sources\n[1] https://topic0.example.org/page"

    return respond


def critical_path(units: int) -> float:
    """The schedule's unavoidable chain: scoping, each wave's supervisor call and slowest
    researcher (model → search → model), the closing ResearchComplete and the writer."""
    waves = math.ceil(units / CONCURRENCY)
    scoping = 3 * MODEL_DELAY  # clarify, brief, plan
    per_wave = MODEL_DELAY + (MODEL_DELAY + SEARCH_DELAY + MODEL_DELAY)
    return scoping + waves * per_wave + MODEL_DELAY + MODEL_DELAY


async def measure(units: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        settings = settings_from_mapping(
            {
                "ORCHESTRATOR_MODEL": "bench",
                "OPENAI_API_KEY": "x",
                "SEARCH_PROVIDER": "local",
                "DATA_DIR": folder,
                "MAX_CONCURRENT_RESEARCH_UNITS": str(CONCURRENCY),
                "MIN_EVIDENCE_RECORDS": "1",
                "MIN_SOURCE_DOMAINS": "1",
                "PLANNER_SEARCHES": "0",
            }
        )
        model = ScriptedChatModel(responder=responder(units), delay=MODEL_DELAY)
        deps = EngineDeps(
            settings=settings,
            model_for=lambda role: model,
            tools_for=tools_for,
            retry=RetryPolicy(max_retries=0),
            quick_path=False,
        )
        async with open_session(settings, deps=deps) as session:
            cpu0, wall0 = time.process_time(), time.perf_counter()
            async for _ in session.start("benchmark question", mode="deep"):
                pass
            finished = None
            async for event in session.review_plan(PlanDecision(action="approve")):
                if isinstance(event, RunFinished):
                    finished = event
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        assert finished is not None and finished.status == "completed"
    return wall, cpu


async def main(repeats: int) -> None:
    await measure(1)  # warm imports and caches
    print(
        f"model delay {MODEL_DELAY * 1000:.0f} ms, search delay {SEARCH_DELAY * 1000:.0f} ms, "
        f"concurrency {CONCURRENCY}, {repeats} runs each (min / median)"
    )
    print(f"{'units':>5} {'wall s':>12} {'critical s':>10} {'ratio':>12} {'cpu s/unit':>12}")
    for units in (4, 8, 16):
        runs = [await measure(units) for _ in range(repeats)]
        walls = [wall for wall, _ in runs]
        cpus = [cpu / units for _, cpu in runs]
        ideal = critical_path(units)
        print(
            f"{units:>5} {min(walls):>5.2f} / {statistics.median(walls):<4.2f} {ideal:>10.2f} "
            f"{min(walls) / ideal:>5.2f} / {statistics.median(walls) / ideal:<4.2f} "
            f"{min(cpus):>5.3f} / {statistics.median(cpus):<5.3f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per size (default 5)")
    asyncio.run(main(parser.parse_args().repeats))
