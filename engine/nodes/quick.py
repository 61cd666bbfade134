"""quick_research: the bounded shallow loop for quick questions, then straight to verification.

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
from engine.nodes.extraction import findings_from_messages
from engine.state import ResearchState


async def quick_research(state: ResearchState, runtime: Runtime[EngineDeps]) -> dict[str, Any]:
    """Answer with the shallow loop, reported as one research unit; the verifier follows."""
    from engine.shallow.graph import build_shallow_graph, final_answer

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
    shallow = build_shallow_graph(deps.model_for("researcher"), tools, settings)
    # No checkpointer of its own: an interrupted quick run starts over with its sources.
    # No recursion limit either: the shallow graph carries its own, sized to its budget.
    shallow = shallow.copy(update={"checkpointer": False})
    try:
        result = await shallow.ainvoke({"messages": [HumanMessage(content=question)]})
    except Exception:
        finished = deps.clock()
        failed = running.model_copy(
            update={
                "status": "failed",
                "finished_at": finished,
                "duration_seconds": round(finished - started, 3),
                "failure_reason": "research unit execution failed",
            }
        )
        emit(ResearchUnitUpdated(unit=failed))
        raise
    findings = findings_from_messages(
        cast(Any, result).get("messages", []),
        registry,
        unit_id=unit_id,
        max_claims=settings.max_evidence_claims_per_research_unit,
        max_sources_per_claim=settings.max_source_urls_per_claim,
        max_bullets=settings.supervisor_notes_max_bullets,
        word_budget=settings.supervisor_notes_word_budget,
    )
    for record in findings.records:
        emit(EvidenceAdded(record=record))
    finished = deps.clock()
    completed = running.model_copy(
        update={
            "status": "completed",
            "finished_at": finished,
            "duration_seconds": round(finished - started, 3),
            "tool_call_count": findings.tool_call_count,
            "evidence_count": len(findings.records),
        }
    )
    emit(ResearchUnitUpdated(unit=completed))
    ledger = [*(state.get("evidence_ledger") or [])]
    ledger += [record.model_dump(mode="json") for record in findings.records]
    return {
        "final_report": final_answer(cast(Any, result)),
        "registry": registry.to_dict(),
        "evidence_ledger": ledger,
        "budget_stop": research_was_stopped(),
    }
