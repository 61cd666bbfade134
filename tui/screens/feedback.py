"""Asks for the written feedback that sends a plan back for revision."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static


class FeedbackInput(Input):
    """The feedback field; its Enter is named in the footer like every other key that acts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Send to the planner", id="feedback.send")
    ]


class FeedbackScreen(ModalScreen[str | None]):
    """Dismisses with the feedback text, or None when abandoned."""

    CSS_PATH = Path(__file__).with_name("feedback.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "abandon", "Back to the plan", id="feedback.abandon")
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="feedback-panel") as panel:
            panel.border_title = "Send the plan back"
            yield Static("What should the planner change? Enter sends it.", id="feedback-help")
            yield FeedbackInput(
                placeholder="e.g. add a track on costs; drop the history track", id="feedback"
            )
        yield Footer()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_abandon(self) -> None:
        self.dismiss(None)
