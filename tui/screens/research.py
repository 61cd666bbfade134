"""The main research screen: four panes, the header, the question bar.

It turns bridge messages into widget updates and widget messages into driver calls. Policy
lives in the engine; this screen only shows what the engine reported and forwards decisions.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from tui.engine_link import EngineCrashed, EngineLink
from tui.on_screen import for_session_on_screen
from tui.presentation import source_domain
from tui.session_view import SessionView
from tui.widgets.clarification_panel import ClarificationPanel
from tui.widgets.context_footer import ContextFooter
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.mode_toggle import ModeToggle
from tui.widgets.plan_pane import PlanPane
from tui.widgets.question_bar import QuestionBar
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsPane, UnitsTable

if TYPE_CHECKING:
    # Annotations only: the bridge and the event models load with the first engine call.
    from engine.events import Event
    from engine.schemas import PlanDecision
    from tui.bridge import (
        ClarificationAsked,
        EvidenceArrived,
        ModelCallUpdated,
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
    from tui.screens.unit_detail import UnitDetailScreen

_ENDED_PHASES = {"done", "cancelled", "failed"}
# Phases before a plan exists: the plan pane shows that the plan is being drafted.
_PLANNING_PHASES = {"scoping", "routing", "clarifying", "planning"}
# Below this size the plan pane takes the whole grid while a plan waits for review.
SMALL_TERMINAL = (100, 30)
PANE_IDS = ("plan", "units", "ledger", "report")


def _unit_detail_screen() -> type[UnitDetailScreen]:
    # The detail screens load when first opened, not before the first frame.
    from tui.screens.unit_detail import UnitDetailScreen

    return UnitDetailScreen


class _ScreenClosed(Exception):
    """Raised from an indexing progress callback to stop indexing when the screen closes."""


class ResearchScreen(Screen[None]):
    CSS_PATH = Path(__file__).with_name("research.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        # Digits type into inputs; anywhere else they jump to a pane (one footer entry).
        Binding("1", "focus_pane(1)", "Pane", key_display="1-4", id="research.pane"),
        Binding("2", "focus_pane(2)", show=False),
        Binding("3", "focus_pane(3)", show=False),
        Binding("4", "focus_pane(4)", show=False),
        # Back to the question bar from any pane (and from a pane's own input: a filter, a
        # track editor), where Tab alone may take many presses.
        Binding("ctrl+l", "focus_question", "Ask", id="research.ask"),
    ]
    # Focused as the screen mounts: a second focus change in on_mount would restyle every
    # widget again before the first frame.
    AUTO_FOCUS = "#question"
    # Escape belongs to the editors and search fields inside panes; F10 toggles the zoom.
    ESCAPE_TO_MINIMIZE = False

    def __init__(
        self, link: EngineLink, *, clock: Callable[[], float], export_dir: Path | None
    ) -> None:
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
                yield UnitsPane(id="units")
                yield LedgerPane(id="ledger")
                yield ReportPane(id="report")
        yield QuestionBar(id="ask")
        yield ContextFooter(compact=True)

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
        warning: str | None = None
        with contextlib.suppress(Exception):
            warning = self.link.backend.prepare_documents(report)
        self._show_indexing(f"warning: {warning}" if warning else "")

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
        started, finished = self.view.started_at, self.view.finished_at
        if started is not None:
            end = finished if finished is not None else self.clock()
            self.header.show_elapsed(end - started, final=finished is not None)

    def reset(self) -> None:
        """Clear every pane for a new or reopened session."""
        self.view = SessionView()
        self.header.reset()
        self.header.show_offline(bool(self.settings_offline))
        self.minimize()
        self.query_one(PlanPane).clear()
        self.query_one(UnitsPane).clear()
        self.query_one(LedgerPane).clear()
        self.query_one(ReportPane).clear()
        self.query_one(RunNotice).hide()
        self.query_one(ClarificationPanel).close()
        self.query_one(ModeToggle).show_route(None)
        self._set_resumable(False)

    class Replayed(Message, bubble=False):
        """The last of a replay's messages: how long the stored session took (None: unknown)."""

        def __init__(self, elapsed: float | None, epoch: int) -> None:
            super().__init__()
            self.elapsed = elapsed
            self.epoch = epoch

    def replay(self, events: list[Event], *, elapsed: float | None = None) -> None:
        """Show a stored session by replaying its events, exactly as they arrived live, and
        then the time it took (`elapsed`, from what was stored), not the replay's own."""
        from tui.bridge import EventBridge

        bridge = EventBridge(self, self.link.epoch)
        for event in events:
            bridge.post(event)
        self.post_message(self.Replayed(elapsed, self.link.epoch))

    @for_session_on_screen
    def on_research_screen_replayed(self, message: Replayed) -> None:
        if message.elapsed is None:
            self.view.started_at = self.view.finished_at = None
            self.header.show_elapsed(None)
            return
        now = self.clock()
        self.view.started_at, self.view.finished_at = now - message.elapsed, now
        self._tick()

    # ---- panes -------------------------------------------------------------------------

    def action_focus_pane(self, number: int) -> None:
        pane = self.query_one(f"#{PANE_IDS[number - 1]}")
        if self.maximized is not None and self.maximized is not pane:
            self.maximize(pane, container=False)
        if pane.can_focus:
            pane.focus()
            return
        if isinstance(pane, UnitsPane | LedgerPane):
            # Its table, not a filter field, takes the keys (mounted now if it was not yet).
            pane.table.focus()
            return
        from textual.widgets import DataTable

        for table in pane.query(DataTable).results(DataTable):
            if table.focusable:
                table.focus()
                return
        for child in pane.query("*").results(Widget):
            if child.focusable:
                child.focus()
                return

    def action_focus_question(self) -> None:
        if self.maximized is not None:
            self.minimize()  # a zoomed pane covers the question bar
        self.query_one("#question").focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_question":
            # Offered where it moves something: not in the question bar itself.
            return self.focused is None or self.focused.id != "question"
        return True

    def pane_of(self, widget: Widget | None) -> Widget | None:
        """The pane (plan, units, ledger, report) that holds `widget`, if any."""
        while widget is not None and widget is not self:
            if widget.id in PANE_IDS and widget.parent is self.query_one("#panes"):
                return widget
            parent = widget.parent
            widget = parent if isinstance(parent, Widget) else None
        return None

    def toggle_zoom(self) -> None:
        """Zoom the focused pane to the whole screen, or restore the four panes."""
        if self.maximized is not None:
            self.minimize()
            return
        pane = self.pane_of(self.focused) or self.query_one(ReportPane)
        self.maximize(pane, container=False)
        pane.focus()

    def _is_small(self) -> bool:
        width, height = SMALL_TERMINAL
        return self.size.width < width or self.size.height < height

    # ---- person → engine ---------------------------------------------------------------

    def on_question_bar_asked(self, message: QuestionBar.Asked) -> None:
        if self.link.running:
            self.notify("A run is in progress: cancel it (ctrl+x) first.", severity="warning")
            return
        question, mode = message.question, message.mode
        pending = self._pending_decision()
        if pending:
            from tui.screens.confirm import ConfirmScreen

            # One session on screen: a new question while the engine waits for the person
            # would start a second run whose events mix into this one. Ask first.
            def answered(abandon: bool | None) -> None:
                if abandon:
                    self.start_new_session(question, mode)

            self.app.push_screen(
                ConfirmScreen(
                    "Start a new session?",
                    f"{pending} It stays saved (F2 reopens it). "
                    "Abandon it here and start a new session with this question?",
                ),
                answered,
            )
            return
        if self.view.report is not None or self.view.failure is not None:
            # A follow-up keeps the session (the engine decides whether the topic shifted).
            self.query_one(RunNotice).hide()
        self.view.question = question
        self.link.run(lambda driver: driver.start(question, mode=mode), self)

    def _pending_decision(self) -> str:
        """What the engine waits for from the person on screen ("" when nothing)."""
        if self.query_one(PlanPane).reviewing:
            return "A plan is waiting for your review."
        if self.view.clarification is not None:
            return "The engine is waiting for your answer to its question."
        return ""

    def start_new_session(self, question: str, mode: str) -> None:
        self.link.close()
        self.reset()
        self.link.open(None)
        self.view.question = question
        self.link.run(lambda driver: driver.start(question, mode=mode), self)  # type: ignore[arg-type]

    def on_clarification_panel_answered(self, message: ClarificationPanel.Answered) -> None:
        answer = message.answer
        self.query_one(ClarificationPanel).close()
        self.view.clarification = None
        self.link.run(lambda driver: driver.answer_clarification(answer), self)

    def on_plan_pane_decided(self, message: PlanPane.Decided) -> None:
        self.send_plan_decision(message.decision)

    def _plan_review_cancelled(self) -> None:
        plan = self.query_one(PlanPane)
        if plan.reviewing:  # a plan approved earlier stays approved when research is stopped
            plan.end_review("cancelled")

    def send_plan_decision(self, decision: PlanDecision) -> None:
        outcome = {"cancel": "cancelled", "revise": "revision asked"}.get(
            decision.action, "approved"
        )
        self.query_one(PlanPane).end_review(outcome)
        self._unzoom_plan()
        self.link.run(lambda driver: driver.review_plan(decision), self)

    def on_plan_pane_editing(self, message: PlanPane.Editing) -> None:
        # The plan pane takes the whole grid while a track is edited, so the three inputs
        # stay visible at 80×24; the other panes are empty during plan review anyway.
        self.query_one("#panes").set_class(message.active, "-editing-plan")

    def on_plan_pane_feedback_wanted(self, _: PlanPane.FeedbackWanted) -> None:
        from engine.schemas import PlanDecision

        pane = self.query_one(PlanPane)

        def send(feedback: str | None) -> None:
            if not feedback:
                pane.focus()
                return
            # The person's edits travel with the feedback, so the revision starts from them.
            edited = pane.draft.plan if pane.draft is not None and pane.draft.changed else None
            self.view.plan_before_revision = edited or self.view.plan
            self.send_plan_decision(PlanDecision(action="revise", feedback=feedback, plan=edited))

        from tui.screens.feedback import FeedbackScreen

        self.app.push_screen(FeedbackScreen(), send)

    def _set_resumable(self, resumable: bool) -> None:
        # The footer offers the resume key exactly while there is something to resume.
        self.view.resumable = resumable
        self.app.refresh_bindings()

    def resume(self) -> None:
        """Resume the session on screen (never another one the link happens to hold)."""
        session_id = self.view.session_id or self.link.session_id
        if not session_id:
            return
        if self.link.session_id != session_id or not self.link.is_open:
            self.link.open(session_id)
        self.query_one(RunNotice).hide()
        self.view.failure = None
        self._set_resumable(False)
        self.link.run(lambda driver: driver.resume(), self)

    # ---- engine → panes ----------------------------------------------------------------

    @for_session_on_screen
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

    @for_session_on_screen
    def on_phase_updated(self, message: PhaseUpdated) -> None:
        event = message.event
        self.view.phase, self.view.phase_detail = event.phase, event.detail
        self.header.show_phase(event.phase, event.detail)
        plan = self.query_one(PlanPane)
        if event.phase != "plan_review" and plan.reviewing:
            # The engine moved on (approved elsewhere, revised, replayed): nothing to review.
            plan.end_review()
        if event.phase != "plan_review":
            self._unzoom_plan()
        plan.show_phase(event.phase if event.phase in _PLANNING_PHASES else "")
        self.query_one(ReportPane).show_phase(event.phase)
        if event.phase in _ENDED_PHASES and self.view.started_at is not None:
            self.view.finished_at = self.clock()
            self._tick()

    @for_session_on_screen
    def on_clarification_asked(self, message: ClarificationAsked) -> None:
        self.view.clarification = message.event.question
        self.query_one(ClarificationPanel).ask(message.event.question)

    @for_session_on_screen
    def on_plan_arrived(self, message: PlanArrived) -> None:
        event = message.event
        before = self.view.plan_before_revision
        self.view.plan, self.view.plan_revision = event.plan, event.revision
        self.view.plan_before_revision = None
        note = ""
        if event.rejected_edit_reason:
            note = f"The engine refused the edit: {event.rejected_edit_reason}"
        elif before is not None and before == event.plan:
            note = "The planner returned the same plan: your feedback changed nothing."
        elif before is not None:
            note = "Revised with your feedback."
        plan = self.query_one(PlanPane)
        plan.show_plan(event.plan, revision=event.revision, reviewing=True, note=note)
        plan.focus()
        if self._is_small():
            # At 80×24 the plan needs the whole grid to be read and reviewed.
            self.maximize(plan, container=False)

    def _unzoom_plan(self) -> None:
        if self.maximized is self.query_one(PlanPane):
            self.minimize()

    @for_session_on_screen
    def on_route_chosen(self, message: RouteChosen) -> None:
        self.view.route = message.event
        self.query_one(ModeToggle).show_route(message.event)
        if message.event.mode == "quick":
            self.query_one(PlanPane).show_quick_path()

    @for_session_on_screen
    def on_progress_updated(self, message: ProgressUpdated) -> None:
        progress = message.event
        self.view.progress = progress
        self.header.show_progress(progress)  # its units arrive as `UnitsUpdated`

    @for_session_on_screen
    def on_units_updated(self, message: UnitsUpdated) -> None:
        units = message.drain()
        for unit in units:
            self.view.units[unit.id] = unit
        self.query_one(UnitsPane).table.show_units(units)
        self._refresh_unit_detail()

    @for_session_on_screen
    def on_tool_calls_logged(self, message: ToolCallsLogged) -> None:
        self.view.add_tool_calls(message.drain())
        self._refresh_unit_detail()

    @for_session_on_screen
    async def on_evidence_arrived(self, message: EvidenceArrived) -> None:
        fresh = self.view.add_records(message.drain())
        for record in fresh:
            self.view.domains.update(source_domain(url) for url in record.source_urls)
        # The gate counts grow with the ledger, between the supervisor's own reports.
        self.header.show_evidence(len(self.view.records), len(self.view.domains))
        self._refresh_unit_detail()
        await self.query_one(LedgerPane).add_records(fresh)

    def _refresh_unit_detail(self) -> None:
        """A unit detail screen on top follows its unit live instead of freezing."""
        for screen in self.app.screen_stack:
            if isinstance(screen, _unit_detail_screen()):
                unit = self.view.units.get(screen.unit.id, screen.unit)
                screen.update(
                    unit,
                    list(self.view.tool_calls.get(unit.id, [])),
                    self.view.findings_of(unit.id),
                )

    @for_session_on_screen
    def on_model_call_updated(self, message: ModelCallUpdated) -> None:
        from engine.progress_text import describe_model_call

        self.header.show_model_call(describe_model_call(message.event, short=True) or "")

    @for_session_on_screen
    def on_usage_changed(self, message: UsageChanged) -> None:
        self.view.usage = message.event
        self.header.show_usage(message.event)

    @for_session_on_screen
    async def on_report_arrived(self, message: ReportArrived) -> None:
        self.view.report = message.event
        pane = self.query_one(ReportPane)
        await pane.show_report(message.event)
        pane.focus()

    @for_session_on_screen
    def on_run_failed_notice(self, message: RunFailedNotice) -> None:
        event = message.event
        self.view.failure = event.error
        self.query_one(RunNotice).show_failure(event.error, resumable=event.resumable)
        self._set_resumable(event.resumable)

    @for_session_on_screen
    def on_run_ended(self, message: RunEnded) -> None:
        if message.event.status == "partial":
            self.query_one(RunNotice).show_info(
                "Partial report: the session's budget was reached. Raise its budget in "
                "Settings (F3), then ctrl+r continues the research."
            )
            self._set_resumable(True)
        if message.event.status == "cancelled":
            self._plan_review_cancelled()
            self._unzoom_plan()
            self.query_one(RunNotice).show_info("Run cancelled. ctrl+r resumes it.")
            self._set_resumable(True)

    @for_session_on_screen
    def on_engine_crashed(self, message: EngineCrashed) -> None:
        self.view.failure = message.reason
        self.query_one(RunNotice).show_failure(message.reason, resumable=True)
        self._set_resumable(True)

    @for_session_on_screen
    def on_stream_closed(self, message: StreamClosed) -> None:
        if message.cancelled:
            self._plan_review_cancelled()
            self._unzoom_plan()
            self.query_one(RunNotice).show_info(
                "Run stopped. The session is saved: ctrl+r resumes it."
            )
            self._set_resumable(True)
        self.app.refresh_bindings()  # the cancel key shows only while a run goes

    # ---- details -----------------------------------------------------------------------

    def on_units_table_opened(self, message: UnitsTable.Opened) -> None:
        unit = self.view.units.get(message.unit_id)
        if unit is not None:
            calls = list(self.view.tool_calls.get(unit.id, []))
            screen = _unit_detail_screen()(unit, calls, self.view.findings_of(unit.id))
            self.app.push_screen(screen)

    def on_ledger_pane_opened(self, message: LedgerPane.Opened) -> None:
        record = self.view.records_by_id.get(message.record_id)
        if record is not None:
            topic = self.view.unit_topic(record.research_unit_id) if record.research_unit_id else ""
            from tui.screens.record_detail import RecordDetailScreen

            self.app.push_screen(RecordDetailScreen(record, topic))

    def on_report_pane_citation_opened(self, message: ReportPane.CitationOpened) -> None:
        report = self.view.report
        if report is None:
            return
        from tui.citations import evidence_citing, source_for
        from tui.screens.citation_detail import CitationDetailScreen

        entry = source_for(report, message.number)
        evidence = evidence_citing(entry.source, self.view.records) if entry else []
        claims = [
            claim
            for claim in report.claims
            if message.number in claim.numbers and claim.action != "removed"
        ]
        self.app.push_screen(CitationDetailScreen(message.number, entry, evidence, claims))

    def on_report_pane_action_requested(self, message: ReportPane.ActionRequested) -> None:
        {"audit": self.open_audit, "export": self.export_report, "copy": self.copy_report}[
            message.action
        ]()

    def open_audit(self) -> None:
        if self.view.report is not None:
            from tui.screens.audit import AuditScreen

            self.app.push_screen(AuditScreen(self.view.report))

    def default_export_path(self) -> Path:
        folder = self.export_dir or self.link.backend.export_dir()
        return folder / f"deepresearch-{self.view.session_id or 'report'}.md"

    def export_report(self) -> None:
        """Ask where (the default folder is offered), then write and say the path."""
        if self.view.report is None:
            self.notify("No report to export yet.", severity="warning")
            return
        from tui.screens.export import ExportScreen  # dialogs load when first used

        self.app.push_screen(ExportScreen(self.default_export_path()), self._export_to)

    def _export_to(self, path: Path | None) -> None:
        report = self.view.report
        if path is None or report is None:
            return
        from tui.screens.export import write_export

        written = write_export(path, report.report)
        if isinstance(written, str):
            self.notify(f"Export failed: {written}", severity="error", markup=False)
            return
        self.query_one(RunNotice).show_info(f"Report exported to {written}")
        self.notify(f"Exported to {written}", markup=False)

    def copy_report(self) -> None:
        if self.view.report is None:
            return
        from tui.clipboard import copy_text

        result = copy_text(self.view.report.report, self.app.copy_to_clipboard)
        self.notify(result.message, severity="information" if result.copied else "warning")

    def show_note(self, text: str) -> None:
        self.query_one(RunNotice).show_info(text)

    def status_line(self) -> Text:
        return self.header.status_text()
