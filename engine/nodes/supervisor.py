"""research_supervisor: the hand-built `supervisor ⇄ supervisor_tools` loop.

    START → supervisor ─┬→ supervisor_tools ─┬→ supervisor (the next turn)
                        └→ END (budget)      ├→ research_unit × N (one Send each) → supervisor_tools
                                             └→ END (gate passed, caps, stalls, budget)

`supervisor` asks the orchestrator model for its next moves (ConductResearch, ResearchComplete,
think_tool). `supervisor_tools` answers them: it dispatches up to
`max_concurrent_research_units` researchers per wave (extra calls are skipped and the
supervisor is told), never more than `max_researcher_iterations` in total, and judges
ResearchComplete with the deterministic quality gate. Each dispatched unit is its own
`research_unit` task (a LangGraph `Send`), so a unit that fails or times out never cancels its
siblings, and a unit that finished before the process died is checkpointed and not re-run.
`supervisor_tools` emits `RuntimeProgress` on every pass: consumers never read message text.

The nodes are module-level functions; what they call out to arrives as the run's context,
`Runtime[EngineDeps]` (engine.nodes.deps.deps_of). What one `supervisor_tools` pass makes of
the supervisor's moves (answers, the wave to dispatch, the gate's verdict) is worked out in
engine.nodes.supervisor_turn; this module acts on it.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Literal, cast

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command, Send

from engine.budget import budget_reached
from engine.citations.evidence_keys import record_key, unseen_records
from engine.config import Settings
from engine.emit import emit
from engine.events import (
    EvidenceAdded,
    PhaseChanged,
    ResearchUnitSummary,
    ResearchUnitUpdated,
    RuntimeProgress,
    UnresearchedReason,
)
from engine.middleware.guarded import guarded_tool_call
from engine.model_task import ModelTask
from engine.nodes.common import ledger_records, plan_of, today
from engine.nodes.deps import EngineDeps, deps_of
from engine.nodes.gate import GateResult, evaluate_gate, source_domains
from engine.nodes.plan_dispatch import track_of_call, tracks_dispatch_message
from engine.nodes.report_estimate import report_tokens
from engine.nodes.researcher import UnitOutcome, prepare_researcher, run_research_unit
from engine.nodes.supervisor_turn import Turn, answer_calls, judge_completion, turn_of
from engine.nodes.track_coverage import unresearched_tracks
from engine.plan_order import track_order
from engine.prompt_blocks import format_plan
from engine.prompts import SUPERVISOR_PROMPT
from engine.schemas import ConductResearch, ResearchComplete, ResearchTrack
from engine.state import SupervisorOutput, SupervisorState, UnitInput

_SUMMARY_FIELDS = set(ResearchUnitSummary.model_fields)
# deps.cache entry: wave id → keys of the evidence its units have announced.
_ANNOUNCED_KEY = "announced_evidence"


def think_tool_schema() -> dict[str, Any]:
    """The supervisor's reflection tool (the researchers get the toolkit's own think_tool)."""
    return {
        "type": "function",
        "function": {
            "name": "think_tool",
            "description": "Record a reflection on progress and next steps. Takes no action.",
            "parameters": {
                "type": "object",
                "properties": {"reflection": {"type": "string"}},
                "required": ["reflection"],
            },
        },
    }


SUPERVISOR_TOOLS = (ConductResearch, ResearchComplete, think_tool_schema())


def summary_of(unit: dict[str, Any]) -> ResearchUnitSummary:
    return ResearchUnitSummary(**{k: v for k, v in unit.items() if k in _SUMMARY_FIELDS})


# ---- the supervisor: the orchestrator model's next moves ------------------------------


async def supervisor(
    state: SupervisorState, runtime: Runtime[EngineDeps]
) -> Command[Literal["supervisor_tools", "__end__"]]:
    """Ask the orchestrator model for its next moves; on the first pass, open the
    conversation (and compile the researcher while the model thinks)."""
    deps = deps_of(runtime)
    messages: list[BaseMessage] = list(state.get("supervisor_messages") or [])
    new: list[BaseMessage] = []
    if not messages:
        emit(PhaseChanged(phase="researching"))
        new = messages = _opening(state, deps.settings)
    stop = budget_reached(lambda: report_tokens(state, deps.settings))
    if stop is not None:
        # Kept, so research continued with a raised budget picks up this conversation.
        gate, verdict = _final_gate(state, deps.settings)
        units = dict(state.get("research_units") or {})
        skipped = state.get("skipped_units") or 0
        emit(
            _progress(
                state, units, deps.settings, gate=gate, skipped=skipped, ended="budget_reached"
            )
        )
        update = {"supervisor_messages": new, **verdict}
        return Command(goto="__end__", update={**update, "budget_stop": stop})
    tracks = tracks_to_dispatch(state, deps.settings)
    if tracks:
        # The approved tracks are researched before the model may add topics of its own.
        plan = plan_of(state.get("plan"))
        assert plan is not None  # tracks come from it
        await prepare_researcher(deps)
        reply: BaseMessage = tracks_dispatch_message(plan, tracks, state.get("question", ""))
        return Command(goto="supervisor_tools", update={"supervisor_messages": [*new, reply]})
    task = ModelTask(
        role="supervisor",
        question=state.get("question", ""),
        plan=plan_of(state.get("plan")),
        researched_tracks=researched_tracks(state),
        researched_calls=researched_calls(state),
    )
    call = guarded_tool_call(
        deps.model_for("orchestrator"), SUPERVISOR_TOOLS, messages, policy=deps.retry, task=task
    )
    if new:
        # The first wave needs the compiled researcher: build it while the model thinks.
        reply, _ = await asyncio.gather(call, prepare_researcher(deps))
    else:
        reply = await call
    return Command(
        goto="supervisor_tools",
        update={
            "supervisor_messages": [*new, reply],
            "supervisor_iteration": (state.get("supervisor_iteration") or 0) + 1,
        },
    )


def researched_tracks(state: SupervisorState) -> list[int]:
    """The plan tracks a research unit has run for (its calls skipped over a cap excluded)."""
    units = (state.get("research_units") or {}).values()
    return sorted(
        {u["track"] for u in units if u.get("track") is not None and u.get("status") != "running"}
    )


def researched_calls(state: SupervisorState) -> list[str]:
    """The `ConductResearch` calls a research unit has run for (none for a skipped call)."""
    units = (state.get("research_units") or {}).values()
    return sorted(
        {u["call_id"] for u in units if u.get("call_id") and u.get("status") != "running"}
    )


def dispatched_tracks(messages: list[BaseMessage]) -> set[int]:
    """The plan tracks already dispatched in this conversation."""
    found: set[int] = set()
    for message in messages:
        for call in getattr(message, "tool_calls", None) or []:
            track = track_of_call(str(call.get("id") or ""))
            if track is not None:
                found.add(track)
    return found


def tracks_to_dispatch(state: SupervisorState, settings: Settings) -> list[int]:
    """The next wave of plan tracks, in the person's order, within both caps."""
    plan = plan_of(state.get("plan"))
    if plan is None:
        return []
    done = dispatched_tracks(list(state.get("supervisor_messages") or []))
    order = track_order(
        plan, state.get("plan_requests") or [], state.get("plan_edited_tracks") or []
    )
    waiting = [index for index in order if index not in done]
    used = state.get("research_iterations") or len(state.get("research_units") or {})
    room = min(settings.max_concurrent_research_units, settings.max_researcher_iterations - used)
    return waiting[: max(0, room)]


