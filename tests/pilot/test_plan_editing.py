"""Editing a plan under review: keys land where the person sees the cursor, refusals come
before the typing and in words, a deleted track comes back with `u`."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events
from textual.widgets import Input, Static

from engine.events import PlanProposed
from engine.schemas import ResearchPlan, ResearchTrack
from tests.pilot.conftest import make_app
from tests.pilot.fakes import ScriptedDriver, full_story, opening, sample_plan
from tests.pilot.steps import ask, press_and_settle
from tui.view.plan_draft import PlanDraft
from tui.view.track_fields import TrackFields
from tui.widgets.plan_pane import PlanPane
from tui.widgets.track_editor import TrackEditor


def notice(pane: PlanPane) -> str:
    rendered = pane.query_one("#plan-notice", Static).render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


def six_track_plan() -> ResearchPlan:
    plan = sample_plan()
    extra = [
        ResearchTrack(title=f"Extra track {n}", section=f"Extra {n}", queries=[f"extra {n}"])
        for n in range(3)
    ]
    return plan.model_copy(update={"tracks": [*plan.tracks, *extra]})


async def test_keys_typed_right_after_tab_land_in_the_next_field(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "a")
        # As a terminal delivers fast typing: all the keys queued before any is handled.
        for key, character in [("T", "T"), ("h", "h"), ("tab", None), ("X", "X"), ("Y", "Y")]:
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await pilot.pause()
        editor = app.screen.query_one(TrackEditor)
        assert editor.query_one("#title", Input).value == "Th"
        assert editor.query_one("#section", Input).value == "XY"


async def test_adding_to_a_full_plan_is_refused_before_any_typing(tmp_path: Path) -> None:
    script = opening()
    script[4] = PlanProposed(plan=six_track_plan())
    app, _ = make_app(tmp_path, ScriptedDriver({"start": [script]}))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        pane = app.screen.query_one(PlanPane)
        await press_and_settle(pilot, "a")
        assert not app.screen.query(TrackEditor)
        said = notice(pane)
        assert "at most 6 tracks" in said
        assert "List should have" not in said and "validation" not in said


async def test_a_deleted_track_is_announced_and_u_brings_it_back(tmp_path: Path) -> None:
    script = opening()
    script[4] = PlanProposed(plan=six_track_plan())
    app, _ = make_app(tmp_path, ScriptedDriver({"start": [script]}))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        pane = app.screen.query_one(PlanPane)
        assert pane.draft is not None
        await press_and_settle(pilot, "down", "d")
        assert [t.title for t in pane.draft.plan.tracks][1] == "Native coroutine syntax"
        assert "Tasks and coroutines" in notice(pane) and "u undoes" in notice(pane)
        await press_and_settle(pilot, "u")
        assert pane.draft.plan == six_track_plan()
        assert not pane.draft.changed


def test_a_plan_with_too_many_tracks_is_refused_in_words_once() -> None:
    draft = PlanDraft(six_track_plan())
    result = draft.insert_track(0, TrackFields("One more", "One more section", "q"))
    assert not result.ok
    assert result.reason == "a plan has at most 6 tracks"


async def test_at_80_by_24_the_field_being_typed_in_is_on_screen(tmp_path: Path) -> None:
    script = opening()
    five = six_track_plan()
    script[4] = PlanProposed(plan=five.model_copy(update={"tracks": five.tracks[:5]}))
    app, _ = make_app(tmp_path, ScriptedDriver({"start": [script]}))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "down", "down", "down", "down", "a")
        editor = app.screen.query_one(TrackEditor)
        pane = app.screen.query_one(PlanPane)
        for field in ("#title", "#section", "#queries"):
            typed = editor.query_one(field, Input)
            assert app.screen.focused is typed
            # Not hidden below the pane's edge while the person types in it.
            assert pane.region.contains_region(typed.region), field
            await press_and_settle(pilot, "tab")


async def test_the_review_marks_the_tracks_the_unit_limit_leaves_out_as_edits_change_them(
    tmp_path: Path,
) -> None:
    """Research runs one unit per track up to MAX_RESEARCHER_ITERATIONS, edited tracks first:
    the person sees which tracks it would not reach before approving, and after each edit."""
    script = opening()
    script[4] = PlanProposed(plan=six_track_plan(), max_research_units=4)
    app, _ = make_app(tmp_path, ScriptedDriver({"start": [script]}))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        pane = app.screen.query_one(PlanPane)
        marked = "beyond the limit of 4 research units"

        def over() -> list[int]:
            return [
                index for index, widget in enumerate(pane._track_widgets) if marked in widget.plain
            ]

        assert over() == [4, 5]
        assert "2 tracks beyond the unit limit" in str(pane.query_one("#plan-summary").render())
        # Deleting a track brings one back within the limit.
        await press_and_settle(pilot, "d")
        assert over() == [4]
        assert "1 track beyond the unit limit" in str(pane.query_one("#plan-summary").render())
        await press_and_settle(pilot, "u")
        assert over() == [4, 5]
