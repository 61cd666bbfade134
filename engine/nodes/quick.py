"""quick_research: the bounded loop of `engine.quick` answers, then straight to verification.

The quick path reports itself like one research unit (`quick-N`): its tool calls, the
evidence its cited answer carries and its duration reach the same panes as a deep run's.
"""

from __future__ import annotations

from typing import Any, cast

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from engine.budget import research_was_stopped
from engine.citations.registry import SourceRegistry
from engine.emit import emit
from engine.events import EvidenceAdded, PhaseChanged, ResearchUnitSummary, ResearchUnitUpdated
from engine.nodes.deps import EngineDeps, deps_of
from engine.nodes.extraction import unit_findings
from engine.state import ResearchState

FAILURE_REASON = "research unit execution failed"


def _unit_ended(running: ResearchUnitSummary, finished: float, status: str, **details: Any) -> None:
    """Announce the quick unit's end: its status, when, how long it took, and what it did."""
    started = finished if running.started_at is None else running.started_at
    update = {
        "status": status,
        "finished_at": finished,
        "duration_seconds": round(finished - started, 3),
        **details,
    }
    emit(ResearchUnitUpdated(unit=running.model_copy(update=update)))


async def quick_research(state: ResearchState, runtime: Runtime[EngineDeps]) -> dict[str, Any]:
    """Answer with the bounded quick loop, reported as one research unit; the verifier follows."""
    from engine.quick.graph import build_quick_graph, final_answer

    deps = deps_of(runtime)
    settings = deps.settings
    emit(PhaseChanged(phase="quick_research"))
    question = state.get("question", "")
    unit_id = f"quick-{state.get('run_number') or 1}"
    started = deps.clock()
    running = ResearchUnitSummary(id=unit_id, topic=question, status="running", started_at=started)
    emit(ResearchUnitUpdated(unit=running))
    registry = SourceRegistry()
    tools = deps.tools_for(registry, unit_id, question)
    # The offline model reads the engine's first search as the tool result it is; a chat model
    # is shown it as one turn of numbered passages and answers from them first.
    chat_model = not settings.role_model("researcher").offline
    quick_graph = build_quick_graph(
        deps.model_for("researcher"), tools, settings, chat_model=chat_model
    )
    # No checkpointer of its own: an interrupted quick run starts over with its sources.
    # No recursion limit either: the quick graph carries its own, sized to its budget.
    quick_graph = quick_graph.copy(update={"checkpointer": False})
    try:
        result = await quick_graph.ainvoke({"messages": [HumanMessage(content=question)]})
    except Exception:
        _unit_ended(running, deps.clock(), "failed", failure_reason=FAILURE_REASON)
        raise
    findings = unit_findings(cast(Any, result).get("messages", []), registry, unit_id, settings)
    for record in findings.records:
        emit(EvidenceAdded(record=record))
    _unit_ended(
        running,
        deps.clock(),
        "completed",
        tool_call_count=findings.tool_call_count,
        evidence_count=len(findings.records),
    )
    ledger = [*(state.get("evidence_ledger") or [])]
    ledger += [record.model_dump(mode="json") for record in findings.records]
    return {
        "final_report": final_answer(cast(Any, result)),
        "registry": registry.to_dict(),
        "evidence_ledger": ledger,
        "budget_stop": research_was_stopped(),
    }