def _opening(state: SupervisorState, settings: Settings) -> list[BaseMessage]:
    """The conversation's start: the supervisor prompt, the brief, the plan, findings so far."""
    system = SUPERVISOR_PROMPT.format(
        date=today(),
        max_concurrent=settings.max_concurrent_research_units,
        max_units=settings.max_researcher_iterations,
        min_records=settings.min_evidence_records,
        min_domains=settings.min_source_domains,
    )
    plan = plan_of(state.get("plan"))
    human = f"## Research brief\n{state.get('research_brief', '')}"
    if plan is not None:
        human += f"\n\n{format_plan(plan)}"
    carried = state.get("notes") or []
    if carried:
        human += "\n\n## Findings so far\n" + "\n".join(carried)
    return [SystemMessage(content=system), HumanMessage(content=human)]


# ---- supervisor_tools: answering the supervisor's moves ------------------------------


# Async although it never awaits: LangGraph runs sync nodes in a worker thread, a hop that
# costs every supervisor pass for nothing.
async def supervisor_tools(
    state: SupervisorState, runtime: Runtime[EngineDeps]
) -> Command[Literal["supervisor", "research_unit", "__end__"]]:
    """Answer the supervisor's moves: collect a finished wave, or dispatch the next one, or
    judge ResearchComplete with the quality gate, or stop at the budget."""
    deps = deps_of(runtime)
    settings = deps.settings
    if state.get("pending_dispatch"):
        return _collect_wave(state, deps)
    turn = turn_of(state)
    answer_calls(turn, settings)
    judge_completion(turn, state, settings)
    if not turn.dispatch:
        return _after_turn(turn, state, settings)
    stop = budget_reached(lambda: report_tokens(state, settings))
    if stop is not None:
        return _budget_stop(turn, state, settings, stop)
    return _dispatch_wave(turn, state, deps)


