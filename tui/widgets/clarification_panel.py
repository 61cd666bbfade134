"""The engine's clarifying question, with an input for the answer."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static


class ClarificationPanel(Vertical):
    """Hidden until the engine asks; Enter sends the answer."""

    DEFAULT_CSS = """
    ClarificationPanel { height: auto; display: none; border: round $warning; padding: 0 1; }
    ClarificationPanel.-asking { display: block; }
    ClarificationPanel #clarify-question { height: auto; text-style: bold; }
    """

    class Answered(Message):
        def __init__(self, answer: str) -> None:
            super().__init__()
            self.answer = answer

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "The engine asks"

    def compose(self) -> ComposeResult:
        yield Static(id="clarify-question")
        yield Input(placeholder="Your answer, then Enter", id="clarify-answer")

    @property
    def asking(self) -> bool:
        return self.has_class("-asking")

    def ask(self, question: str) -> None:
        self.query_one("#clarify-question", Static).update(Text(question))
        self.add_class("-asking")
        self.query_one("#clarify-answer", Input).focus()

    def close(self) -> None:
        self.remove_class("-asking")
        self.query_one("#clarify-answer", Input).clear()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.post_message(self.Answered(event.value.strip()))
