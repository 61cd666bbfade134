"""The research graph.

    START → route_question ─┬→ scope_intake → research_supervisor → final_report ─┐
                            └→ quick_research ─────────────────────────────────────┤
                                                          verify_citations → END ←─┘

scope_intake ends the run when the person cancels at plan review. Every node, the subgraphs'
included, is a module-level function that takes what it calls out to (models, tools, grounding
search) as the run's context, `Runtime[EngineDeps]`: the runner streams every leg with
`context=deps`, and a run given none falls back to the settings' defaults
(engine.nodes.deps.deps_of). Nothing is created at import time, and the graph itself holds no
dependencies, so a resumed session in a new process rebuilds exactly the same graph.
"""

from __future__ import annotations

from typing import Any, Literal, cast

from langgraph.graph import END, START, StateGraph

from engine.nodes.deps import EngineDeps
from engine.nodes.quick import quick_research
from engine.nodes.report import final_report
from engine.nodes.route import route_question
from engine.nodes.scope import build_scope_graph
from engine.nodes.supervisor import build_supervisor_graph
from engine.nodes.verify import verify_citations
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


def build_graph(checkpointer: Any = None) -> Any:
    """Compile the research graph on the given checkpointer.

    Stream it with `context=deps` (an `EngineDeps`) for its nodes to use those dependencies.
    No `context_schema` is declared here: LangGraph Server hands a run's context over as JSON,
    which a declared dataclass schema would try (and fail) to build `EngineDeps` from; the
    subgraphs declare it for their own nodes, and receive the context as it is given.
    """
    # Typed with the context its nodes read, though none is declared at runtime (see above).
    graph: StateGraph[ResearchState, EngineDeps, ResearchState, ResearchState]
    graph = StateGraph(ResearchState)
    graph.add_node("route_question", route_question)
    graph.add_node("scope_intake", build_scope_graph())
    graph.add_node("quick_research", quick_research)
    graph.add_node("research_supervisor", build_supervisor_graph())
    graph.add_node("final_report", final_report)
    # LangGraph's node types have no variant taking both the config and the runtime.
    graph.add_node("verify_citations", cast(Any, verify_citations))
    graph.add_edge(START, "route_question")
    graph.add_conditional_edges("scope_intake", _after_scope)
    graph.add_edge("research_supervisor", "final_report")
    graph.add_edge("final_report", "verify_citations")
    graph.add_edge("quick_research", "verify_citations")
    graph.add_edge("verify_citations", END)
    return graph.compile(checkpointer=checkpointer)
