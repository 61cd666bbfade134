"""A yes/no question before something the person might regret (abandon a plan, delete)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


class ConfirmScreen(ModalScreen[bool]):
    """Dismisses with True for y, False for n or Escape."""

    CSS_PATH = Path(__file__).with_name("dialog.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
    ]

    def __init__(self, title: str, question: str) -> None:
        super().__init__()
        self.title_text, self.question = title, question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-panel") as panel:
            panel.border_title = self.title_text
            yield Static(Text(self.question), classes="dialog-text")
            yield Static(Text("y: yes · n: no", style="dim"))
        yield Footer()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
