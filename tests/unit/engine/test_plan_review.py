"""Plan review decisions, and follow-up questions in the same session."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from engine.events import (
    ClarificationRequested,
    EvidenceAdded,
    PhaseChanged,
    PlanProposed,
    ReportReady,
    RunFinished,
    RuntimeProgress,
)
from engine.nodes.topic import topic_shifted
from engine.run.runner import open_session
from engine.schemas import PlanDecision
from engine.sessions import list_sessions, load_report
from tests.unit.engine.conftest import Scenario, make_settings


async def collect(stream):
    return [e async for e in stream]


async def test_an_edited_plan_is_what_the_supervisor_researches(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        first = await collect(session.start("Compare alpha and beta", mode="deep"))
        plan = next(e for e in first if isinstance(e, PlanProposed)).plan
        edited = plan.model_copy(update={"scope": "Only the edited scope"})
        edited.tracks[0] = edited.tracks[0].model_copy(update={"title": "Edited delta track"})
        await collect(session.review_plan(PlanDecision(action="edit", plan=edited)))
    supervisor_prompts = [
        m.content
        for call in scenario_calls(scenario)
        for m in call
        if "## Approved research plan" in str(m.content)
    ]
    assert supervisor_prompts and "Only the edited scope" in supervisor_prompts[0]
    assert "### Track 1: Edited delta track" in supervisor_prompts[0]


def scenario_calls(scenario: Scenario):
    return scenario._model.calls


async def test_a_bad_edit_is_refused_with_the_reason_and_review_stays_open(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        first = await collect(session.start("Compare alpha and beta", mode="deep"))
        plan = next(e for e in first if isinstance(e, PlanProposed)).plan.model_dump()
        plan["tracks"] = plan["tracks"][:1]  # fewer than three tracks
        graph_resume = session._resume_with({"action": "edit", "plan": plan})
        refused = await collect(graph_resume)
        [again] = [e for e in refused if isinstance(e, PlanProposed)]
        assert (
            again.rejected_edit_reason
            == "tracks: List should have at least 3 items after validation, not 1"
        )
        assert not any(isinstance(e, RunFinished) for e in refused)
        assert list_sessions(settings)[0].status == "awaiting_plan_review"
        # resume() in a later process re-announces the open review.
        reannounced = await collect(session.resume())
        assert [e.rejected_edit_reason for e in reannounced if isinstance(e, PlanProposed)] == [
            again.rejected_edit_reason
        ]
        done = await collect(session.review_plan(PlanDecision(action="approve")))
    assert isinstance(done[-1], RunFinished) and done[-1].status == "completed"


async def test_revise_drafts_a_new_plan_with_the_feedback_and_reviews_it_again(tmp_path: Path):
    settings = make_settings(tmp_path, max_researcher_iterations=2)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        first = await collect(session.start("Compare alpha and beta", mode="deep"))
        revised = await collect(
            session.review_plan(PlanDecision(action="revise", feedback="focus on costs"))
        )
    [proposal] = [e for e in revised if isinstance(e, PlanProposed)]
    assert proposal.revision == 2
    assert proposal.plan.tracks[0].title == "Track alpha revised"
    assert scenario.plan_feedback_seen == ["focus on costs"]
    # What decides which tracks research reaches travels with each proposal.
    [opening] = [e for e in first if isinstance(e, PlanProposed)]
    assert (opening.max_research_units, opening.requests) == (2, [])
    assert (proposal.max_research_units, proposal.requests) == (2, ["focus on costs"])
    assert opening.edited_tracks == [] and proposal.edited_tracks == []


async def test_a_track_edited_before_a_revision_is_named_to_the_next_review(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        first = await collect(session.start("Compare alpha and beta", mode="deep"))
        plan = next(e for e in first if isinstance(e, PlanProposed)).plan
        edited = plan.model_copy(deep=True)
        edited.tracks[2] = edited.tracks[2].model_copy(update={"title": "Edited gamma track"})
        revised = await collect(
            session.review_plan(PlanDecision(action="revise", feedback="more", plan=edited))
        )
    [proposal] = [e for e in revised if isinstance(e, PlanProposed)]
    assert proposal.edited_tracks == ["Edited gamma track"]


async def test_cancel_ends_the_run_cancelled_without_research(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        await collect(session.start("Compare alpha and beta", mode="deep"))
        events = await collect(session.review_plan(PlanDecision(action="cancel")))
    assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"
    assert scenario.researcher_runs == []
    assert not any(isinstance(e, ReportReady) for e in events)
    assert list_sessions(settings)[0].status == "cancelled"


def phases(events) -> list[str]:
    return [e.phase for e in events if isinstance(e, PhaseChanged)]


async def test_each_pause_phase_is_entered_once_across_its_resume(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3, clarify=True)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        asked = await collect(session.start("Compare alpha and beta", mode="deep"))
        scenario.clarify = False
        proposed = await collect(session.answer_clarification("Europe"))
        finished = await collect(session.review_plan(PlanDecision(action="approve")))
    # The phase comes just before the pause it announces.
    assert phases(asked)[-1] == "clarifying"
    assert [type(e).__name__ for e in asked[-2:]] == ["PhaseChanged", "ClarificationRequested"]
    assert [type(e).__name__ for e in proposed[-2:]] == ["PhaseChanged", "PlanProposed"]
    seen = phases(asked) + phases(proposed) + phases(finished)
    assert seen.count("clarifying") == 1
    assert seen.count("plan_review") == 1
    assert seen.count("researching") == 1
    assert seen.index("plan_review") < seen.index("researching") < seen.index("done")


async def test_a_refused_edit_re_enters_plan_review_once(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        first = await collect(session.start("Compare alpha and beta", mode="deep"))
        plan = next(e for e in first if isinstance(e, PlanProposed)).plan.model_dump()
        plan["tracks"] = plan["tracks"][:1]
        refused = await collect(session._resume_with({"action": "edit", "plan": plan}))
        approved = await collect(session.review_plan(PlanDecision(action="approve")))
    assert phases(first).count("plan_review") == 1
    assert phases(refused) == ["plan_review"]
    assert "plan_review" not in phases(approved)


def test_topic_shift_detection():
    previous = "How does HTTP caching work with ETags?"
    assert not topic_shifted(previous, "Go deeper on ETags and caching validators")
    assert topic_shifted(previous, "Switch to HTTP caching in browsers instead")
    assert topic_shifted(previous, "What is the GIL in Python?")
    assert not topic_shifted(previous, "Also cover proxies")
    assert topic_shifted("", "anything")


async def test_same_topic_follow_up_reuses_the_brief_and_keeps_the_ledger(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3, clarify=False)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        await collect(session.start("How do alpha and beta caches compare?", mode="deep"))
        first = await collect(session.review_plan(PlanDecision(action="approve")))
        scenario.clarify = True  # a clarification now would show the brief was not reused
        follow = await collect(session.start("Go deeper on alpha caches", mode="deep"))
        assert not any(isinstance(e, ClarificationRequested) for e in follow)
        assert any(isinstance(e, PlanProposed) for e in follow)
        second = await collect(session.review_plan(PlanDecision(action="approve")))
    planner_prompts = [str(m.content) for call in scenario_calls(scenario) for m in call]
    assert any("Follow-up request: Go deeper on alpha caches" in p for p in planner_prompts)
    first_count = len([e for e in first if isinstance(e, EvidenceAdded)])
    report = next(e for e in second if isinstance(e, ReportReady))
    # The new run's units are numbered apart from the first run's, and earlier evidence stays:
    # they find the same claims on the same pages, which the ledger already holds once.
    progress = [e for e in second if isinstance(e, RuntimeProgress)][-1]
    assert {unit.id for unit in progress.research_units} >= {"unit-2.1", "unit-2.2", "unit-2.3"}
    assert not any(isinstance(e, EvidenceAdded) for e in second)
    assert progress.evidence_record_count == first_count == 6
    assert report.verification_status == "verified"
    # Each question keeps its own report file; the session's latest is the one reopened.
    first_report = next(e for e in first if isinstance(e, ReportReady))
    assert first_report.report_path != report.report_path
    assert Path(first_report.report_path).is_file() and Path(report.report_path).is_file()
    assert load_report(settings, session.session_id) == report


async def test_topic_shift_resets_research_and_asks_again(tmp_path: Path):
    settings = make_settings(tmp_path)
    scenario = Scenario(tracks=3)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        await collect(session.start("How do alpha caches work?", mode="deep"))
        await collect(session.review_plan(PlanDecision(action="approve")))
        scenario.clarify = True
        shifted = await collect(
            session.start("Switch to beta instead: how do beta queues work?", mode="deep")
        )
        assert [e.question for e in shifted if isinstance(e, ClarificationRequested)] == [
            "Which region?"
        ]
        await collect(session.answer_clarification("Europe"))
        await collect(session.review_plan(PlanDecision(action="approve")))
        state = (await session.graph.aget_state(session.config)).values
    # Only the new run's research remains: the previous topic's ledger and notes were reset.
    assert {r["research_unit_id"] for r in state["evidence_ledger"]} == {
        "unit-2.1",
        "unit-2.2",
        "unit-2.3",
    }
    assert len(state["notes"]) == 3


def test_a_bare_action_name_is_that_decision_and_anything_else_says_what_is_allowed():
    # What a client resuming the interrupt by hand (LangGraph Server, Studio) sends first.
    assert PlanDecision.model_validate("approve") == PlanDecision(action="approve")
    assert PlanDecision.model_validate(" Cancel ").action == "cancel"
    with pytest.raises(ValidationError, match="approve"):
        PlanDecision.model_validate("yes please")
    with pytest.raises(ValidationError, match="feedback"):
        PlanDecision.model_validate("revise")
