"""scope_intake: clarify (one question at most), write the brief, plan, and plan review.

A small subgraph over the main state, one node per step, so that code before each
`interrupt()` is trivial to re-run on resume: the question and the plan are stored in state
by the node before the one that interrupts.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt
from pydantic import ValidationError

from engine.config import Settings
from engine.emit import emit
from engine.events import PhaseChanged, PlanApproved
from engine.middleware.structured_output import invoke_structured
from engine.model_task import ModelTask
from engine.nodes.clarification_check import asks_the_question_back
from engine.nodes.common import plan_of, today
from engine.nodes.deps import EngineDeps, deps_of
from engine.nodes.plan_edits import keep_edits
from engine.nodes.plan_framing import with_subject_tracks
from engine.nodes.plan_queries import with_searchable_queries
from engine.nodes.plan_sections import with_named_sections
from engine.nodes.topic import topic_shifted
from engine.plan_order import edited_titles
from engine.prompts import (
    BRIEF_PROMPT,
    CLARIFY_PROMPT,
    CURRENT_PLAN_HEADING,
    PLAN_FEEDBACK,
    PLAN_PROMPT,
)
from engine.quick.retrieval import focused
from engine.schemas import (
    ClarifyWithUser,
    PlanDecision,
    ResearchBrief,
    ResearchPlan,
    brief_from_text,
    with_distinct_sections,
)
from engine.state import ResearchState

# What a topic shift clears: the previous topic's research must not leak into the new report.
RESET_RESEARCH: dict[str, Any] = {
    "notes": [],
    "raw_notes": [],
    "evidence_ledger": [],
    "supervisor_messages": [],
    "research_units": {},
    "registry": {},
    "research_brief": "",
}


def describe_validation_error(exc: ValidationError) -> str:
    """A one-line reason a person can act on, naming the field at fault."""
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "plan") or "plan"
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def asked_question(state: ResearchState) -> str:
    """The person's question with their answer to the clarifying question, if one was asked."""
    question = state.get("question", "").strip()
    answer = (state.get("clarification_answer") or "").strip()
    if answer and answer not in question:
        return f"{question} {answer}"
    return question


def build_scope_graph() -> Any:
    """Compile the scope_intake subgraph. Its nodes read their dependencies from the run's
    context; the subgraph shares its parent's."""
    graph = StateGraph(ResearchState, context_schema=EngineDeps)
    graph.add_node("clarify", clarify)
    graph.add_node("ask_clarification", ask_clarification)
    graph.add_node("write_brief", write_brief)
    graph.add_node("draft_plan", draft_plan)
    graph.add_node("review_plan", review_plan)
    graph.add_edge(START, "clarify")
    graph.add_edge("ask_clarification", "write_brief")
    graph.add_edge("write_brief", "draft_plan")
    graph.add_edge("draft_plan", "review_plan")
    return graph.compile()


async def clarify(
    state: ResearchState, runtime: Runtime[EngineDeps]
) -> Command[Literal["ask_clarification", "write_brief", "draft_plan"]]:
    deps = deps_of(runtime)
    emit(PhaseChanged(phase="scoping"))
    question = state.get("question", "")
    previous = state.get("previous_question") or ""
    brief = state.get("research_brief") or ""
    if previous and brief and not topic_shifted(previous, question):
        followup = f"{brief}\n\nFollow-up request: {question}"
        return Command(goto="draft_plan", update={"research_brief": followup})
    reset = dict(RESET_RESEARCH) if previous else {}
    decision = await invoke_structured(
        deps.model_for("orchestrator"),
        ClarifyWithUser,
        [SystemMessage(content=CLARIFY_PROMPT.format(date=today())), HumanMessage(question)],
        policy=deps.retry,
        task=ModelTask(role="clarify", question=question),
    )
    asked = decision.question.strip()
    if decision.need_clarification and asked and not asks_the_question_back(asked, question):
        update = {**reset, "clarification_question": asked}
        return Command(goto="ask_clarification", update=update)
    return Command(goto="write_brief", update=reset)


