"""route_question: quick lookup or deep research; also starts each run with clean per-run state."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime
from langgraph.types import Command

from engine.emit import emit
from engine.events import PhaseChanged, RouteDecided
from engine.nodes.deps import EngineDeps, deps_of
from engine.schemas import RouteDecision
from engine.state import ResearchState

# Per-run fields a follow-up question must not inherit from the previous run.
RUN_RESET: dict[str, Any] = {
    "plan": None,
    "plan_revision": 0,
    "plan_status": "",
    "plan_feedback": "",
    "plan_requests": [],
    "plan_edited_tracks": [],
    "rejected_edit_reason": None,
    "clarification_question": "",
    "clarification_answer": "",
    "supervisor_messages": [],
    "research_units": {},
    "final_report": "",
    "writer_fallback": None,
    "verified_report": "",
    "gate_status": "none",
    "gate_reason": None,
    "budget_stop": None,
    "research_stop": None,
    "status": "running",
}


async def route_question(
    state: ResearchState, runtime: Runtime[EngineDeps]
) -> Command[Literal["scope_intake", "quick_research"]]:
    """Decide quick or deep (the router, unless the quick path is off) and reset the run."""
    deps = deps_of(runtime)
    emit(PhaseChanged(phase="routing"))
    requested = state.get("mode") or deps.settings.research_mode
    question = state.get("question", "")
    if deps.quick_path:
        from engine.nodes.router import decide_route

        decision, overridden = await decide_route(
            deps.model_for("orchestrator"),
            question,
            requested,  # type: ignore[arg-type]
        )
    else:
        decision = RouteDecision(mode="deep", reason="every question gets deep research")
        overridden = requested == "quick"
    emit(RouteDecided(mode=decision.mode, reason=decision.reason, overridden=overridden))
    update = {
        **RUN_RESET,
        "route": decision.mode,
        "route_reason": decision.reason,
        "run_number": (state.get("run_number") or 0) + 1,
    }
    goto: Literal["scope_intake", "quick_research"] = (
        "quick_research" if decision.mode == "quick" else "scope_intake"
    )
    return Command(goto=goto, update=update)
