"""One test per defect of the reader's TUI (issue 15): each failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input, Markdown, Static

from engine.events import (
    Event,
    PhaseChanged,
    PlanProposed,
    ResearchUnitUpdated,
    SessionStarted,
)
from engine.protocol import SessionInfo
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    QUESTION,
    SESSION_ID,
    Hold,
    ScriptedDriver,
    full_story,
    opening,
    research_finished,
    research_running,
    sample_plan,
    settle,
    unit,
)
from tests.pilot.steps import ask, press_and_settle, wait_until
from tui.screens.confirm import ConfirmScreen
from tui.screens.sessions import SessionsScreen
from tui.screens.unit_detail import UnitDetailScreen
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsTable


def plain(widget: Static) -> str:
    return str(widget.render())


def finished_session_log() -> list[Event]:
    story = full_story()
    return [*story["start"][0], *story["review_plan"][0]]  # type: ignore[list-item]


def saved(session_id: str, status: str = "completed") -> SessionInfo:
    return SessionInfo(
        session_id=session_id,
        question=QUESTION,
        created_at="2025-01-02T10:00:00",
        updated_at="2025-01-02T10:05:00",
        status=status,  # type: ignore[arg-type]
    )


def footer_keys(app: Any) -> list[str]:
    from textual.widgets._footer import FooterKey

    return [key.action for key in app.screen.query(FooterKey) if key.display]


# ---- 1: reopen restores the whole session ----------------------------------------------


async def test_reopened_session_shows_plan_units_ledger_and_verified_report(
    tmp_path: Path,
) -> None:
    app, backend = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=[saved("s-0001")],
        logs={"s-0001": finished_session_log()},
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await press_and_settle(pilot, "f2")
        await press_and_settle(pilot, "enter")
        screen = app.research
        assert screen.query_one(PlanPane).draft is not None
        assert not screen.query_one(PlanPane).reviewing  # approved, not pending again
        assert screen.query_one(UnitsTable).row_count == 3
        assert len(screen.view.records) == 6
        report = screen.query_one(ReportPane)
        assert report.report is not None and report.report.verification_status == "verified"
        assert report.border_subtitle == "verified · 3 kept · 1 removed"
        await pilot.press("]")
        assert report.current_citation == 1
        assert backend.opened == []  # reading a session starts no engine run


# ---- 2 and 7: cancel from anywhere, units say cancelled --------------------------------


async def test_cancel_from_the_question_input_marks_units_cancelled(tmp_path: Path) -> None:
    hold = Hold()
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[*research_running(), hold]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await hold.reached.wait()
        await pilot.pause()
        app.screen.query_one("#question", Input).focus()
        await pilot.press("ctrl+x")
        await settle(pilot)
        await settle(pilot)
        assert driver.cancelled == 1
        assert not app.link.running


async def test_units_reported_cancelled_show_cancelled_not_running(tmp_path: Path) -> None:
    cancelled = [
        ResearchUnitUpdated(unit=unit(1, "cancelled")),
        PhaseChanged(phase="cancelled", detail="stopped; resume to continue"),
    ]
    driver = ScriptedDriver(
        {"start": [opening()], "review_plan": [[*research_running(), *cancelled]]}
    )
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        table = app.screen.query_one(UnitsTable)
        status = str(table.get_cell("u1", "status"))
        assert status == "cancelled"
        header = app.screen.query_one(StatusHeader).status_text().plain
        assert "stopped; resume to continue" in header and header.count("stopped") == 1, header


async def test_cancelled_engine_run_reports_unfinished_units() -> None:
    from engine.events import RuntimeProgress
    from engine.run.unit_tracker import UnitTracker

    tracker = UnitTracker()
    tracker.see(RuntimeProgress(research_units=[unit(1, "running"), unit(2, "completed")]))
    tracker.see(ResearchUnitUpdated(unit=unit(3, "queued")))
    assert [(u.unit.id, u.unit.status) for u in tracker.cancelled()] == [
        ("u1", "cancelled"),
        ("u3", "cancelled"),
    ]


# ---- 7: statuses follow the evidence and the open unit ---------------------------------


async def test_gate_counter_and_unit_detail_follow_new_evidence(tmp_path: Path) -> None:
    hold = Hold()
    driver = ScriptedDriver(
        {"start": [opening()], "review_plan": [[*research_running(), hold, *research_finished()]]}
    )
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await hold.reached.wait()
        await pilot.pause()
        header = app.screen.query_one(StatusHeader).status_text().plain
        # The supervisor reported 0 records, but three arrived in the ledger since.
        assert "3 records (need 5)" in header or "3 of 5 records" in header, header
        app.screen.query_one(UnitsTable).focus()
        await pilot.press("down", "enter")  # unit u2, still running
        await pilot.pause()
        detail = app.screen
        assert isinstance(detail, UnitDetailScreen) and detail.unit.status == "running"
        hold.release.set()
        await settle(pilot)
        assert detail.unit.status == "completed"


# ---- 3: one session on screen ----------------------------------------------------------


async def test_new_question_during_plan_review_asks_before_abandoning(tmp_path: Path) -> None:
    driver = ScriptedDriver({"start": [opening(), opening()]})
    app, backend = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await ask(pilot, "Something else entirely?")
        assert isinstance(app.screen, ConfirmScreen)
        await press_and_settle(pilot, "n")
        assert [name for name, _ in driver.calls] == ["start"]
        assert app.screen.query_one(PlanPane).reviewing
        await ask(pilot, "Something else entirely?")
        await press_and_settle(pilot, "y")
        assert [name for name, _ in driver.calls] == ["start", "start"]
        assert backend.opened == [None, None]  # a fresh session, not the pending one


async def test_events_of_a_left_session_never_reach_the_screen(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        from tui.link.bridge import EventBridge

        stale = EventBridge(app.research, app.link.epoch)
        await press_and_settle(pilot, "ctrl+n")
        stale.post(PlanProposed(plan=sample_plan()))
        await settle(pilot)
        assert app.screen.query_one(PlanPane).draft is None


# ---- 5: resume acts on the session on screen -------------------------------------------


async def test_resume_after_new_session_asks_which_instead_of_guessing(tmp_path: Path) -> None:
    driver = ScriptedDriver({"start": [opening()]})
    app, _ = make_app(tmp_path, driver, sessions=[saved("other", "interrupted")])
    async with app.run_test(size=(120, 36)) as pilot:
        await press_and_settle(pilot, "ctrl+n")
        app.action_resume()  # the palette's "Resume run": nothing on screen to resume
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        assert ("resume", None) not in driver.calls


# ---- 6 and 11: 80×24, zoom, context footer ---------------------------------------------


async def test_plan_review_at_80x24_zooms_the_plan_and_shows_approve(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot)
        assert app.screen.maximized is app.screen.query_one(PlanPane)
        keys = footer_keys(app)
        assert keys[0] == "approve", keys
        assert "new_session" not in keys  # global keys that do nothing here stay out


async def test_zoom_key_works_on_every_pane(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        for number, pane_id in enumerate(("plan", "units", "ledger", "report"), start=1):
            await pilot.press(str(number), "f10")
            await pilot.pause()
            assert app.screen.maximized is app.screen.query_one(f"#{pane_id}")
            await pilot.press("f10")
            await pilot.pause()
            assert app.screen.maximized is None


# ---- 8, 9, 15: the report as a reader --------------------------------------------------


async def finished(pilot: Any) -> ReportPane:
    await ask(pilot)
    await press_and_settle(pilot, "y")
    return pilot.app.screen.query_one(ReportPane)


async def test_citation_keys_move_and_highlight_the_citation(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        report = await finished(pilot)
        await pilot.press("]", "]", "]")
        await pilot.pause()
        assert report.current_citation == 2
        assert "create_task" in report.highlighted_text
        await pilot.press("[")
        assert "call_soon" in report.highlighted_text


async def test_sources_render_one_per_line(tmp_path: Path) -> None:
    from tests.pilot.fakes import report_event

    sources = "## Sources\n\n[1] https://a.example/x\n[2] https://b.example/y\n"
    story = full_story()
    story["review_plan"][0][-3] = report_event(report=f"# R\n\nText [1] and [2].\n\n{sources}")
    app, _ = make_app(tmp_path, ScriptedDriver(story))
    async with app.run_test(size=(120, 36)) as pilot:
        report = await finished(pilot)
        body = report.query_one(Markdown)
        assert "- [1] https://a.example/x\n- [2] https://b.example/y" in body.source


async def test_report_pager_and_search_keys(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(80, 24)) as pilot:
        report = await finished(pilot)
        scroll = report.query_one("#report-scroll")
        await pilot.press("G")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y > 0
        await pilot.press("g")
        await pilot.pause()
        assert scroll.scroll_y == 0
        await pilot.press("space")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press("slash")
        await pilot.pause()
        report.query_one("#report-search", Input).value = "task"
        await pilot.press("enter")
        await pilot.pause()
        assert len(report.matches) >= 2 and report.match_index == 0
        await pilot.press("n")
        assert report.match_index == 1
        await pilot.press("N")
        assert report.match_index == 0


async def test_plan_pane_shows_planning_progress(tmp_path: Path) -> None:
    hold = Hold()
    steps = [SessionStarted(session_id=SESSION_ID, question=QUESTION), hold]
    driver = ScriptedDriver({"start": [[steps[0], PhaseChanged(phase="planning"), hold]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("enter")  # nothing typed: nothing sent
        app.screen.query_one("#question", Input).value = QUESTION
        app.screen.query_one("#question", Input).focus()
        await pilot.press("enter")
        await hold.reached.wait()
        await pilot.pause()
        summary = plain(app.screen.query_one("#plan-summary", Static))
        assert "drafting the plan" in summary
        hold.release.set()


# ---- 13: plain words, not internal labels ----------------------------------------------


async def test_no_internal_labels_on_screen(tmp_path: Path) -> None:
    app, _ = make_app(
        tmp_path,
        ScriptedDriver(full_story()),
        sessions=[saved("s-9", "awaiting_plan_review")],
    )
    async with app.run_test(size=(120, 36)) as pilot:
        report = await finished(pilot)
        status = plain(report.query_one("#report-status", Static))
        assert "_" not in app.screen.query_one(StatusHeader).status_text().plain
        assert "_" not in status
        await press_and_settle(pilot, "f2")
        table = app.screen.query_one("#sessions-table")
        assert "plan review" in str(table.get_row_at(0)[2])  # type: ignore[attr-defined]


# ---- 14: export asks where and says it; copy says whether it worked --------------------


def test_copy_without_a_clipboard_says_it_may_not_have_worked() -> None:
    from tui.host.clipboard import copy_text

    sent: list[str] = []
    result = copy_text("x", sent.append, env={"TERM": "xterm"}, desktop_copy=lambda t, e: None)
    assert sent == ["x"] and not result.copied
    assert "may ignore" in result.message
    known = copy_text(
        "x", sent.append, env={"TERM_PROGRAM": "WezTerm"}, desktop_copy=lambda t, e: None
    )
    assert known.copied and "OSC 52" in known.message


async def test_export_to_a_chosen_path_says_where(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await finished(pilot)
        await pilot.press("e")
        await pilot.pause()
        field = app.screen.query_one("#export-path", Input)
        assert field.value.endswith(f"deepresearch-{SESSION_ID}.md")
        field.value = str(tmp_path / "chosen" / "mine.md")
        await press_and_settle(pilot, "enter")
        notice = app.screen.query_one("#notice")
        assert await wait_until(pilot, lambda: "exported to" in plain(notice))
        assert (tmp_path / "chosen" / "mine.md").is_file()
        assert str(tmp_path / "chosen" / "mine.md") in plain(notice)


# ---- 10: full text reachable without a modal -------------------------------------------


async def test_zoomed_ledger_shows_whole_claims(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await finished(pilot)
        ledger = app.screen.query_one(LedgerPane)
        await pilot.press("3", "f10")
        await pilot.pause()
        table = ledger.query_one("#ledger-table")
        claim = table.columns[next(k for k in table.columns if k.value == "claim")]  # type: ignore[attr-defined]
        assert claim.width >= 80


async def test_a_new_session_shows_the_panes_as_the_app_opened_them(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        opened = {
            pane: str(app.screen.query_one(f"#{pane}", Static).render())
            for pane in ("plan-summary", "report-status")
        }
        await ask(pilot)
        await press_and_settle(pilot, "y")
        assert app.screen.query_one(ReportPane).report is not None
        await press_and_settle(pilot, "ctrl+n")
        after = {
            pane: str(app.screen.query_one(f"#{pane}", Static).render())
            for pane in ("plan-summary", "report-status")
        }
        assert after == opened and "appears here" in opened["report-status"]