# The nodes that interrupt emit no phase: they re-run from the top when the person answers,
# so the runner announces "clarifying" and "plan_review" with the pause instead.
async def ask_clarification(state: ResearchState) -> dict[str, Any]:
    question = state.get("clarification_question", "")
    answer = interrupt({"kind": "clarification", "question": question})
    text = str(answer).strip()
    return {
        "clarification_answer": text,
        "messages": [AIMessage(content=question), HumanMessage(content=text)],
    }


async def write_brief(state: ResearchState, runtime: Runtime[EngineDeps]) -> dict[str, Any]:
    deps = deps_of(runtime)
    emit(PhaseChanged(phase="scoping", detail="writing the research brief"))
    request = f"Request: {state.get('question', '')}"
    if state.get("clarification_answer"):
        request += (
            f"\nClarifying question: {state.get('clarification_question', '')}"
            f"\nAnswer: {state['clarification_answer']}"
        )
    brief = await invoke_structured(
        deps.model_for("orchestrator"),
        ResearchBrief,
        [SystemMessage(content=BRIEF_PROMPT.format(date=today())), HumanMessage(request)],
        from_text=brief_from_text,
        policy=deps.retry,
        task=ModelTask(role="brief", question=asked_question(state)),
    )
    return {"research_brief": brief.research_brief}


async def draft_plan(state: ResearchState, runtime: Runtime[EngineDeps]) -> dict[str, Any]:
    deps = deps_of(runtime)
    emit(PhaseChanged(phase="planning"))
    question = state.get("question", "")
    brief = state.get("research_brief", "")
    grounding = await _grounding_results(deps, question, brief)
    feedback = state.get("plan_feedback") or ""
    system = PLAN_PROMPT.format(
        date=today(), feedback=PLAN_FEEDBACK.format(feedback=feedback) if feedback else ""
    )
    human = f"Question: {question}\n\n## Research brief\n{brief}"
    current = state.get("plan")
    task = ModelTask(role="plan", question=asked_question(state), search_results=grounding)
    if feedback and current:
        task = task.model_copy(update={"plan": plan_of(current), "feedback": feedback})
        # Revise the plan the person saw (with their edits), not a fresh one.
        human += f"\n\n{CURRENT_PLAN_HEADING}\n{json.dumps(current, ensure_ascii=False)}"
    if grounding:
        human += f"\n\n## Search results\n{grounding}"
    plan = await invoke_structured(
        deps.model_for("planner"),
        ResearchPlan,
        [SystemMessage(content=system), HumanMessage(human)],
        policy=deps.retry,
        repair=with_distinct_sections,
        task=task,
    )
    plan = with_subject_tracks(with_searchable_queries(plan, grounding), question, grounding)
    revised = with_named_sections(plan, question).model_dump(mode="json")
    proposed = state.get("plan_before_edits")
    if feedback and current and proposed:
        revised = keep_edits(proposed, current, revised)
    return {
        "plan": revised,
        "plan_before_edits": None,
        "plan_revision": (state.get("plan_revision") or 0) + 1,
        "plan_status": "proposed",
        "plan_feedback": "",
        "rejected_edit_reason": None,
    }


