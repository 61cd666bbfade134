"""Base of the read-only detail modals: a titled, scrollable panel closed with Escape."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static


class DetailScreen(ModalScreen[None]):
    """Subclasses provide `title` and `lines()`; every line is plain text (markup off)."""

    CSS_PATH = Path(__file__).with_name("detail.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close", id="detail.close")
    ]

    title_text = "Details"

    def lines(self) -> Iterable[Text]:
        return ()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail-panel") as panel:
            panel.border_title = self.title_text
            for line in self.lines():
                yield Static(line, classes="detail-line")
        yield Footer()

    def show_lines(self) -> None:
        """Render `lines()` again, keeping the scroll position (for details that change)."""
        panel = self.query_one("#detail-panel", VerticalScroll)
        with self.app.batch_update():
            panel.remove_children()
            panel.mount_all(Static(line, classes="detail-line") for line in self.lines())


def heading(text: str) -> Text:
    return Text(text, style="bold underline")


def field(label: str, value: str) -> Text:
    return Text.assemble((f"{label}: ", "dim"), value)
