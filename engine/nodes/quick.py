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
        # No recursion limit either: the shallow graph carries its own, sized to its budget.
        shallow = shallow.copy(update={"checkpointer": False})
        result = await shallow.ainvoke(
            {"messages": [HumanMessage(content=state.get("question", ""))]}
        )
        answer = final_answer(cast(Any, result))
        return {"final_report": answer, "registry": registry.to_dict()}

    return quick_research
