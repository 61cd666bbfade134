"""quick_research: the bounded shallow loop for quick questions, then straight to verification."""

from __future__ import annotations

from typing import Any, cast

from langchain_core.messages import HumanMessage

from engine.citations.registry import SourceRegistry
from engine.emit import emit
from engine.events import PhaseChanged
from engine.nodes.deps import EngineDeps
from engine.state import ResearchState


def build_quick(deps: EngineDeps) -> Any:
    async def quick_research(state: ResearchState) -> dict[str, Any]:
        from engine.shallow.graph import build_shallow_graph, final_answer

        emit(PhaseChanged(phase="quick_research"))
        registry = SourceRegistry()
        tools = deps.tools_for(registry, None)
        shallow = build_shallow_graph(deps.model_for("researcher"), tools, deps.settings)
        # No checkpointer of its own: an interrupted quick run starts over with its sources.
        shallow = shallow.copy(update={"checkpointer": False})
        limit = (deps.settings.max_llm_turns + deps.settings.max_tool_iterations) * 3 + 10
        result = await shallow.ainvoke(
            {"messages": [HumanMessage(content=state.get("question", ""))]},
            {"recursion_limit": limit},
        )
        answer = final_answer(cast(Any, result))
        return {"final_report": answer, "registry": registry.to_dict()}

    return quick_research
