"""The research screen's requests: what the person asks of the engine (a question, an answer,
a plan decision, a resume), each sent as one driver call through the link."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.screens.research.base import ResearchScreenBase
from tui.widgets.clarification_panel import ClarificationPanel
from tui.widgets.plan_pane import PlanPane
from tui.widgets.question_bar import QuestionBar
from tui.widgets.run_notice import RunNotice

if TYPE_CHECKING:
    from engine.schemas import PlanDecision


class PersonRequests(ResearchScreenBase):
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
        self._show_starting()
        self.link.run(lambda driver: driver.start(question, mode=mode), self)

    def _show_starting(self) -> None:
        """Feedback the moment a question is sent: the engine may take seconds to say it
        began (the first question loads it)."""
        now = self.clock()
        self.view.asked_at = self.view.started_at = now
        self.view.finished_at = None
        self.view.phase, self.view.phase_detail = "starting", ""
        self.header.show_phase("starting")
        self.header.show_elapsed(0.0)
        self.query_one(PlanPane).show_phase("starting")
        self.app.refresh_bindings()

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
        self._show_starting()
        self.link.run(lambda driver: driver.start(question, mode=mode), self)  # type: ignore[arg-type]

    def on_clarification_panel_answered(self, message: ClarificationPanel.Answered) -> None:
        answer = message.answer
        self.query_one(ClarificationPanel).close()
        self.view.clarification = None
        self.link.run(lambda driver: driver.answer_clarification(answer), self)

    def on_plan_pane_decided(self, message: PlanPane.Decided) -> None:
        self.send_plan_decision(message.decision)

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
