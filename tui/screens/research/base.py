"""What the research screen's parts share: the session on screen, the header, the link.

The screen is split by responsibility: `requests` (the person → the engine), `updates` (the
engine → the panes), `details` (detail windows, export, copy) and `screen` (layout, panes,
start-up). Each part is a class over this base, and the screen is all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.screen import Screen

from tui.link.engine_link import EngineLink
from tui.view.session_view import SessionView
from tui.widgets.clarification_panel import ClarificationPanel
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.mode_toggle import ModeToggle
from tui.widgets.plan_pane import PlanPane
from tui.widgets.question_bar import QuestionBar
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsPane, unit_title

# Below this size the plan pane takes the whole grid while a plan waits for review.
SMALL_TERMINAL = (100, 30)


class ResearchScreenBase(Screen[None]):
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

    @property
    def header(self) -> StatusHeader:
        return self.query_one(StatusHeader)

    def _tick(self) -> None:
        started, finished = self.view.started_at, self.view.finished_at
        if started is not None:
            end = finished if finished is not None else self._clock_now()
            self.header.show_elapsed(end - started, final=finished is not None)

    def _clock_now(self) -> float:
        """Now, on the run's clock: while the run waits for the person, it stands still."""
        waiting = self.view.waiting_since
        return waiting if waiting is not None else self.clock()

    def _wait_for_person(self, waiting: bool) -> None:
        """Stop the run's clock while it waits for the person; go on from there after."""
        view = self.view
        if waiting and view.waiting_since is None and view.finished_at is None:
            view.waiting_since = self.clock()
        elif not waiting and view.waiting_since is not None:
            if view.started_at is not None:
                view.started_at += self.clock() - view.waiting_since
            view.waiting_since = None
        self._tick()

    def _unit_title(self, unit_id: str) -> str:
        unit = self.view.units.get(unit_id)
        return unit_title(unit.topic) if unit is not None else ""

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
        self.query_one(QuestionBar).show_asked("")
        self._set_resumable(False)

    def _set_resumable(self, resumable: bool) -> None:
        # The footer offers the resume key exactly while there is something to resume.
        self.view.resumable = resumable
        self.app.refresh_bindings()

    def _plan_review_cancelled(self) -> None:
        plan = self.query_one(PlanPane)
        if plan.reviewing:  # a plan approved earlier stays approved when research is stopped
            plan.end_review("cancelled")

    def _unzoom_plan(self) -> None:
        if self.maximized is self.query_one(PlanPane):
            self.minimize()

    def _is_small(self) -> bool:
        width, height = SMALL_TERMINAL
        return self.size.width < width or self.size.height < height

    def show_note(self, text: str) -> None:
        self.query_one(RunNotice).show_info(text)

    def status_line(self) -> Text:
        return self.header.status_text()