def _budget_stop(
    turn: Turn, state: SupervisorState, settings: Settings, stop: str
) -> Command[Literal["supervisor", "research_unit", "__end__"]]:
    """The budget is reached with a wave queued: nothing is dispatched and research ends."""
    update = turn.update()
    # Every dispatch call gets its answer, so the conversation stays well formed.
    update["supervisor_messages"] += [
        ToolMessage(
            content=f"[skipped: {stop}]", tool_call_id=item["call_id"], name="ConductResearch"
        )
        for item in turn.dispatch
    ]
    gate, verdict = _final_gate(state, settings)
    update.update(verdict, budget_stop=stop)
    units = dict(state.get("research_units") or {})
    emit(_progress(state, units, settings, gate=gate, skipped=turn.skipped, ended="budget_reached"))
    return Command(goto="__end__", update=update)


def _dispatch_wave(
    turn: Turn, state: SupervisorState, deps: EngineDeps
) -> Command[Literal["supervisor", "research_unit", "__end__"]]:
    """Start the queued units, each its own `research_unit` task."""
    queued: dict[str, dict[str, Any]] = {}
    plan = plan_of(state.get("plan"))
    for item in turn.dispatch:
        track = item.get("track")
        if plan is not None and track is not None and track < len(plan.tracks):
            item["queries"] = list(plan.tracks[track].queries)
            item["plan_track"] = plan.tracks[track].model_dump(mode="json")
        unit = {
            "id": item["unit_id"],
            "topic": item["topic"],
            "status": "running",
            "started_at": deps.clock(),
            "call_id": item["call_id"],
            "track": track,
        }
        queued[item["unit_id"]] = unit
        emit(ResearchUnitUpdated(unit=summary_of(unit)))
    wave_id = uuid.uuid4().hex
    known = [record_key(record) for record in state.get("evidence_ledger") or []]
    update = turn.update()
    update["research_units"] = queued
    update["pending_dispatch"] = [{**item, "wave_id": wave_id} for item in turn.dispatch]
    update["research_iterations"] = turn.dispatched + len(turn.dispatch)
    units = {**(state.get("research_units") or {}), **queued}
    emit(_progress(state, units, deps.settings, gate=turn.gate, skipped=turn.skipped))
    sends = [
        Send("research_unit", {**item, "wave_id": wave_id, "known_evidence": known})
        for item in turn.dispatch
    ]
    return Command(goto=sends, update=update)


def _after_turn(
    turn: Turn, state: SupervisorState, settings: Settings
) -> Command[Literal["supervisor", "research_unit", "__end__"]]:
    """Nothing dispatched: back to the supervisor, or the end of research."""
    update = turn.update()
    units = dict(state.get("research_units") or {})
    no_moves = not turn.pending and turn.last is not None and bool(turn.last.tool_calls)
    cap_reached = turn.dispatched >= settings.max_researcher_iterations
    ending = turn.finished or cap_reached or no_moves or _turns_exhausted(state, settings)
    gate = turn.gate
    if ending and not turn.finished:
        gate, verdict = _final_gate(state, settings)
        update.update(verdict)
    ended: UnresearchedReason | None = None
    if ending:
        enough = turn.finished and gate is not None and gate.passed
        ended = "enough_evidence" if enough else "unit_limit" if cap_reached else "research_stopped"
        if not enough:
            if cap_reached:
                kind = "unit_cap"
            elif turn.finished:
                kind = "stalled"
            elif no_moves:
                kind = "no_moves"
            else:
                kind = "turn_cap"
            update["research_stop"] = stop_cause(kind, len(units), settings)
    emit(_progress(state, units, settings, gate=gate, skipped=turn.skipped, ended=ended))
    return Command(goto="__end__" if ending else "supervisor", update=update)


