"""The main research screen: four panes, the header, the question bar.

It turns bridge messages into widget updates and widget messages into driver calls. Policy
lives in the engine; this screen only shows what the engine reported and forwards decisions.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Vertical
from textual.screen import Screen
from textual.widgets import Footer

from tui.citations import evidence_citing, source_for
from tui.engine_link import EngineCrashed, EngineLink
from tui.screens.audit import AuditScreen
from tui.screens.citation_detail import CitationDetailScreen
from tui.screens.feedback import FeedbackScreen
from tui.screens.record_detail import RecordDetailScreen
from tui.screens.unit_detail import UnitDetailScreen
from tui.session_view import SessionView
from tui.widgets.clarification_panel import ClarificationPanel
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.mode_toggle import ModeToggle
from tui.widgets.plan_pane import PlanPane
from tui.widgets.question_bar import QuestionBar
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsTable

if TYPE_CHECKING:
    # Annotations only: the bridge and the event models load with the first engine call.
    from engine.events import ReportReady
    from engine.schemas import PlanDecision
    from tui.bridge import (
        ClarificationAsked,
        EvidenceArrived,
        PhaseUpdated,
        PlanArrived,
        ProgressUpdated,
        ReportArrived,
        RouteChosen,
        RunEnded,
        RunFailedNotice,
        SessionBegan,
        StreamClosed,
        ToolCallsLogged,
        UnitsUpdated,
        UsageChanged,
    )

_ENDED_PHASES = {"done", "cancelled", "failed"}


class _ScreenClosed(Exception):
    """Raised from an indexing progress callback to stop indexing when the screen closes."""


class ResearchScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_name("research.tcss")
    # Focused as the screen mounts: a second focus change in on_mount would restyle every
    # widget again before the first frame.
    AUTO_FOCUS = "#question"

    def __init__(self, link: EngineLink, *, clock: Callable[[], float], export_dir: Path) -> None:
        super().__init__()
        self.link = link
        self.clock = clock
        self.export_dir = export_dir
        self.view = SessionView()
        # What the settings say before any session reports (None until read).
        self.settings_offline: bool | None = None
        # Set when the screen goes away: background indexing stops at the next file.
        self._stop_indexing = threading.Event()

    def compose(self) -> ComposeResult:
        yield StatusHeader(id="header")
        with Vertical(id="body"):
            yield RunNotice(id="notice")
            yield ClarificationPanel(id="clarify")
            with Grid(id="panes"):
                yield PlanPane(id="plan")
                yield UnitsTable(id="units")
                yield LedgerPane(id="ledger")
                yield ReportPane(id="report")
        yield QuestionBar(id="ask")
        yield Footer()

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)
        # Settings and the event models load after the first frame, off the message loop, so
        # neither the first frame nor the first question waits for them.
        self.call_after_refresh(self._warm_up)

    def _warm_up(self) -> None:
        self.run_worker(self._load_in_background, thread=True, name="warm-up", group="warm-up")

    def _load_in_background(self) -> None:
        import tui.bridge
        import tui.plan_draft  # noqa: F401

        try:
            offline = self.link.backend.offline_model()
        except Exception:  # bad settings: the doctor (F3) says which; no badge meanwhile
            return
        self.app.call_from_thread(self._show_settings_offline, offline)
        self._index_documents()

    def _index_documents(self) -> None:
        """Index the documents folder while the person types (a first run takes a while)."""

        def report(done: int, total: int) -> None:
            if self._stop_indexing.is_set():
                raise _ScreenClosed  # stops the refresh; the index stays as it was
            self._show_indexing(f"indexing documents {done}/{total}")

        # On failure the first search refreshes the index again and reports what went wrong.
        with contextlib.suppress(Exception):
            self.link.backend.prepare_documents(report)
        self._show_indexing("")

    def _show_indexing(self, text: str) -> None:
        """From the indexing thread: update the header, unless the screen is going away."""
        if self._stop_indexing.is_set():
            return
        with contextlib.suppress(RuntimeError):  # the app stopped between check and call
            self.app.call_from_thread(self._set_indexing_text, text)

    def _set_indexing_text(self, text: str) -> None:
        for header in self.query(StatusHeader).results(StatusHeader):
            header.show_documents(text)

    def on_unmount(self) -> None:
        self._stop_indexing.set()

    def _show_settings_offline(self, offline: bool) -> None:
        self.settings_offline = offline
        if not self.view.session_id:  # a session's own report wins once it started
            self.header.show_offline(offline)

    # ---- helpers -----------------------------------------------------------------------

    @property
    def header(self) -> StatusHeader:
        return self.query_one(StatusHeader)

    def _tick(self) -> None:
        started = self.view.started_at
        if started is not None:
            end = self.view.finished_at if self.view.finished_at is not None else self.clock()
            self.header.show_elapsed(end - started)

    def reset(self) -> None:
        """Clear every pane for a new or reopened session."""
        self.view = SessionView()
        self.header.reset()
        self.header.show_offline(bool(self.settings_offline))
        self.query_one(PlanPane).clear()
        self.query_one(UnitsTable).clear()
        self.query_one(LedgerPane).clear()
        self.query_one(ReportPane).clear()
        self.query_one(RunNotice).hide()
        self.query_one(ClarificationPanel).close()
        self.query_one(ModeToggle).show_route(None)

    def show_saved_report(self, question: str, report: ReportReady) -> None:
        self.reset()
        self.view.question = question
        self.view.report = report
        self.query_one(ReportPane).show_report(report)
        self.query_one(RunNotice).show_info(f"Saved report: {question}")
        self.query_one(ReportPane).focus()

    # ---- person → engine ---------------------------------------------------------------

    def on_question_bar_asked(self, message: QuestionBar.Asked) -> None:
        if self.link.running:
            self.notify("A run is in progress: cancel it (ctrl+x) first.", severity="warning")
            return
        question, mode = message.question, message.mode
        if self.view.report is not None or self.view.failure is not None:
            # A follow-up keeps the session (the engine decides whether the topic shifted).
            self.query_one(RunNotice).hide()
        self.view.question = question
        self.link.run(lambda driver: driver.start(question, mode=mode), self)

    def on_clarification_panel_answered(self, message: ClarificationPanel.Answered) -> None:
        answer = message.answer
        self.query_one(ClarificationPanel).close()
        self.view.clarification = None
        self.link.run(lambda driver: driver.answer_clarification(answer), self)

    def on_plan_pane_decided(self, message: PlanPane.Decided) -> None:
        self.send_plan_decision(message.decision)

    def send_plan_decision(self, decision: PlanDecision) -> None:
        self.query_one(PlanPane).end_review()
        self.link.run(lambda driver: driver.review_plan(decision), self)

    def on_plan_pane_editing(self, message: PlanPane.Editing) -> None:
        # The plan pane takes the whole grid while a track is edited, so the three inputs
        # stay visible at 80×24; the other panes are empty during plan review anyway.
        self.query_one("#panes").set_class(message.active, "-editing-plan")

    def on_plan_pane_feedback_wanted(self, _: PlanPane.FeedbackWanted) -> None:
        from engine.schemas import PlanDecision

        def send(feedback: str | None) -> None:
            if feedback:
                self.send_plan_decision(PlanDecision(action="revise", feedback=feedback))
            else:
                self.query_one(PlanPane).focus()

        self.app.push_screen(FeedbackScreen(), send)

    def _set_resumable(self, resumable: bool) -> None:
        # The footer offers the resume key exactly while there is something to resume.
        self.view.resumable = resumable
        self.app.refresh_bindings()

    def resume(self) -> None:
        self.query_one(RunNotice).hide()
        self.view.failure = None
        self._set_resumable(False)
        self.link.run(lambda driver: driver.resume(), self)

    # ---- engine → panes ----------------------------------------------------------------

    def on_session_began(self, message: SessionBegan) -> None:
        event = message.event
        if event.session_id != self.view.session_id and self.view.session_id:
            self.reset()
        self.view.session_id = event.session_id
        self.view.question = event.question
        self.view.offline = event.offline
        self.view.started_at, self.view.finished_at = self.clock(), None
        self.header.show_offline(event.offline)
        self.header.show_elapsed(0)
        self.sub_title = event.question

    def on_phase_updated(self, message: PhaseUpdated) -> None:
        event = message.event
        self.view.phase, self.view.phase_detail = event.phase, event.detail
        self.header.show_phase(event.phase, event.detail)
        if event.phase in _ENDED_PHASES and self.view.started_at is not None:
            self.view.finished_at = self.clock()
            self._tick()

    def on_clarification_asked(self, message: ClarificationAsked) -> None:
        self.view.clarification = message.event.question
        self.query_one(ClarificationPanel).ask(message.event.question)

    def on_plan_arrived(self, message: PlanArrived) -> None:
        event = message.event
        self.view.plan, self.view.plan_revision = event.plan, event.revision
        note = (
            f"The engine refused the edit: {event.rejected_edit_reason}"
            if event.rejected_edit_reason
            else ""
        )
        plan = self.query_one(PlanPane)
        plan.show_plan(event.plan, revision=event.revision, reviewing=True, note=note)
        plan.focus()

    def on_route_chosen(self, message: RouteChosen) -> None:
        self.view.route = message.event
        self.query_one(ModeToggle).show_route(message.event)

    def on_progress_updated(self, message: ProgressUpdated) -> None:
        progress = message.event
        self.view.progress = progress
        self.header.show_progress(progress)  # its units arrive as `UnitsUpdated`

    def on_units_updated(self, message: UnitsUpdated) -> None:
        units = message.drain()
        for unit in units:
            self.view.units[unit.id] = unit
        self.query_one(UnitsTable).show_units(units)

    def on_tool_calls_logged(self, message: ToolCallsLogged) -> None:
        self.view.add_tool_calls(message.drain())

    async def on_evidence_arrived(self, message: EvidenceArrived) -> None:
        fresh = self.view.add_records(message.drain())
        await self.query_one(LedgerPane).add_records(fresh)

    def on_usage_changed(self, message: UsageChanged) -> None:
        self.view.usage = message.event
        self.header.show_usage(message.event)

    def on_report_arrived(self, message: ReportArrived) -> None:
        self.view.report = message.event
        pane = self.query_one(ReportPane)
        pane.show_report(message.event)
        pane.focus()

    def on_run_failed_notice(self, message: RunFailedNotice) -> None:
        event = message.event
        self.view.failure = event.error
        self.query_one(RunNotice).show_failure(event.error, resumable=event.resumable)
        self._set_resumable(event.resumable)

    def on_run_ended(self, message: RunEnded) -> None:
        if message.event.status == "cancelled":
            self.query_one(RunNotice).show_info("Run cancelled. ctrl+r resumes it.")
            self._set_resumable(True)

    def on_engine_crashed(self, message: EngineCrashed) -> None:
        self.view.failure = message.reason
        self.query_one(RunNotice).show_failure(message.reason, resumable=True)
        self._set_resumable(True)

    def on_stream_closed(self, message: StreamClosed) -> None:
        if message.cancelled:
            self.query_one(PlanPane).end_review()
            self.query_one(RunNotice).show_info(
                "Run stopped. The session is saved: ctrl+r resumes it."
            )
            self._set_resumable(True)

    # ---- details -----------------------------------------------------------------------

    def on_units_table_opened(self, message: UnitsTable.Opened) -> None:
        unit = self.view.units.get(message.unit_id)
        if unit is not None:
            calls = list(self.view.tool_calls.get(unit.id, []))
            self.app.push_screen(UnitDetailScreen(unit, calls, self.view.findings_of(unit.id)))

    def on_ledger_pane_opened(self, message: LedgerPane.Opened) -> None:
        record = self.view.records_by_id.get(message.record_id)
        if record is not None:
            topic = self.view.unit_topic(record.research_unit_id) if record.research_unit_id else ""
            self.app.push_screen(RecordDetailScreen(record, topic))

    def on_report_pane_citation_opened(self, message: ReportPane.CitationOpened) -> None:
        report = self.view.report
        if report is None:
            return
        entry = source_for(report, message.number)
        evidence = evidence_citing(entry.source, self.view.records) if entry else []
        self.app.push_screen(CitationDetailScreen(message.number, entry, evidence))

    def on_report_pane_action_requested(self, message: ReportPane.ActionRequested) -> None:
        {"audit": self.open_audit, "export": self.export_report, "copy": self.copy_report}[
            message.action
        ]()

    def open_audit(self) -> None:
        if self.view.report is not None:
            self.app.push_screen(AuditScreen(self.view.report))

    def export_report(self) -> Path | None:
        report = self.view.report
        if report is None:
            self.notify("No report to export yet.", severity="warning")
            return None
        name = f"deepresearch-{self.view.session_id or 'report'}.md"
        path = self.export_dir / name
        try:
            self.export_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(report.report, encoding="utf-8")
        except OSError as error:
            self.notify(f"Export failed: {error.strerror}", severity="error", markup=False)
            return None
        self.query_one(RunNotice).show_info(f"Report exported to {path}")
        self.notify(f"Exported to {path}", markup=False)
        return path

    def copy_report(self) -> None:
        if self.view.report is not None:
            self.app.copy_to_clipboard(self.view.report.report)
            self.notify("Report copied to the clipboard.")

    def show_note(self, text: str) -> None:
        self.query_one(RunNotice).show_info(text)

    def status_line(self) -> Text:
        return self.header.status_text()
