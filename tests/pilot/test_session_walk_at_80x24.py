"""What a person saw walking a whole session at 80x24, each checked where it showed."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from engine.events import CitationAuditEntry, ReportReady
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    QUESTION,
    SESSION_ID,
    SOURCES,
    FakeBackend,
    ScriptedDriver,
    Step,
    full_story,
    report_event,
)
from tests.pilot.steps import ask, press_and_settle
from tui.app import DeepResearchApp
from tui.widgets.hanging_lines import HangingLines
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane

SMALL = (80, 24)


# ---- the plan pane spends no row on a notice it does not have ---------------------------


async def test_the_plan_notice_takes_no_row_while_empty(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=SMALL) as pilot:
        await ask(pilot)
        notice = app.screen.query_one(PlanPane).query_one("#plan-notice", Static)
        assert not notice.display
        await press_and_settle(pilot, "y")
        assert not notice.display and notice.region.height == 0


async def finished(pilot: object) -> ReportPane:
    await ask(pilot)
    await press_and_settle(pilot, "y")
    return pilot.app.screen.query_one(ReportPane)  # type: ignore[attr-defined]


# ---- the export prompt says where the file goes, from the start of the path ------------


async def test_the_export_prompt_says_the_folder_of_a_long_path(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder-with-a-rather-long-name" / "and-another-one-below-it"
    backend = FakeBackend(ScriptedDriver(full_story()), env_path=tmp_path / ".env")
    app = DeepResearchApp(backend, clock=lambda: 100.0, export_dir=folder)
    async with app.run_test(size=SMALL) as pilot:
        await finished(pilot)
        await press_and_settle(pilot, "e")
        said = str(app.screen.query_one("#export-folder", Static).render())
        assert str(folder) in said.replace("\n", "")
        field = app.screen.query_one("#export-path", Input)
        field.value = str(tmp_path / "elsewhere" / "mine.md")
        await pilot.pause()
        said = str(app.screen.query_one("#export-folder", Static).render())
        assert str(tmp_path / "elsewhere") in said


# ---- a tool call says what it did, in plain words ---------------------------------------


async def test_a_unit_names_its_search_by_where_it_searches(tmp_path: Path) -> None:
    from tui.screens.unit_detail import UnitDetailScreen
    from tui.widgets.units_table import UnitsTable

    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))  # a session on local documents
    async with app.run_test(size=SMALL) as pilot:
        await finished(pilot)
        app.screen.query_one(UnitsTable).focus()
        await press_and_settle(pilot, "enter")  # unit u1: a search, then a page read
        detail = app.screen
        assert isinstance(detail, UnitDetailScreen)
        shown = "\n".join(line.plain for line in detail.lines())
        assert "search documents" in shown and "read a page" in shown, shown
        assert "search_web" not in shown and "fetch_url" not in shown


# ---- the command palette offers what can act now ----------------------------------------


def palette_titles(app: DeepResearchApp) -> set[str]:
    return {command.title for command in app.get_system_commands(app.screen)}


async def test_the_palette_offers_plan_actions_only_while_a_plan_waits(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=SMALL) as pilot:
        plan_titles = {"Approve plan", "Revise plan", "Edit plan track", "Delete plan track"}
        assert not plan_titles & palette_titles(app)
        assert "Export report" not in palette_titles(app)
        await ask(pilot)
        assert plan_titles <= palette_titles(app)
        await press_and_settle(pilot, "y")
        titles = palette_titles(app)
        assert not plan_titles & titles, titles
        assert {"Export report", "Verification audit"} <= titles
        assert "Cancel run" not in titles  # the run is over


# ---- the question stays on screen for the whole session ---------------------------------


def asked(app: DeepResearchApp) -> str:
    field = app.screen.query_one("#question", Input)
    return str(field.border_title or "")


async def test_the_question_stays_on_screen_once_asked(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=SMALL) as pilot:
        await ask(pilot)
        assert app.screen.query_one("#question", Input).value == ""
        assert QUESTION in asked(app)
        await press_and_settle(pilot, "y")
        assert QUESTION in asked(app)


async def test_a_reopened_session_shows_its_question(tmp_path: Path) -> None:
    from engine.protocol import SessionInfo

    story = full_story()
    log = [*story["start"][0], *story["review_plan"][0]]
    info = SessionInfo(
        session_id=SESSION_ID,
        question=QUESTION,
        created_at="2025-01-02T10:00:00",
        updated_at="2025-01-02T10:05:00",
        status="completed",
    )
    app, _ = make_app(
        tmp_path, ScriptedDriver(full_story()), sessions=[info], logs={SESSION_ID: log}
    )
    async with app.run_test(size=SMALL) as pilot:
        assert QUESTION not in asked(app)
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
        assert QUESTION in asked(app)


# ---- a citation opens its source ---------------------------------------------------------

PAGE_TEXT = "The event loop runs in a thread and executes all callbacks and tasks in its thread."
DOCUMENT_TEXT = "An asyncio Queue is not thread-safe; it is designed for async/await code."


def story_citing_what_sources_returned() -> dict[str, list[list[Step]]]:
    kept = [
        CitationAuditEntry(
            number=1, source=SOURCES[1], title="Event Loop — Python docs", excerpt=PAGE_TEXT
        ),
        CitationAuditEntry(number=2, source=SOURCES[3], excerpt=DOCUMENT_TEXT),
    ]
    story = full_story()
    story["review_plan"][0] = [
        report_event(kept_citations=kept) if isinstance(step, ReportReady) else step
        for step in story["review_plan"][0]
    ]
    return story


async def test_a_citation_opens_the_text_its_source_returned(tmp_path: Path) -> None:
    from tui.screens.citation_detail import CitationDetailScreen

    app, _ = make_app(tmp_path, ScriptedDriver(story_citing_what_sources_returned()))
    async with app.run_test(size=SMALL) as pilot:
        await finished(pilot)
        await press_and_settle(pilot, "4", "]", "enter")
        detail = app.screen
        assert isinstance(detail, CitationDetailScreen)
        shown = "\n".join(line.plain for line in detail.lines())
        assert SOURCES[1] in shown and "Event Loop — Python docs" in shown
        assert "From the web page" in shown and PAGE_TEXT in shown
        await press_and_settle(pilot, "escape", "]", "]", "enter")  # [1] is cited twice
        detail = app.screen
        assert isinstance(detail, CitationDetailScreen) and detail.number == 2
        shown = "\n".join(line.plain for line in detail.lines())
        assert "From the document" in shown and DOCUMENT_TEXT in shown


# ---- a stopped run: counts stay, and it is "stopped" everywhere --------------------------


async def test_a_cancelled_unit_keeps_its_tool_calls_and_reads_stopped(tmp_path: Path) -> None:
    from engine.events import PhaseChanged, ResearchUnitUpdated, RunFinished
    from tests.pilot.fakes import opening, research_running, unit
    from tui.widgets.units_table import UnitsTable

    # As the engine closes a unit out on cancel: its last summary, which counted no calls.
    cancelled = [
        ResearchUnitUpdated(unit=unit(2, "cancelled", tool_call_count=0)),
        PhaseChanged(phase="cancelled", detail="stopped; resume to continue"),
        RunFinished(session_id=SESSION_ID, status="cancelled"),
    ]
    story = {"start": [opening()], "review_plan": [[*research_running(), *cancelled]]}
    app, _ = make_app(tmp_path, ScriptedDriver(story))
    async with app.run_test(size=SMALL) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        table = app.screen.query_one(UnitsTable)
        assert str(table.get_cell("u2", "tools")) == "1"  # one search reported, never 0
        assert str(table.get_cell("u2", "status")) == "cancelled"


def test_a_cancelled_run_has_one_word_wherever_it_shows() -> None:
    from tui.presentation.labels import phase_label, session_status_label, unit_status_label

    words = {
        session_status_label("cancelled"),
        unit_status_label("cancelled"),
        phase_label("cancelled"),
        phase_label("stopped"),  # the app stopped the run's worker after ctrl+x
    }
    assert words == {"cancelled"}  # as the command line says it


# ---- the gate's progress shows during research at 80 columns ----------------------------


async def test_the_gate_counts_show_during_research_at_80_columns(tmp_path: Path) -> None:
    from engine.events import ModelCallProgress
    from tests.pilot.fakes import Hold, opening, research_running

    hold = Hold()
    researching = ModelCallProgress(
        role="researcher", state="generating", output_tokens=230, elapsed_seconds=41
    )
    story = {"start": [opening()], "review_plan": [[*research_running(), researching, hold]]}
    app, _ = make_app(tmp_path, ScriptedDriver(story))
    async with app.run_test(size=SMALL) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await hold.reached.wait()
        await pilot.pause()
        line = str(app.screen.query_one("#status-line", Static).render())
        assert "3 records (need 5)" in line or "3 of 5 records" in line, line
        assert "researching" in line and "researcher 41s" in line, line
        hold.release.set()


# ---- plan tracks research ended without are named, with why -----------------------------


def story_ending_before_the_last_track() -> dict[str, list[list[Step]]]:
    from engine.events import RuntimeProgress

    story = full_story()
    story["review_plan"][0] = [
        step.model_copy(
            update={
                "unresearched_tracks": ["Native coroutine syntax"],
                "unresearched_reason": "enough_evidence",
            }
        )
        if isinstance(step, RuntimeProgress) and step.quality_gate_status == "pass"
        else step
        for step in story["review_plan"][0]
    ]
    return story


async def test_tracks_never_researched_say_so_in_the_plan_and_the_report(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(story_ending_before_the_last_track()))
    async with app.run_test(size=SMALL) as pilot:
        report = await finished(pilot)
        plan = app.screen.query_one(PlanPane)
        tracks = [widget.plain for widget in plan.query(".track").results(HangingLines)]
        assert "skipped — enough evidence" in tracks[2], tracks
        assert all("skipped" not in text for text in tracks[:2])
        note = str(report.query_one("#report-coverage", Static).render())
        assert "1 plan track was not researched (enough evidence)" in note
        assert "Native coroutine syntax" in note


async def test_a_zoomed_pane_says_the_question_it_hides(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=SMALL) as pilot:
        await ask(pilot)
        plan = app.screen.query_one(PlanPane)
        assert app.screen.maximized is plan  # the plan under review fills the screen
        assert QUESTION in str(plan.border_title)
        await press_and_settle(pilot, "y")
        report = app.screen.query_one(ReportPane)
        assert app.screen.maximized is report  # the finished report takes the screen
        assert QUESTION in str(report.border_title)
        assert str(plan.border_title) == "1 Plan"
