"""The offline model reads the engine's revision and clarification formats."""

from __future__ import annotations

import json

from langchain_core.messages import HumanMessage, SystemMessage

from engine.models.offline.conversation import Conversation
from engine.models.offline.plan import needs_clarification, plan_for
from engine.models.offline.policy import structured_args
from engine.prompts import CURRENT_PLAN_HEADING, PLAN_FEEDBACK
from engine.schemas import ResearchPlan

QUESTION = "How does asyncio schedule coroutines?"


def plan_request(feedback: str, plan: ResearchPlan | None, brief_question: str = QUESTION):
    system = "Draft a plan." + (PLAN_FEEDBACK.format(feedback=feedback) if feedback else "")
    human = f"Question: {QUESTION}\n\n## Research brief\nResearch question: {brief_question}\n"
    if plan is not None:
        human += f"\n{CURRENT_PLAN_HEADING}\n{json.dumps(plan.model_dump())}"
    return Conversation([SystemMessage(system), HumanMessage(human)])


def test_revision_keeps_the_edits_and_applies_the_feedback() -> None:
    plan = plan_for(QUESTION)
    edited = plan.model_copy(deep=True)
    edited.tracks[1] = edited.tracks[1].model_copy(update={"title": "My own title"})
    feedback = "add a track on performance; drop the pitfalls track"
    revised = ResearchPlan.model_validate(
        structured_args("ResearchPlan", plan_request(feedback, edited))
    )
    titles = [track.title for track in revised.tracks]
    assert "My own title" in titles  # the person's edit survives
    assert any("performance" in title for title in titles)
    assert not any("pitfalls" in title for title in titles)


def test_feedback_that_cannot_apply_returns_the_same_plan() -> None:
    plan = plan_for(QUESTION)
    same = structured_args("ResearchPlan", plan_request("drop the unicorn track", plan))
    assert ResearchPlan.model_validate(same) == plan


def test_the_plan_follows_the_clarification_answer() -> None:
    answered = f"{QUESTION} task cancellation"
    args = structured_args("ResearchPlan", plan_request("", None, brief_question=answered))
    text = json.dumps(args).lower()
    assert "cancellation" in text


def test_only_a_bare_topic_gets_a_clarifying_question() -> None:
    assert needs_clarification("asyncio?", already_asked=False)
    for clear in ("What is asyncio?", "PEP 492", "Tell me about Rust"):
        assert not needs_clarification(clear, already_asked=False), clear
