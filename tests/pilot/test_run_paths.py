"""Clarification, cancel, failure, crash, resume, export, copy, citations and details."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.widgets import DataTable, Input, Select, Static

from engine.events import PhaseChanged, SessionStarted
from tests.pilot.conftest import make_app
from tests.pilot.fakes import (
    QUESTION,
    REPORT_MARKDOWN,
    SESSION_ID,
    Hold,
    ScriptedDriver,
    clarification_story,
    failed_run,
    full_story,
    opening,
    report_event,
    research_finished,
    research_running,
    settle,
)
from tests.pilot.steps import ask, press_and_settle, wait_until
from tui.screens.audit import AuditScreen
from tui.screens.citation_detail import CitationDetailScreen
from tui.screens.export import ExportScreen
from tui.screens.record_detail import RecordDetailScreen
from tui.screens.unit_detail import UnitDetailScreen
from tui.widgets.clarification_panel import ClarificationPanel
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.plan_pane import PlanPane
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice
from tui.widgets.units_table import UnitsTable


def plain(widget: Static) -> str:
    rendered = widget.render()
    return rendered.plain if isinstance(rendered, Text) else str(rendered)


def detail_text(screen: object) -> str:
    return "\n".join(plain(line) for line in screen.query(".detail-line"))  # type: ignore[attr-defined]


async def finished_app(pilot) -> None:
    await ask(pilot)
    await press_and_settle(pilot, "y")


async def test_clarification_question_and_answer(tmp_path: Path) -> None:
    driver = ScriptedDriver(clarification_story())
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, "asyncio?")
        panel = app.screen.query_one(ClarificationPanel)
        assert panel.has_class("-asking")
        assert "Which part of asyncio" in plain(panel.query_one("#clarify-question", Static))
        assert app.focused is panel.query_one("#clarify-answer", Input)
        plan = app.screen.query_one(PlanPane).query_one("#plan-summary", Static)
        assert "waiting for your answer" in plain(plan)
        await pilot.press(*"scheduling", "enter")
        await settle(pilot)
        assert ("answer_clarification", "scheduling") in driver.calls
        assert not panel.has_class("-asking")
        assert app.screen.query_one(PlanPane).reviewing


async def test_cancel_mid_run_stops_the_worker_and_says_how_to_resume(tmp_path: Path) -> None:
    hold = Hold()
    driver = ScriptedDriver({"start": [opening()], "review_plan": [[*research_running(), hold]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await hold.reached.wait()
        await pilot.pause()
        assert app.link.running
        await pilot.press("ctrl+x")
        await settle(pilot)
        assert not app.link.running
        assert driver.cancelled == 1
        notice = app.screen.query_one(RunNotice)
        assert "ctrl+r resumes" in plain(notice)
        # What arrived before the cancel stays on screen.
        assert app.screen.query_one(UnitsTable).row_count == 3


async def test_failed_run_shows_the_error_and_resume_continues(tmp_path: Path) -> None:
    driver = ScriptedDriver(
        {"start": [opening()], "review_plan": [failed_run()], "resume": [research_finished()]}
    )
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        await press_and_settle(pilot, "y")
        notice = app.screen.query_one(RunNotice)
        assert notice.has_class("-failed")
        text = plain(notice)
        assert "The model endpoint did not answer in time." in text
        assert "ctrl+r" in text
        await press_and_settle(pilot, "ctrl+r")
        assert ("resume", None) in driver.calls
        assert not notice.has_class("-shown")
        assert app.screen.query_one(ReportPane).report is not None


async def test_engine_exception_is_sanitized(tmp_path: Path) -> None:
    secret = "sk-live-SECRET at http://10.0.0.7:8000/v1"
    driver = ScriptedDriver({"start": [[*opening()[:2], RuntimeError(secret)]]})
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        text = plain(app.screen.query_one(RunNotice))
        assert "stopped unexpectedly (RuntimeError)" in text
        assert "SECRET" not in text and "10.0.0.7" not in text


async def test_session_that_cannot_open_reports_why(tmp_path: Path) -> None:
    driver = ScriptedDriver(full_story())
    app, _ = make_app(tmp_path, driver, open_error=ModuleNotFoundError("engine.run.runner"))
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot)
        text = plain(app.screen.query_one(RunNotice))
        assert "not installed" in text
        assert driver.calls == []


async def test_units_enter_opens_tool_calls_and_findings(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await finished_app(pilot)
        app.screen.query_one(UnitsTable).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, UnitDetailScreen)
        text = detail_text(app.screen)
        assert "search documents" in text and "read a page" in text
        assert "Tool calls (2)" in text and "Findings (2)" in text
        assert "asyncio-eventloop.html" in text
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, UnitDetailScreen)


async def test_ledger_filters_sort_and_record_detail(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await finished_app(pilot)
        ledger = app.screen.query_one(LedgerPane)
        assert len(ledger.visible_ids()) == 6
        ledger.set_text_filter("COROUTINE")
        assert ledger.visible_ids() == ["e3", "e4", "e5"]
        ledger.set_text_filter("")
        # Domain options are rebuilt on a throttle; choosing one before it runs is refused.
        for _ in range(100):
            if not ledger._domain_refresh.pending:
                break
            await pilot.pause(0.05)
        ledger.query_one(Select).value = "peps.python.org"
        await pilot.pause()
        assert ledger.visible_ids() == ["e5"]
        ledger.query_one(Select).clear()
        await pilot.pause()
        assert len(ledger.visible_ids()) == 6

        table = ledger.query_one(DataTable)
        table.focus()
        await pilot.press("s")  # sort by claim, ascending
        ids = ledger.visible_ids()
        claims = [ledger._records[int(i[1:]) - 1].claim for i in ids]
        assert claims == sorted(claims)
        await pilot.press("s")  # same column, descending
        assert ledger.visible_ids() == list(reversed(ids))

        await pilot.press("home", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RecordDetailScreen)
        record = app.screen.record
        text = detail_text(app.screen)
        assert record.claim in text
        assert all(url in text for url in record.source_urls)


async def test_citation_jump_shows_source_and_evidence(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await finished_app(pilot)
        report = app.screen.query_one(ReportPane)
        assert app.focused is report
        await pilot.press("]", "]", "]")  # third citation in reading order is [2]
        assert report.current_citation == 2
        assert "create_task" in plain(report.query_one("#report-status", Static))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CitationDetailScreen)
        text = detail_text(app.screen)
        assert "https://docs.python.org/3/library/asyncio-task.html" in text
        assert "Evidence citing it (2)" in text
        assert "create_task wraps a coroutine" in text
        assert "Sentences citing it" not in text  # its one scored sentence was removed
        await pilot.press("escape")
        await pilot.press("[")
        assert report.current_citation == 1
        report.post_message(ReportPane.CitationOpened(3))
        await pilot.pause()
        text = detail_text(app.screen)
        assert "Sentences citing it (1)" in text and "supported 0.90" in text
        assert "the source says: Coroutines declared with the async/await syntax" in text


async def test_audit_export_and_copy(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, ScriptedDriver(full_story()))
    async with app.run_test(size=(120, 36)) as pilot:
        await finished_app(pilot)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, AuditScreen)
        text = detail_text(app.screen)
        assert "Kept (3)" in text and "Removed (1)" in text and "never retrieved" in text
        assert "Claims (2) — grounding strict" in text
        assert "Tasks run on a thread pool by default [2]." in text
        assert "unsupported 0.00  removed" in text and "its sources do not say this" in text
        await pilot.press("escape", "e")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)  # export asks where, offering the default
        await pilot.press("enter")
        await pilot.pause()
        exported = tmp_path / "exports" / f"deepresearch-{SESSION_ID}.md"
        notice = app.screen.query_one(RunNotice)
        assert await wait_until(pilot, lambda: str(exported) in plain(notice))
        written = exported.read_text(encoding="utf-8")
        assert written.startswith("# How asyncio schedules coroutines\n")
        assert "## Sources" in written and "## Appendix: verification audit" in written
        assert str(exported) in plain(app.screen.query_one(RunNotice))
        await pilot.press("c")
        await pilot.pause()
        assert app.clipboard == REPORT_MARKDOWN


async def test_follow_up_question_reuses_the_session(tmp_path: Path) -> None:
    story = full_story()
    story["start"].append(
        [SessionStarted(session_id=SESSION_ID, question="And threads?"), PhaseChanged(phase="done")]
    )
    driver = ScriptedDriver(story)
    app, backend = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await finished_app(pilot)
        await ask(pilot, "And threads?")
        assert [name for name, _ in driver.calls] == ["start", "review_plan", "start"]
        assert backend.opened == [None]
        # Same session: what was found before is still on screen.
        assert app.screen.query_one(UnitsTable).row_count == 3


async def test_mode_toggle_is_sent_with_the_question(tmp_path: Path) -> None:
    driver = ScriptedDriver(full_story())
    app, _ = make_app(tmp_path, driver)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("ctrl+t", "ctrl+t")
        await ask(pilot)
        assert driver.calls[0] == ("start", (QUESTION, "deep"))


def test_the_audit_names_its_verification_reason_in_plain_words() -> None:
    report = report_event(verification_reason="valid_citations")
    screen = AuditScreen(report)
    text = "\n".join(line.plain for line in screen.lines())
    kept, removed = len(report.kept_citations), len(report.removed_citations)
    assert kept > 1  # the story keeps several, so the plural is what is read
    expected = f"verified: {kept} citations kept" + (f", {removed} removed" if removed else "")
    assert text.splitlines()[0] == expected
    assert "valid_citations" not in text and "—" not in text.splitlines()[0]


def test_the_audit_says_which_model_judged_support_or_why_none_did() -> None:
    why = "off (local at 127.0.0.1:8081 was right on 1 of 6 supported and 6 of 6 unsupported)"
    text = "\n".join(line.plain for line in AuditScreen(report_event(grounding_judge=why)).lines())
    assert f"Judge: {why}" in text
    unsaid = "\n".join(line.plain for line in AuditScreen(report_event()).lines())
    assert "Judge:" not in unsaid
