"""A revision keeps the person's plan edits unless the model deliberately changed them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from engine.events import PlanProposed
from engine.nodes.plan_edits import keep_edits
from engine.run.runner import open_session
from engine.schemas import PlanDecision, ResearchPlan, ResearchTrack
from tests.helpers.scripted_model import structured_reply, system_text
from tests.unit.engine.conftest import Scenario, make_settings


def reverted(proposed: ResearchPlan) -> ResearchPlan:
    """What a small model did: the plan it proposed before the person's edits."""
    return proposed


def costs_on_track_two(proposed: ResearchPlan) -> ResearchPlan:
    tracks = list(proposed.tracks)
    tracks[1] = tracks[1].model_copy(update={"title": "Track beta costs"})
    return proposed.model_copy(update={"tracks": tracks})


@dataclass
class RevisingScenario(Scenario):
    """A planner whose revision is `revise` applied to its first proposal, whatever the
    current plan in the request says."""

    revise: Callable[[ResearchPlan], ResearchPlan] = reverted
    revision_requests: list[str] = field(default_factory=list)

    def respond(self, messages: list[BaseMessage]) -> Any:
        system = system_text(messages)
        if system.startswith("You are planning") and "Apply this feedback" in system:
            self.revision_requests.append(str(messages[-1].content))
            return structured_reply(self.revise(self.plan()))
        return super().respond(messages)


def title_edited(plan: ResearchPlan, index: int = 0, title: str = "") -> ResearchPlan:
    tracks = list(plan.tracks)
    title = title or f"{tracks[index].title} (EDITED)"
    tracks[index] = tracks[index].model_copy(update={"title": title})
    return plan.model_copy(update={"tracks": tracks})


async def revise_edited(tmp_path: Path, scenario: RevisingScenario) -> tuple[ResearchPlan, ...]:
    settings = make_settings(tmp_path)
    async with open_session(settings, deps=scenario.deps(settings)) as session:
        first = await _collect(session.start("Compare alpha and beta", mode="deep"))
        proposed = next(e for e in first if isinstance(e, PlanProposed)).plan
        edited = title_edited(proposed)
        decision = PlanDecision(action="revise", feedback="focus on costs", plan=edited)
        events = await _collect(session.review_plan(decision))
    [revision] = [e for e in events if isinstance(e, PlanProposed)]
    assert revision.revision == 2 and revision.rejected_edit_reason is None
    return proposed, edited, revision.plan


async def _collect(stream: Any) -> list[Any]:
    return [e async for e in stream]


async def test_a_revision_that_reverts_the_edit_gets_it_back(tmp_path: Path):
    scenario = RevisingScenario(tracks=3, revise=reverted)
    _, edited, revised = await revise_edited(tmp_path, scenario)
    assert revised.tracks[0].title == "Track alpha (EDITED)"
    assert revised == edited  # the model changed nothing: the app says so
    # The model saw the edited plan, as before: the prompt is unchanged.
    assert "Track alpha (EDITED)" in scenario.revision_requests[0]


async def test_a_revision_of_another_track_keeps_the_edit_and_the_change(tmp_path: Path):
    scenario = RevisingScenario(tracks=3, revise=costs_on_track_two)
    _, _, revised = await revise_edited(tmp_path, scenario)
    assert [t.title for t in revised.tracks] == [
        "Track alpha (EDITED)",
        "Track beta costs",
        "Track gamma",
    ]


async def test_a_deliberate_rewrite_of_the_edited_track_wins(tmp_path: Path):
    rewrite = lambda plan: title_edited(plan, title="Track alpha costs")  # noqa: E731
    _, _, revised = await revise_edited(tmp_path, RevisingScenario(tracks=3, revise=rewrite))
    assert revised.tracks[0].title == "Track alpha costs"


def plan(*tracks: tuple[str, str, list[str]], scope: str = "Scope of it") -> dict[str, Any]:
    return ResearchPlan(
        scope=scope,
        tracks=[ResearchTrack(title=t, section=s, queries=q) for t, s, q in tracks],
    ).model_dump(mode="json")


A = ("Track alpha", "Section alpha", ["alpha query"])
B = ("Track beta", "Section beta", ["beta query"])
C = ("Track gamma", "Section gamma", ["gamma query"])
D = ("Track delta", "Section delta", ["delta query"])
NEW = ("Cancellation", "Cancelling", ["asyncio cancel"])


def test_reverted_scope_queries_and_section_come_back():
    proposed = plan(A, B, C)
    a = ("Track alpha", "Alpha internals", ["alpha internals", "alpha query"])
    edited = plan(a, B, C, scope="Only alpha")
    assert keep_edits(proposed, edited, proposed) == edited


def test_a_reverted_reorder_comes_back_and_a_new_order_stands():
    proposed = plan(A, B, C)
    edited = plan(C, A, B)
    assert keep_edits(proposed, edited, proposed) == edited
    assert keep_edits(proposed, edited, plan(B, C, A)) == plan(B, C, A)


def test_an_added_track_dropped_comes_back_and_a_deleted_one_returned_goes():
    proposed = plan(A, B, C, D)
    edited = plan(A, NEW, B, C)  # NEW added, D deleted
    assert keep_edits(proposed, edited, proposed) == edited


def test_deleted_tracks_returned_go_again_and_a_track_of_the_models_stays():
    proposed = plan(A, B, C, D, NEW, ("Track eps", "Section eps", ["eps"]))
    edited = plan(A, B, C)  # three deleted
    revised = plan(A, B, C, D, NEW, ("Other", "Section other", ["x"]))
    kept = keep_edits(proposed, edited, revised)
    assert kept == plan(A, B, C, ("Other", "Section other", ["x"]))
