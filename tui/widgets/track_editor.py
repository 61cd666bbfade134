"""In-place editor for one plan track: title, section and queries, with the refusal reason."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from tui.view.track_fields import TrackFields


class TrackEditor(Vertical):
    """Three inputs; Enter submits, Escape abandons. A refused edit keeps what was typed."""

    DEFAULT_CSS = """
    TrackEditor { height: auto; border: round $accent; padding: 0 1; }
    TrackEditor Input { height: 1; border: none; padding: 0; margin: 0 0 0 0; }
    /* Input's own focus rule adds a tall border, which in one row would hide the text. */
    TrackEditor Input:focus { border: none; background: $boost; }
    TrackEditor .label { height: 1; color: $text-muted; }
    TrackEditor #track-error { height: auto; color: $error; display: none; }
    TrackEditor.-refused #track-error { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "abandon", "Discard edit", id="plan.edit.discard"),
        # Priority: the app moves the focus as it reads the key, before the keys typed
        # after it are handed to a field. Handled by the field first, Tab would move the
        # focus only after those keys had landed in the field it left.
        Binding("tab", "next_field", "Next field", show=False, priority=True),
        Binding("shift+tab", "previous_field", "Previous field", show=False, priority=True),
    ]

    class Submitted(Message):
        def __init__(self, editor: TrackEditor, fields: TrackFields) -> None:
            super().__init__()
            self.editor = editor
            self.fields = fields

    class Abandoned(Message):
        def __init__(self, editor: TrackEditor) -> None:
            super().__init__()
            self.editor = editor

    def __init__(self, fields: TrackFields, *, index: int, is_new: bool) -> None:
        super().__init__(classes="track-editor")
        self.initial = fields
        self.index = index
        self.is_new = is_new

    def compose(self) -> ComposeResult:
        yield Static("Title", classes="label")
        yield Input(
            self.initial.title,
            placeholder="what this track researches",
            id="title",
            select_on_focus=False,
        )
        yield Static("Report section", classes="label")
        yield Input(
            self.initial.section,
            placeholder="its report section heading",
            id="section",
            select_on_focus=False,
        )
        yield Static("Queries (separate with |)", classes="label")
        yield Input(
            self.initial.queries,
            placeholder="query one | query two",
            id="queries",
            select_on_focus=False,
        )
        yield Static(id="track-error")

    def on_mount(self) -> None:
        self.query_one("#title", Input).focus()

    @property
    def fields(self) -> TrackFields:
        return TrackFields(
            self.query_one("#title", Input).value,
            self.query_one("#section", Input).value,
            self.query_one("#queries", Input).value,
        )

    def show_refusal(self, reason: str) -> None:
        self.query_one("#track-error", Static).update(Text(f"Not applied: {reason}"))
        self.add_class("-refused")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Submitted(self, self.fields))

    def action_next_field(self) -> None:
        self._move_focus(1)

    def action_previous_field(self) -> None:
        self._move_focus(-1)

    def _move_focus(self, step: int) -> None:
        fields = list(self.query(Input).results(Input))
        focused = self.screen.focused
        index = fields.index(focused) if focused in fields else -1
        target = fields[(index + step) % len(fields)]
        # Now, not `focus()` (which waits a turn of the message loop): the next key goes there.
        self.screen.set_focus(target, scroll_visible=False)
        # Brought into view once laid out: at 80x24 the later fields sit below the pane's edge.
        self.call_after_refresh(target.scroll_visible, animate=False)

    def action_abandon(self) -> None:
        self.post_message(self.Abandoned(self))
