"""The main research screen: four panes, the header, the question bar.

It turns bridge messages into widget updates (`updates`) and widget messages into driver calls
(`requests`), and opens what the reader asks to see (`details`). Policy lives in the engine;
this screen only shows what the engine reported and forwards decisions.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Vertical
from textual.message import Message
from textual.widget import Widget

from tui.link.engine_link import EngineLink
from tui.link.on_screen import for_session_on_screen
from tui.screens.research.details import ReaderDetails
from tui.screens.research.requests import PersonRequests
from tui.screens.research.updates import EngineUpdates
from tui.widgets.clarification_panel import ClarificationPanel
from tui.widgets.context_footer import ContextFooter
from tui.widgets.ledger_pane import LedgerPane
from tui.widgets.plan_pane import PlanPane
from tui.widgets.question_bar import QuestionBar
from tui.widgets.report_pane import ReportPane
from tui.widgets.run_notice import RunNotice
from tui.widgets.status_header import StatusHeader
from tui.widgets.units_table import UnitsPane

if TYPE_CHECKING:
    from engine.events import Event
    from tui.link.bridge import BudgetHit, PhaseUpdated

PANE_IDS = ("plan", "units", "ledger", "report")


class _ScreenClosed(Exception):
    """Raised from an indexing progress callback to stop indexing when the screen closes."""


class ResearchScreen(PersonRequests, EngineUpdates, ReaderDetails):
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
        super().__init__(link, clock=clock, export_dir=export_dir)
        # Set when the screen goes away: background indexing stops at the next file.
        self._stop_indexing = threading.Event()
        # Each pane's own title, which a zoomed pane extends with the question.
        self._pane_titles: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield StatusHeader(id="header")
        with Vertical(id="body"):
            yield RunNotice(id="notice")
            yield ClarificationPanel(id="clarify")
            with Grid(id="panes"):
                yield PlanPane(id="plan")
                yield UnitsPane(id="units")
                yield LedgerPane(unit_title=self._unit_title, id="ledger")
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
        import tui.link.bridge
        import tui.view.plan_draft  # noqa: F401

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

    def _show_settings_offline(self, offline: bool, *, changed: bool = False) -> None:
        self.settings_offline = offline
        # A session's own report wins once it started, until the settings change: the badge
        # then says what the next question runs on.
        if changed or not self.view.session_id:
            self.header.show_offline(offline)

    def read_settings(self) -> None:
        """The settings were saved: the offline badge follows what is now in force."""
        self.run_worker(self._read_settings, thread=True, name="settings", group="settings")

    def _read_settings(self) -> None:
        try:
            offline = self.link.backend.offline_model()
        except Exception:  # bad settings: the doctor (F3) says which
            return
        self.app.call_from_thread(partial(self._show_settings_offline, offline, changed=True))

    # ---- a stored session --------------------------------------------------------------

    class Replayed(Message, bubble=False):
        """The last of a replay's messages: how long the stored session took (None: unknown)."""

        def __init__(self, elapsed: float | None, epoch: int) -> None:
            super().__init__()
            self.elapsed = elapsed
            self.epoch = epoch

    def replay(self, events: list[Event], *, elapsed: float | None = None) -> None:
        """Show a stored session by replaying its events, exactly as they arrived live, and
        then the time it took (`elapsed`, from what was stored), not the replay's own."""
        from tui.link.bridge import EventBridge

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

    @for_session_on_screen
    def on_budget_hit(self, message: BudgetHit) -> None:
        self.view.budget_stop = message.event
        # In place, not posted: a phase posted now would land after later events.
        message.phase.epoch = message.epoch
        self.on_phase_updated(message.phase)
        self._on_phase_updated(message.phase)

    # Textual calls this as well as `EngineUpdates.on_phase_updated` (a handler with a leading
    # underscore is its private form); the bridge's messages load only with the first run.
    @for_session_on_screen
    def _on_phase_updated(self, message: PhaseUpdated) -> None:
        """The engine waits for an answer only in the clarifying phase: once it is in any
        other, the question was answered (live, or earlier in a reopened session), and an
        answer typed into the panel would go nowhere, so the panel goes."""
        panel = self.query_one(ClarificationPanel)
        if message.event.phase == "clarifying" or not panel.asking:
            return
        answering = panel.has_focus_within
        panel.close()
        self.view.clarification = None
        if answering:  # focus never stays in a hidden input
            self.query_one("#question").focus()

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

    def watch_maximized(self, previous: Widget | None, maximized: Widget | None) -> None:
        """A zoomed pane covers the question bar: its title says the question instead."""
        self._title_with_question(previous, "")
        self._title_with_question(maximized, self.view.question)

    def _title_with_question(self, pane: Widget | None, question: str) -> None:
        if pane is None or pane.id not in PANE_IDS:
            return
        title = self._pane_titles.setdefault(pane.id, str(pane.border_title or ""))
        pane.border_title = (
            Text.assemble(title, ("  asked ", "dim"), question) if question else title
        )

    def toggle_zoom(self) -> None:
        """Zoom the focused pane to the whole screen, or restore the four panes."""
        if self.maximized is not None:
            self.minimize()
            return
        pane = self.pane_of(self.focused) or self.query_one(ReportPane)
        self.maximize(pane, container=False)
        pane.focus()
