"""Saved sessions: reopen a finished report, resume an interrupted run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from engine.protocol import SessionInfo
from tui.backend import Backend
from tui.labels import session_status_label
from tui.presentation import one_line

_REOPEN_STATUSES = {"completed", "cancelled"}


@dataclass(frozen=True)
class SessionChoice:
    """What the person chose: read the saved report, or continue the run."""

    action: Literal["reopen", "resume"]
    session: SessionInfo


def choice_for(session: SessionInfo) -> SessionChoice:
    action: Literal["reopen", "resume"] = (
        "reopen" if session.status in _REOPEN_STATUSES else "resume"
    )
    return SessionChoice(action, session)


class SessionsScreen(Screen[SessionChoice | None]):
    CSS_PATH = Path(__file__).with_name("sessions.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="sessions.back"),
        Binding("enter", "choose", "Open", id="sessions.open"),
        Binding("f5", "refresh", "Refresh", id="sessions.refresh"),
    ]

    def __init__(self, backend: Backend) -> None:
        super().__init__()
        self.backend = backend
        self.sessions: list[SessionInfo] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-panel") as panel:
            panel.border_title = "Sessions"
            yield Static(
                Text("Enter reopens a finished report or resumes an interrupted run.", style="dim"),
                id="sessions-help",
            )
            yield DataTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, key in (
            ("Question", "question"),
            ("Updated", "updated"),
            ("Status", "status"),
            ("Mode", "mode"),
        ):
            table.add_column(label, key=key)
        table.focus()
        self.action_refresh()

    @work(exclusive=True, group="sessions", name="list-sessions")
    async def action_refresh(self) -> None:
        help_line = self.query_one("#sessions-help", Static)
        try:
            sessions = await self.backend.list_sessions()
        except Exception as error:  # the list is optional; say why it is empty
            help_line.update(
                Text(f"Could not read saved sessions ({type(error).__name__}).", style="red")
            )
            return
        self.sessions = sorted(sessions, key=lambda info: info.updated_at, reverse=True)
        table = self.query_one(DataTable)
        table.clear()
        for info in self.sessions:
            action = "reopen" if info.status in _REOPEN_STATUSES else "resume"
            table.add_row(
                Text(one_line(info.question, 80)),
                info.updated_at[:16].replace("T", " "),
                Text(f"{session_status_label(info.status)} ({action})"),
                info.mode,
                key=info.session_id,
            )
        if not self.sessions:
            help_line.update(Text("No saved sessions yet.", style="dim"))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self._choose(event.cursor_row)

    def action_choose(self) -> None:
        self._choose(self.query_one(DataTable).cursor_row)

    def _choose(self, row: int) -> None:
        if 0 <= row < len(self.sessions):
            self.dismiss(choice_for(self.sessions[row]))

    def action_back(self) -> None:
        self.dismiss(None)
