"""The help screen: tui/help.md rendered as Markdown."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Markdown

HELP_FILE = Path(__file__).resolve().parent.parent / "help.md"


class HelpScreen(ModalScreen[None]):
    CSS_PATH = Path(__file__).with_name("help.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,f1", "dismiss", "Close", id="help.close")
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-panel") as panel:
            panel.border_title = "Help"
            yield Markdown(HELP_FILE.read_text(encoding="utf-8"), open_links=False)
        yield Footer()
