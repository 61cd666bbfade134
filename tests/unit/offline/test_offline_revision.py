"""The offline model revises the plan it is handed with the person's feedback."""

from __future__ import annotations

import json

from engine.model_task import ModelTask
from engine.models.offline.conversation import Conversation
from engine.models.offline.plan import needs_clarification, plan_for
from engine.models.offline.policy import structured_args
from engine.schemas import ResearchPlan

QUESTION = "How does asyncio schedule coroutines?"


def plan_args(task: ModelTask) -> ResearchPlan:
    return ResearchPlan.model_validate(structured_args("ResearchPlan", Conversation([]), task))


def test_revision_keeps_the_edits_and_applies_the_feedback() -> None:
    plan = plan_for(QUESTION)
    edited = plan.model_copy(deep=True)
    edited.tracks[1] = edited.tracks[1].model_copy(update={"title": "My own title"})
    feedback = "add a track on performance; drop the pitfalls track"
    revised = plan_args(ModelTask(role="plan", question=QUESTION, plan=edited, feedback=feedback))
    titles = [track.title for track in revised.tracks]
    assert "My own title" in titles  # the person's edit survives
    assert any("performance" in title for title in titles)
    assert not any("pitfalls" in title for title in titles)


def test_feedback_that_cannot_apply_returns_the_same_plan() -> None:
    plan = plan_for(QUESTION)
    task = ModelTask(role="plan", question=QUESTION, plan=plan, feedback="drop the unicorn track")
    assert plan_args(task) == plan


def test_the_plan_follows_the_clarification_answer() -> None:
    answered = f"{QUESTION} task cancellation"
    text = json.dumps(plan_args(ModelTask(role="plan", question=answered)).model_dump())
    assert "cancellation" in text.lower()


def test_only_a_bare_topic_gets_a_clarifying_question() -> None:
    assert needs_clarification("asyncio?", already_asked=False)
    for clear in ("What is asyncio?", "PEP 492", "Tell me about Rust"):
        assert not needs_clarification(clear, already_asked=False), clear