async def review_plan(
    state: ResearchState, runtime: Runtime[EngineDeps]
) -> Command[Literal["draft_plan", "review_plan", "__end__"]]:
    raw = interrupt(
        {
            "kind": "plan_review",
            "plan": state.get("plan"),
            "revision": state.get("plan_revision") or 1,
            "rejected_edit_reason": state.get("rejected_edit_reason"),
            # What decides which tracks research reaches, so the review can show it.
            "max_research_units": deps_of(runtime).settings.max_researcher_iterations,
            "requests": list(state.get("plan_requests") or []),
            "edited_tracks": list(state.get("plan_edited_tracks") or []),
        }
    )
    try:
        decision = PlanDecision.model_validate(raw)
    except ValidationError as exc:
        reason = describe_validation_error(exc)
        return Command(goto="review_plan", update={"rejected_edit_reason": reason})
    if decision.action == "cancel":
        return Command(goto="__end__", update={"plan_status": "cancelled", "status": "cancelled"})
    if decision.action == "revise":
        requests = [*(state.get("plan_requests") or []), decision.feedback]
        revise: dict[str, Any] = {"plan_feedback": decision.feedback, "plan_requests": requests}
        if decision.plan is not None:  # the person's edits travel with the feedback
            revise["plan"] = decision.plan.model_dump(mode="json")
            revise["plan_edited_tracks"] = _edited_titles(state, decision.plan)
            # Kept to tell the person's edits from the model's: a revision that undoes one
            # gets it back.
            revise["plan_before_edits"] = state.get("plan")
        return Command(goto="draft_plan", update=revise)
    update: dict[str, Any] = {"plan_status": "approved", "rejected_edit_reason": None}
    approved = state.get("plan")
    edited = decision.action == "edit" and decision.plan is not None
    if edited and decision.plan is not None:
        approved = update["plan"] = decision.plan.model_dump(mode="json")
        update["plan_edited_tracks"] = _edited_titles(state, decision.plan)
    if approved:
        # The plan research runs on, stored with the session's events: a reopened
        # session shows it approved, with the person's edits.
        plan = ResearchPlan.model_validate(approved)
        revision = state.get("plan_revision") or 1
        emit(PlanApproved(plan=plan, revision=revision, edited=edited))
    return Command(goto="__end__", update=update)


def _edited_titles(state: ResearchState, edited: ResearchPlan) -> list[str]:
    """The tracks the person wrote or changed, with those they edited at earlier reviews."""
    shown = state.get("plan")
    proposed = ResearchPlan.model_validate(shown) if shown else None
    return edited_titles(proposed, edited, state.get("plan_edited_tracks"))


async def _grounding_results(deps: EngineDeps, question: str, brief: str) -> str:
    """Up to `planner_searches` searches so the tracks rest on what exists (best effort)."""
    search = deps.planner_search
    limit = deps.settings.planner_searches
    if search is None or limit == 0:
        return ""
    queries: list[str] = []
    for candidate in [question, *brief.replace("\n", " ").split(". ")]:
        cleaned = " ".join(candidate.split())[:300]
        if len(cleaned) > 8 and cleaned not in queries:
            queries.append(cleaned)
    blocks: list[str] = []
    for query in queries[:limit]:
        try:
            found = await search(query)
        except Exception:  # noqa: S112  # grounding is optional: a failed search plans without it
            continue
        if found.strip():
            shown = focused(found.strip(), query, PLANNER_PASSAGE_CHARS)
            blocks.append(f"### {query}\n{shown}")
    return "\n\n".join(clip_blocks(blocks, grounding_budget_chars(deps.settings)))


# The plan's search results get a twelfth of the window, and each result its best couple of
# sentences for the query: a small CPU model reads a prompt at tens of tokens per second, and
# tracks rest on which pages exist and what they cover, not on whole passages (every result
# of four searches fits a 16k-token window, where whole passages showed each search's first
# one or two; smaller windows still cut the last results).
GROUNDING_WINDOW_SHARE = 12
PLANNER_PASSAGE_CHARS = 200
CHARS_PER_TOKEN = 4


def grounding_budget_chars(settings: Settings) -> int:
    return settings.model_max_input_tokens // GROUNDING_WINDOW_SHARE * CHARS_PER_TOKEN


def clip_blocks(blocks: list[str], budget_chars: int) -> list[str]:
    """Each block cut at a line end to an equal share of `budget_chars`."""
    if not blocks or sum(len(block) for block in blocks) <= budget_chars:
        return blocks
    share = budget_chars // len(blocks)
    clipped = []
    for block in blocks:
        if len(block) > share:
            cut = block.rfind("\n", 0, share)
            block = block[: cut if cut > 0 else share].rstrip() + "\n…"
        clipped.append(block)
    return clipped
