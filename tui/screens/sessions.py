"""Saved sessions: reopen a finished report, resume a stopped run, delete one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from engine.progress_text import follow_up_words
from engine.protocol import SessionInfo
from tui.link.backend import Backend
from tui.presentation.failures import describe_failure
from tui.presentation.formatting import compact_stamp, local_stamp, one_line
from tui.presentation.labels import SESSION_STATUSES, session_status_label, session_status_word
from tui.presentation.narrow_text import KeptEnd
from tui.widgets.context_footer import ContextFooter
from tui.widgets.fit_columns import FitColumnsTable
from tui.widgets.row_preview import RowPreview, table_cursor_key

_REOPEN_STATUSES = {"completed", "partial", "cancelled"}
# The question takes what the other columns leave, so they are short: the time as lists of
# mail show it, the status in a word or two. The line under the table shows the row whole:
# the question, the status in full, the mode, the time to the minute and the session id.
_COLUMNS = (
    ("Question", "question", 40),
    ("Updated", "updated", len("2025-01-02")),
    ("Status", "status", max(len(session_status_word(status)) for status in SESSION_STATUSES)),
    ("Enter", "action", 6),
)


class SessionsTable(FitColumnsTable):
    flex_column = "question"
    # The table has the focus, so its Enter is the one the footer shows.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select_cursor", "Open", id="sessions.open")
    ]


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
    # Its stylesheet loads with the app's (tui/app.py): read as the screen opens, it would
    # restyle every widget of the app, and the list would take longer to appear.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="sessions.back"),
        Binding("enter", "choose", "Open", show=False),
        Binding("d,delete", "delete", "Delete", id="sessions.delete"),
        Binding("f5", "refresh", "Refresh", id="sessions.refresh"),
    ]

    class Deleted(Message):
        """A session is gone: whatever shows it must let it go."""

        def __init__(self, session_id: str) -> None:
            super().__init__()
            self.session_id = session_id

    def __init__(self, backend: Backend, *, on_screen: str | None = None) -> None:
        super().__init__()
        self.backend = backend
        # The session the research screen shows (deleting it clears that screen).
        self.on_screen = on_screen
        self.sessions: list[SessionInfo] = []
        # The questions each session was asked (first, then follow-ups), read after the rows.
        self.questions: dict[str, list[str]] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="sessions-panel") as panel:
            panel.border_title = "Sessions"
            yield Static(
                Text(
                    "Enter does what the row says: reopen shows a finished or cancelled "
                    "session, resume continues an interrupted run.",
                    style="dim",
                ),
                id="sessions-help",
            )
            yield SessionsTable(id="sessions-table", cursor_type="row", zebra_stripes=True)
            yield RowPreview(id="sessions-preview")
        yield ContextFooter(screen_keys_here=True)

    def on_mount(self) -> None:
        table = self.query_one(SessionsTable)
        table.add_fitted_columns(_COLUMNS)
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
        now = datetime.now()
        for info in self.sessions:
            action = "reopen" if info.status in _REOPEN_STATUSES else "resume"
            table.add_row(
                self._question_cell(info),
                compact_stamp(info.updated_at, now),
                Text(session_status_word(info.status)),
                Text(action, style="dim"),
                key=info.session_id,
            )
        if not self.sessions:
            help_line.update(Text("No saved sessions yet.", style="dim"))
        self._update_preview()
        self.load_questions()

    def _asked(self, info: SessionInfo) -> list[str]:
        """The session's questions, first to last: the index row keeps only the latest."""
        return self.questions.get(info.session_id) or [info.question]

    def _question_cell(self, info: SessionInfo) -> KeptEnd:
        """The first question, and how many follow-ups it had (shown whatever the width)."""
        first, *follow_ups = self._asked(info)
        more = follow_up_words(len(follow_ups))
        return KeptEnd(one_line(first, 200), Text(f" ({more})" if more else "", style="dim"))

    @work(exclusive=True, group="sessions-questions", name="session-questions")
    async def load_questions(self) -> None:
        """Each session's first question and follow-ups, from its log, once the rows show."""
        try:
            questions = await self.backend.session_questions(
                [info.session_id for info in self.sessions]
            )
        except Exception:  # the rows already name each session by its latest question
            return
        self.questions = questions
        table = self.query_one(SessionsTable)
        for info in self.sessions:
            if info.session_id in questions and info.session_id in table.rows:
                table.update_cell(info.session_id, "question", self._question_cell(info))
        self._update_preview()

    # ---- the highlighted session in full -------------------------------------------------

    def _highlighted(self) -> SessionInfo | None:
        key = table_cursor_key(self.query_one(DataTable))
        return next((info for info in self.sessions if info.session_id == key), None)

    def _update_preview(self) -> None:
        info = self._highlighted()
        preview = self.query_one(RowPreview)
        if info is None:
            preview.show(None)
            return
        action = "reopen" if info.status in _REOPEN_STATUSES else "resume"
        first, *follow_ups = self._asked(info)
        text = Text(one_line(first, 2000))
        for number, question in enumerate(follow_ups, start=1):
            text.append(f" · follow-up {number}: ", style="dim")
            text.append(one_line(question, 400))
        text.append(
            f" · {session_status_label(info.status)} ({action}) · {info.mode}"
            f" · updated {local_stamp(info.updated_at)} · {info.session_id}",
            style="dim",
        )
        preview.show(text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._update_preview()

    # ---- delete ----------------------------------------------------------------------------

    def action_delete(self) -> None:
        info = self._highlighted()
        if info is None:
            self.notify("No session to delete.", severity="warning")
            return
        if info.status == "running":
            # The engine refuses too; saying so before asking spares a pointless question.
            self.notify(
                "This session is running: cancel the run (ctrl+x) before deleting it.",
                severity="warning",
            )
            return
        from tui.screens.confirm import ConfirmScreen

        question = one_line(info.question, 160) or info.session_id
        warning = (
            "Everything stored for it goes: plan, evidence, reports, audits and checkpoints "
            "(exported copies stay). This cannot be undone."
        )
        if info.session_id == self.on_screen:
            warning += " It is the session on screen: the screen is cleared."

        def answered(yes: bool | None) -> None:
            if yes:
                self.delete_session(info)
            else:
                self.notify("Nothing was deleted.")

        self.app.push_screen(
            ConfirmScreen("Delete this session?", f"{question}\n\n{warning}"), answered
        )

    @work(exclusive=True, group="sessions-delete", name="delete-session")
    async def delete_session(self, info: SessionInfo) -> None:
        try:
            await self.backend.delete_session(info.session_id)
        except Exception as error:
            from engine.protocol import SessionNotDeleted

            reason = str(error) if isinstance(error, SessionNotDeleted) else None
            self.notify(
                f"Not deleted: {reason or describe_failure(error)}",
                severity="error",
                markup=False,
            )
            return
        self.post_message(self.Deleted(info.session_id))
        self.notify(f"Deleted: {one_line(info.question, 60)}", markup=False)
        self.action_refresh()

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
