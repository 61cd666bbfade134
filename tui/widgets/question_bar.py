"""The question input with the mode toggle beside it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input

from tui.widgets.mode_toggle import Mode, ModeToggle


class QuestionBar(Horizontal):
    """Enter sends the question with the chosen mode."""

    DEFAULT_CSS = """
    QuestionBar { height: 3; dock: bottom; }
    QuestionBar Input { width: 1fr; }
    QuestionBar ModeToggle { margin: 1 0 0 1; }
    """

    class Asked(Message):
        def __init__(self, question: str, mode: Mode) -> None:
            super().__init__()
            self.question = question
            self.mode = mode

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Ask a research question and press Enter", id="question")
        yield ModeToggle(id="mode")

    def show_asked(self, question: str) -> None:
        """The session's question, on the field's top edge for the whole session: the field
        itself empties for the next one. "" when there is none."""
        field = self.query_one("#question", Input)
        field.border_title = Text.assemble(("asked ", "dim"), question) if question else None
        field.placeholder = (
            "Ask a follow-up and press Enter"
            if question
            else "Ask a research question and press Enter"
        )

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # Imported here: the first frame is drawn before anything of the engine loads.
        from engine.question_text import BlankText, cleaned_text

        event.stop()
        try:
            question = cleaned_text(event.value)
        except BlankText:
            return
        if question:
            self.post_message(self.Asked(question, self.query_one(ModeToggle).mode))
            event.input.clear()