def _collect_wave(
    state: SupervisorState, deps: EngineDeps
) -> Command[Literal["supervisor", "research_unit", "__end__"]]:
    """Every unit of the wave is back: answer each ConductResearch call with its result."""
    settings = deps.settings
    units = dict(state.get("research_units") or {})
    answers: list[ToolMessage] = []
    pending = state.get("pending_dispatch") or []
    for wave_id in {item.get("wave_id", "") for item in pending}:
        _announced_by_wave(deps).pop(wave_id, None)
    for item in pending:
        unit = units.get(item["unit_id"], {})
        if unit.get("status") == "completed":
            body = unit.get("note") or "(the researcher found nothing citable)"
            text = f"Research unit {item['unit_id']} completed.\n{body}"
        else:
            reason = unit.get("failure_reason") or "research unit execution failed"
            text = f"Research unit {item['unit_id']} failed: {reason}"
        answers.append(
            ToolMessage(content=text, tool_call_id=item["call_id"], name="ConductResearch")
        )
    skipped = state.get("skipped_units") or 0
    update: dict[str, Any] = {"supervisor_messages": answers, "pending_dispatch": []}
    done = (state.get("research_iterations") or 0) >= settings.max_researcher_iterations
    if done or _turns_exhausted(state, settings):
        gate, verdict = _final_gate(state, settings)
        update.update(verdict)
        if not gate.passed:
            update["research_stop"] = stop_cause(
                "unit_cap" if done else "turn_cap", len(units), settings
            )
        ended: UnresearchedReason = "unit_limit" if done else "research_stopped"
        emit(_progress(state, units, settings, gate=gate, skipped=skipped, ended=ended))
        return Command(goto="__end__", update=update)
    emit(_progress(state, units, settings, gate=None, skipped=skipped))
    return Command(goto="supervisor", update=update)


def _progress(
    state: SupervisorState,
    units: dict[str, dict[str, Any]],
    settings: Settings,
    *,
    gate: GateResult | None,
    skipped: int,
    ended: UnresearchedReason | None = None,
) -> RuntimeProgress:
    """The pass's progress; `ended` (why research ends, on the pass that ends it) adds the
    plan's tracks no unit took up."""
    records = ledger_records(state.get("evidence_ledger"))
    domains = gate.domains if gate else source_domains(records)
    unresearched: list[str] = []
    if ended is not None:
        unresearched = unresearched_tracks(plan_of(state.get("plan")), units.values())
    return RuntimeProgress(
        supervisor_iteration=state.get("supervisor_iteration") or 0,
        dispatched_research_units=len(units),
        skipped_research_units=skipped,
        quality_gate_status=gate.status if gate else "none",
        quality_gate_reason=gate.reason if gate else None,
        min_evidence_records=settings.min_evidence_records,
        min_source_domains=settings.min_source_domains,
        evidence_record_count=len(records),
        source_domain_count=len(domains),
        source_domains=domains,
        research_units=[summary_of(unit) for unit in units.values()],
        unresearched_tracks=unresearched,
        unresearched_reason=ended if unresearched and ended else "none",
    )


def _final_gate(state: SupervisorState, settings: Settings) -> tuple[GateResult, dict[str, Any]]:
    """The gate's verdict on the ledger research ends with, said aloud when it fails, and
    the state update that records it. The caller reports the verdict in the pass's
    `RuntimeProgress`, so every consumer has it as soon as research ends, not from the
    report."""
    gate = evaluate_gate(
        ledger_records(state.get("evidence_ledger")),
        min_records=settings.min_evidence_records,
        min_domains=settings.min_source_domains,
    )
    if not gate.passed:
        emit(
            PhaseChanged(
                phase="researching",
                detail=f"research stopped before the quality gate passed: {gate.reason}",
            )
        )
    return gate, {"gate_status": gate.status, "gate_reason": gate.reason}


