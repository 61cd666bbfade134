"""Plan review from the keyboard: edits, refusals, reordering, revise, cancel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.widgets import Input, Static

from engine.events import PlanProposed
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    ScriptedDriver,
    full_story,
    opening,
    research_running,
    sample_plan,
    settle,
)
from tests.pilot.steps import ask, press_and_settle
from tui.screens.feedback import FeedbackScreen
from tui.widgets.plan_pane import PlanPane
from tui.widgets.track_editor import TrackEditor


def notice_text(pane: PlanPane) -> str:
    rendered = pane.query_one("#plan-notice", Static).render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


def refusal_text(editor: TrackEditor) -> str:
    rendered = editor.query_one("#track-error", Static).render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


async def test_invalid_edit_is_refused_with_reason_and_keeps_the_typing(tmp_path: Path) -> None:
    driver = ScriptedDriver(full_story())
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        pane = app.screen.query_one(PlanPane)
        await pilot.press("enter")
        editor = app.screen.query_one(TrackEditor)
        editor.query_one("#section", Input).value = "Tasks"  # collides with track 2's section
        editor.query_one("#queries", Input).value = "loop internals |  "  # and a blank query
        await pilot.press("enter")
        await pilot.pause()

        assert editor.is_attached and editor.has_class("-refused")
        reason = refusal_text(editor)
        assert "Not applied" in reason and "track 1" in reason and "empty" in reason
        assert "Not applied" not in notice_text(pane)  # said once, under the fields
        # Nothing typed is lost.
        assert editor.query_one("#section", Input).value == "Tasks"
        assert editor.query_one("#queries", Input).value == "loop internals |  "
        assert pane.draft is not None and not pane.draft.changed

        # Fix only the query: the duplicate section is now the refusal reason.
        editor.query_one("#queries", Input).value = "loop internals"
        await pilot.press("enter")
        await pilot.pause()
        assert "share the report section" in refusal_text(editor)
        editor.query_one("#section", Input).value = "Loop internals"
        await pilot.press("enter")
        await pilot.pause()
        assert not editor.is_attached
        assert pane.draft.plan.tracks[0].section == "Loop internals"
        assert pane.draft.plan.tracks[0].queries == ["loop internals"]
        assert app.focused is pane


async def test_add_reorder_delete_then_approve_sends_the_edited_plan(tmp_path: Path) -> None:
    driver = ScriptedDriver(full_story())
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        pane = app.screen.query_one(PlanPane)
        await pilot.press("a")
        editor = app.screen.query_one(TrackEditor)
        assert editor.is_new and editor.index == 1
        await pilot.press(*"Cancellation")
        await pilot.press("tab", *"Cancelling tasks", "tab", *"asyncio cancel | CancelledError")
        await pilot.press("enter")
        await pilot.pause()
        titles = [track.title for track in pane.draft.plan.tracks]  # type: ignore[union-attr]
        assert titles == [
            "Event loop mechanics",
            "Cancellation",
            "Tasks and coroutines",
            "Native coroutine syntax",
        ]
        assert pane.cursor == 1
        await pilot.press("K")  # move the new track to the top
        await pilot.press("down", "down", "down", "d")  # delete the last track
        await pilot.pause()
        titles = [track.title for track in pane.draft.plan.tracks]  # type: ignore[union-attr]
        assert titles == ["Cancellation", "Event loop mechanics", "Tasks and coroutines"]

        # A fourth delete would leave two tracks: refused, with the schema's reason.
        await pilot.press("d")
        await pilot.pause()
        assert len(pane.draft.plan.tracks) == 3  # type: ignore[union-attr]
        assert "at least 3" in notice_text(pane)

        await press_and_settle(pilot, "y")
        (decision,) = driver.decisions()
        assert decision.action == "edit" and decision.plan is not None
        assert [track.title for track in decision.plan.tracks] == titles
        assert decision.plan.tracks[0].queries == ["asyncio cancel", "CancelledError"]


async def test_escape_discards_an_edit(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        pane = app.screen.query_one(PlanPane)
        await pilot.press("enter")
        app.screen.query_one("#title", Input).value = "Something else"
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query(TrackEditor)
        assert pane.draft is not None and not pane.draft.changed
        assert app.focused is pane


async def test_revise_with_feedback_then_the_new_revision_is_reviewed(tmp_path: Path) -> None:
    second = opening()[4:]  # the planner's next proposal
    driver = ScriptedDriver({"start": [opening()], "review_plan": [second, []]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, FeedbackScreen)
        await pilot.press(*"add a track on cancellation", "enter")
        await settle(pilot)
        (decision,) = driver.decisions()
        assert decision.action == "revise"
        assert decision.feedback == "add a track on cancellation"
        pane = app.screen.query_one(PlanPane)
        assert pane.reviewing  # the revised plan arrived and awaits review again
        await press_and_settle(pilot, "y")
        assert [d.action for d in driver.decisions()] == ["revise", "approve"]


async def test_cancel_at_plan_review(tmp_path: Path) -> None:
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "x")
        (decision,) = driver.decisions()
        assert decision.action == "cancel"
        plan = app.screen.query_one(PlanPane)
        assert not plan.reviewing
        summary = str(plan.query_one("#plan-summary", Static).render())
        assert "cancelled" in summary and "approved" not in summary


async def test_review_keys_do_nothing_without_a_pending_plan(tmp_path: Path) -> None:
    driver = ScriptedDriver(full_story())
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        app.screen.query_one(PlanPane).focus()
        await pilot.press("y", "d", "a")
        await settle(pilot)
        assert driver.decisions() == []
        assert not app.screen.query(TrackEditor)


async def test_typing_in_an_opened_field_edits_it_in_place(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        pane = app.screen.query_one(PlanPane)
        assert pane.draft is not None
        original = pane.draft.plan.tracks[0].title
        await pilot.press("enter")
        await pilot.press(*" today")  # appends: the opened field's text is not selected
        await pilot.press("enter")
        await pilot.pause()
        assert pane.draft.plan.tracks[0].title == f"{original} today"


LONG_SCOPE = (
    "In scope: how asyncio tasks get cancelled, how timeouts use cancellation, and what a "
    "library author does to keep cleanup code safe. Out of scope: third-party event loops."
)


def screen_lines(app: Any) -> list[str]:
    """The screen as drawn, one string per row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_a_long_scope_wraps_under_its_text_at_80_columns(tmp_path: Path) -> None:
    long_scope = sample_plan().model_copy(update={"scope": LONG_SCOPE})
    steps = [
        PlanProposed(plan=long_scope) if isinstance(step, PlanProposed) else step
        for step in opening()
    ]
    app, _ = make_app(tmp_path, ScriptedDriver({"start": [steps]}))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        lines = screen_lines(app)
        (first,) = [number for number, line in enumerate(lines) if "Scope: " in line]
        column = lines[first].index("Scope: ") + len("Scope: ")
        continued = []
        for line in lines[first + 1 :]:
            if "1. Event loop mechanics" in line:
                break
            continued.append(line)
        assert len(continued) >= 2, lines[first : first + 4]
        for line in continued:
            # Blank up to the scope's text, then the text itself: a hanging indent.
            assert line[2:column].strip() == "" and line[column] != " ", continued
        words = " ".join(line[column:].strip(" │") for line in [lines[first], *continued])
        assert " ".join(words.split()) == LONG_SCOPE


