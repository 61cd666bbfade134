"""The help screen: tui/help.md rendered as Markdown."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Markdown

from tui.screens.detail import PagerScreen, ScrollPanel

HELP_FILE = Path(__file__).resolve().parent.parent / "help.md"


class HelpScreen(PagerScreen):
    CSS_PATH = Path(__file__).with_name("help.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "dismiss", "Close", show=False, id="help.close")
    ]
    panel_id = "help-panel"

    def compose(self) -> ComposeResult:
        with ScrollPanel(id="help-panel") as panel:
            panel.border_title = "Help"
            yield Markdown(HELP_FILE.read_text(encoding="utf-8"), open_links=False)
        yield Footer()
