"""Quick-path latency: wall time against model round trips for a quick question.

The model answers every call after a fixed delay (200 ms): one search call, then the cited
answer; in `auto` mode the route classifier adds one call first. The search tool answers
instantly, so the wall time should be the sum of the model delays plus the graph's own
overhead. Target: at most 3 round trips, wall time within 10 % of their sum.

    uv run python bench/quick.py [--delay 0.2] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import BaseTool, StructuredTool

from engine.config import settings_from_mapping
from engine.nodes.router import decide_route
from engine.quick.graph import build_quick_graph, final_answer

QUESTION = "When was Python 3.13 released?"
ANSWER = (
    "Python 3.13 was released on 7 October 2024 [1].\n\n## References\n"
    "[1] What's new in Python 3.13 — https://docs.python.org/3/whatsnew/3.13.html"
)


class DelayedModel(BaseChatModel):
    """Answers after a fixed delay: classify when asked to, else search once, then answer."""

    delay: float
    round_trips: list[float]

    @property
    def _llm_type(self) -> str:
        return "bench-delayed"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        if "You decide how a research question should be handled" in messages[0].text:
            args: dict[str, Any] = {"mode": "quick", "reason": "a single fact"}
            return AIMessage(
                content="", tool_calls=[{"name": "RouteDecision", "args": args, "id": "route"}]
            )
        if not any(m.type == "tool" for m in messages):
            args = {"query": "Python 3.13 release date 2024"}
            return AIMessage(
                content="", tool_calls=[{"name": "search_web", "args": args, "id": "search"}]
            )
        return AIMessage(content=ANSWER)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        raise NotImplementedError("the benchmark is async")

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        started = time.perf_counter()
        await asyncio.sleep(self.delay)
        reply = self._reply(messages)
        self.round_trips.append(time.perf_counter() - started)
        return ChatResult(generations=[ChatGeneration(message=reply)])


def search_tool() -> BaseTool:
    async def search_web(query: str) -> str:
        return (
            "[1] What's new in Python 3.13\nURL: https://docs.python.org/3/whatsnew/3.13.html\n"
            "Python 3.13 was released on October 7, 2024."
        )

    # Async like the real search tool, so no worker-thread hop is measured.
    return StructuredTool.from_function(coroutine=search_web, description="Search the web.")


async def one_run(mode: str, delay: float) -> tuple[float, int, float]:
    """(wall seconds, model round trips, summed model seconds) for one quick question."""
    model = DelayedModel(delay=delay, round_trips=[])
    graph = build_quick_graph(model, [search_tool()], settings_from_mapping({}))
    started = time.perf_counter()
    decision, _ = await decide_route(model, QUESTION, mode)  # type: ignore[arg-type]
    assert decision.mode == "quick"
    state = await graph.ainvoke({"messages": [HumanMessage(content=QUESTION)]})
    wall = time.perf_counter() - started
    assert final_answer(state) == ANSWER
    return wall, len(model.round_trips), sum(model.round_trips)


async def main(delay: float, runs: int) -> None:
    await one_run("quick", 0.0)  # warm-up: first-call imports and graph compilation caches
    load = os.getloadavg()[0]
    print(
        f"quick question, model delay {delay * 1000:.0f} ms, median of {runs} runs "
        f"(load average {load:.2f} on {os.cpu_count()} CPUs)\n"
    )
    header = (
        f"{'mode':<6} {'round trips':>11} {'model sum (s)':>13} {'wall (s)':>9} "
        f"{'overhead':>9} {'target':>7}"
    )
    print(header)
    print("-" * len(header))
    for mode in ("quick", "auto"):
        results = [await one_run(mode, delay) for _ in range(runs)]
        wall = statistics.median(r[0] for r in results)
        trips = max(r[1] for r in results)
        model_sum = statistics.median(r[2] for r in results)
        overhead = (wall - model_sum) / model_sum
        met = trips <= 3 and overhead <= 0.10
        print(
            f"{mode:<6} {trips:>11} {model_sum:>13.3f} {wall:>9.3f} {overhead:>8.1%} "
            f"{'met' if met else 'MISSED':>7}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.2, help="model latency in seconds")
    parser.add_argument("--runs", type=int, default=5, help="runs per mode")
    options = parser.parse_args()
    asyncio.run(main(options.delay, options.runs))