def pane_lines(app: Any, pane: PlanPane) -> list[str]:
    """The rows of `pane` as drawn on screen, border included."""
    region = pane.region
    rows = screen_lines(app)[region.y : region.bottom]
    return [row[region.x : region.right] for row in rows]


async def test_tracks_stay_reachable_under_a_long_scope_in_a_small_pane(
    tmp_path: Path,
) -> None:
    long_scope = sample_plan().model_copy(update={"scope": LONG_SCOPE})
    steps = [
        PlanProposed(plan=long_scope) if isinstance(step, PlanProposed) else step
        for step in opening()
    ]
    driver = ScriptedDriver({"start": [steps], "review_plan": [research_running()]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        pane = app.screen.query_one(PlanPane)
        assert not pane.reviewing and pane.region.height <= 10, pane.region
        # The small pane opens on the start of the scope, not part-way through it.
        assert any("Scope: In scope:" in line for line in pane_lines(app, pane))
        await press_and_settle(pilot, "1")
        for _ in range(12):
            if any("1. Event loop mechanics" in line for line in pane_lines(app, pane)):
                break
            await press_and_settle(pilot, "down")
        assert any("1. Event loop mechanics" in line for line in pane_lines(app, pane)), pane_lines(
            app, pane
        )
        assert driver.decisions()[0].action == "approve"
