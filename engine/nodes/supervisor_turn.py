"""What one `supervisor_tools` pass makes of the supervisor's latest moves.

`turn_of` reads the moves still unanswered; `answer_calls` records reflections and queues
ConductResearch within the caps (the rest is skipped, and the supervisor told why);
`judge_completion` weighs ResearchComplete (or a reply in prose) with the quality gate and
counts stalls. None of them emits or dispatches: the node (engine.nodes.supervisor) acts on
the `Turn` they fill in. The approved plan's tracks are dispatched before the model is asked
anything (engine.nodes.plan_dispatch); their calls are queued here like the model's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from engine.config import Settings
from engine.nodes.common import ledger_records
from engine.nodes.gate import GateResult, evaluate_gate
from engine.nodes.plan_dispatch import track_of_call
from engine.state import SupervisorState, UnitInput

REJECTED_PREFIX = "[ResearchComplete rejected:"
# A ResearchComplete rejected again with no new evidence since the last rejection is a stall;
# after this many stalls research ends anyway (the report shows what was found) rather than
# looping until the total cap.
MAX_STALLED_REJECTIONS = 1


def unit_id_for(run_number: int, index: int) -> str:
    return f"unit-{index}" if run_number <= 1 else f"unit-{run_number}.{index}"


def _pending_calls(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Tool calls of the last AI message that have no ToolMessage answer yet."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return [dict(call) for call in message.tool_calls if call.get("id") not in answered]
    return []


def _last_ai(messages: Sequence[BaseMessage]) -> AIMessage | None:
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return message
    return None


@dataclass
class Turn:
    """What one `supervisor_tools` pass makes of the supervisor's latest moves."""

    pending: list[dict[str, Any]]
    last: AIMessage | None
    # Units of this run dispatched before this turn (before a budget stop too).
    dispatched: int
    run_number: int
    skipped: int
    stalled: int
    answers: list[BaseMessage] = field(default_factory=list)
    # Said to the supervisor after the answers: a gate rejection of a prose reply.
    notices: list[BaseMessage] = field(default_factory=list)
    plan_calls: list[BaseMessage] = field(default_factory=list)
    dispatch: list[UnitInput] = field(default_factory=list)
    gate: GateResult | None = None
    finished: bool = False

    @property
    def wants_complete(self) -> bool:
        """ResearchComplete called, or a reply in prose (no tool calls at all)."""
        return any(c["name"] == "ResearchComplete" for c in self.pending) or (
            self.last is not None and not self.last.tool_calls
        )

    def calls(self, name: str) -> list[dict[str, Any]]:
        return [c for c in self.pending if c["name"] == name]

    def update(self) -> dict[str, Any]:
        update: dict[str, Any] = {
            "supervisor_messages": [*self.answers, *self.notices, *self.plan_calls],
            "skipped_units": self.skipped,
            "stalled_rejections": self.stalled,
        }
        if self.gate is not None:
            update["gate_status"] = self.gate.status
            update["gate_reason"] = self.gate.reason
            update["records_at_last_gate"] = self.gate.record_count
        return update


def turn_of(state: SupervisorState) -> Turn:
    messages: list[BaseMessage] = list(state.get("supervisor_messages") or [])
    return Turn(
        pending=_pending_calls(messages),
        last=_last_ai(messages),
        dispatched=state.get("research_iterations") or len(state.get("research_units") or {}),
        run_number=state.get("run_number") or 1,
        skipped=state.get("skipped_units") or 0,
        stalled=state.get("stalled_rejections") or 0,
    )


def answer_calls(turn: Turn, settings: Settings) -> None:
    """Answer every pending call but ResearchComplete (judged after): reflections are
    recorded, research is queued for dispatch within the caps, unknown tools are errors."""
    for call in turn.pending:
        name = call["name"]
        if name == "think_tool":
            reflection = str(call.get("args", {}).get("reflection", "")).strip()
            turn.answers.append(tool_answer(call, f"Reflection recorded: {reflection}"))
        elif name == "ConductResearch":
            _queue_research(turn, call, settings)
        elif name != "ResearchComplete":
            turn.answers.append(
                tool_answer(
                    call,
                    f"Error: there is no tool named {name!r}. Available tools: "
                    "ConductResearch, ResearchComplete, think_tool.",
                )
            )


NOT_A_TOPIC = (
    "Error: research_topic must be the topic itself, written as text (one or two sentences); "
    "you sent a {kind}. Call ConductResearch again with the topic."
)


def _queue_research(turn: Turn, call: dict[str, Any], settings: Settings) -> None:
    """One ConductResearch call: queued as a unit, or answered with why it was not."""
    given = call.get("args", {}).get("research_topic", "")
    topic = given.strip() if isinstance(given, str) else ""
    budget_left = settings.max_researcher_iterations - turn.dispatched - len(turn.dispatch)
    if not isinstance(given, str):
        # A small model sends the parameter's schema (`{"type": "string", "description": …}`)
        # as its value; researched as written, that is minutes spent on no topic at all.
        turn.answers.append(tool_answer(call, NOT_A_TOPIC.format(kind=type(given).__name__)))
    elif not topic:
        turn.answers.append(tool_answer(call, "Error: research_topic is empty."))
    elif len(turn.dispatch) >= settings.max_concurrent_research_units:
        turn.skipped += 1
        turn.answers.append(
            tool_answer(
                call,
                f"[skipped: at most {settings.max_concurrent_research_units} "
                "research units run at once; dispatch it again in the next wave]",
            )
        )
    elif budget_left <= 0:
        turn.skipped += 1
        turn.answers.append(
            tool_answer(
                call,
                f"[skipped: the total of {settings.max_researcher_iterations} "
                "research units is used up]",
            )
        )
    else:
        index = turn.dispatched + len(turn.dispatch) + 1
        turn.dispatch.append(
            UnitInput(
                unit_id=unit_id_for(turn.run_number, index),
                topic=topic,
                call_id=call.get("id") or "",
                track=track_of_call(call.get("id") or ""),
            )
        )


def judge_completion(turn: Turn, state: SupervisorState, settings: Settings) -> None:
    """Judge ResearchComplete (or a prose reply) with the quality gate; ignore it when research
    was dispatched in the same turn. A rejection with no new evidence since the last one is a
    stall, and enough stalls end research anyway."""
    complete_calls = turn.calls("ResearchComplete")
    if not turn.wants_complete or turn.calls("ConductResearch"):
        turn.answers += [
            tool_answer(
                call,
                "ResearchComplete ignored: research was dispatched in the same turn; "
                "call it again once the results are in.",
            )
            for call in complete_calls
        ]
        return
    records = ledger_records(state.get("evidence_ledger"))
    gate = turn.gate = evaluate_gate(
        records,
        min_records=settings.min_evidence_records,
        min_domains=settings.min_source_domains,
    )
    if gate.passed:
        turn.finished = True
        text = "Research complete: the evidence passed the quality gate."
    else:
        previous = state.get("records_at_last_gate")
        new_evidence = previous is None or len(records) > previous
        turn.stalled = 0 if new_evidence else turn.stalled + 1
        text = f"{REJECTED_PREFIX} {gate.reason}. Dispatch research on what is missing.]"
        turn.finished = turn.stalled >= MAX_STALLED_REJECTIONS
    turn.answers += [tool_answer(call, text) for call in complete_calls]
    if not complete_calls and not gate.passed and not turn.finished:
        turn.notices = [HumanMessage(content=text)]


def tool_answer(call: dict[str, Any], text: str) -> ToolMessage:
    return ToolMessage(content=text, tool_call_id=call.get("id") or "", name=call["name"])
