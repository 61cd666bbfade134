"""The research graph.

    START → route_question ─┬→ scope_intake → research_supervisor → final_report ─┐
                            └→ quick_research ─────────────────────────────────────┤
                                                          verify_citations → END ←─┘

scope_intake ends the run when the person cancels at plan review. Nothing is created at
import time: `build_graph(deps, checkpointer)` compiles a graph around the given models and
tools, so a resumed session in a new process rebuilds exactly the same graph. The research
supervisor's nodes are module-level functions that take the same `EngineDeps` as the run's
context (`Runtime[EngineDeps]`): the runner streams every leg with `context=deps`, and a run
given none falls back to the settings' defaults (engine.nodes.deps.deps_of).
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from engine.nodes.deps import EngineDeps
from engine.nodes.quick import build_quick
from engine.nodes.report import build_final_report
from engine.nodes.route import build_route
from engine.nodes.scope import build_scope_graph
from engine.nodes.supervisor import build_supervisor_graph
from engine.nodes.verify import build_verify
from engine.state import ResearchState

NODE_NAMES = (
    "route_question",
    "scope_intake",
    "quick_research",
    "research_supervisor",
    "final_report",
    "verify_citations",
)


async def _after_scope(state: ResearchState) -> Literal["research_supervisor", "__end__"]:
    # Async so LangGraph routes on the event loop instead of hopping to a worker thread.
    if state.get("plan_status") == "cancelled":
        return "__end__"
    return "research_supervisor"


def build_graph(deps: EngineDeps, checkpointer: Any = None) -> Any:
    """Compile the research graph with the given dependencies and checkpointer.

    Stream it with `context=deps` (the same dependencies) so the supervisor uses them too.
    No `context_schema` is declared here: LangGraph Server hands a run's context over as JSON,
    which a declared dataclass schema would try (and fail) to build `EngineDeps` from; the
    supervisor subgraph declares it for its own nodes.
    """
    graph = StateGraph(ResearchState)
    graph.add_node("route_question", build_route(deps))
    graph.add_node("scope_intake", build_scope_graph(deps))
    graph.add_node("quick_research", build_quick(deps))
    graph.add_node("research_supervisor", build_supervisor_graph())
    graph.add_node("final_report", build_final_report(deps))
    graph.add_node("verify_citations", build_verify(deps))
    graph.add_edge(START, "route_question")
    graph.add_conditional_edges("scope_intake", _after_scope)
    graph.add_edge("research_supervisor", "final_report")
    graph.add_edge("final_report", "verify_citations")
    graph.add_edge("quick_research", "verify_citations")
    graph.add_edge("verify_citations", END)
    return graph.compile(checkpointer=checkpointer)
