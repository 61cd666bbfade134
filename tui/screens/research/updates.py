"""The research screen's updates: every bridge message becomes pane and header updates.

Each handler drops a message from a session the person has left (`for_session_on_screen`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.link.engine_link import EngineCrashed
from tui.link.on_screen import for_session_on_screen
from tui.presentation.formatting import source_domain
from tui.screens.research.base import ResearchScreenBase
from tui.widgets.clarification_panel import ClarificationPanel
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.mode_toggle import ModeToggle
from tui.widgets.plan_pane import PlanPane
from tui.widgets.question_bar import QuestionBar
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice
from tui.widgets.units_table import UnitsPane

if TYPE_CHECKING:
    # Annotations only: the bridge and the event models load with the first engine call.
    from tui.link.bridge import (
        ClarificationAsked,
        EvidenceArrived,
        ModelCallUpdated,
        PhaseUpdated,
        PlanAccepted,
        PlanArrived,
        ProgressUpdated,
        ReportArrived,
        ReportWritten,
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

_ENDED_PHASES = {"done", "cancelled", "failed", "stopped"}
# A small terminal gives the report the screen, as it does the plan at review.
REPORT_ZOOMED = "On a terminal this small the report fills the screen: F10 shows every pane again."
_UNFINISHED_UNITS = {"queued", "running"}
# Phases before a plan exists: the plan pane shows that the plan is being drafted.
_PLANNING_PHASES = {"scoping", "routing", "clarifying", "planning"}
# Phases in which the run waits for the person: not research time.
_WAITING_FOR_PERSON = {"plan_review", "clarifying"}


def unit_detail_screen() -> type[UnitDetailScreen]:
    # The detail screens load when first opened, not before the first frame.
    from tui.screens.unit_detail import UnitDetailScreen

    return UnitDetailScreen


class EngineUpdates(ResearchScreenBase):
    @for_session_on_screen
    def on_session_began(self, message: SessionBegan) -> None:
        event = message.event
        if event.session_id != self.view.session_id and self.view.session_id:
            self.reset()
        # A resumed run goes on from the time its question had taken; a new question (a
        # follow-up too) is timed from zero.
        taken = self._elapsed_so_far() if event.resumed else 0.0
        if not event.resumed and self.view.asked_at is not None:
            taken = self.clock() - self.view.asked_at  # timed from the person's Enter
        self.view.asked_at = self.view.waiting_since = None
        self.view.session_id = event.session_id
        self.view.question = event.question
        self.view.offline = event.offline
        self.view.search_provider = event.search_provider
        self.view.started_at, self.view.finished_at = self.clock() - taken, None
        self.header.show_offline(event.offline)
        self.header.show_elapsed(taken)
        if event.question:  # a resumed leg may not say it again
            self.sub_title = event.question
            self.query_one(QuestionBar).show_asked(event.question)
        if event.resumed:
            self._run_resumed()
        else:
            self.header.forget_gate()

    def _elapsed_so_far(self) -> float:
        started, finished = self.view.started_at, self.view.finished_at
        if started is None:
            return 0.0
        return (finished if finished is not None else self._clock_now()) - started

    def _run_resumed(self) -> None:
        """The run goes again: what said it had stopped (cancelled, failed) is no longer so,
        live or in a reopened session that was resumed later."""
        self.view.failure = None
        self.query_one(RunNotice).hide()
        self._set_resumable(False)
        if self.view.phase in _ENDED_PHASES:
            self.view.phase, self.view.phase_detail = "resuming", ""
            self.header.show_phase("resuming")
            self.query_one(ReportPane).show_phase("resuming")

    def _run_over(self, units_end: str = "stopped") -> None:
        """The run stopped (done, cancelled, failed): its clock stops, no model call of it is
        still going, whatever the last progress line said, and no unit of it is still
        running: one the engine never reported finished shows `units_end` (cancelled, or
        stopped when the run ended some other way)."""
        self.header.show_model_call("")
        self.view.asked_at = None
        # Whatever the plan pane said was under way ("reading the question…") is not.
        self.query_one(PlanPane).show_run_ended()
        if self.view.started_at is not None and self.view.finished_at is None:
            self.view.finished_at = self._clock_now()
            self.view.waiting_since = None
            self._tick()
        unfinished = [u for u in self.view.units.values() if u.status in _UNFINISHED_UNITS]
        if unfinished:
            # A status of the app's, not the engine's: the unit's last report stays as it was.
            ended = [u.model_copy(update={"status": units_end}) for u in unfinished]
            for unit in ended:
                self.view.units[unit.id] = unit
            self.query_one(UnitsPane).table.show_units([self.view.live_unit(u) for u in ended])
            self._refresh_unit_detail()

    @for_session_on_screen
    def on_phase_updated(self, message: PhaseUpdated) -> None:
        event = message.event
        self.view.phase, self.view.phase_detail = event.phase, event.detail
        self._wait_for_person(event.phase in _WAITING_FOR_PERSON)
        self.header.show_phase(event.phase, event.detail)
        plan = self.query_one(PlanPane)
        if event.phase != "plan_review" and plan.reviewing:
            # The engine moved on (approved elsewhere, revised, replayed): nothing to review.
            plan.end_review()
        if event.phase != "plan_review":
            self._unzoom_plan()
        plan.show_phase(event.phase if event.phase in _PLANNING_PHASES else "")
        self.query_one(ReportPane).show_phase(event.phase)
        if event.phase in _ENDED_PHASES:
            self._run_over("cancelled" if event.phase == "cancelled" else "stopped")

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
            # `before` is the plan sent back, with the person's edits: the engine keeps them
            # through the revision, so a model that ignored the feedback changed nothing.
            note = (
                "The model returned the plan unchanged: edit it yourself or send different "
                "feedback."
            )
        elif before is not None:
            note = "Revised with your feedback."
        plan = self.query_one(PlanPane)
        plan.show_plan(
            event.plan,
            revision=event.revision,
            reviewing=True,
            note=note,
            unit_limit=event.max_research_units,
            requests=event.requests,
            edited_before=event.edited_tracks,
        )
        plan.focus()
        if self._is_small():
            # At 80×24 the plan needs the whole grid to be read and reviewed.
            self.maximize(plan, container=False)

    @for_session_on_screen
    def on_plan_accepted(self, message: PlanAccepted) -> None:
        """The plan research runs on: shown approved, with the person's edits, live and
        when the session is reopened."""
        event = message.event
        self.view.plan, self.view.plan_revision = event.plan, event.revision
        self.query_one(PlanPane).show_approved(
            event.plan, revision=event.revision, edited=event.edited
        )
        self._unzoom_plan()

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
        if progress.unresearched_tracks:
            from tui.presentation.labels import unresearched_reason_label

            why = unresearched_reason_label(progress.unresearched_reason)
            self.query_one(PlanPane).show_unresearched(progress.unresearched_tracks, why)
            self.query_one(ReportPane).show_unresearched(progress.unresearched_tracks, why)

    @for_session_on_screen
    def on_units_updated(self, message: UnitsUpdated) -> None:
        units = message.drain()
        for unit in units:
            self.view.units[unit.id] = unit
        self.query_one(UnitsPane).table.show_units([self.view.live_unit(u) for u in units])
        self._refresh_unit_detail()

    def _recount_units(self, unit_ids: set[str | None]) -> None:
        """Units whose tool calls or evidence arrived: their counts grow as the events do."""
        table = self.query_one(UnitsPane).table
        for unit_id in unit_ids:
            unit = self.view.units.get(unit_id or "")
            if unit is not None:
                table.show_unit(self.view.live_unit(unit))

    @for_session_on_screen
    def on_tool_calls_logged(self, message: ToolCallsLogged) -> None:
        calls = message.drain()
        self.view.add_tool_calls(calls)
        self._recount_units({call.unit_id for call in calls})
        self._refresh_unit_detail()

    @for_session_on_screen
    async def on_evidence_arrived(self, message: EvidenceArrived) -> None:
        fresh = self.view.add_records(message.drain())
        for record in fresh:
            self.view.domains.update(source_domain(url) for url in record.source_urls)
        # The gate counts grow with the ledger, between the supervisor's own reports.
        self.header.show_evidence(len(self.view.records), len(self.view.domains))
        self._recount_units({record.research_unit_id for record in fresh})
        self._refresh_unit_detail()
        await self.query_one(LedgerPane).add_records(fresh)

    def _refresh_unit_detail(self) -> None:
        """A unit detail screen on top follows its unit live instead of freezing."""
        for screen in self.app.screen_stack:
            if isinstance(screen, unit_detail_screen()):
                unit = self.view.live_unit(self.view.units.get(screen.unit.id, screen.unit))
                screen.update(
                    unit,
                    list(self.view.tool_calls.get(unit.id, [])),
                    self.view.findings_of(unit.id),
                )

    @for_session_on_screen
    def on_model_call_updated(self, message: ModelCallUpdated) -> None:
        from engine.progress_text import describe_model_call

        event = message.event
        compact = describe_model_call(event, compact=True) or ""
        alive = event.state in ("waiting", "generating")
        self.header.show_model_call(
            describe_model_call(event, short=True) or "",
            compact,
            f"{event.role} {event.elapsed_seconds:.0f}s" if alive else compact,
        )

    @for_session_on_screen
    def on_usage_changed(self, message: UsageChanged) -> None:
        self.view.usage = message.event
        self.header.show_usage(message.event)

    @for_session_on_screen
    async def on_report_written(self, message: ReportWritten) -> None:
        pane = self.query_one(ReportPane)
        await pane.show_written(message.event)
        if message.event.start:
            self._show_report_pane(pane)

    @for_session_on_screen
    async def on_report_arrived(self, message: ReportArrived) -> None:
        self.view.report = message.event
        pane = self.query_one(ReportPane)
        await pane.show_report(message.event)
        self._show_report_pane(pane)

    def _show_report_pane(self, pane: ReportPane) -> None:
        """The report is what the run was for: on a small terminal it takes the screen, as
        the plan does for its review; on a larger one its pane takes the keys."""
        if self._is_small() and self.maximized is not pane and not self.view.report_zoomed:
            self.view.report_zoomed = True
            self.maximize(pane, container=False)
            # Said once: the units and the ledger did not go away, they are under it.
            self.notify(REPORT_ZOOMED, timeout=8, markup=False)
        pane.focus()

    @for_session_on_screen
    def on_run_failed_notice(self, message: RunFailedNotice) -> None:
        event = message.event
        self.view.failure = event.error
        # The failure is the run's latest word: the header no longer says what it was doing.
        self.view.phase, self.view.phase_detail = "failed", ""
        self.header.show_phase("failed")
        self._run_over()
        self.query_one(RunNotice).show_failure(event.error, resumable=event.resumable)
        self._set_resumable(event.resumable)

    @for_session_on_screen
    def on_run_ended(self, message: RunEnded) -> None:
        self._run_over("cancelled" if message.event.status == "cancelled" else "stopped")
        if message.event.status == "completed":
            # Whatever stopped it before (a cancel, a failure) was resumed and is over.
            self._set_resumable(False)
        if message.event.status == "partial":
            from tui.presentation.budget_words import budget_stop_words

            stop = self.view.budget_stop
            cap = budget_stop_words(stop) if stop else "the session's budget"
            self.query_one(RunNotice).show_info(
                f"Partial report: research stopped at {cap}. Raise it in Settings (F3), "
                "then ctrl+r continues the research."
            )
            self._set_resumable(True)
        if message.event.status == "cancelled":
            self._plan_review_cancelled()
            self._unzoom_plan()
            self.query_one(RunNotice).show_info("Run stopped. ctrl+r resumes it.")
            self._set_resumable(True)

    @for_session_on_screen
    def on_engine_crashed(self, message: EngineCrashed) -> None:
        self.view.failure = message.reason
        if self.view.started_at is not None and self.view.finished_at is None:
            # A run of this app's raised: it is over. (A session that could not be opened
            # to resume shows what was stored, as it was.)
            self.view.phase, self.view.phase_detail = "failed", ""
            self.header.show_phase("failed")
            self.query_one(ReportPane).show_phase("failed")
            self._run_over()
        self.query_one(RunNotice).show_failure(message.reason, resumable=True)
        self._set_resumable(True)

    @for_session_on_screen
    def on_stream_closed(self, message: StreamClosed) -> None:
        if message.cancelled:
            if self.view.phase not in _ENDED_PHASES:
                # The app stopped the run's worker before the engine said it had stopped:
                # the phase it last reported is over, and so is its clock.
                self.view.phase, self.view.phase_detail = "stopped", ""
                self.header.show_phase("stopped")
                self.query_one(ReportPane).show_phase("cancelled")
            # Units the engine had no time to close out were stopped with the worker.
            self._run_over("cancelled")
            self._plan_review_cancelled()
            self._unzoom_plan()
            self.query_one(RunNotice).show_info(
                "Run stopped. The session is saved: ctrl+r resumes it."
            )
            self._set_resumable(True)
        self.app.refresh_bindings()  # the cancel key shows only while a run goes