def stop_cause(kind: str, units_run: int, settings: Settings) -> str:
    """What ended research before the gate passed, with the limit's setting and value."""
    cap = settings.max_researcher_iterations
    if kind == "unit_cap":
        return f"it reached its limit of {cap} research units (MAX_RESEARCHER_ITERATIONS)"
    if kind == "turn_cap":
        return (
            f"the supervisor reached its limit of {cap + 10} turns "
            f"(MAX_RESEARCHER_ITERATIONS + 10) after {units_run} of {cap} research units"
        )
    if kind == "stalled":
        return (
            f"the supervisor found no new evidence to add after {units_run} of at most "
            f"{cap} research units"
        )
    return f"the supervisor dispatched nothing more after {units_run} of at most {cap} units"


def _turns_exhausted(state: SupervisorState, settings: Settings) -> bool:
    # The supervisor also thinks and calls ResearchComplete; this bounds a model that never
    # stops doing so without dispatching anything.
    iteration = state.get("supervisor_iteration") or 0
    return iteration >= settings.max_researcher_iterations + 10


# ---- research_unit: one researcher on one topic --------------------------------------


async def research_unit(
    item: UnitInput, runtime: Runtime[EngineDeps]
) -> Command[Literal["supervisor_tools"]]:
    """Run one researcher; its outcome (failed or timed out included) goes back to
    `supervisor_tools`, which answers the wave once every unit of it is back."""
    deps = deps_of(runtime)
    track = item.get("plan_track")
    outcome = await run_research_unit(
        deps,
        item["unit_id"],
        item["topic"],
        queries=item.get("queries"),
        track=ResearchTrack.model_validate(track) if track else None,
    )
    known = set(item.get("known_evidence") or [])
    outcome.records = [record for record in outcome.records if record_key(record) not in known]
    # What a sibling announced first is not announced again. Every copy is stored, in
    # dispatch order, and the ledger is read each piece of evidence once: the session's
    # ledger and report do not depend on which unit happened to finish first.
    announced = unseen_records(outcome.records, _announced_in(item.get("wave_id", ""), deps))
    unit = _unit_record(outcome, item["call_id"], evidence_count=len(announced))
    unit["track"] = item.get("track")
    emit(ResearchUnitUpdated(unit=summary_of(unit)))
    for record in announced:
        emit(EvidenceAdded(record=record))
    update: dict[str, Any] = {
        "research_units": {outcome.unit_id: unit},
        "evidence_ledger": [r.model_dump(mode="json") for r in outcome.records],
        "registry": outcome.registry,
    }
    if outcome.notes:
        update["notes"] = [outcome.notes]
    if outcome.raw_notes:
        update["raw_notes"] = [outcome.raw_notes]
    return Command(goto="supervisor_tools", update=update)


def _announced_by_wave(deps: EngineDeps) -> dict[str, set[str]]:
    """Per wave, the evidence its units have announced so far. Units of one wave run at once
    in this process and share the run's context, so a sibling's record is seen here before
    the wave is merged into the ledger. Nothing awaits between a unit's check and its claim,
    so two siblings finishing together cannot both announce the same record."""
    return cast(dict[str, set[str]], deps.cache.setdefault(_ANNOUNCED_KEY, {}))


def _announced_in(wave_id: str, deps: EngineDeps) -> set[str]:
    return _announced_by_wave(deps).setdefault(wave_id, set())


def build_supervisor_graph() -> Any:
    """Compile the supervisor subgraph (its own state schema, `SupervisorState`). Its nodes
    read their dependencies from the run's context; the subgraph shares its parent's."""
    graph = StateGraph(SupervisorState, context_schema=EngineDeps, output_schema=SupervisorOutput)
    graph.add_node("supervisor", supervisor)
    graph.add_node("supervisor_tools", supervisor_tools)
    graph.add_node("research_unit", cast(Any, research_unit))
    graph.add_edge(START, "supervisor")
    return graph.compile()


def _unit_record(outcome: UnitOutcome, call_id: str, *, evidence_count: int) -> dict[str, Any]:
    return {
        "id": outcome.unit_id,
        "topic": outcome.topic,
        "status": outcome.status,
        "started_at": outcome.started_at,
        "finished_at": outcome.finished_at,
        "duration_seconds": outcome.duration_seconds,
        "tool_call_count": outcome.tool_call_count,
        "evidence_count": evidence_count,
        "failure_reason": outcome.failure_reason,
        "call_id": call_id,
        "note": outcome.notes,
    }
